"""sacrebleu 2.6.0 parity on the full real data of ../shared/data (all 8 WMT pairs).

sacrebleu's values are golden values computed by a checked-in script
(``tests/golden/make_sacrebleu_golden.py``, which runs sacrebleu) into ``tests/golden/sacrebleu.json.gz``
for the cases of ``tests/golden/cases.py``: word BLEU with several option sets and tokenizers, chrF,
chrF++ and their eps smoothing on every line; character BLEU-18 on the first lines (sacrebleu needs
about 90 s per pair); sentence scores; TER's per-line statistics on the first lines, with options, and
on whole pairs. mtlens computes its side at every run. The file holds sacrebleu's version and a digest
of the data: a test fails, naming the script, when either changed. Tolerance 1e-9 on the 0-100 scale;
TER's statistics exactly. Marked ``shared``: skipped with a reason in a user's clone, mandatory in CI
(``--require-shared-data``).
"""

from __future__ import annotations

import numpy as np
import pytest

from mtlens.metrics import BLEU, CHRF, TER, CharBLEU

from ..conftest import PAIRS
from ..golden import cases as golden_cases
from ..golden.make_sacrebleu_golden import shared_golden, ter_score

pytestmark = [pytest.mark.shared, pytest.mark.slow]

TOL = 1e-9
CASES = golden_cases.cases()


@pytest.fixture(scope="module")
def golden():
    """sacrebleu's values, checked to come from this sacrebleu and this data."""
    return shared_golden()


def _ours(case):
    o = dict(case.options)
    if case.metric == "ter":
        return TER(**o)
    if case.metric == "chrf":
        return CHRF(**o)
    if o.get("tokenize") == "char":  # sacrebleu's character BLEU is BLEU with the char tokenizer
        return CharBLEU(o.pop("max_ngram_order", 4))
    o.pop("effective_order", None)  # sentence scores always use it, as sacrebleu's command line does
    return BLEU(**o)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_sacrebleu_parity(shared_pairs, golden, case):
    refs, systems = golden_cases.select(case, *shared_pairs[case.pair])
    want = golden[case.id]
    assert list(want) == list(systems)
    ours = _ours(case)
    for name, st in zip(systems, ours.statistics(refs, list(systems.values())), strict=True):
        if case.kind == "ter":
            np.testing.assert_array_equal(st, np.array(want[name], dtype=np.float64), err_msg=f"{case.id} {name}")
        elif case.kind == "sentence":
            np.testing.assert_allclose(ours.sentence_scores(st), want[name], rtol=0, atol=TOL, err_msg=case.id)
        else:
            assert ours.corpus_score(st) == pytest.approx(want[name], abs=TOL), (case.id, name)
    if case.id.startswith("ter-en-cs/"):  # and the corpus score the command line prints from them
        st = np.array(want["CUNI-Marian-Baselines"])
        assert ours.corpus_score(ours.statistics(refs, list(systems.values()))[0]) == pytest.approx(
            100 * st[:, 0].sum() / st[:, 1].sum(), abs=TOL
        )


@pytest.mark.parametrize("pair", ["zh-en", "ja-en", "en-ja", "en-zh"])
def test_nist_equals_nltk_with_one_reference(shared_pairs, pair):

    from mtlens.metrics import NIST

    from .test_nist import nltk_nist

    refs, systems = shared_pairs[pair]
    m = NIST()
    for name, hyp in systems.items():  # every system, those without 5-grams included
        st = m.statistics([refs[0]], [hyp])[0]
        assert m.corpus_score(st) == pytest.approx(nltk_nist(m, refs[0], hyp), rel=1e-12), (pair, name)


def test_ter_alignment_invariant_on_every_sentence_of_a_full_pair(shared_pairs):
    from mtlens.metrics import TER
    from mtlens.metrics.ter import ter_alignment

    refs, systems = shared_pairs["en-de"]
    m = TER()
    for hyp in list(systems.values())[:2]:
        stats = m.statistics(refs, [hyp])[0]
        for i, line in enumerate(hyp):
            a = ter_alignment(line, [r[i] for r in refs], m)
            c = a.counts
            assert c["shift"] + c["substitution"] + c["insertion"] + c["deletion"] == a.edits == stats[i, 0], i


def test_ter_normalized_issue_case(shared_pairs, golden):
    """The reported case: en-cs, CUNI-Marian-Baselines, first 250 lines, both references: sacrebleu 56.46384.
    sacrebleu's side is its own corpus score of its per-line statistics of those lines (the golden case
    ``ter-en-cs/normalized=True`` holds them for every line of that system)."""
    from mtlens.metrics import TER

    refs, systems = shared_pairs["en-cs"]
    refs = [r[:250] for r in refs]
    hyp = systems["CUNI-Marian-Baselines"][:250]
    m = TER(normalized=True)
    got = m.corpus_score(m.statistics(refs, [hyp])[0])
    lines = golden["ter-en-cs/normalized=True"]["CUNI-Marian-Baselines"][:250]
    assert got == pytest.approx(ter_score(lines, {"normalized": True}), abs=TOL)
    assert round(got, 5) == 56.46384


# --------------------------------------------------------------------------- the two engines of clipped counts
@pytest.mark.parametrize("pair", PAIRS)
def test_compiled_counts_equal_numpys_on_the_full_pair(shared_pairs, pair, monkeypatch):
    """The compiled counts (mtlens.metrics._ngram_kernel) and numpy's sorts (mtlens.core.ngrams) on every
    line of the pair: 13a words (BLEU's 4 orders) and chrF's characters (6 orders), clipped per
    reference and by the largest reference count, and characters to order 18 on the first 200 lines.
    Whichever engine the parity tests above ran with, the other gives the same numbers."""
    from mtlens.core import ngrams
    from mtlens.metrics import _compiled, counts

    monkeypatch.setattr(_compiled, "ready", lambda m: True)
    refs, systems = shared_pairs[pair]
    lines = [*refs, *systems.values()]
    chrf = CHRF()
    cases = [
        ("words", BLEU()._streams(lines), 4),
        ("chars", ngrams.char_streams([[chrf.chars(x) for x in s] for s in lines]), 6),
        ("chars-18", ngrams.char_streams([[chrf.chars(x) for x in s[:200]] for s in lines]), 18),
    ]
    for name, st, order in cases:
        hyps = range(len(refs), st.n_streams)
        for pairwise in (True, False):
            want = ngrams.clipped_matches(st, range(len(refs)), hyps, order, pairwise=pairwise)
            got = counts.clipped_matches(st, range(len(refs)), hyps, order, pairwise=pairwise)
            np.testing.assert_array_equal(got, want, err_msg=f"{pair} {name} pairwise={pairwise}")
