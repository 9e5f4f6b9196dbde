"""A set's documents and domains as the pages offer them: choices, the lines they select, a document's summary."""

from __future__ import annotations

import pandas as pd

from .views import ANY, metric_decimals


def document_link_choices(corpus) -> dict:
    """The Sentences page's document filters as link parameters (``domain``, ``doc``)."""
    if corpus.documents is None:
        return {}
    out = {"doc": ("sent_doc", list(dict.fromkeys(corpus.documents)))}
    if corpus.domains is not None:
        out["domain"] = ("sent_domain", domain_choices(corpus))
    return out


def domain_choices(corpus) -> list[str]:
    from ..analysis.groups import labels_for as groups_labels

    return [ANY, *dict.fromkeys(groups_labels(corpus, "domain"))]


def document_choices(corpus, domain: str) -> list[str]:
    """The documents (in order of appearance), of one domain when one is chosen."""
    from ..analysis.groups import labels_for as groups_labels

    if domain == ANY or corpus.domains is None:
        return [ANY, *dict.fromkeys(corpus.documents)]
    labels = groups_labels(corpus, "domain")
    return [ANY, *dict.fromkeys(d for d, g in zip(corpus.documents, labels, strict=True) if g == domain)]


def lines_of(corpus, domain: str, document: str) -> set[int] | None:
    """The lines (1-based) of a domain and/or a document; None for every line."""
    from ..analysis.groups import labels_for as groups_labels

    keep = None
    if domain != ANY and corpus.domains is not None:
        labels = groups_labels(corpus, "domain")
        keep = {i + 1 for i, g in enumerate(labels) if g == domain}
    if document != ANY and corpus.documents is not None:
        lines = {i + 1 for i, d in enumerate(corpus.documents) if d == document}
        keep = lines if keep is None else keep & lines
    return keep


def document_filter(view: pd.DataFrame, corpus, domain: str, document: str) -> pd.DataFrame:
    """The line table kept to a domain and/or a document; one document is shown in its own order (its
    segments as they stand in the document), whatever the sort."""
    keep = lines_of(corpus, domain, document)
    if keep is None:
        return view
    view = view[view["line"].isin(keep)]
    return view.sort_values("line") if document != ANY else view


def document_summary(corpus, result, document: str, a: str, b: str | None) -> str:
    """One sentence: the document's lines and the systems' scores on them (the metric over those lines)."""
    from ..analysis.groups import restricted
    from ..service.results import metric_label

    lines = [i for i, d in enumerate(corpus.documents) if d == document]
    scores = restricted(result, lines).scores
    places = metric_decimals(result.metric, list(scores.values()))
    shown = ", ".join(f"{s} {scores[s]:.{places}f}" for s in ([a, b] if b else [a]))
    return f"Document {document}: {len(lines)} lines in document order; {metric_label(result.metric)} on them: {shown}."
