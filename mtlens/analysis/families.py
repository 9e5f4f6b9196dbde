"""Metric families, and the metrics a system was tuned on (issue 50; docs/decisions.md, "Metric families").

A system decoded or tuned with a metric (MBR, QE re-ranking, RL on COMET or MetricX) is overrated by that metric and
by its relatives, not by humans (Kovacs, Deutsch and Freitag, WMT24: MBR or QE with one neural metric inflates all
neural metrics). So every metric declares a family, a run may say what it was tuned on, and the gate does not
certify an improvement that only the tuned-on families (and, for a learned metric, every learned family) measure.

Families:

- ``surface``: string overlap computed here (BLEU, character BLEU, tolerant BLEU, chrF, chrF++, TER, NIST);
- ``comet``: COMET, CometKiwi, xCOMET (computed with a registered checkpoint, ``comet:NAME``, or imported);
- ``metricx``: MetricX (imported, or ``metricx:NAME``);
- ``learned``: other trained metrics read from files (BLEURT, BERTScore, a name mtlens does not know);
- ``llm-judge``: LLM judges (``judge:NAME``, GEMBA);
- ``human``: human judgments (MQM annotations, ESA ratings);
- ``checks``: the translation checks and a glossary's terms (issue 60). They measure defects, not quality: nothing is
  tuned on them, and they neither are inflated by tuning nor confirm a tuned candidate's improvement.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.errors import InputError
from ..scores.sources import CHECKS_FAMILY, COMET, FAMILIES, HUMAN, JUDGE, LEARNED, METRICX, SURFACE, source_of

#: the families of quality scores (what a system may be tuned on, and what confirms a tuned candidate)
QUALITY = tuple(f for f in FAMILIES if f != CHECKS_FAMILY)

#: the families of trained neural metrics: tuning on one of them inflates all of them (Kovacs et al. 2024)
NEURAL = frozenset({COMET, METRICX, LEARNED})
#: what ``--tuned-on`` accepts besides a family's name (a metric's name, as a team says it)
_ALIASES = {
    "bleu": SURFACE, "chrf": SURFACE, "chrf++": SURFACE, "ter": SURFACE, "nist": SURFACE, "bleu-c": SURFACE,
    "tbleu": SURFACE, "cometkiwi": COMET, "xcomet": COMET, "comet-kiwi": COMET, "metricx-qe": METRICX,
    "judge": JUDGE, "gemba": JUDGE, "llm": JUDGE, "bleurt": LEARNED, "bertscore": LEARNED,
    "mqm": HUMAN, "esa": HUMAN,
}  # fmt: skip


def family_of(metric: str) -> str:
    """The family of a metric by its name as ``--metrics`` writes it (``chrf``, ``comet:NAME``, ``judge:NAME``, an
    imported file's ``cometkiwi-xl``...): its source's (:func:`mtlens.scores.sources.source_of`)."""
    return source_of(metric).family


def tuned_families(text: str | Iterable[str] | None) -> frozenset[str]:
    """The families named by ``--tuned-on`` (``comet,metricx``: families or metric names), or one sentence naming
    what it accepts."""
    if text is None:
        return frozenset()
    items = text.split(",") if isinstance(text, str) else list(text)
    out = set()
    for raw in items:
        item = raw.strip().lower()
        if not item:
            continue
        if item in QUALITY:
            out.add(item)
        elif item in _ALIASES:
            out.add(_ALIASES[item])
        elif ":" in item and family_of(item) in QUALITY:  # a metric as --metrics names it (comet:NAME, judge:NAME)
            out.add(family_of(item))
        else:
            raise InputError(
                f"tuned on takes metric families ({', '.join(QUALITY)}) or metric names (bleu, chrf, comet, "
                f"cometkiwi, xcomet, metricx, judge...), not '{raw.strip()}'"
            )
    return frozenset(out)


def tainted(tuned: Iterable[str]) -> frozenset[str]:
    """The families whose scores a system tuned on ``tuned`` may overrate: those, and every trained neural family
    when one of them is among them (tuning on one neural metric inflates its relatives)."""
    tuned = frozenset(tuned)
    return tuned | (NEURAL if tuned & NEURAL else frozenset())


#: a family as a sentence names it, when it says which held-out metrics would confirm a tuned candidate
SAID = {
    SURFACE: "surface metrics such as chrF", COMET: "COMET", METRICX: "MetricX", LEARNED: "other learned metrics",
    JUDGE: "an LLM judge", HUMAN: "human scores",
}  # fmt: skip


def held_out_text(tuned: Iterable[str]) -> str:
    """The families a candidate tuned on ``tuned`` is not inflated on, as a sentence names them (issue 58's D14: a
    candidate tuned on chrF is confirmed by COMET or a judge, not by "surface metrics such as chrF")."""
    taint = tainted(tuned)
    return ", ".join(SAID[f] for f in QUALITY if f not in taint)


def tuned_text(families: Iterable[str]) -> str:
    """How a run's tuned-on families are kept in its metadata and shown (sorted, comma-separated)."""
    return ",".join(sorted(set(families)))


def families_text(metrics: Iterable[str]) -> str:
    """The metrics by family, in one line (``surface: bleu, chrf; llm-judge: judge:gpt``)."""
    by: dict[str, list[str]] = {}
    for m in metrics:
        by.setdefault(family_of(m), []).append(m)
    return "; ".join(f"{f}: {', '.join(by[f])}" for f in FAMILIES if f in by)
