"""COMET pitfalls (mtlens/analysis/pitfalls.py; Zouhar et al. 2024): empty outputs, copies of the source,
outputs in another language and languages outside the encoder, on the bundled sample (WMT21 en-de).

The expected counts are derived here from the text itself (an empty line, a line equal to its source),
and for the language check from what the system is made of: English sentences offered as German ones."""

from __future__ import annotations

from mtlens.analysis import pitfalls
from mtlens.core.corpus import Corpus
from mtlens.service.results import pitfalls_for

from ..conftest import SAMPLE, read


def _sample():
    src, ref, good = read(SAMPLE / "src.txt"), read(SAMPLE / "ref.txt"), read(SAMPLE / "UEdin.txt")
    shifted = src[1:] + src[:1]  # English, and never its own line's source
    return src, ref, good, shifted


def test_empty_copied_and_wrong_language_systems_are_counted():
    src, ref, good, shifted = _sample()
    systems = {"good": good, "empty": [""] * len(src), "copy": src, "english": shifted}
    found = pitfalls.find(systems, src, [ref], ("en", "de"))
    by = {s.system: s for s in found.systems}
    assert found.expected == "de" and found.expected_how == "declared" and found.outside_encoder == ()
    assert by["empty"].empty == tuple(range(len(src))) and by["empty"].total == len(src)
    non_empty_sources = [i for i, s in enumerate(src) if s.strip()]
    assert by["copy"].copied == tuple(non_empty_sources) and by["copy"].wrong_language == ()
    long_english = [
        i for i, s in enumerate(shifted) if len(s.strip()) >= pitfalls.MIN_CHARS and s.strip() != src[i].strip()
    ]
    assert set(by["english"].wrong_language) <= set(long_english)
    assert len(by["english"].wrong_language) >= 0.9 * len(long_english)  # the detector finds nearly all of them
    assert {by["english"].found[i] for i in by["english"].wrong_language} == {"en"}
    assert by["good"].total <= 0.01 * len(good)  # a real German system: (almost) nothing
    assert [r["system"] for r in found.rows()] == [s for s in ("good", "empty", "copy", "english") if by[s].total]
    notes = found.notes(["comet:x"])
    assert any(f"system 'empty' has {len(src)} empty of {len(src)} lines" in n for n in notes)
    assert any("system 'copy'" in n and "copies of the source" in n for n in notes)


def test_the_language_comes_from_the_reference_when_the_pair_is_not_known():
    src, ref, _good, shifted = _sample()
    found = pitfalls.find({"english": shifted}, src, [ref])
    assert (found.expected, found.expected_how) == ("de", "detected in the reference")
    assert found.systems[0].wrong_language
    # no pair and no reference: the check is skipped, and a note says so
    blind = pitfalls.find({"english": shifted}, src, [])
    assert blind.expected is None and blind.systems[0].wrong_language == ()
    assert any("were not looked for" in n for n in blind.notes())
    assert blind.to_dict()["systems"]["english"]["wrong_language"] is None


def test_a_language_outside_the_encoder_is_flagged_for_the_set():
    src, ref, good, _ = _sample()
    found = pitfalls.find({"good": good}, src, [ref], ("en", "haw"))  # Hawaiian is not among XLM-R's 100
    assert found.outside_encoder == ("haw",) and found.any
    assert any("haw is not among the encoder's 100 training languages" in n for n in found.notes())
    # XLM-R is COMET's encoder: a MetricX metric (mT5) is not told about it, a COMET one is (issue 58)
    assert not any("XLM-R" in n for n in found.notes(["metricx:xl"]))
    assert any(n.startswith("comet:da: haw is not") for n in found.notes(["metricx:xl", "comet:da"]))
    # XLM-R lists 100 corpora; 7 are variants of a language listed too (bn_rom, hi_rom, my_zaw, ta_rom, te_rom,
    # ur_rom, zh-Hant): 93 languages
    assert "de" in pitfalls.ENCODER_LANGUAGES and len(pitfalls.ENCODER_LANGUAGES) == 93


def test_only_neural_metrics_bring_the_check_and_und_is_no_language():
    src, ref, good, _ = _sample()
    corpus = Corpus.build({"ref": ref}, {"good": good, "empty": [""] * len(src)}, src, language_pair="und-de")
    assert pitfalls_for(corpus, ["bleu", "chrf"]) is None
    found = pitfalls_for(corpus, ["bleu", "comet:tiny"])
    assert found.outside_encoder == () and found.expected == "de"
    assert found.to_dict()["systems"]["empty"]["empty"] == len(src)
    assert found.to_dict()["systems"]["empty"]["lines"]["empty"][:2] == [1, 2]  # 1-based, as every line number
