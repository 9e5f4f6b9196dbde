"""The tBLEU threshold sweep (Libovický & Pecina, 2014, Figure 2): corpus tBLEU of every system for
each epsilon and, with system-level human scores, its correlation with them per epsilon."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.corpus import Corpus
from .correlation import corr
from .human import HumanScores

#: 0, 0.05, ..., 1
EPSILONS: tuple[float, ...] = tuple(round(0.05 * i, 2) for i in range(21))


@dataclass(frozen=True)
class TBLEUSweep:
    """Attributes:
    epsilons: the thresholds.
    scores: system -> corpus tBLEU per epsilon.
    correlation: human score type -> {"pearson": [...], "kendall": [...]} per epsilon.
    """

    epsilons: list[float]
    scores: dict[str, list[float]]
    correlation: dict[str, dict[str, list[float]]]


def tbleu_sweep(
    corpus: Corpus,
    epsilons: Sequence[float] = EPSILONS,
    human: HumanScores | None = None,
    **bleu_options,
) -> TBLEUSweep:
    """Corpus tBLEU of every system for each epsilon (the matchings are computed once)."""
    from ..metrics.tbleu import TBLEU

    m = TBLEU(0.0, **bleu_options)
    per_eps = m.sweep_statistics(corpus.reference_streams(), corpus.system_streams(), epsilons)
    scores = {
        s: [float(m.score_from_totals(per_eps[e][k].sum(axis=0))) for e in range(len(epsilons))]
        for k, s in enumerate(corpus.system_names)
    }
    correlation = {}
    if human is not None:
        for h_name, by_sys in human.system.items():
            names = [s for s in scores if s in by_sys]
            y = [by_sys[s] for s in names]
            correlation[h_name] = {
                kind: [corr(kind, [scores[s][e] for s in names], y) for e in range(len(epsilons))]
                for kind in ("pearson", "kendall")
            }
    return TBLEUSweep(list(epsilons), scores, correlation)
