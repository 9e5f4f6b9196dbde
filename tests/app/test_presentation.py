"""The presentation view (AppTest) and the pins behind it: pin a sentence on the Sentences page of a saved set,
then step through the slides (ranking as WMT findings tables draw it, significance matrix, the pinned
sentence), with the slide in the link, and find the same slides in the HTML report."""

from __future__ import annotations

import html
import re

import mt_thresholds
import pytest
from streamlit.testing.v1 import AppTest

from ..conftest import ROOT, SAMPLE, pair_files
from .conftest import TIMEOUT, no_errors


@pytest.fixture
def saved(tmp_path, monkeypatch):
    """The sample saved as a set of this test's own workspace (the sample itself is read-only)."""
    from mtlens import Corpus

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    from mtlens.ui import state

    refs, systems = pair_files(SAMPLE)
    corpus = Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems, language_pair="en-de")
    return state.store().save(corpus, "WMT21 en-de <sample>"), systems


def _open(page: str, **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=TIMEOUT)
    at.query_params.update(params)
    return at.run()


def _slide(at) -> str:
    return at.get("html")[0].proto.body


def test_pin_a_sentence_and_present_it(saved, tmp_path):
    sid, systems = saved
    at = _open("2_Sentences.py", set=sid, a="UEdin", b="HuaweiTSC", line="42")
    no_errors(at)
    at.text_input(key="sent_pin_note_41").set_value("<b>names</b> garbled")
    at.button(key="sent_pin").click().run()
    no_errors(at)
    assert at.button(key="sent_unpin")  # pinned: the button turned into Unpin
    from mtlens.ui import state

    (pin,) = state.store().pins(sid)
    assert (pin.line, pin.systems, pin.note) == (41, ("UEdin", "HuaweiTSC"), "<b>names</b> garbled")

    at = _open("9_Presentation.py", set=sid)
    no_errors(at)
    first = _slide(at)
    assert "Ranking by BLEU" in first
    assert "Set: WMT21 en-de <sample>" in at.caption[0].value.replace("\\", "")  # the header names the set
    # rank ranges by their definition (WMT findings), recomputed from a comparison made here
    from mtlens import Corpus, score
    from mtlens.analysis.significance import compare

    refs, _ = pair_files(SAMPLE)
    result = score(Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems, language_pair="en-de"), "bleu")["bleu"]
    cmp = compare(result)
    order = cmp.ranking
    for k, s in enumerate(order):
        better = sum(p.significant and s in (p.a, p.b) and order.index(p.a if p.b == s else p.b) < k for p in cmp.pairs)
        beats = sum(p.significant and s in (p.a, p.b) and order.index(p.a if p.b == s else p.b) > k for p in cmp.pairs)
        lo, hi = better + 1, len(order) - beats
        rank = str(lo) if lo == hi else f"{lo}–{hi}"
        assert f"<td>{rank}</td><td>{s}</td>" in first, (s, rank)
    top_delta = result.scores[order[0]] - result.scores[order[1]]
    assert f"{mt_thresholds.accuracy(abs(top_delta), 'bleu') / 100:.0%}" in first  # Kocmi et al.'s fit
    at.button(key="pres_next").click().run()
    assert "Which differences are significant" in _slide(at) and at.query_params["slide"] == "2"
    at.button(key="pres_next").click().run()
    third = _slide(at)
    assert at.query_params["slide"] == "3" and "Line 42" in third
    assert "&lt;b&gt;names&lt;/b&gt; garbled" in third and "<b>names</b>" not in third
    assert html.escape(systems["UEdin"][41]) in third and html.escape(systems["HuaweiTSC"][41]) in third
    assert re.search(r"UEdin</span> \(BLEU \d+\.\d\)", third)

    # a colleague's link opens the same slide
    at = _open("9_Presentation.py", set=sid, slide="3")
    assert _slide(at) == third

    # the HTML report carries the same slides (the CLI on the same workspace)
    from mtlens.cli import main

    out = tmp_path / "r.html"
    assert main(["report", "--set", sid, "--data-dir", str(tmp_path), "--metrics", "bleu", "--output", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "<section class='mtl-present'>" in text and "&lt;b&gt;names&lt;/b&gt; garbled" in text
    assert text.count("<section class='mtl-present'>") == 3


def test_the_sample_and_link_readers_cannot_pin_and_say_why():
    at = _open("2_Sentences.py", set="sample")
    no_errors(at)
    assert not [b for b in at.button if b.key in ("sent_pin", "sent_unpin")]
    assert any("bundled sample is read-only" in c.value for c in at.caption)
    at = _open("9_Presentation.py", set="sample")
    no_errors(at)
    assert "Ranking by BLEU" in _slide(at)
