"""The release gate's verdict for people (text), programs (JSON), pull requests (Markdown) and CI systems
(JUnit XML). The JSON is a contract (issue 34): ``{"verdict", "metrics": [{"metric", "baseline", "candidate",
"delta", "p", "p_holm", "human_agreement", "min_detectable_delta", "regression"}]}`` with full precision;
the other formats follow :mod:`mtlens.exports.numbers`' rule for decimals."""

from __future__ import annotations

import json
import math
import re
from xml.sax.saxutils import escape, quoteattr

from ..analysis.gate import GateResult, cost_sentence
from ..analysis.significance import missing_what
from .numbers import UNIT_DECIMALS, decimals, shown
from .tables import json_safe

FORMATS = ("text", "json", "markdown", "junit")


def _number(v):
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v


def to_dict(res: GateResult) -> dict:
    return {
        "verdict": res.verdict,
        "failed": list(res.failed),
        "baseline_name": res.baseline,
        "candidate_name": res.candidate,
        "metrics": [
            {
                "metric": g.metric,
                "baseline": g.baseline,
                "candidate": g.candidate,
                "delta": g.delta,
                "p": g.p,
                "p_holm": g.p_holm,
                "tested": g.tested,
                "human_agreement": _number(g.human_agreement),
                "min_detectable_delta": _number(g.min_detectable_delta),
                "regression": g.regression,
                "improvement": g.improvement,
                "higher_is_better": g.higher_is_better,
                "signature": g.signature,
                "family": g.family,
                "tainted": g.tainted,
                "test": g.test,
                "limit": g.limit,
                "over_limit": g.over_limit,
                "failing_lines": [{"line": n, "failed": what} for n, what in g.lines],
            }
            for g in res.metrics
        ],
        "tuned_on": list(res.tuned_on),
        "cost": None if res.cost is None else {k: _number(v) for k, v in res.cost.items()},
        "lines": res.lines,
        "alpha": res.alpha,
        "min_agreement": res.min_agreement,
        "rule": res.rule,
        "test": res.test,
        "resample": res.resample,
        "notes": list(res.notes),
    }


