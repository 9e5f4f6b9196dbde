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
significant regression. The verdict is ``regression`` when any metric regresses.

Two clauses follow (issue 50, docs/decisions.md, "Metric families" and "Cost and latency"):

- **Tuned-on metrics.** A candidate decoded or tuned with metrics (``tuned_on``: their families) is not certified by
  them: the families that tuning inflates (:func:`mtlens.analysis.families.tainted`) are *tainted*, the others
  *held out*. Without a held-out metric among the gate's, or when a tainted metric improves and no held-out metric
  improves (significantly, after Holm), the verdict is ``unconfirmed``.
- **Cost.** With ``max_cost_increase`` P and both systems' costs, a candidate more than P% costlier than the
  baseline gets ``too costly``.

The verdict is the first of ``regression``, ``unconfirmed``, ``too costly`` that applies, else ``pass``; every
clause that applies is a note.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.amounts import percent_change, usd
from ..core.errors import InputError
from ..scores.results import MetricResult
from .agreement import human_agreement
from .check_gate import TEST as CHECK_TEST
from .check_gate import failing_lines, is_check, limit_sentence, mcnemar, over_limit
from .families import QUALITY, family_of, held_out_text, tainted, tuned_text
from .policy import ALPHA, MIN_TEST_LINES, SEED, check_alpha, default_resamples
from .power import POWER, min_detectable_delta
from .resampling import PairedDelta, paired_deltas
from .significance import holm, missing_sentence, untested_note

