"""sacrebleu 2.6.0 parity on the full real data of ../shared/data (all 8 WMT pairs).

Full data for the fast metrics (BLEU with several option sets, chrF, chrF++); the
first lines of each pair for character BLEU-18, where sacrebleu itself needs
about 90 s per pair. Tolerance 1e-9 on the 0-100 scale. Marked ``shared``:
skipped with a reason in a user's clone, mandatory in CI (``--require-shared-data``).
"""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF

from mtlens.metrics import BLEU, CHRF, CharBLEU

from .conftest import PAIRS

pytestmark = [pytest.mark.shared, pytest.mark.slow]

TOL = 1e-9


def _check(ours, theirs_factory, refs, systems, label):
    stats = ours.statistics(refs, list(systems.values()))
    theirs = theirs_factory(refs)
    for (name, hyp), st in zip(systems.items(), stats, strict=True):
        want = theirs.corpus_score(hyp, None).score
        assert ours.corpus_score(st) == pytest.approx(want, abs=TOL), (label, name)


@pytest.mark.parametrize("pair", PAIRS)
def test_bleu_default(shared_pairs, pair):
    refs, systems = shared_pairs[pair]
    _check(BLEU(), lambda r: SacreBLEU(references=r), refs, systems, pair)


@pytest.mark.parametrize("pair", PAIRS)
def test_bleu_lowercase_intl(shared_pairs, pair):
    refs, systems = shared_pairs[pair]
    _check(
        BLEU(tokenize="intl", lowercase=True),
        lambda r: SacreBLEU(tokenize="intl", lowercase=True, references=r),
        refs,
        systems,
        pair,
    )


@pytest.mark.parametrize(("pair", "tok"), [("en-zh", "zh"), ("en-ja", "zh"), ("en-ja", "char"), ("zh-en", "none")])
def test_bleu_other_tokenizers(shared_pairs, pair, tok):
    refs, systems = shared_pairs[pair]
    _check(BLEU(tokenize=tok), lambda r: SacreBLEU(tokenize=tok, references=r), refs, systems, pair)


@pytest.mark.parametrize(("pair", "smooth"), [("en-cs", "floor"), ("de-en", "add-k"), ("cs-en", "none")])
def test_bleu_smoothing(shared_pairs, pair, smooth):
    refs, systems = shared_pairs[pair]
    _check(BLEU(smooth_method=smooth), lambda r: SacreBLEU(smooth_method=smooth, references=r), refs, systems, pair)


@pytest.mark.parametrize("pair", PAIRS)
def test_chrf(shared_pairs, pair):
    refs, systems = shared_pairs[pair]
    _check(CHRF(), lambda r: SacreCHRF(references=r), refs, systems, pair)


@pytest.mark.parametrize("pair", PAIRS)
def test_chrf_plus_plus(shared_pairs, pair):
    refs, systems = shared_pairs[pair]
    _check(CHRF(word_order=2), lambda r: SacreCHRF(word_order=2, references=r), refs, systems, pair)


def test_chrf_lowercase(shared_pairs):
    refs, systems = shared_pairs["en-de"]
    _check(CHRF(lowercase=True), lambda r: SacreCHRF(lowercase=True, references=r), refs, systems, "en-de")


@pytest.mark.parametrize("pair", PAIRS)
def test_char_bleu_18_on_the_first_lines(shared_pairs, pair):
    refs, systems = shared_pairs[pair]
    n = 150
    refs = [r[:n] for r in refs]
    subset = {k: v[:n] for k, v in list(systems.items())[:3]}
    _check(CharBLEU(18), lambda r: SacreBLEU(tokenize="char", max_ngram_order=18, references=r), refs, subset, pair)


def test_char_bleu_low_order_full_data(shared_pairs):
    refs, systems = shared_pairs["en-ja"]
    _check(CharBLEU(4), lambda r: SacreBLEU(tokenize="char", max_ngram_order=4, references=r), refs, systems, "en-ja")


@pytest.mark.parametrize("pair", ["en-de", "zh-en"])
def test_sentence_scores_full_pair(shared_pairs, pair):
    refs, systems = shared_pairs[pair]
    _name, hyp = next(iter(systems.items()))
    for ours, theirs in [(BLEU(), SacreBLEU(effective_order=True)), (CHRF(), SacreCHRF())]:
        got = ours.sentence_scores(ours.statistics(refs, [hyp])[0])
        want = [theirs.sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(hyp)]
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