def to_json(res: GateResult) -> str:
    # strict JSON: a missing number (an untested metric's p, an unrated system's score) is null, never a bare NaN
    # (issue 58, D16), by the exports' one rule (tables.json_safe)
    return json.dumps(json_safe(to_dict(res)), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def _rows(res: GateResult) -> list[list[str]]:
    rows = []
    for g in res.metrics:
        places = decimals(g.metric, [v for v in (g.baseline, g.candidate) if math.isfinite(v)])
        if not g.tested:
            outcome = f"not tested ({missing_what(g.metric)})"
        elif g.regression:
            outcome = "REGRESSION"
        elif g.improvement:
            outcome = "better"
        else:
            outcome = "no significant change" if g.p_holm >= res.alpha else "worse (below the agreement bar)"
        rows.append(
            [
                g.metric,
                g.family + (" (tuned on)" if g.tainted else ""),
                shown(g.baseline, places),
                shown(g.candidate, places),
                ("+" if g.delta > 0 else "") + shown(g.delta, places + 1),
                shown(g.p, UNIT_DECIMALS),
                shown(g.p_holm, UNIT_DECIMALS),
                shown(g.human_agreement, UNIT_DECIMALS) if g.human_agreement is not None else "no published fit",
                shown(g.min_detectable_delta, places + 1),
                outcome,
            ]
        )
    return rows


_HEAD = [
    "metric",
    "family",
    "baseline",
    "candidate",
    "delta",
    "p",
    "p (Holm)",
    "humans agree (est.)",
    "min. detectable",
    "",
]


def _footer(res: GateResult) -> list[str]:
    lines = [
        f"Rule: {res.rule}.",
        *(
            [
                f"Tuned on: {', '.join(res.tuned_on)}; an improvement only the families this inflates measure is not "
                "certified without a held-out metric that agrees."
            ]
            if res.tuned_on
            else []
        ),
        f"p: two-sided paired bootstrap p-value over {res.lines:,} lines ({res.resample} resampled), {res.n:,} "
        f"resamples; p (Holm): corrected over the {_tested(res)}; min. detectable: smallest |delta| found with 80% "
        "power.",
    ]
    return lines + [f"Note: {n}" for n in res.notes]


def _verdict(res: GateResult) -> str:
    """The verdict with every other clause that failed (``unconfirmed and too costly``)."""
    return " and ".join(res.failed) if len(res.failed) > 1 else res.verdict


def _tested(res: GateResult) -> str:
    """The family Holm's correction was over, as the footer says it: ``2 metrics``, ``1 metric`` (``2 metrics
    tested of 3`` when a metric had no scores)."""
    tested = sum(g.tested for g in res.metrics)
    said = f"{tested} metric{'' if tested == 1 else 's'}"
    return said if tested == len(res.metrics) else f"{said} tested of {len(res.metrics)}"


def to_text(res: GateResult) -> str:
    head = f"{_verdict(res).upper()}: {res.candidate} (candidate) vs {res.baseline} (baseline)"
    rows = [_HEAD, *_rows(res)]
    widths = [max(len(r[k]) for r in rows) for k in range(len(_HEAD))]
    table = [
        "  ".join(c.ljust(w) if k in (0, 1, 9) else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    return "\n".join([head, "", *[t.rstrip() for t in table], "", *_footer(res)]) + "\n"


def _md(cell: str) -> str:
    return cell.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """``text`` as one Markdown code span, whatever backticks it holds (CommonMark: a fence longer than the
    longest run of backticks inside, padded where the text starts or ends with one), so a name can never end the
    span and render as Markdown (bold, a link) in a pull request.

    >>> _code("a`b"), _code("`x")
    ('``a`b``', '`` `x ``')
    """
    text = " ".join(text.split())
    run = longest = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


#: characters XML 1.0 cannot hold at all, even escaped
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(text: str) -> str:
    """Text as XML 1.0 can hold it (names are plain text already: :mod:`mtlens.core.names`; this is the last
    guard, so a report always parses)."""
    return _NOT_XML.sub("\ufffd", text)


def to_markdown(res: GateResult) -> str:
    icon = ":white_check_mark:" if res.passed else ":x:"
    out = [
        f"### {icon} mtlens gate: **{_verdict(res)}**",
        "",
        f"Candidate {_code(res.candidate)} vs baseline {_code(res.baseline)}",
        "",
        "| " + " | ".join([*_HEAD[:-1], "outcome"]) + " |",
        "|---|---|" + "---:|" * 7 + "---|",
    ]
    out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in _rows(res)]
    for g in res.metrics:  # a failing check's lines (issue 60): what a reviewer opens first
        if g.lines:
            out += ["", f"**{_md(g.metric)}**: the candidate's first failing lines", ""]
            out += [f"- line {n}: {_code(what)}" for n, what in g.lines]
    return "\n".join([*out, "", *_footer(res)]) + "\n"


def to_junit(res: GateResult) -> str:
    """One test suite, one test case per metric; a regression is a failure (CI systems show its message)."""
    clauses = _clauses(res)  # the held-out and cost clauses, each a test case when asked for
    failures = sum(g.regression for g in res.metrics) + sum(1 for _, failed, _ in clauses if failed)
    tests = len(res.metrics) + len(clauses)
    skipped = sum(not g.tested for g in res.metrics)
    name = _xml(f"mtlens gate: {res.candidate} vs {res.baseline}")
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name="mtlens gate" tests="{tests}" failures="{failures}" skipped="{skipped}">',
        f'<testsuite name={quoteattr(name)} tests="{tests}" failures="{failures}" errors="0" skipped="{skipped}">',
    ]
    for case, failed, message in clauses:
        out.append(f'<testcase classname="mtlens.gate" name={quoteattr(case)}>')
        if failed:
            out.append(f"<failure message={quoteattr(_xml(message))}>{escape(_xml(message))}</failure>")
        out.append(f"<system-out>{escape(_xml(message))}</system-out>")
        out.append("</testcase>")
    for g, row in zip(res.metrics, _rows(res), strict=True):
        summary = (
            f"{g.metric} ({row[1]}): baseline {row[2]}, candidate {row[3]}, delta {row[4]}, p {row[5]}, p (Holm) "
            f"{row[6]}, humans agree (est.) {row[7]}, min. detectable {row[8]}"
        )
        out.append(f'<testcase classname="mtlens.gate" name={quoteattr(_xml(g.metric))}>')
        if not g.tested:  # no scores of a system: a skipped case, never a pass
            out.append(f"<skipped message={quoteattr(_xml(f'{g.metric}: {row[9]}'))}/>")
        elif g.regression:
            out.append(f"<failure message={quoteattr(_xml(f'{g.metric} regressed'))}>{escape(_xml(summary))}</failure>")
        out.append(f"<system-out>{escape(_xml(summary))}</system-out>")
        out.append("</testcase>")
    out.append(f"<system-out>{escape(_xml(' '.join(_footer(res))))}</system-out>")
    out += ["</testsuite>", "</testsuites>"]
    return "\n".join(out) + "\n"


def _clauses(res: GateResult) -> list[tuple[str, bool, str]]:
    """``(test case, failed, sentence)`` of the clauses a gate was asked for: the held-out metric (a candidate
    tuned on metrics) and the cost."""
    out = []
    if res.tuned_on:
        note = next((n for n in res.notes if n.startswith("the candidate was tuned on")), None)
        tuned = ", ".join(res.tuned_on)
        out.append(("held-out metric agrees", note is not None,
                    note or f"the candidate was tuned on {tuned}; a held-out metric confirms its improvement or "
                    "nothing improved"))  # fmt: skip
    if res.cost is not None:
        c = res.cost
        out.append(("cost", bool(c["exceeded"]), cost_sentence(c)))
    return out


def render_error(message: str, fmt: str) -> str:
    """What a CI report says when the gate could not run (bad input, exit 2): a Markdown summary and a JUnit
    error that name the reason (issue 51: the job summary was empty); nothing for text and JSON, whose readers
    take the exit status and the sentence on stderr."""
    if fmt == "markdown":
        return f"### :warning: mtlens gate: **could not run**\n\n{_md(' '.join(message.split()))}\n"
    if fmt == "junit":
        msg = _xml(message)
        return "\n".join(
            [
                '<?xml version="1.0" encoding="UTF-8"?>',
                '<testsuites name="mtlens gate" tests="1" failures="0" errors="1">',
                '<testsuite name="mtlens gate" tests="1" failures="0" errors="1">',
                '<testcase classname="mtlens.gate" name="input">',
                f"<error message={quoteattr(msg)}>{escape(msg)}</error>",
                "</testcase>",
                "</testsuite>",
                "</testsuites>",
                "",
            ]
        )
    return ""


def render(res: GateResult, fmt: str) -> str:
    return {"text": to_text, "json": to_json, "markdown": to_markdown, "junit": to_junit}[fmt](res)
