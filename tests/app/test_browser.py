"""Real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright): upload, rankings, CSV download
checked against the command line, an XSS payload that must never run, and the README screenshots.

Skipped with a reason when chromium or playwright is missing, unless ``--require-browser`` (CI) makes
that a failure.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import json
import os
import subprocess
import sys
import time
import urllib.request

import pytest

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
except ImportError:  # the browser fixture then fails (CI) or skips (a machine without playwright)
    PlaywrightTimeoutError = TimeoutError

from ..conftest import ROOT, SAMPLE
from ..ports import free_port as _free_port
from . import stalls

CHROMIUM = "/usr/bin/chromium"
#: the file input of an uploader, by its widget key (never by position: the page has several uploaders)
UPLOADER = '.st-key-{} [data-testid="stFileUploaderDropzoneInput"]'
#: the Rankings page's signatures (plain text in a keyed container)
SIGNATURES = '.st-key-rank_signatures [data-testid="stText"]'
SYSTEMS = ["VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin"]
#: the README's screenshots are rewritten only on request: MTLENS_SCREENSHOTS=1 bash scripts/test.sh -k browser
UPDATE_SHOTS = os.environ.get("MTLENS_SCREENSHOTS") == "1"
TRACKED_SHOTS = ROOT / "docs" / "screenshots"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="module")
def browser(request):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    missing = None if sync_playwright else "playwright is not installed"
    if missing is None and not os.path.exists(CHROMIUM):
        missing = f"{CHROMIUM} is missing (apt-get install chromium)"
    if missing:
        if request.config.getoption("--require-browser"):
            pytest.fail(f"browser tests are required here but {missing}")
        pytest.skip(missing)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def wait_until_healthy(url: str, proc: subprocess.Popen, log, path="/_stcore/health", what="streamlit") -> None:
    """Wait (up to a minute) for a server's health check (Streamlit's by default: any answer of status 200 at
    ``path``), or fail with the end of its log."""
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}{path}", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    else:
        raise RuntimeError(f"{what} did not start: {log.read_text()[-2000:]}")
    if proc.poll() is not None:
        raise RuntimeError(f"{what} stopped: {log.read_text()[-2000:]}")


@contextlib.contextmanager
def running_server(log_dir, env=None, flags=("--server.address", "127.0.0.1"), port=None, script="app.py"):
    """A Streamlit server for app.py (or another ``script``) on a free port (stopped on exit); yields its
    URL on 127.0.0.1.

    ``flags``: the command line's own flags (by default the loopback address; ``()`` starts it exactly
    as the README's command does)."""
    port = port or _free_port()
    log = log_dir / f"streamlit-{port}.log"
    with open(log, "a") as out:  # appended to: a stalled test's stacks are written to it too (tests/app/stalls.py)
        proc = subprocess.Popen(
            [sys.executable, "-c", stalls.LAUNCH, "run", str(script), "--server.port", str(port), *flags],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    stalls.started(proc, log)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_healthy(url, proc, log)
        yield url
    finally:
        stalls.stopped(proc)
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("server")) as url:
        yield url


def _page(browser, url, dialogs):
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
    page = ctx.new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    page.get_by_text("Dataset", exact=True).wait_for(timeout=60_000)
    return ctx, page


def _idle(page, timeout=180_000):
    """Wait until the app has finished its run: no status widget saying it runs, no spinner."""
    page.wait_for_timeout(400)
    page.wait_for_function(
        """() => {
            const w = document.querySelector('[data-testid="stStatusWidget"]');
            const busy = w && /Running|Stop/.test(w.innerText);
            return !busy && !document.querySelector('[data-testid="stSpinner"]');
        }""",
        timeout=timeout,
    )
    page.wait_for_timeout(400)


def _settled(page, timeout=180_000):
    """:func:`_idle`, and no element dimmed as stale (Streamlit fades the previous run's elements while a
    run is under way): what a contrast measurement needs."""
    _idle(page, timeout)
    page.wait_for_function(
        """() => !document.querySelector('[data-stale="true"]')""",
        timeout=timeout,
    )


