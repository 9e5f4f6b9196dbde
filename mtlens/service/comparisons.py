"""Significance tests between systems (:mod:`mtlens.analysis.significance`): the paired bootstrap and
approximate randomisation, their settings checked, and the statistics policy every face shares
(:mod:`mtlens.analysis.policy`: the level, the seed, the resample counts and the words that describe a test).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..analysis import policy
from ..analysis.policy import (
    ALPHA,
    ALPHA_CHOICES,
    CI_RESAMPLES,
    DEFAULT_SAMPLES,
    MAX_SAMPLES,
    MIN_TEST_LINES,
    P_DEFINITIONS,
    SEED,
    check_test_settings,
    counts_text,
    test_wording,
)
from ..core.errors import InputError
from ._lazy import lazy_names

if TYPE_CHECKING:  # the names as a type checker and an editor see them (tests/test_architecture.py)
    from ..analysis.significance import compare

_NAMES = {
    "compare": "mtlens.analysis.significance:compare",
}
__getattr__, __dir__ = lazy_names(__name__, _NAMES)
__all__ = [
    "ALPHA",
    "ALPHA_CHOICES",
    "CI_RESAMPLES",
    "DEFAULT_SAMPLES",
    "MAX_SAMPLES",
    "MIN_TEST_LINES",
    "P_DEFINITIONS",
    "SEED",
    "can_test",
    "check_test_settings",
    "compare",
    "compare_all",
    "counts_text",
    "policy",
    "resampled_documents",
    "test_wording",
]


def can_test(n_systems: int, n_lines: int) -> bool:
    """Whether significance tests run: two systems or more and :data:`MIN_TEST_LINES` lines (the policy)."""
    return n_systems > 1 and n_lines >= MIN_TEST_LINES


def resampled_documents(corpus, resample: str):
    """What a test resamples, decided once for both faces: ``None`` for segments, or every line's document id
    for ``resample="documents"`` (an InputError when the corpus has no documents)."""
    if resample == "segments":
        return None
    if resample != "documents":
        raise InputError(f"--resample takes segments or documents, not '{resample}'")
    if corpus.documents is None:
        raise InputError(
            "--resample documents needs documents: WMT XML (--data FILE.xml), a doc column, --docs FILE, or a "
            "saved set that has them"
        )
    return corpus.documents


def compare_all(
    results,
    corpus,
    test="bootstrap",
    n=None,
    seed=SEED,
    baseline=None,
    alpha=ALPHA,
    sacrebleu_compatible=False,
    resample="segments",
) -> dict:
    """Every metric's significance tests (:func:`mtlens.analysis.significance.compare`) on ``corpus``'s
    results, after deciding that a test can run at all (two systems or more) and what it resamples
    (:func:`resampled_documents`)."""
    check_test_settings(n or 1, seed, alpha)
    if len(next(iter(results.values())).scores) < 2:
        raise InputError("significance tests need at least two systems")
    documents = resampled_documents(corpus, resample)
    from ..analysis.significance import compare

    return {
        m: compare(
            r,
            test=test,
            n=n,
            seed=seed,
            baseline=baseline,
            alpha=alpha,
            sacrebleu_compatible=sacrebleu_compatible,
            documents=documents,
        )
        for m, r in results.items()
    }
