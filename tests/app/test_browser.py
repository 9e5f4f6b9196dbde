"""Real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright): upload, rankings, CSV download
checked against the command line, an XSS payload that must never run, and the README screenshots.

Skipped with a reason when chromium or playwright is missing, unless ``--require-browser`` (CI) makes
that a failure.
"""

from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from ..conftest import ROOT, SAMPLE

CHROMIUM = "/usr/bin/chromium"
SYSTEMS = ["VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin"]
SHOTS = ROOT / "docs" / "screenshots"
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(ROOT / "app.py"),
                "--server.headless",
                "true",
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--browser.gatherUsageStats",
                "false",
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError(f"streamlit did not start: {log.read_text()[-2000:]}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


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


def _goto(page, label):
    page.locator('[data-testid="stSidebarNav"]').get_by_text(label, exact=True).click()
    _idle(page)


def _upload(page, refs, systems):
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).set_input_files([str(p) for p in refs])
    _idle(page)
    inputs.nth(1).set_input_files([str(p) for p in systems])
    _idle(page)


def test_upload_rankings_csv_equals_cli_and_screenshots(browser, server, tmp_path):
    dialogs: list[str] = []
    ctx, page = _page(browser, server, dialogs)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "home.png"))
    refs = [SAMPLE / "ref.txt", SAMPLE / "ref2.txt"]
    syss = [SAMPLE / f"{n}.txt" for n in SYSTEMS]
    _upload(page, refs, syss)
    page.get_by_text("your upload").first.wait_for(timeout=60_000)
    _goto(page, "Rankings")
    page.get_by_text("Signatures").wait_for(timeout=120_000)
    _idle(page)
    page.screenshot(path=str(SHOTS / "rankings.png"))
    with page.expect_download(timeout=60_000) as dl:
        page.get_by_role("button", name="Download CSV").click()
    path = tmp_path / "scores.csv"
    dl.value.save_as(path)
    rows = {r["system"]: r for r in csv.DictReader(path.open(encoding="utf-8"))}
    assert set(rows) == set(SYSTEMS)
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
            ",".join(k for k in next(iter(rows.values())) if k != "system"),
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
    for label, shot in (
        ("Sentences", "sentences"),
        ("Words vs characters", "words_vs_characters"),
        ("Significance", "significance"),
        ("Human correlation", "human_correlation"),
        ("Compare two systems", "compare_two_systems"),
    ):
        _goto(page, label)
        page.screenshot(path=str(SHOTS / f"{shot}.png"))
        sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
        assert "18" in sidebar and "0.05" in sidebar, (label, sidebar)  # options survive page switches
    assert not dialogs
    ctx.close()


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
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(1).set_input_files([str(big)])
    page.get_by_text("50", exact=False).filter(has_text="MB").first.wait_for(timeout=30_000)
    main_text = page.locator('[data-testid="stMain"]').inner_text()
    assert "50" in main_text and (
        "or smaller" in main_text or "exceeds" in main_text.lower() or "too large" in main_text.lower()
    )
    inputs.nth(0).set_input_files([str(SAMPLE / "ref.txt")])
    _idle(page)
    inputs.nth(1).set_input_files([str(short)])
    _idle(page)
    page.get_by_text("has 1 lines, the reference").wait_for(timeout=30_000)
    inputs.nth(1).set_input_files([str(binary)])
    _idle(page)
    page.get_by_text("looks binary").wait_for(timeout=30_000)
    assert "Traceback" not in page.locator('[data-testid="stMain"]').inner_text()
    page.get_by_text("bundled sample").first.wait_for(timeout=10_000)  # the session still has its data
    ctx.close()
