"""The translation checks and a glossary's terms of a dataset, cached (issue 60): what the Rankings, Compare two
systems and Sentences show of them (:func:`mtlens.service.results.offered_checks`)."""

from __future__ import annotations

from .cache import cache
from .state import Dataset

__all__ = ["check_names", "checks", "term_rows"]


def checks(dataset: Dataset) -> dict:
    """The translation checks the set can run and its glossary's terms (issue 60): name -> (ImportedScores,
    MetricResult); empty without a source."""
    if dataset.corpus.source is None:
        return {}
    return _checks(dataset)


def check_names(dataset: Dataset) -> list[str]:
    """The names :func:`checks` gives, in its order, without computing the checks when the set has no glossary: the
    Rankings' list of metrics needs only the names, and the checks are computed where a page shows them, after the
    ranking's first table (20 visitors opening sets that a new server has not checked yet all waited for the checks
    before their first table). With a glossary the terms' names depend on their scores: :func:`checks`."""
    if dataset.terms:
        return list(checks(dataset))
    from ..service.results import offered_check_names  # none without a source, as checks gives

    return offered_check_names(dataset.evaluation())


def _terms_key(dataset: Dataset) -> str:
    from ..service.inputs import files_fingerprint

    return files_fingerprint(tuple((f"{key}:{name}", data) for name, data, key in dataset.terms))


@cache(
    lambda ds: (ds.fingerprint, ds.language.target if ds.language else None, _terms_key(ds)),
    spinner="Checking numbers, placeholders, markup, URLs, language and loops…",
)
def _checks(dataset: Dataset) -> dict:
    from ..service.results import offered_checks, result_for

    return {s.name: (s, result_for(dataset.corpus, s)) for s in offered_checks(dataset.evaluation())}


@cache(lambda ds: (ds.fingerprint, _terms_key(ds)), spinner="Finding the glossary's terms…")
def term_rows(dataset: Dataset) -> list[dict]:
    """The glossary's per-term table (:func:`mtlens.service.results.term_rows`)."""
    from ..service.results import term_rows as rows

    return rows(dataset.evaluation())
