"""``ratings``: a saved set's human ESA ratings: system scores as the publisher computes them, the raters' quality,
and on request every rated segment with its spans (issue 52)."""

from __future__ import annotations

import argparse

from . import args as flags
from .common import store


def add_parsers(sub) -> dict:
    r = sub.add_parser(
        "ratings",
        help="a set's human ESA ratings: system scores (mean of per-domain means), raters' quality, spans",
    )
    r.add_argument("--set", required=True, metavar="ID")
    r.add_argument(
        "--mean",
        choices=["domains", "segments"],
        default="domains",
        help="a system's score: the mean of its per-domain means (the publisher's, default) or of its segments",
    )
    r.add_argument("--exclude-rater", action="append", default=[], metavar="RATER", help="leave a rater out (repeat)")
    r.add_argument("--segments", action="store_true", help="also every rated segment with its spans (JSON)")
    flags.add_format(r)
    flags.add_data_dir(r)
    return {"ratings": run_ratings}


def run_ratings(args: argparse.Namespace) -> str:
    from ..service.presentation import dumps
    from ..service.ratings import esa_report

    doc = esa_report(store(args), args.set, args.exclude_rater, args.mean, args.segments)
    if args.format == "json":
        return dumps(doc) + "\n"
    lines = [f"ESA ratings of {doc['language_pair']} ({', '.join(doc['files'])}); a system's score: {doc['mean']}", ""]
    width = max(len(r["system"]) for r in doc["systems"])
    lines.append(f"{'system':<{width}}  {'ESA':>6}  segments")
    for r in doc["systems"]:
        ref = "  (the reference, rated as a system)" if r["reference"] else ""
        lines.append(f"{r['system']:<{width}}  {r['score']:6.2f}  {r['segments']:>8,}{ref}")
    lines += ["", "raters: items, attention checks passed (a damaged copy scored lower than its original), agreement r"]
    for q in doc["raters"]:
        rate = "-" if q["pass_rate"] is None else f"{q['passed']}/{q['attention_checks']} ({q['pass_rate']:.0%})"
        r_ = "-" if q["agreement_r"] is None else f"{q['agreement_r']:.2f}"
        out = " (excluded)" if q["excluded"] else ""
        lines.append(f"  {q['rater']}: {q['items']:,} items, checks {rate}, agreement {r_}{out}")
    lines += [f"note: {n}" for n in doc["notes"]]
    return "\n".join(lines) + "\n"
