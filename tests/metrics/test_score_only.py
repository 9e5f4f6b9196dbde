"""Options declared to change only the score (``Metric.score_only_fields``) must leave the statistics unchanged.

Stored statistics are keyed by :func:`mtlens.metrics.stats_key`, which leaves those options out, so a saved set
scored once without an option and again with it reuses the first statistics. That is right only if the
statistics really do not depend on the option. Issue 47 found chrF's eps smoothing declared score-only while,
with several references, it decides which reference a segment keeps (21.16 where sacrebleu says 39.52). These
tests check the whole class, for every registered metric and every option it reads, on a corpus made so that
reference choice, smoothing and case matter; and the issue's case through the command line on a saved set.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF

from mtlens.cli import main
from mtlens.core.options import DEFAULTS, SPECS
from mtlens.metrics import REGISTRY, make_metric, stats_key

# two references of very different lengths per line, so that the best reference of a segment changes with
# the scoring formula; hypotheses with no 3- or 4-gram matches (smoothing matters), mixed case, punctuation
REFS = [
    ["ab", "The cat sat on the mat .", "x", "Ein Haus, ein Baum!", "", "short"],
    [
        "abcdefxyzuvw",
        "the CAT is sitting on a mat",
        "xyz xyz xyz",
        "ein haus und ein baum",
        "word",
        "a much longer one",
    ],
]
HYPS = [
    ["abcdef", "cat mat the sat", "xyz", "Ein baum haus", "word", "a short one"],
    ["ab cd", "The cat sat on the mat .", "", "EIN HAUS", "w", "longer"],
]


def _alternatives(field: str) -> list:
    """Values of an option to try besides its default: every choice, both booleans, a few numbers in bounds."""
    spec = SPECS[field]
    default = getattr(DEFAULTS, field)
    if spec.kind == "bool":
        return [not default]
    if spec.kind == "choice":
        return [c for c in spec.choices if c != default]
    if spec.kind == "int":
        return [v for v in (1, 2, 3, 5, 8) if v != default and spec.low <= v <= spec.high]
    values = [0.01, 0.3, 0.5, 1.0, 2.5]
    return [v for v in values if v != default and (spec.high is None or v <= spec.high)]


def _option_sets(name: str) -> list[dict]:
    """Every option the metric reads varied alone, and its score-only options varied together (BLEU's
    smoothing method with each smoothing value)."""
    cls = REGISTRY[name]
    sets = [{f: v} for f in cls.option_fields for v in _alternatives(f)]
    only = [f for f in cls.option_fields if f in cls.score_only_fields]
    if "smooth_method" in only and "smooth_value" in only:
        sets += [{"smooth_method": m, "smooth_value": v} for m in ("floor", "add-k") for v in (0.01, 0.3, 2.5)]
    return sets


def _sacrebleu_score(name: str, o, refs, hyp) -> float | None:
    """sacrebleu 2.6.0's corpus score for the same options, where sacrebleu has the metric (tBLEU at epsilon 0
    is BLEU, Libovický & Pecina 2014)."""
    smooth = {"smooth_method": o.smooth_method, "smooth_value": o.smooth_value, "lowercase": o.lowercase}
    if name == "bleu" or (name == "tbleu" and o.tbleu_epsilon == 0):
        return SacreBLEU(tokenize=o.tokenize, max_ngram_order=o.max_ngram_order, **smooth).corpus_score(hyp, refs).score
    if name == "bleu-c" and not o.char_keep_spaces:
        return SacreBLEU(tokenize="char", max_ngram_order=o.char_order, **smooth).corpus_score(hyp, refs).score
    if name in ("chrf", "chrf++"):
        sb = SacreCHRF(
            word_order=REGISTRY[name]().word_order, lowercase=o.lowercase, eps_smoothing=o.chrf_eps_smoothing
        )
        return sb.corpus_score(hyp, refs).score
    return None


@pytest.mark.parametrize("name", list(REGISTRY))
def test_options_left_out_of_the_statistics_key_leave_the_statistics_unchanged(name):
    """For each option set with the same ``stats_key`` as the defaults (so a store would reuse the default
    statistics), the statistics are identical, and the score computed from the reused statistics equals the
    score from fresh ones and sacrebleu's. Option sets with another key must be allowed to differ, and for
    at least one declared field of a metric that declares any, the key must indeed be shared."""
    base_opts = DEFAULTS.replace(tbleu_epsilon=0.0) if name == "tbleu" else DEFAULTS
    base = make_metric(name, base_opts)
    base_stats = base.statistics(REFS, HYPS)
    reused = 0
    for change in _option_sets(name):
        o = base_opts.replace(**change)
        if stats_key(name, o) != stats_key(name, base_opts):
            continue
        reused += 1
        m = make_metric(name, o)
        fresh = m.statistics(REFS, HYPS)
        for h, (a, b) in enumerate(zip(base_stats, fresh, strict=True)):
            np.testing.assert_array_equal(a, b, err_msg=f"{name}: {change} changes the statistics of system {h}")
            got = m.corpus_score(a)
            assert got == pytest.approx(m.corpus_score(b), abs=1e-9)
            want = _sacrebleu_score(name, o, REFS, HYPS[h])
            if want is not None:
                assert got == pytest.approx(want, abs=1e-9), (name, change, h)
    if REGISTRY[name].score_only_fields:
        assert reused > 0, f"{name} declares score-only fields but no option set shares its statistics key"


def test_chrf_eps_smoothing_chooses_the_reference():
    """Why chrF's eps smoothing is a statistics option: the issue's lines, where sacrebleu's F of the second
    reference wins without smoothing and the first wins with it."""
    refs, hyp = [["ab"], ["abcdefxyzuvw"]], ["abcdef"]
    plain = make_metric("chrf").statistics(refs, [hyp])[0]
    eps = make_metric("chrf", chrf_eps_smoothing=True).statistics(refs, [hyp])[0]
    assert not np.array_equal(plain, eps)
    assert stats_key("chrf") != stats_key("chrf", DEFAULTS.replace(chrf_eps_smoothing=True))


def test_saved_two_reference_set_scored_with_and_without_eps_smoothing_equals_sacrebleu(tmp_path, capsys):
    """The issue's case through the command line: a saved set scored with chrF, then with eps smoothing (the
    second run finds statistics stored by the first); sacrebleu says 64.52, then 39.52 (it was 21.16)."""
    folder = tmp_path / "set"
    folder.mkdir()
    refs = [["ab"] * 40, ["abcdefxyzuvw"] * 40]
    hyp = ["abcdef"] * 40
    (folder / "ref.txt").write_text("\n".join(refs[0]) + "\n", encoding="utf-8")
    (folder / "ref2.txt").write_text("\n".join(refs[1]) + "\n", encoding="utf-8")
    (folder / "hyp.txt").write_text("\n".join(hyp) + "\n", encoding="utf-8")
    ws = ["--data-dir", str(tmp_path / "ws")]
    assert main(["import", str(folder), *ws]) == 0
    set_id = capsys.readouterr().out.split()[0]
    for flags, eps in (([], False), (["--chrf-eps-smoothing"], True), ([], False)):
        assert main(["score", "--set", set_id, *ws, "--metrics", "chrf,chrf++", "--format", "json", *flags]) == 0
        doc = json.loads(capsys.readouterr().out)
        (entry,) = doc["systems"]
        for name, word_order in (("chrf", 0), ("chrf++", 2)):
            want = SacreCHRF(word_order=word_order, eps_smoothing=eps).corpus_score(hyp, refs).score
            assert entry["scores"][name] == pytest.approx(want, abs=1e-9), (name, eps)
    assert SacreCHRF(eps_smoothing=True).corpus_score(hyp, refs).score == pytest.approx(39.52419860852199)
