"""The release gate: may a candidate replace a baseline? (issue 34; docs/decisions.md, "The release gate")

For each metric a team names, the candidate's and the baseline's scores on the same test set are
compared by the paired bootstrap (Koehn 2004) over the segments' statistics, all metrics on the same
resamples. Definitions, written where the numbers are made:

- ``delta = candidate - baseline`` on the metric's own scale (BLEU 0-100, COMET 0-1).
- ``p``: two-sided paired bootstrap p-value,
  ``p = (#{k: |d_k - mean(d)| >= |delta|} + 1) / (n + 1)`` with ``d_k`` the delta in resample k.
- ``p_holm``: Holm's step-down correction over the named metrics (the family of tests is the gate's
  metrics: one candidate, one baseline).
- ``human_agreement``: the estimated share of human judges who would agree with a difference of this
  size (Kocmi et al. 2024; :mod:`mtlens.analysis.agreement`); None where no fit is published.
- ``min_detectable_delta``: the smallest |delta| this test set detects with 80% power at Holm's
  strictest level (:mod:`mtlens.analysis.power`, from the bootstrap's standard error of the delta).

The rule: a metric *regresses* when its delta is in the worse direction (lower for a score, higher for
an error rate such as TER), ``p_holm < alpha``, and, when ``min_agreement`` is given, the human
agreement of the delta is at least ``min_agreement``. A metric without a published agreement fit is
judged on significance alone (a note says so): a bar that cannot be measured does not excuse a
significant regression. The verdict is ``regression`` when any metric regresses, else ``pass``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.errors import InputError
from ..runtime.scoring import MetricResult
from .agreement import human_agreement
from .policy import ALPHA, MIN_TEST_LINES, SEED, check_alpha, default_resamples
from .power import POWER, min_detectable_delta
from .resampling import paired_deltas
from .significance import holm

#: the rule in one sentence, printed with every verdict
RULE = (
    "a metric regresses when the candidate is worse than the baseline, the paired bootstrap's p after Holm's "
    "correction over the metrics is below alpha ({alpha:g}){agreement}"
)


@dataclass(frozen=True)
class GateMetric:
    """One metric's comparison of the candidate with the baseline (definitions: the module's docstring)."""

    metric: str
    baseline: float
    candidate: float
    delta: float
    p: float
    p_holm: float
    human_agreement: float | None
    min_detectable_delta: float
    higher_is_better: bool
    regression: bool
    #: significant after Holm in the better direction
    improvement: bool
    signature: str = ""


@dataclass(frozen=True)
class GateResult:
    """The verdict and each metric's comparison."""

    verdict: str
    baseline: str
    candidate: str
    metrics: list[GateMetric]
    alpha: float
    min_agreement: float | None
    n: int
    seed: int | None
    lines: int
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: what was resampled: segments, or whole documents
    resample: str = "segments"

    @property
    def rule(self) -> str:
        extra = "" if self.min_agreement is None else f" and its human agreement is at least {self.min_agreement:g}"
        return RULE.format(alpha=self.alpha, agreement=extra)

    @property
    def test(self) -> str:
        seed = "none" if self.seed is None else str(self.seed)
        unit = "" if self.resample == "segments" else f"|resample:{self.resample}"
        return f"test:paired-bootstrap|n:{self.n}|seed:{seed}|alpha:{self.alpha:g}|correction:holm-over-metrics{unit}"


def check_gate_settings(alpha: float, min_agreement: float | None) -> None:
    check_alpha(alpha)
    if min_agreement is not None and not 0 <= min_agreement <= 1:
        raise InputError(f"--min-agreement is a share of judges, between 0 and 1, not {min_agreement}")


def gate(
    results: Mapping[str, MetricResult],
    baseline: str,
    candidate: str,
    alpha: float = ALPHA,
    min_agreement: float | None = None,
    n: int | None = None,
    seed: int | None = SEED,
    documents=None,
) -> GateResult:
    """The gate's verdict for ``candidate`` against ``baseline`` on every metric of ``results`` (each holding
    both systems). ``n``: bootstrap resamples (default 1,000, more when the metrics are so many that Holm's
    correction needs them: :func:`~mtlens.analysis.policy.default_resamples`). ``documents``: every
    line's document id: whole documents are resampled (the test and the smallest detectable delta)."""
    check_gate_settings(alpha, min_agreement)
    if not results:
        raise InputError("the gate needs at least one metric")
    if baseline == candidate:
        raise InputError("the candidate and the baseline are the same system; name two")
    for r in results.values():
        for who, system in (("baseline", baseline), ("candidate", candidate)):
            if system not in r.scores:
                raise InputError(f"the {who} '{system}' is not one of the systems: {', '.join(r.scores)}")
    lines = len(next(iter(results.values())).stats[baseline])
    if lines < MIN_TEST_LINES:
        raise InputError(
            f"the gate needs at least {MIN_TEST_LINES} lines to test a difference; this test set has {lines}"
        )
    m = len(results)
    n = n or default_resamples(m, lines, alpha)
    raw = []
    for r in results.values():
        (pd,), _ = paired_deltas(r, [(candidate, baseline)], n, seed, documents=documents)
        raw.append(pd)
    adjusted = holm([pd.p_value for pd in raw])
    out, notes = [], []
    for (name, r), pd, ph in zip(results.items(), raw, adjusted, strict=True):
        agreement = human_agreement(name, pd.delta)
        worse = pd.delta < 0 if r.higher_is_better else pd.delta > 0
        significant = bool(ph < alpha)
        regression = worse and significant
        if regression and min_agreement is not None:
            if agreement is None:
                notes.append(
                    f"{name} has no published human-agreement fit: its regression is judged on significance alone"
                )
            else:
                regression = agreement >= min_agreement
        out.append(
            GateMetric(
                metric=name,
                baseline=r.scores[baseline],
                candidate=r.scores[candidate],
                delta=pd.delta,
                p=pd.p_value,
                p_holm=float(ph),
                human_agreement=agreement,
                min_detectable_delta=min_detectable_delta(pd.se, alpha, m, POWER),
                higher_is_better=r.higher_is_better,
                regression=regression,
                improvement=significant and not worse and pd.delta != 0,
                signature=r.signature,
            )
        )
    verdict = "regression" if any(g.regression for g in out) else "pass"
    resample = "segments" if documents is None else "documents"
    return GateResult(verdict, baseline, candidate, out, alpha, min_agreement, n, seed, lines, tuple(notes), resample)