#: WCAG 2.x contrast ratio of every highlight chip, legend chip and label the page shows, text colour against
#: the first opaque background behind it (text with transparency blended over that background first)
CONTRAST_JS = """() => {
  const parse = c => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(',').map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lin = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const lum = c => 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  const behind = el => { for (; el; el = el.parentElement) { const c = parse(getComputedStyle(el).backgroundColor);
    if (c && c.a > 0.5) return c; } return {r: 255, g: 255, b: 255, a: 1}; };
  const alpha = el => { let a = 1; for (; el; el = el.parentElement) a *= Number(getComputedStyle(el).opacity); return a; };
  const out = [];
  for (const el of document.querySelectorAll('.mtl-tok, .mtl-legend span, .mtl-label, .mtl-mqm')) {
    if (!el.textContent.trim()) continue;
    const bg = behind(el), fg = parse(getComputedStyle(el).color), a = fg.a * alpha(el);
    const mix = k => a * fg[k] + (1 - a) * bg[k];
    const l1 = lum({r: mix('r'), g: mix('g'), b: mix('b')}), l2 = lum(bg);
    out.push({text: el.textContent.slice(0, 30), cls: el.className,
              ratio: (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05)});
  }
  const body = parse(getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor);
  return {chips: out, page_luminance: lum(body)};
}"""


def low_contrast(page, minimum: float = 4.5) -> tuple[list[dict], int, float]:
    """(chips below ``minimum``, number of chips measured, the page background's luminance)."""
    res = page.evaluate(CONTRAST_JS)
    return [c for c in res["chips"] if c["ratio"] < minimum], len(res["chips"]), res["page_luminance"]


def _goto(page, label):
    page.locator(".st-key-mtlens_nav").get_by_text(label, exact=True).click()
    _idle(page)


def _upload(page, refs, systems):
    page.locator(UPLOADER.format("up_refs")).set_input_files([str(p) for p in refs])
    _idle(page)
    page.locator(UPLOADER.format("up_systems")).set_input_files([str(p) for p in systems])
    _idle(page)