#: the rule in one sentence, printed with every verdict
RULE = (
    "a metric regresses when the candidate is worse than the baseline, the paired bootstrap's p (a check's: McNemar's "
    "exact test) after Holm's correction over the metrics is below alpha ({alpha:g}){agreement}, or when it breaks "
    "a limit given"
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
    #: the metric's family (:mod:`mtlens.analysis.families`)
    family: str = ""
    #: of a family the candidate's tuning inflates (its improvement certifies nothing alone)
    tainted: bool = False
    #: False when the metric has no score for the baseline or the candidate (a run no human rated): no test was made,
    #: ``p`` and ``p_holm`` are NaN, and the metric neither regresses nor confirms anything (issue 58)
    tested: bool = True
    #: the paired test that made ``p``: the paired bootstrap, or McNemar's exact test for a check (issue 60)
    test: str = "paired-bootstrap"
    #: the candidate's limit (percent: a check's most failing lines, the terms' least success), and whether it broke it
    limit: float | None = None
    over_limit: bool = False
    #: a check's first failing lines of the candidate: ``(line, what failed)``
    lines: tuple[tuple[int, str], ...] = ()


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
    #: the families the candidate was decoded or tuned with (empty: none said)
    tuned_on: tuple[str, ...] = ()
    #: the cost clause: ``{"baseline", "candidate", "increase_pct", "max_increase_pct", "exceeded"}`` (US$), or None
    cost: dict | None = None
    #: every clause that failed, in the verdict's order (``verdict`` is the first): a candidate both unconfirmed and
    #: too costly is said to be both (issue 58, D14)
    failed: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def rule(self) -> str:
        extra = "" if self.min_agreement is None else f" and its human agreement is at least {self.min_agreement:g}"
        return RULE.format(alpha=self.alpha, agreement=extra)

    @property
    def test(self) -> str:
        seed = "none" if self.seed is None else str(self.seed)
        unit = "" if self.resample == "segments" else f"|resample:{self.resample}"
        checks = "|checks:mcnemar-exact" if any(g.test == CHECK_TEST for g in self.metrics) else ""
        return (
            f"test:paired-bootstrap|n:{self.n}|seed:{seed}|alpha:{self.alpha:g}|correction:holm-over-metrics{unit}"
            f"{checks}"
        )


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
    tuned_on=frozenset(),
    costs: tuple[float | None, float | None] | None = None,
    max_cost_increase: float | None = None,
    limits: Mapping[str, float] | None = None,
) -> GateResult:
    """The gate's verdict for ``candidate`` against ``baseline`` on every metric of ``results`` (each holding
    both systems). ``n``: bootstrap resamples (default 1,000, more when the metrics are so many that Holm's
    correction needs them: :func:`~mtlens.analysis.policy.default_resamples`). ``documents``: every
    line's document id: whole documents are resampled (the test and the smallest detectable delta).
    ``tuned_on``: the candidate's tuned-on families; ``costs``: (baseline, candidate) in US$ for the test set, with
    ``max_cost_increase`` (percent) the cost clause; ``limits``: the checks' and the terms' limits
    (:func:`mtlens.analysis.check_gate.parse_limits`). A check's test is McNemar's exact test (:mod:`.check_gate`)."""
    limits = dict(limits or {})
    check_gate_settings(alpha, min_agreement)
    check_costs(costs)
    if max_cost_increase is not None:
        check_cost_clause(costs, max_cost_increase, baseline, candidate)
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
    unscored = {
        name: [s for s in (baseline, candidate) if not math.isfinite(r.scores[s])] for name, r in results.items()
    }
    unscored = {name: who for name, who in unscored.items() if who}
    quality = [name for name in results if family_of(name) in QUALITY]  # the checks come with them, never alone
    if len(unscored) == len(results) or (quality and all(name in unscored for name in quality)):
        raise InputError(
            "none of the gate's metrics can be tested: "
            + "; ".join(missing_sentence(name, who) for name, who in unscored.items())
        )
    m = len(results) - len(unscored)  # Holm's family: the tests made
    n = n or default_resamples(m, lines, alpha)
    raw = []
    for name, r in results.items():
        if name in unscored:
            raw.append(PairedDelta(candidate, baseline, math.nan, math.nan, math.nan))
            continue
        (pd,), _ = paired_deltas(r, [(candidate, baseline)], n, seed, documents=documents)
        if is_check(name):  # a line passes or fails: McNemar's exact p, the bootstrap's spread for the power
            exact, _, _ = mcnemar(r.sentence_scores(candidate), r.sentence_scores(baseline))
            pd = dataclasses.replace(pd, p_value=exact)
        raw.append(pd)
    adjusted = holm([pd.p_value for pd in raw])  # NaN (untested) left out of the family
    out, notes = [], [untested_note(name, who) for name, who in unscored.items()]
    taint = tainted(tuned_on)
    for (name, r), pd, ph in zip(results.items(), raw, adjusted, strict=True):
        if name in unscored:
            out.append(_untested(name, r, baseline, candidate, taint))
            continue
        agreement = human_agreement(name, pd.delta)
        worse = pd.delta < 0 if r.higher_is_better else pd.delta > 0
        significant = bool(ph < alpha)
        regression = worse and significant
        broke = over_limit(name, r.scores[candidate], limits)
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
                family=family_of(name),
                tainted=family_of(name) in taint,
                test=CHECK_TEST if is_check(name) else "paired-bootstrap",
                limit=limits.get(name),
                over_limit=broke,
            )
        )
        if broke or (regression and is_check(name)):
            out[-1] = dataclasses.replace(out[-1], regression=True, lines=tuple(failing_lines(r, candidate)))
            notes.append(limit_sentence(name, r.scores[candidate], limits[name]) if broke else check_sentence(out[-1]))
    missing = sorted(set(limits) - set(results))
    if missing:
        raise InputError(f"a limit was given for {', '.join(missing)}, which this gate does not compute")
    verdicts = ["regression"] if any(g.regression for g in out) else []
    if tuned_on:
        sentence = held_out_clause(out, tuned_on)
        if sentence:
            verdicts.append("unconfirmed")
            notes.append(sentence)
    cost = None
    if max_cost_increase is not None:
        cost = cost_clause(costs, max_cost_increase)
        if cost["exceeded"]:
            verdicts.append("too costly")
            notes.append(cost_sentence(cost))
    verdict = verdicts[0] if verdicts else "pass"
    resample = "segments" if documents is None else "documents"
    return GateResult(verdict, baseline, candidate, out, alpha, min_agreement, n, seed, lines, tuple(notes), resample,
                      tuple(sorted(tuned_on)), cost, tuple(verdicts))  # fmt: skip


def check_sentence(g: GateMetric) -> str:
    """One sentence for a check the candidate fails significantly more often than the baseline."""
    return (
        f"{g.metric}: the candidate fails on {g.candidate:.2f}% of the lines against the baseline's {g.baseline:.2f}% "
        f"(McNemar's exact p {g.p:.3g}, {g.p_holm:.3g} after Holm)"
    )


