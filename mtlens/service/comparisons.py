"""Significance tests between systems as both faces run them: whether a test can run at all, what it resamples, and
every metric's tests with their settings checked against the statistics policy (:mod:`mtlens.analysis.policy`, the
level, the seed and the resample counts, which the faces read directly).
"""

from __future__ import annotations

from ..analysis.policy import ALPHA, MIN_TEST_LINES, SEED, check_test_settings
from ..core.errors import InputError

__all__ = ["can_test", "compare_all", "resampled_documents"]


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