def _import(folder, name: str) -> str:
    """``python -m mtlens import FOLDER --name NAME`` (the test's workspace); the new set's id."""
    out = subprocess.run(
        [sys.executable, "-m", "mtlens", "import", str(folder), "--name", name],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return out.stdout.strip()


def _shots_dir(tmp_path):
    d = TRACKED_SHOTS if UPDATE_SHOTS else tmp_path / "screenshots"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _slider(page, option: str):
    """The range input of an option's sidebar slider (widget key ``w_<option>``)."""
    return page.locator(f'[data-testid="stSidebar"] .st-key-w_{option} input[type="range"]')


def test_upload_rankings_csv_equals_cli_and_screenshots(browser, server, tmp_path):
    dialogs: list[str] = []
    ctx, page = _page(browser, server, dialogs)
    SHOTS = _shots_dir(tmp_path)
    page.screenshot(path=str(SHOTS / "home.png"))
    refs = [SAMPLE / "ref.txt", SAMPLE / "ref2.txt"]
    syss = [SAMPLE / f"{n}.txt" for n in SYSTEMS]
    _upload(page, refs, syss)
    page.get_by_text("your upload").first.wait_for(timeout=60_000)
    _goto(page, "Rankings")
    page.get_by_text("Signatures").wait_for(timeout=120_000)
    _idle(page)
    assert page.locator(".js-plotly-plot").count() == 0  # the chart's expander is closed: no plotly.js yet
    page.get_by_text("Chart: scores with 95% confidence intervals").click()  # opened, the chart is drawn
    page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
    _idle(page)
    page.screenshot(path=str(SHOTS / "rankings.png"))
    with page.expect_download(timeout=60_000) as dl:
        page.get_by_role("button", name="Download CSV").click()
    path = tmp_path / "scores.csv"
    dl.value.save_as(path)
    rows = {r["system"]: r for r in csv.DictReader(path.open(encoding="utf-8"))}
    assert set(rows) == set(SYSTEMS)
    ranked = sorted(rows.values(), key=lambda r: int(r["rank"]))  # the page's order: by BLEU, best first
    assert [float(r["bleu"]) for r in ranked] == sorted((float(r["bleu"]) for r in ranked), reverse=True)
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "mtlens",
            "score",
            *[x for r in refs for x in ("--ref", str(r))],
            "--sys",
            *map(str, syss),
            "--metrics",
            ",".join(k for k in next(iter(rows.values())) if k not in ("rank", "system")),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    for entry in json.loads(cli.stdout)["systems"]:
        for metric, value in entry["scores"].items():
            assert float(rows[entry["name"]][metric]) == value, (entry["name"], metric)
    # the chart's PNG button downloads the image at once (no second button to find)
    dl = _deferred_download(page, page.locator(".st-key-rank_chart_dl_png button").first)
    assert dl.suggested_filename == "mtlens-bleu-4-systems-no-language-200-lines.png"  # names the set
    png = tmp_path / "chart.png"
    dl.save_as(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for label, shot in (
        ("Sentences", "sentences"),
        ("Words vs characters", "words_vs_characters"),
        ("Significance", "significance"),
        ("Human correlation", "human_correlation"),
        ("Compare two systems", "compare_two_systems"),
    ):
        _goto(page, label)
        page.screenshot(path=str(SHOTS / f"{shot}.png"))
        if label == "Sentences":  # issue 37: the pin button's label is whole, not cut to "Pin for the presenta..."
            button = page.locator(".st-key-sent_pin button")
            button.wait_for(timeout=60_000)
            assert button.inner_text().strip().endswith("Pin for the presentation")
            cut = button.evaluate(
                "b => Array.from(b.querySelectorAll('*')).concat([b]).some(e => e.scrollWidth > e.clientWidth + 1)"
            )
            assert not cut, "the pin button's label is cut off"
    assert not dialogs
    ctx.close()


def _wait_for_signatures(page, text: str, timeout=120_000) -> None:
    """Wait until the Rankings signatures show ``text`` and the app is idle."""
    page.wait_for_function(
        "([sel, t]) => { const c = document.querySelector(sel); return c && c.innerText.includes(t); }",
        arg=[SIGNATURES, text],
        timeout=timeout,
    )
    _idle(page)


def test_changed_options_survive_page_switches_and_a_link_shows_them_to_a_colleague(browser, server, tmp_path):
    """Change options away from their defaults in the sidebar, switch pages: the changed values stay,
    in the widgets and in the scores' signatures."""
    dialogs: list[str] = []
    ctx, page = _page(browser, server, dialogs)
    _goto(page, "Rankings")
    page.get_by_text("Signatures").wait_for(timeout=120_000)
    sidebar = page.locator('[data-testid="stSidebar"]')
    checkbox = page.locator('[data-testid="stSidebar"] .st-key-w_lowercase input[type="checkbox"]')
    sidebar.get_by_text("Lowercase (case-insensitive)", exact=True).click()
    _wait_for_signatures(page, "case:lc")  # the rerun with the new option has finished
    thumb = _slider(page, "char_order")
    assert thumb.input_value() == "18"
    for target in (19, 20, 21):  # one step at a time: each press starts a rerun
        _slider(page, "char_order").focus()
        _slider(page, "char_order").press("ArrowRight")
        _wait_for_signatures(page, f"order:{target}|")
    assert _slider(page, "char_order").input_value() == "21"
    for label in ("Sentences", "Significance", "Rankings"):
        _goto(page, label)
        assert checkbox.is_checked(), label
        assert _slider(page, "char_order").input_value() == "21", label
    page.get_by_text("Signatures").wait_for(timeout=120_000)
    _wait_for_signatures(page, "order:21")
    signatures = page.locator(SIGNATURES).first.inner_text()
    assert "bleu: nrefs:2|case:lc|" in signatures, signatures
    assert "bleu-c: nrefs:2|case:lc|eff:no|tok:char|smooth:exp|order:21|" in signatures, signatures
    # the address is the view: a colleague opening it in a fresh browser sees the same numbers
    url = page.url
    assert "opt_lowercase=1" in url and "opt_char_order=21" in url, url
    csv_here = _rankings_csv(page, tmp_path, "presenter")
    other = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
    colleague = other.new_page()
    colleague.goto(url)
    _wait_for_signatures(colleague, "order:21")
    assert colleague.locator(SIGNATURES).first.inner_text() == signatures
    assert _rankings_csv(colleague, tmp_path, "colleague") == csv_here
    # a mistyped link says so in one sentence and never shows the sample's numbers instead
    colleague.goto(f"{server}/Rankings?set=0123456789abcdef0123456789abcdef")
    colleague.get_by_text("This link's set could not be opened").wait_for(timeout=60_000)
    _idle(colleague)
    assert colleague.locator('[data-testid="stDataFrame"]').count() == 0
    assert colleague.get_by_text("Set: Bundled sample").count() == 0  # no header of the sample
    other.close()
    assert not dialogs
    ctx.close()


def _upload_with_human(page, refs, systems, human):
    _upload(page, refs, systems)
    page.get_by_text("Optional: source text, documents and human scores").click()
    page.locator(UPLOADER.format("up_human")).set_input_files([str(human)])
    _idle(page)
    page.get_by_text("Human scores: human.tsv").wait_for(timeout=60_000)


def _human_csv(page, tmp_path, tag):
    _goto(page, "Human correlation")
    page.get_by_text("Metric against human score").wait_for(timeout=120_000)
    dl = _deferred_download(page, page.get_by_role("button", name="CSV", exact=True).first)  # made on the click
    path = tmp_path / f"human-{tag}.csv"
    dl.save_as(path)
    return {(r["metric"], r["level"], r["human"]): r for r in csv.DictReader(path.open(encoding="utf-8"))}


def test_two_sessions_with_different_human_files_see_their_own_correlations(browser, server, tmp_path):
    """Same texts, human files with the same name and different scores, one server: each session's
    Human correlation table comes from its own file (the cache key holds the human files' content)."""
    from mtlens import Corpus, score
    from mtlens.analysis.correlation import pearson

    refs = [SAMPLE / "ref.txt", SAMPLE / "ref2.txt"]
    syss = [SAMPLE / f"{n}.txt" for n in SYSTEMS]
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    a_dir.mkdir()
    b_dir.mkdir()
    rows = (SAMPLE / "human.tsv").read_text(encoding="utf-8").split("\n")
    (a_dir / "human.tsv").write_text("\n".join(rows), encoding="utf-8")
    header = rows[0].split("\t")
    col = header.index("score")
    flipped = [rows[0]]
    for line in rows[1:]:
        f = line.split("\t")
        if len(f) > col:
            f[col] = repr(-float(f[col]))
        flipped.append("\t".join(f))
    (b_dir / "human.tsv").write_text("\n".join(flipped), encoding="utf-8")
    got = {}
    for tag, d in (("A", a_dir), ("B", b_dir)):
        dialogs: list[str] = []
        ctx, page = _page(browser, server, dialogs)
        _upload_with_human(page, refs, syss, d / "human.tsv")
        got[tag] = _human_csv(page, tmp_path, tag)
        ctx.close()
    lines = {p.stem: p.read_text(encoding="utf-8").split("\n")[:-1] for p in [*refs, *syss]}
    corpus = Corpus.build({"ref": lines["ref"], "ref2": lines["ref2"]}, {n: lines[n] for n in SYSTEMS})
    bleu = score(corpus, "bleu")["bleu"].scores
    human = {}
    for line in rows[1:]:
        f = line.split("\t")
        if len(f) > col and f[header.index("metric")] == "MQM" and f[0] in bleu:
            human[f[0]] = float(f[col])
    want = pearson([bleu[s] for s in SYSTEMS], [human[s] for s in SYSTEMS])
    a = float(got["A"][("bleu", "system", "MQM")]["pearson"])
    b = float(got["B"][("bleu", "system", "MQM")]["pearson"])
    assert a == pytest.approx(want, abs=1e-9)
    assert b == pytest.approx(-want, abs=1e-9)
    assert abs(want) > 0.1  # the two files really disagree


PAYLOADS = [
    '<script>alert("xss-script")</script> a payload line',
    '<img src=x onerror=alert("xss-img")> second payload',
    '"><svg onload=alert("xss-svg")> &amp; third',
]


def test_payloads_never_run(browser, server, tmp_path):
    ref_lines = (SAMPLE / "ref.txt").read_text(encoding="utf-8").split("\n")[:6]
    hyp_lines = list(PAYLOADS) + ref_lines[3:6]
    bad_dir = tmp_path / "up"
    bad_dir.mkdir()
    ref = bad_dir / "ref.txt"
    ref.write_text("\n".join(ref_lines) + "\n", encoding="utf-8")
    evil = bad_dir / "<img src=x onerror=alert('name')>.txt"
    evil.write_text("\n".join(hyp_lines) + "\n", encoding="utf-8")
    other = bad_dir / "plain.txt"
    other.write_text("\n".join(ref_lines[::-1]) + "\n", encoding="utf-8")
    dialogs: list[str] = []
    ctx, page = _page(browser, server, dialogs)
    _upload(page, [ref], [evil, other])
    page.get_by_text("your upload").first.wait_for(timeout=60_000)
    for label in ("Rankings", "Sentences", "Words vs characters", "Significance", "Compare two systems"):
        _goto(page, label)
        page.mouse.move(700, 900)
    _goto(page, "Sentences")
    box = page.get_by_label("Line", exact=True)
    box.fill("1")
    box.press("Enter")
    _idle(page)
    page.get_by_text("Line 1", exact=True).wait_for(timeout=60_000)
    body = page.locator('[data-testid="stMain"]').inner_text()
    assert '<script>alert("xss-script")</script>' in body  # shown as text, not executed
    assert page.locator("script:has-text('xss')").count() == 0
    assert page.locator("img[src='x']").count() == 0
    assert not dialogs, dialogs
    ctx.close()


def test_oversized_and_bad_uploads_are_messages_in_the_page(browser, server, tmp_path):
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:  # 51 MB, over server.maxUploadSize = 50 (.streamlit/config.toml)
        line = b"lorem ipsum dolor sit amet " * 40 + b"\n"
        for _ in range(51 * 1024 * 1024 // len(line) + 1):
            f.write(line)
    short = tmp_path / "short.txt"
    short.write_text("one line only\n", encoding="utf-8")
    binary = tmp_path / "image.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)
    dialogs: list[str] = []
    ctx, page = _page(browser, server, dialogs)
    page.locator(UPLOADER.format("up_systems")).set_input_files([str(big)])
    page.get_by_text("50", exact=False).filter(has_text="MB").first.wait_for(timeout=30_000)
    main_text = page.locator('[data-testid="stMain"]').inner_text()
    assert "50" in main_text and (
        "or smaller" in main_text or "exceeds" in main_text.lower() or "too large" in main_text.lower()
    )
    page.locator(UPLOADER.format("up_refs")).set_input_files([str(SAMPLE / "ref.txt")])
    _idle(page)
    page.locator(UPLOADER.format("up_systems")).set_input_files([str(short)])
    _idle(page)
    page.get_by_text("has 1 lines, the reference").wait_for(timeout=30_000)
    page.locator(UPLOADER.format("up_systems")).set_input_files([str(binary)])
    _idle(page)
    page.get_by_text("looks binary").wait_for(timeout=30_000)
    assert "Traceback" not in page.locator('[data-testid="stMain"]').inner_text()
    page.get_by_text("bundled sample").first.wait_for(timeout=10_000)  # the session still has its data
    ctx.close()


def test_chinese_upload_gets_the_zh_tokenizer_without_asking(browser, server, tmp_path):
    """An en-zh upload (real WMT21 lines): the target is detected, and the Rankings CSV holds sacrebleu's
    BLEU with tokenize='zh' (13a would give a few points at most)."""
    from sacrebleu.metrics import BLEU as SacreBLEU

    from ..conftest import TESTDATA, pair_files

    folder = TESTDATA / "en-zh"
    refs = [folder / "ref.txt", folder / "ref2.txt"]
    syss = [folder / "HappyNewYear.txt", folder / "SMU.txt"]
    dialogs: list[str] = []
    ctx, page = _page(browser, server, dialogs)
    _upload(page, refs, syss)
    page.get_by_text("target language zh detected").first.wait_for(timeout=60_000)
    _goto(page, "Rankings")
    page.get_by_text("Signatures").wait_for(timeout=120_000)
    _idle(page)
    assert "tok:zh" in page.locator(SIGNATURES).first.inner_text()
    with page.expect_download(timeout=60_000) as dl:
        page.get_by_role("button", name="Download CSV").click()
    assert dl.value.suggested_filename == "mtlens-scores-2-systems-und-zh-80-lines.csv"  # the set's name
    path = tmp_path / "zh.csv"
    dl.value.save_as(path)
    rows = {r["system"]: r for r in csv.DictReader(path.open(encoding="utf-8"))}
    ref_lines, systems = pair_files(folder)
    for name in ("HappyNewYear", "SMU"):
        want = SacreBLEU(tokenize="zh").corpus_score(systems[name], ref_lines).score
        assert float(rows[name]["bleu"]) == pytest.approx(want, abs=1e-9)
        assert want > 20
    assert not dialogs
    ctx.close()


def _rankings_csv(page, tmp_path, tag) -> dict:
    page.get_by_text("Signatures").wait_for(timeout=120_000)
    _idle(page)
    with page.expect_download(timeout=60_000) as dl:
        page.get_by_role("button", name="Download CSV").click()
    path = tmp_path / f"{tag}.csv"
    dl.value.save_as(path)
    return {r["system"]: r for r in csv.DictReader(path.open(encoding="utf-8"))}


def _deferred_download(page, button, timeout=120_000, first=30_000):
    """Click a download button (a locator) whose file is made on the click (st.download_button given a callable) and
    return the download. Streamlit registers a new file id for such a button on every run and drops the old
    one, so a click that lands while a run is still reaching the browser asks for a revoked id and nothing
    downloads (Streamlit's media_file_manager.remove_deferred says so). A user clicks again; so does this,
    once, after the page is idle. The first click waits ``first`` ms for its file once the button can be
    clicked (the files are small: a set's bundle, a table, one chart), not the whole ``timeout``: a lost click
    cost a CI run two idle minutes (2026-12-07). The download itself is asserted on by the caller."""
    from playwright.sync_api import expect

    for attempt, wait in enumerate((first, timeout)):
        _idle(page)
        button.wait_for(state="visible", timeout=60_000)
        # a button is disabled while the session reconnects (a busy machine): wait as long as for the file
        expect(button).to_be_enabled(timeout=timeout)
        try:
            with page.expect_download(timeout=wait) as dl:
                button.click(timeout=timeout)
            return dl.value
        except PlaywrightTimeoutError:
            if attempt:
                raise


def _set_of(page) -> str:
    from urllib.parse import parse_qs, urlparse

    page.wait_for_function("() => location.search.includes('set=') && !location.search.includes('set=sample')")
    return parse_qs(urlparse(page.url).query)["set"][0]


def test_a_saved_set_survives_reload_other_browsers_and_a_server_restart(browser, server, tmp_path):
    dialogs: list[str] = []
    ctx, page = _page(browser, server, dialogs)
    _upload(page, [SAMPLE / "ref.txt", SAMPLE / "ref2.txt"], [SAMPLE / f"{n}.txt" for n in SYSTEMS])
    page.get_by_text("your upload").first.wait_for(timeout=60_000)
    sid = _set_of(page)
    assert len(sid) == 32
    dl = _deferred_download(
        page, page.get_by_role("button", name="Download this set (one file, to import on another machine)")
    )
    assert dl.suggested_filename.endswith(".mtlens.json.gz")
    bundle = tmp_path / "set.mtlens.json.gz"
    dl.save_as(bundle)
    assert json.loads(gzip.decompress(bundle.read_bytes()))["name"]  # a readable bundle with the set's name
    _goto(page, "Rankings")
    assert _set_of(page) == sid  # page switches keep the link
    first = _rankings_csv(page, tmp_path, "first")
    assert set(first) == set(SYSTEMS)
    page.reload()
    assert _rankings_csv(page, tmp_path, "reload") == first
    ctx.close()
    ctx2 = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
    page2 = ctx2.new_page()
    page2.goto(f"{server}/Rankings?set={sid}")
    assert _rankings_csv(page2, tmp_path, "other-browser") == first
    ctx2.close()
    with running_server(tmp_path) as restarted:  # another server process on the same MTLENS_DATA_DIR
        ctx3 = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
        page3 = ctx3.new_page()
        page3.goto(f"{restarted}/Rankings?set={sid}")
        assert _rankings_csv(page3, tmp_path, "restarted") == first
        ctx3.close()
    assert not dialogs


@pytest.mark.shared
def test_an_imported_wmt_pair_opens_by_link_with_sacrebleus_bleu(browser, server, tmp_path):
    from sacrebleu.metrics import BLEU as SacreBLEU

    from ..conftest import SHARED, pair_files

    folder = SHARED / "wmt" / "en-de"
    sid = _import(folder, "WMT21 en-de")
    listed = json.loads(
        subprocess.run(
            [sys.executable, "-m", "mtlens", "list", "--format", "json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        ).stdout
    )
    row = next(r for r in listed if r["id"] == sid)
    assert (len(row["systems"]), len(row["references"]), row["lines"]) == (8, 3, 1002)
    assert row["name"] == "WMT21 en-de" and row["language_pair"] == "en-de"
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
    page = ctx.new_page()
    page.goto(f"{server}/Rankings?set={sid}")
    rows = _rankings_csv(page, tmp_path, "wmt")
    refs, systems = pair_files(folder)
    assert set(rows) == set(systems)
    for name, hyp in systems.items():
        assert float(rows[name]["bleu"]) == pytest.approx(SacreBLEU().corpus_score(hyp, refs).score, abs=1e-9)
    ctx.close()


def test_a_sets_quick_view_opens_without_script_and_leads_to_the_dashboard(browser, server):
    """The Rankings page offers the set's quick view; in a new browser session (scripts off: the page needs
    none) it shows the Rankings table with sacrebleu's BLEU, and its link opens the set in the dashboard."""
    from urllib.parse import urljoin

    from sacrebleu.metrics import BLEU as SacreBLEU

    from ..conftest import pair_files

    sid = _import(SAMPLE, "<b>Q3</b> sample")
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
    page = ctx.new_page()
    page.goto(f"{server}/Rankings?set={sid}")
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=120_000)
    _idle(page)
    link = page.get_by_role("link", name=f"quick/rankings?set={sid}")
    href = urljoin(page.url, link.get_attribute("href"))
    assert href == f"{server}/quick/rankings?set={sid}"
    ctx.close()

    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(href)
    rows = page.locator("#rankings tbody tr")
    assert rows.count() == 4
    head = [t.strip() for t in page.locator("#rankings thead th").all_inner_texts()]
    refs, systems = pair_files(SAMPLE)
    shown = {
        r.locator("td").nth(1).inner_text(): r.locator("td").nth(head.index("bleu")).inner_text() for r in rows.all()
    }
    assert shown == {n: f"{SacreBLEU().corpus_score(h, refs).score:.1f}" for n, h in systems.items()}
    assert page.title() == "mtlens · Rankings · <b>Q3</b> sample"  # the name as text, never markup
    assert page.locator("b", has_text="Q3").first.inner_text() == "<b>Q3</b> sample"
    ctx.close()

    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
    page = ctx.new_page()
    page.goto(href)
    page.get_by_role("link", name="Open in the dashboard").click()
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=120_000)
    _idle(page)
    assert page.url == f"{server}/Rankings?set={sid}"
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "<b>Q3</b> sample" in page.locator('[data-testid="stCaptionContainer"]').first.inner_text()
    ctx.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_highlight_is_readable_in_both_colour_schemes(browser, server, scheme):
    """WCAG AA (4.5:1) for the text of every chip on the Sentences page (n-gram matches of two systems,
    references, legends, character matches) with the browser in light and in dark mode."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 2600}, color_scheme=scheme)
    page = ctx.new_page()
    try:
        page.goto(server)
        page.get_by_text("Dataset", exact=True).wait_for(timeout=60_000)
        _goto(page, "Sentences")
        page.locator(".mtl-legend").first.wait_for(timeout=60_000)
        _settled(page)  # measured while the page re-ran, its chips were dimmed as stale (3.24:1 once)
        bad, measured, page_lum = low_contrast(page)
        assert (page_lum < 0.05) == (scheme == "dark")  # the app really is in that scheme
        page.get_by_text("characters (chrF)").click()
        _settled(page)
        bad2, measured2, _ = low_contrast(page)
        assert measured > 20 and measured2 > 20
        assert not bad + bad2, (bad + bad2)[:5]
    finally:
        ctx.close()