def _untested(name: str, r: MetricResult, baseline: str, candidate: str, taint) -> GateMetric:
    """A metric without a score for the baseline or the candidate: in the table, never tested (issue 58)."""
    return GateMetric(
        metric=name,
        baseline=r.scores[baseline],
        candidate=r.scores[candidate],
        delta=math.nan,
        p=math.nan,
        p_holm=math.nan,
        human_agreement=None,
        min_detectable_delta=math.nan,
        higher_is_better=r.higher_is_better,
        regression=False,
        improvement=False,
        signature=r.signature,
        family=family_of(name),
        tainted=family_of(name) in taint,
        tested=False,
    )


def held_out_clause(metrics: list[GateMetric], tuned_on) -> str | None:
    """One sentence when the candidate's improvement stands only on the families its tuning inflates, else None.
    A held-out metric that was not tested (no scores for a system) confirms nothing."""
    tuned = tuned_text(tuned_on)
    metrics = [g for g in metrics if g.family in QUALITY]  # a check neither is inflated nor confirms (issue 60)
    held = [g for g in metrics if not g.tainted and g.tested]
    if not held:
        families = tuned_text({g.family for g in metrics if g.tested})
        idle = [g.metric for g in metrics if not g.tainted and not g.tested]
        why = f" ({', '.join(idle)} {'was' if len(idle) == 1 else 'were'} not tested: no scores of both systems)"
        return (
            f"the candidate was tuned on {tuned}, and every metric this gate tested is of a family that tuning "
            f"inflates ({families}): none of a held-out family ({held_out_text(tuned_on)}) was tested"
            f"{why if idle else ''}, so nothing confirms it"
        )
    gains = [g.metric for g in metrics if g.tainted and g.improvement]
    if gains and not any(g.improvement for g in held):
        return (
            f"the candidate was tuned on {tuned}: its improvement on {', '.join(gains)} is not confirmed by a "
            f"held-out metric ({', '.join(g.metric for g in held)}: none is significantly better)"
        )
    return None


def check_costs(costs) -> None:
    """Both systems' costs, where given, are US dollars: finite and at least 0 (issue 58, G5: NaN or -1 passed the
    clause), else one sentence."""
    for who, c in zip(("baseline", "candidate"), costs or (None, None), strict=True):
        if c is not None and not (math.isfinite(c) and c >= 0):
            raise InputError(f"the {who}'s cost is US dollars, a finite number at least 0, not {c}")


def check_cost_clause(costs, max_cost_increase: float, baseline: str, candidate: str) -> None:
    if not (max_cost_increase >= 0 and max_cost_increase == max_cost_increase):
        raise InputError(f"--max-cost-increase is a percentage, at least 0, not {max_cost_increase}")
    check_costs(costs)
    missing = [who for who, c in zip((baseline, candidate), costs or (None, None), strict=True) if c is None]
    if missing:
        raise InputError(
            f"--max-cost-increase needs both systems' cost, and {' and '.join(missing)} has none: give --price-in and "
            "--price-out (or --cost) when adding a run, or --baseline-cost and --candidate-cost with files"
        )


def cost_sentence(cost: dict) -> str:
    """The cost clause's sentence: within the allowance, or too costly (a free baseline has no percentage: said in
    words). Money and percentages as :mod:`mtlens.core.amounts` writes them."""
    if not cost["exceeded"]:
        return (
            f"the candidate costs {percent_change(cost['increase_pct'])} against the baseline (at most "
            f"{cost['max_increase_pct']:g}% allowed)"
        )
    said = f"({usd(cost['candidate'])} vs {usd(cost['baseline'])})"
    if cost["baseline"] == 0:
        return (
            f"the baseline costs nothing and the candidate costs {usd(cost['candidate'])}: no percentage of nothing "
            f"allows it (at most {cost['max_increase_pct']:g}% more allowed)"
        )
    return (
        f"the candidate costs {percent_change(cost['increase_pct'])} against the baseline {said}, more than the "
        f"{cost['max_increase_pct']:g}% allowed"
    )


def cost_clause(costs, max_cost_increase: float) -> dict:
    base, cand = costs
    increase = (cand - base) / base * 100.0 if base > 0 else (0.0 if cand <= 0 else float("inf"))
    return {
        "baseline": base,
        "candidate": cand,
        "increase_pct": increase,
        "max_increase_pct": max_cost_increase,
        "exceeded": increase > max_cost_increase,
    }
