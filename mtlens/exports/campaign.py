"""Annotation campaigns out (issue 52): chosen systems and segments of a set as a Pearmut campaign (zouharvi/pearmut,
its campaign JSON), ESA by default, with error spans pre-filled from a metric or a judge that gives them (ESA-AI:
xCOMET's spans, an LLM judge's, or earlier raters'), and the segments chosen: all, a seeded sample, or those where
the systems disagree most. What Pearmut writes back is read by :mod:`mtlens.readers.esa` (its output JSONL).

Pearmut's item: ``{"src", "tgt": {system: text}, "error_spans": {system: [{"start_i", "end_i", "severity",
"category"}]}, "item_id"}``; ``end_i`` is inclusive, as Pearmut's README says. Every item carries
``item_id = "mtlens:<line>"`` (0-based) so that its annotations come back to the set's line, and a document is
the chosen lines of one of the set's documents, in order (each line its own document when the set has none).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..core.errors import InputError
from ..readers.esa import ITEM_PREFIX, item_id, line_of

if TYPE_CHECKING:
    import numpy as np

__all__ = ["CHOICES", "ITEM_PREFIX", "choose_lines", "disagreement", "item_id", "line_of", "pearmut_campaign"]
#: how the segments are chosen
CHOICES = ("all", "sample", "disagree")
#: the most items one campaign holds (a campaign is for people: 5,000 segments is weeks of work)
MAX_ITEMS = 50_000


def choose_lines(
    n_lines: int,
    how: str = "all",
    count: int | None = None,
    seed: int = 0,
    disagreement: Sequence[float] | None = None,
) -> list[int]:
    """The lines of a campaign (0-based, in the set's order): every line; ``count`` lines drawn with ``seed``;
    or the ``count`` lines where ``disagreement`` (one value per line: how far apart the systems' scores are) is
    largest.

    >>> choose_lines(5, "disagree", 2, disagreement=[0.1, 0.9, 0.0, 0.5, 0.2])
    [1, 3]
    """
    if how not in CHOICES:
        raise InputError(f"--segments takes {', '.join(CHOICES)}, not '{how}'")
    if how == "all":
        return list(range(n_lines))
    if count is None or count < 1:
        raise InputError(f"--segments {how} needs --count N (at least 1)")
    count = min(count, n_lines)
    if how == "sample":
        return sorted(random.Random(seed).sample(range(n_lines), count))
    if disagreement is None or len(disagreement) != n_lines:
        raise InputError(
            "choosing the segments where the systems disagree needs a metric's segment scores (--by METRIC)"
        )
    order = sorted(range(n_lines), key=lambda i: (-disagreement[i] if math.isfinite(disagreement[i]) else math.inf, i))
    return sorted(order[:count])


def disagreement(scores: Mapping[str, Sequence[float] | np.ndarray]) -> list[float]:
    """How far apart the systems' segment scores are on each line: their standard deviation (NaN where fewer
    than two systems have a score)."""
    import numpy as np

    m = np.asarray(list(scores.values()), dtype=np.float64)
    out = []
    for col in m.T:
        ok = col[np.isfinite(col)]
        out.append(float(np.std(ok)) if len(ok) >= 2 else math.nan)
    return out


def pearmut_campaign(
    corpus,
    systems: Sequence[str],
    lines: Sequence[int],
    campaign_id: str,
    spans: Mapping[str, Sequence[Sequence]] | None = None,
    spans_from: str | None = None,
    protocol: str = "ESA",
) -> dict:
    """The campaign as Pearmut's JSON: one user's task (``assignment: single-stream``, one annotator at a time),
    documents of the chosen ``lines`` with every one of ``systems``' outputs, the source and the first reference;
    ``spans``: system -> per line, the spans to pre-fill (``[start, end)`` objects with ``severity``)."""
    unknown = [s for s in systems if s not in corpus.systems]
    if unknown:
        raise InputError(f"the set has no system '{unknown[0]}'; its systems: {', '.join(corpus.system_names)}")
    if not systems:
        raise InputError("a campaign needs at least one system (--systems A,B)")
    if any(s.isdigit() for s in systems):
        raise InputError("Pearmut refuses a system named only with digits; rename it first")
    if len(lines) * len(systems) > MAX_ITEMS:
        raise InputError(f"{len(lines):,} segments x {len(systems)} systems is more than {MAX_ITEMS:,} items")
    if protocol not in ("ESA", "MQM", "DA"):
        raise InputError(f"the protocol is ESA, MQM or DA, not '{protocol}'")
    source = corpus.source
    reference = next(iter(corpus.references.values()), None)
    docs: list[list[dict]] = []
    last = object()
    for i in lines:
        item = {"tgt": {s: corpus.systems[s][i] for s in systems}, "item_id": item_id(i)}
        if source is not None:
            item["src"] = source[i]
        if reference is not None:
            item["ref"] = reference[i]
        if spans is not None and protocol != "DA":
            item["error_spans"] = {
                s: [_pearmut_span(sp) for sp in spans.get(s, [[]] * corpus.n_lines)[i]] for s in systems
            }
        doc = corpus.documents[i] if corpus.documents is not None else i
        if doc != last or not docs:
            docs.append([])
            last = doc
        docs[-1].append(item)
    if not docs:
        raise InputError("no segment was chosen for the campaign")
    info = {
        "assignment": "single-stream",
        "users": 1,
        "protocol": protocol,
        "shuffle": False,
        "instructions": f"Made by mtlens from {len(lines):,} segments of {len(systems)} system(s)"
        + (
            f"; error spans pre-filled from {spans_from} (ESA-AI): review, change or delete them."
            if spans_from
            else "."
        ),
    }
    return {"campaign_id": campaign_id, "info": info, "data": docs}


def _pearmut_span(sp) -> dict:
    """A ``[start, end)`` span as Pearmut's (``end_i`` inclusive); a severity Pearmut does not know becomes major
    (xCOMET's critical)."""
    sev = sp.severity if sp.severity in ("minor", "major") else "major"
    return {"start_i": int(sp.start), "end_i": int(sp.end) - 1, "severity": sev, "category": None}
