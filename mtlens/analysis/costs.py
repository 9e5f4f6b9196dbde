"""What a system's output cost and how fast it came (issue 50; docs/decisions.md, "Cost and latency").

A run says it in its metadata, under these keys (``mtlens add --price-in ... --price-out ...``, a bundle's run
metadata, the upload form):

- ``cost_usd``: what translating this test set cost, in US dollars; or
- ``price_in`` / ``price_out``: US dollars per million prompt / completion tokens, with ``tokens_in`` /
  ``tokens_out`` (the tokens the test set took) or, without them, an estimate of 4 characters per token over the
  source and the output (OpenAI's rule of thumb for English; said wherever the estimate is shown);
- ``seconds_per_segment``, or ``tokens_per_second`` (then seconds per segment = estimated output tokens per
  segment / tokens per second).

The Pareto front of quality against cost: the systems no other system beats on both (at least as good on both,
better on one).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core.errors import InputError

#: the run metadata keys that say cost and speed (numbers, at least 0)
COST_KEYS = ("cost_usd", "price_in", "price_out", "tokens_in", "tokens_out", "seconds_per_segment", "tokens_per_second")
#: the estimate of tokens where a run gives prices but no token counts
CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True)
class RunCost:
    """A system's cost for the test set (US$, None: unknown), how it was reckoned, and its latency."""

    usd: float | None
    how: str
    seconds_per_segment: float | None = None


def check_cost_meta(meta: Mapping[str, str]) -> dict[str, str]:
    """The cost keys of a run's metadata checked (numbers, finite, at least 0), or one sentence naming the bad one."""
    for key in COST_KEYS:
        if key in meta:
            try:
                value = float(meta[key])
            except ValueError:
                value = math.nan
            if not (math.isfinite(value) and value >= 0):
                raise InputError(f"{key} is a number, at least 0, not '{meta[key]}'")
            if key == "tokens_per_second" and value == 0:
                raise InputError("tokens_per_second must be more than 0")
    return dict(meta)


def _number(meta: Mapping[str, str], key: str) -> float | None:
    try:
        return float(meta[key]) if key in meta else None
    except ValueError:
        return None


def run_cost(meta: Mapping[str, str], source: Sequence[str] | None, output: Sequence[str]) -> RunCost:
    """A run's cost for the test set from its metadata (the module's rule); ``source``: the set's source lines (the
    prompt tokens' estimate; None: none), ``output``: the run's lines."""
    out_chars = sum(len(x) for x in output)
    est_out = out_chars / CHARS_PER_TOKEN
    seconds = _number(meta, "seconds_per_segment")
    tps = _number(meta, "tokens_per_second")
    if seconds is None and tps and output:
        seconds = est_out / len(output) / tps
    direct = _number(meta, "cost_usd")
    if direct is not None:
        return RunCost(direct, "given", seconds)
    p_in, p_out = _number(meta, "price_in"), _number(meta, "price_out")
    if p_in is None and p_out is None:
        return RunCost(None, "no cost given", seconds)
    t_in, t_out = _number(meta, "tokens_in"), _number(meta, "tokens_out")
    estimated = []
    if t_in is None:
        t_in = sum(len(x) for x in source) / CHARS_PER_TOKEN if source is not None else 0.0
        estimated.append("prompt")
    if t_out is None:
        t_out = est_out
        estimated.append("completion")
    how = "prices x tokens" + (
        f" ({' and '.join(estimated)} tokens estimated at {CHARS_PER_TOKEN:g} characters each)" if estimated else ""
    )
    return RunCost((t_in * (p_in or 0.0) + t_out * (p_out or 0.0)) / 1e6, how, seconds)


def pareto_front(points: Mapping[str, tuple[float, float]], higher_is_better: bool = True) -> list[str]:
    """The names of ``points`` (name -> (quality, cost)) no other point dominates (at least as good in quality and
    as cheap, better in one), cheapest first. Points with an unknown (NaN) value are left out."""
    sign = 1.0 if higher_is_better else -1.0
    known = {n: (sign * q, c) for n, (q, c) in points.items() if q == q and c == c}
    front = [
        n
        for n, (q, c) in known.items()
        if not any((q2 >= q and c2 <= c) and (q2 > q or c2 < c) for m, (q2, c2) in known.items() if m != n)
    ]
    return sorted(front, key=lambda n: (known[n][1], -known[n][0]))


def fronts(scores: Mapping[str, Mapping[str, float]], costs: Mapping[str, float | None],
           higher_is_better: Mapping[str, bool]) -> dict[str, list[str]]:  # fmt: skip
    """Per metric, the Pareto front of the systems whose cost is known (:func:`pareto_front`); empty when fewer than
    two systems have a cost (no trade-off to show)."""
    known = {n: c for n, c in costs.items() if c is not None}
    if len(known) < 2:
        return {}
    return {
        m: pareto_front({n: (float(s[n]), known[n]) for n in known if n in s}, higher_is_better[m])
        for m, s in scores.items()
    }


def cost_dict(cost: RunCost) -> dict:
    """A run's cost as the JSON exports write it."""
    return {"usd": cost.usd, "how": cost.how, "seconds_per_segment": cost.seconds_per_segment}
