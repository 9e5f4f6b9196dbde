"""Clipped n-gram matches: the compiled kernel (mtlens.metrics._ngram_kernel) against numpy's sorts
(mtlens.core.ngrams.clipped_matches) and against sacrebleu, and when each is used (mtlens.metrics.counts)."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF

from mtlens.core import ngrams
from mtlens.metrics import BLEU, CHRF, CharBLEU, _compiled, counts
from mtlens.metrics.chrf import CHRFpp

from ..conftest import run_python


@pytest.fixture
def compiled(monkeypatch):
    """The compiled counts whatever has been built (numba's kernel if no ahead-of-time module is)."""
    real = _compiled.ready
    monkeypatch.setattr(_compiled, "ready", lambda m: True if m == counts.KERNEL else real(m))


@pytest.fixture
def numpy_only(monkeypatch):
    real = _compiled.ready
    monkeypatch.setattr(_compiled, "ready", lambda m: False if m == counts.KERNEL else real(m))


def _streams_of(excerpts):
    """(name, Streams, number of references, max order) for word and character streams of every excerpt."""
    bleu, chrf = BLEU(), CHRF()
    for name, (refs, systems) in excerpts.items():
        lines = [*refs, *systems.values()]
        yield name + ":words", bleu._streams(lines), len(refs), 4
        yield name + ":chars", ngrams.char_streams([[chrf.chars(x) for x in s] for s in lines]), len(refs), 6
        yield name + ":chars-18", ngrams.char_streams([[x for x in s[:60]] for s in lines]), len(refs), 18


def test_compiled_counts_equal_numpys_on_the_bundled_real_data(excerpts, compiled):
    for name, st, n_refs, order in _streams_of(excerpts):
        hyps = range(n_refs, st.n_streams)
        for pairwise in (True, False):
            for refs in (range(n_refs), range(1)):  # all references, and the first alone
                want = ngrams.clipped_matches(st, refs, hyps, order, pairwise=pairwise)
                got = counts.clipped_matches(st, refs, hyps, order, pairwise=pairwise)
                assert got.shape == want.shape and got.dtype == want.dtype, name
                np.testing.assert_array_equal(got, want, err_msg=f"{name} pairwise={pairwise}")
                assert want[..., 0].sum() > 0  # real matches, not two empty tables


EDGES = [
    # (references, hypotheses): empty lines, repeats beyond the reference's count, a line shorter than
    # the order, a hypothesis equal to a reference, nothing shared
    (["a a a b", "", "x y z w v u", "the cat sat", "q"], ["a a a a a b b", "a b", "x y z w v u", "", "r"]),
    (["a a b b a a", "one two", "", "p q r s t", "k"], ["a a b b a a", "two one", "z", "p q", "k k k k k"]),
]


@pytest.mark.parametrize("engine", ["compiled", "numpy_only"])
def test_bleu_and_chrf_statistics_equal_sacrebleus_on_edge_lines_and_real_data(engine, request, excerpts):
    """Through the metrics, with each engine: sacrebleu's own statistics (its Counter per line)."""
    request.getfixturevalue(engine)
    refs = [EDGES[0][0], EDGES[1][0]]
    hyps = [EDGES[0][1], EDGES[1][1]]
    cases = [(refs, hyps)]
    for real_refs, systems in excerpts.values():
        cases.append(([r[:30] for r in real_refs], [h[:30] for h in list(systems.values())[:2]]))
    for case_refs, case_hyps in cases:
        for mine, theirs in (
            (BLEU(), SacreBLEU(references=case_refs)),
            (CharBLEU(), SacreBLEU(tokenize="char", max_ngram_order=18, references=case_refs)),
            (CHRF(), SacreCHRF(references=case_refs)),
            (CHRFpp(), SacreCHRF(word_order=2, references=case_refs)),
        ):
            stats = mine.statistics(case_refs, case_hyps)
            for hyp, st in zip(case_hyps, stats, strict=True):
                want = np.array(theirs._extract_corpus_statistics(hyp, None), dtype=np.float64)
                np.testing.assert_array_equal(st.astype(np.float64), want, err_msg=mine.name)


def test_a_segment_whose_keys_would_not_fit_is_counted_by_numpy(monkeypatch, excerpts):
    """The kernel's keys (number in the segment x vocabulary + token) must fit in 63 bits; past that
    bound (lowered here) numpy counts, with the same numbers."""
    refs, systems = excerpts["sample_en-de"]
    st = BLEU()._streams([refs[0][:20], *(s[:20] for s in systems.values())])
    want = ngrams.clipped_matches(st, [0], range(1, st.n_streams), 4, pairwise=False)
    called = []
    real = ngrams.clipped_matches
    monkeypatch.setattr(counts.ngrams, "clipped_matches", lambda *a, **k: called.append(1) or real(*a, **k))
    monkeypatch.setattr(_compiled, "ready", lambda m: True)
    monkeypatch.setattr(counts, "_KEY_LIMIT", 10)
    np.testing.assert_array_equal(counts.clipped_matches(st, [0], range(1, st.n_streams), 4, pairwise=False), want)
    assert called


def test_a_large_job_prepares_the_kernel_and_a_small_one_does_not_wait_for_it(tmp_path):
    """In a fresh installation (empty caches, numba's kernels only, so nothing is built ahead of
    time): a job of more than KERNEL_PAIRS line pairs loads the compiled counts before scoring; a
    smaller one uses numpy's sorts and loads no kernel. Both give sacrebleu's BLEU."""
    code = """
import json, sys
import mtlens
from mtlens.metrics import counts
refs = [["the cat sat on the mat", "a b c d"]]
hyps = [["the cat sat on a mat", "a b d c"], ["a cat sat", "a b c d"]]
small = mtlens.runtime.tasks.statistics(mtlens.metrics.BLEU(), refs, hyps)
small_loaded = counts.KERNEL in sys.modules
counts.KERNEL_PAIRS = 3  # 2 lines x 2 systems x 1 reference = 4 pairs: large
large = mtlens.runtime.tasks.statistics(mtlens.metrics.BLEU(), refs, hyps)
print(json.dumps({"small_loaded": small_loaded, "large_loaded": counts.KERNEL in sys.modules,
                  "small": [s.tolist() for s in small], "large": [s.tolist() for s in large]}))
"""
    got = run_python(code, NUMBA_CACHE_DIR=str(tmp_path), MTLENS_AOT="0", MTLENS_WORKERS="1")
    assert not got["small_loaded"] and got["large_loaded"]
    assert got["small"] == got["large"]
    refs = [["the cat sat on the mat", "a b c d"]]
    for hyp, st in zip([["the cat sat on a mat", "a b d c"], ["a cat sat", "a b c d"]], got["large"], strict=True):
        want = sacrebleu.metrics.BLEU(references=refs)._extract_corpus_statistics(hyp, None)
        assert st == want
