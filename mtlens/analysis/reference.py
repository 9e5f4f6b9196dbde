"""Is the reference the problem? (issue 50; docs/decisions.md, "Reference quality")

A bad reference misleads every reference-based metric at once, and WMT rates the human reference as a system that
sometimes loses. Each reference is checked as a system would be, and read by the reference-free metrics the set has:

- **pitfalls** (:mod:`mtlens.analysis.pitfalls`): empty lines, copies of the source, another language than the
  target; flagged from :data:`MIN_PERCENT` % of the lines (at most :data:`SAMPLE` lines read, evenly spaced);
- **far shorter**: fewer than :data:`SHORT_RATIO` of the characters of the systems' median output (the systems
  translate into the same language, so their length is the yardstick a source in another script is not);
- **a system's output**: equal to one system's line on at least :data:`SAME_SHARE` of the lines (the reference may
  be that system's output, or that system copied it);
- **reference-free metrics** (an LLM judge's scores of the reference, a QE model's): most systems score better than
  the reference, or the systems' order by the reference-free metric is the reverse of their order by a
  reference-based one (Kendall's tau below :data:`TAU_DISAGREE`, at least :data:`MIN_SYSTEMS` systems).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from . import pitfalls

#: a pitfall is said from this share of the lines, in percent
MIN_PERCENT = 5
#: the pitfalls are looked for on at most this many lines (evenly spaced): language identification is the slow part
SAMPLE = 2_000
SHORT_RATIO = 0.5
SAME_SHARE = 0.5
TAU_DISAGREE = 0.0
MIN_SYSTEMS = 3


def text_checks(
    references: Mapping[str, Sequence[str]],
    systems: Mapping[str, Sequence[str]],
    source: Sequence[str] | None,
    pair: tuple[str | None, str | None],
) -> list[str]:
    """The notes on the references' own text (pitfalls, length, a system's output); none for a sound reference."""
    out = []
    if not references:
        return out
    total = len(next(iter(references.values())))
    step = max(1, -(-total // SAMPLE))  # every step-th line: at most SAMPLE of them
    picked = {name: list(lines[::step]) for name, lines in references.items()}
    found = pitfalls.find(picked, None if source is None else list(source[::step]), [], pair)
    n = found.n_lines
    of = f"of {n:,} lines" if step == 1 else f"of {n:,} lines sampled (every {step}th)"
    for s in found.systems:
        for kind, text in pitfalls.KINDS.items():
            k = s.count(kind)
            if n and 100 * k / n >= MIN_PERCENT:
                out.append(f"the reference '{s.system}' has {k:,} {text} {of} ({100 * k / n:.0f}%)")
    lengths = [sum(len(x) for x in lines) for lines in systems.values()]
    if lengths:
        typical = statistics.median(lengths)
        for name, lines in references.items():
            chars = sum(len(x) for x in lines)
            if typical and chars < SHORT_RATIO * typical:
                out.append(
                    f"the reference '{name}' is far shorter than the systems' outputs ({chars:,} characters against "
                    f"a median of {typical:,.0f})"
                )
    for name, lines in references.items():
        for system, hyp in systems.items():
            same = sum(a.strip() == b.strip() and bool(a.strip()) for a, b in zip(lines, hyp, strict=True))
            if lines and same / len(lines) >= SAME_SHARE:
                out.append(
                    f"the reference '{name}' equals system '{system}' on {same:,} of {len(lines):,} lines "
                    f"({100 * same / len(lines):.0f}%): it may be that system's output, or the system copied it"
                )
    return out


def free_checks(
    metric: str,
    reference_scores: Mapping[str, float],
    system_scores: Mapping[str, float],
    higher_is_better: bool,
    based: Mapping[str, float] | None = None,
    based_name: str = "",
    based_higher: bool = True,
) -> list[str]:
    """The notes of one reference-free ``metric`` that scored the references too: most systems beat a reference,
    or (with ``based``, a reference-based metric's system scores) the two orders disagree."""
    out = []
    sign = 1.0 if higher_is_better else -1.0
    known = {s: v for s, v in system_scores.items() if v == v}
    for name, ref in reference_scores.items():
        if ref != ref or not known:
            continue
        beat = [s for s, v in known.items() if sign * v > sign * ref]
        if len(beat) > len(known) / 2:
            out.append(
                f"under {metric}, {len(beat)} of {len(known)} systems score better than the reference '{name}' "
                f"({ref:.4g}): the reference may be the problem"
            )
    if based is not None:
        common = [s for s in known if s in based and based[s] == based[s]]
        if len(common) >= MIN_SYSTEMS:
            b_sign = 1.0 if based_higher else -1.0
            # imported here: scipy.stats takes 0.5 s to import, and most commands never get this far
            from scipy.stats import kendalltau

            tau = kendalltau([sign * known[s] for s in common], [b_sign * based[s] for s in common]).statistic
            if tau == tau and tau < TAU_DISAGREE:
                out.append(
                    f"{metric} (reference-free) and {based_name} (reference-based) order the systems oppositely "
                    f"(Kendall's tau {tau:.2f}): the reference may be the problem"
                )
    return out
