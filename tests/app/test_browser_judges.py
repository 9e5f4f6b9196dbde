"""An LLM judge in real headless Chromium (issue 48), on the MQM TED set (the bundled real excerpt): its errors on
Sentences, each span over exactly the characters it quoted, beside the raters' spans (each source toggled), and
its row in the Human correlation meta-evaluation against the raters' MQM. The judge is the loopback stub (its
answers quote words of each translation); its job runs as the command line runs it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mtlens.judges import gemba
from mtlens.judges.compute import judge_scores
from mtlens.judges.registry import get_judge
from mtlens.runtime import jobs
from mtlens.service import judging
from mtlens.service.evaluation import evaluate_annotations, save
from mtlens.service.workspace import Workspace
from mtlens.storage.store import Store
from mtlens.ui.views import safe_key

from ..conftest import TESTDATA
from ..judges.stub import Stub, answer_for
from .test_browser import _deferred_download, _idle, browser, running_server
from .test_browser_annotations import _choose

__all__ = ["browser"]


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """``(server URL, set id, corpus, the judge's metric)``: the TED excerpt saved, judged by the stub."""
    tmp = tmp_path_factory.mktemp("judged")
    ws = tmp / "ws"
    store = Store(ws)
    path = TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv"
    ev = save(store, evaluate_annotations(path.read_bytes(), path.name, "en-de"), "TED MQM excerpt")
    with Stub() as stub:
        Workspace(store).add_judge(judging.Judge("stub", stub.url, "m", "gemba-mqm", concurrency=8))
        assert jobs.run(store, ev.set_id, "judge:stub") == "done"
    metric, _ = judge_scores(store, get_judge(store, "stub"), ev.corpus, cached_only=True)
    with running_server(tmp, env={**os.environ, "MTLENS_DATA_DIR": str(ws)}) as url:
        yield url, ev.set_id, ev.corpus, metric


def test_a_judges_spans_on_sentences_over_the_characters_it_quoted(browser, judged):
    url, set_id, corpus, metric = judged
    ctx = browser.new_context(viewport={"width": 1400, "height": 2600})
    page = ctx.new_page()
    try:
        page.goto(f"{url}/Sentences?set={set_id}")
        page.get_by_text("Error spans from").wait_for(timeout=120_000)
        _idle(page)
        checked = 0
        for system in list(corpus.system_names)[:2]:
            k = next(i for i, spans in enumerate(metric.spans[system]) if spans)
            line = corpus.systems[system][k]
            answer = answer_for(gemba.mqm_messages("English", "German", corpus.source[k], line))
            quoted = [e.text for e in gemba.parse_mqm(answer).errors if e.text and e.text in line]
            _choose(page, "sent_a", system)
            box = page.locator(".st-key-sent_line_input input")
            box.fill(str(k + 1))
            box.press("Enter")
            _idle(page)
            box_of = page.locator(f".st-key-spans_{safe_key('judge:stub')}_{safe_key(system)}")
            box_of.wait_for(timeout=60_000)
            chips = box_of.locator(".mtl-tok")
            got = [(chips.nth(j).text_content(), chips.nth(j).get_attribute("title")) for j in range(chips.count())]
            assert [t for t, _ in got] == quoted, (system, k, got, answer)  # the stub's quotes, in order
            for (text, title), e in zip(
                got, [e for e in gemba.parse_mqm(answer).errors if e.text in line], strict=True
            ):
                assert title == f"{e.severity}, {e.category}", (text, title)
            checked += 1
        assert checked == 2
        assert page.locator(".mtl-mqm").count() > 0  # the raters' spans too (each source is toggled)
    finally:
        ctx.close()


def test_a_judges_row_in_the_human_correlation(browser, judged):
    """The judge's system-level row: Pearson r of its system scores (GEMBA's own parse of each answer, averaged)
    with the publisher's MQM system scores (the mean of its average segment scores), by scipy."""
    import csv
    import io
    from collections import defaultdict

    from scipy.stats import pearsonr

    from ..judges.test_gemba import MQM

    url, set_id, corpus, _ = judged
    human = defaultdict(list)
    for row in (TESTDATA / "mqm" / "mqm_ted_ende.excerpt.avg_seg_scores.tsv").read_text().splitlines()[1:]:
        system, score, _ = row.replace("\t", " ").split(" ")
        human["ref" if system == "ref-A" else system].append(float(score))  # the ratings file says "ref"
    systems = sorted(corpus.system_names)
    judge = {
        s: sum(
            MQM.parse_mqm_answer(answer_for(gemba.mqm_messages("English", "German", corpus.source[k], line)),
                                 normalize=False)
            for k, line in enumerate(corpus.systems[s])
        ) / corpus.n_lines
        for s in systems
    }  # fmt: skip
    expected = pearsonr([judge[s] for s in systems], [sum(human[s]) / len(human[s]) for s in systems])[0]
    ctx = browser.new_context(viewport={"width": 1400, "height": 2600}, accept_downloads=True)
    page = ctx.new_page()
    try:
        page.goto(f"{url}/Human_correlation?set={set_id}")
        table = page.locator(".st-key-hc_all_rows")
        table.wait_for(timeout=180_000)
        _idle(page)
        dl = _deferred_download(page, table.get_by_role("button", name="CSV", exact=True))  # made on the click
        text = Path(dl.path()).read_text(encoding="utf-8")
        rows = {(r["metric"], r["level"]): r for r in csv.DictReader(io.StringIO(text))}
        got = rows[("judge:stub", "system")]
        assert int(got["n"]) == len(systems) and float(got["pearson"]) == pytest.approx(expected, abs=1e-9)
        assert ("judge:stub", "segment") in rows
    finally:
        ctx.close()
