"""TER: sacrebleu parity (all options, several references), worked examples, alignment invariants, bounds."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import TER as SacreTER

from mtlens.metrics.ter import TER, ter_alignment

from ..golden.cases import EXCERPTS, TER_EXCERPT_OPTIONS, beam_shapes, ter_excerpt_id
from ..golden.make_sacrebleu_golden import excerpt_golden

SAUDI_REF = "SAUDI ARABIA denied THIS WEEK information published in the AMERICAN new york times"
SAUDI_HYP = "THIS WEEK THE SAUDIS denied information published in the new york times"


def test_lecture_notes_examples():
    m = TER()
    st = m.statistics([[SAUDI_REF]], [[SAUDI_HYP]])[0]
    assert st[0].tolist() == [4.0, 13.0]  # 1 shift + 2 substitutions + 1 insertion, 13 reference words
    assert m.corpus_score(st) == pytest.approx(100 * 4 / 13)
    st = m.statistics([["a b c d e f c"]], [["a d e b c f"]])[0]
    assert m.corpus_score(st) == pytest.approx(100 * 2 / 7)
    a = ter_alignment(SAUDI_HYP, [SAUDI_REF])
    assert a.counts == {"shift": 1, "substitution": 2, "insertion": 1, "deletion": 0, "match": 10}
    assert a.shifts[0].words == ("this", "week") and a.shifts[0].before == 0 and a.shifts[0].after == 3


OPTIONS = TER_EXCERPT_OPTIONS


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
def test_parity_with_sacrebleu_on_bundled_real_data(excerpts, options, monkeypatch):
    # the first 40 lines of each excerpt, two systems; the compiled kernel computes them (small jobs would
    # otherwise use sacrebleu's own code: the next test). sacrebleu's per-line statistics are golden values
    # (tests/golden/excerpts.json: its TER is pure Python, about a minute for these cases at every run);
    # sacrebleu aggregates them into the score here.
    import mtlens.metrics.ter as ter_module

    monkeypatch.setattr(ter_module, "PLAIN_PAIRS", -1)
    assert set(excerpts) == set(EXCERPTS)
    for name, (all_refs, systems) in excerpts.items():
        gold = excerpt_golden(ter_excerpt_id(name, options))
        refs = [r[:40] for r in all_refs]
        m = TER(**options)
        names = list(systems)[:2]
        assert names == list(gold), name
        stats = m.statistics(refs, [systems[s][:40] for s in names])
        for system, st in zip(names, stats, strict=True):
            raw = gold[system]
            np.testing.assert_array_equal(st, np.array(raw, dtype=np.float64), err_msg=name)
            # sacrebleu's own aggregation of its statistics (what corpus_score does after extracting them)
            want_score = SacreTER(**options)._aggregate_and_compute(raw).score
            assert m.corpus_score(st) == pytest.approx(want_score, abs=1e-9)


def test_small_jobs_use_sacrebleus_own_ter_and_get_the_kernels_statistics(excerpts, monkeypatch):
    """Up to PLAIN_PAIRS pairs, in a process without a compiled kernel at hand (none loaded, none built
    ahead of time), TER's edits come from sacrebleu's lib_ter (no compiler to load): the same
    statistics as the kernel, block by block."""
    import sys

    import sacrebleu.metrics.lib_ter as lib_ter

    import mtlens.metrics.ter as ter_module
    from mtlens.metrics import _compiled

    calls = []
    real = lib_ter.translation_edit_rate
    monkeypatch.setattr(lib_ter, "translation_edit_rate", lambda h, r: calls.append(1) or real(h, r))
    for name, (all_refs, systems) in excerpts.items():
        refs = [r[:40] for r in all_refs]
        hyps = [h[:40] for h in list(systems.values())[:2]]
        m = TER(normalized=True)
        monkeypatch.setattr(ter_module, "PLAIN_PAIRS", -1)
        compiled = m.block_statistics(refs, hyps)
        monkeypatch.setattr(ter_module, "PLAIN_PAIRS", 10**9)
        # as in a process that never loaded a kernel, where none is built ahead of time
        monkeypatch.delitem(sys.modules, ter_module.KERNEL, raising=False)
        monkeypatch.delitem(sys.modules, ter_module.KERNEL + "_aot", raising=False)
        monkeypatch.setenv(_compiled.AOT_ENV, "0")
        calls.clear()
        plain = m.block_statistics(refs, hyps)
        assert len(calls) == 40 * 2 * len(refs), name
        assert _compiled.loaded(ter_module.KERNEL) is None
        for a, b in zip(compiled, plain, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=name)
    assert TER().kernel_needed(ter_module.PLAIN_PAIRS + 1) and not TER().kernel_needed(ter_module.PLAIN_PAIRS)


def test_signature_equals_sacrebleus_apart_from_version(sample):
    refs, systems = sample
    for options in OPTIONS:
        sb = SacreTER(**options)
        sb.corpus_score(next(iter(systems.values()))[:5], [r[:5] for r in refs])
        theirs = str(sb.get_signature()).replace(f"version:{sacrebleu.__version__}", "")
        assert TER(**options).signature(len(refs)).format().startswith(theirs)


def test_alignment_invariants_on_every_sentence_of_real_data(excerpts):
    for refs, systems in excerpts.values():
        m = TER()
        hyp = next(iter(systems.values()))
        stats = m.statistics(refs, [hyp])[0]
        for i, line in enumerate(hyp):
            a = ter_alignment(line, [r[i] for r in refs], m)
            c = a.counts
            assert c["shift"] + c["substitution"] + c["insertion"] + c["deletion"] == a.edits == stats[i, 0]
            assert a.ref_length == stats[i, 1]
            assert sorted(a.shifted) == sorted(a.hyp_words)  # shifts only reorder
            assert c["match"] + c["substitution"] + c["deletion"] == len(a.hyp_words)
            assert c["match"] + c["substitution"] + c["insertion"] == len(a.ref_words)
            for op in a.ops:
                if op.original is not None:
                    assert a.hyp_words[op.original] == op.hyp_word


def test_edge_cases_follow_sacrebleu():
    for hyp, refs in [("", ["a b"]), ("a b", [""]), ("", [""]), ("x y z", ["a b c"]), ("a", ["a", "b c"])]:
        want = SacreTER().corpus_score([hyp], [[r] for r in refs]).score
        m = TER()
        assert m.corpus_score(m.statistics([[r] for r in refs], [[hyp]])[0]) == pytest.approx(want)


def test_parity_with_sacrebleu_where_the_beam_decides_and_beyond_62_reference_words(excerpts, monkeypatch):
    """Real lines joined into shapes where the kernel leaves its bit-parallel shortcut: references about
    three times the hypothesis's length (the beam then leaves out cells every cheap path would use, so
    each candidate's distance is checked against the beam or the candidate is shown unable to win), and
    references of more than 62 words (bit-parallel rows of two limbs; tests/metrics/test_ter_bits.py tests them on
    their own). sacrebleu's own TER is the oracle (its per-line statistics: tests/golden/excerpts.json, case
    ter-beam-shapes)."""
    import mtlens.metrics.ter as ter_module

    monkeypatch.setattr(ter_module, "PLAIN_PAIRS", -1)  # the kernel, whatever the job's size
    refs, systems = excerpts["sample_en-de"]
    shapes = beam_shapes(refs, next(iter(systems.values())))
    gold = excerpt_golden("ter-beam-shapes")
    assert set(gold) == set(shapes)
    m = TER()
    long_refs = 0
    for name, (refs_s, hyps_s) in shapes.items():
        long_refs += sum(len(m.ref_words(line)) > 62 for line in refs_s[0])
        got = m.statistics(refs_s, [hyps_s])[0]
        np.testing.assert_array_equal(got, np.array(gold[name], dtype=np.float64), err_msg=name)
    assert long_refs >= 12


def test_pathological_lines_are_bounded():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(300)]
    long_hyp = " ".join(rng.choice(words, 5000))
    long_ref = " ".join(rng.choice(words, 5000))
    m = TER()
    st = m.statistics([[long_ref, "a b c"]], [[long_hyp, "x y z"]])[0]
    assert 0 < st[0, 0] <= 5000 + 1000 and st[1, 0] == 3  # nothing shared: 3 substitutions
    a = ter_alignment("x y z", ["a b c"])
    assert a.shifts == () and a.counts["substitution"] == 3


# en-cs newstest2021 ref2.txt line 99 and CUNI-Marian-Baselines line 99 (WMT21, research use; tests/data/README.md)
_REF99 = (
    "Safari v Knowsley přijalo veškerá protiepidemiologická opatření, aby mohlo 15. června znovu otevřít. "
    "Vedení parku trvalo na tom, že je to stejně bezpečné jako drive-through u McDonald's, jelikož návštěvníci "
    "během osmikilometrové jízdy neopustí auto."
)


def test_references_are_tokenized_twice_as_sacrebleu_does():
    """sacrebleu 2.6.0 runs every reference through the tercom tokenizer twice; the normalized tokenizer is
    not idempotent on "McDonald's": 40 words after one pass, 41 after two (docs/decisions.md, TER)."""
    from sacrebleu.metrics import TER as SacreTER
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    tok = TercomTokenizer(normalized=True)
    assert len(tok(_REF99).split()) == 40
    assert len(tok(tok(_REF99)).split()) == 41
    m = TER(normalized=True)
    assert len(m.ref_words(_REF99)) == 41
    assert len(TER(normalized=True, single_pass=True).ref_words(_REF99)) == 40
    hyp = _REF99.replace("McDonald's", "McDonalds")
    want = SacreTER(normalized=True).corpus_score([hyp], [[_REF99]])
    st = m.statistics([[_REF99]], [[hyp]])[0]
    assert list(st[0]) == [want.num_edits, want.ref_length]
    assert m.corpus_score(st) == pytest.approx(want.score, abs=1e-9)
    single = TER(normalized=True, single_pass=True)
    assert single.statistics([[_REF99]], [[hyp]])[0][0, 1] == 40  # tercom's one pass: 40 reference words
    assert "refpass:once" in single.signature(1).format() and "refpass" not in m.signature(1).format()
