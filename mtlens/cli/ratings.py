"""``ratings``: a saved set's human ESA ratings: system scores as the publisher computes them, the raters' quality,
and on request every rated segment with its spans; ``campaign``: a Pearmut annotation campaign out (issue 52)."""

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
    r.add_argument(
        "--exclude-rater", action="append", default=[], metavar="RATER", help="leave a rater out of this view (repeat)"
    )
    r.add_argument(
        "--save",
        action="store_true",
        help="with --exclude-rater (or none: everyone back), the set leaves those raters out on every face from now on",
    )
    r.add_argument("--segments", action="store_true", help="also every rated segment with its spans (JSON)")
    flags.add_format(r)
    flags.add_data_dir(r)
    return {"ratings": run_ratings, **add_campaign_parser(sub)}


def run_ratings(args: argparse.Namespace) -> str:
    from ..exports.tables import dumps
    from ..service.ratings import esa_report

    if args.save:
        from ..service.ratings import leave_out

        leave_out(store(args), args.set, args.exclude_rater)
    doc = esa_report(store(args), args.set, args.exclude_rater, args.mean, args.segments)
    if args.format == "json":
        return dumps(doc) + "\n"
    lines = [f"ESA ratings of {doc['language_pair']} ({', '.join(doc['files'])}); a system's score: {doc['mean']}", ""]
    from ..exports.numbers import ABSENT, UNIT_DECIMALS, decimals, share, shown

    width = max(len(r["system"]) for r in doc["systems"])
    places = decimals("esa", [r["score"] for r in doc["systems"]])  # the decimals rule: 0-100 scores, 2 places
    lines.append(f"{'system':<{width}}  {'ESA':>6}  segments")
    for r in doc["systems"]:
        ref = "  (the reference, rated as a system)" if r["reference"] else ""
        lines.append(f"{r['system']:<{width}}  {shown(r['score'], places):>6}  {r['segments']:>8,}{ref}")
    lines += ["", "raters: items, attention checks passed (a damaged copy scored lower than its original), agreement r"]
    for q in doc["raters"]:
        rate = ABSENT if q["pass_rate"] is None else f"{q['passed']}/{q['attention_checks']} ({share(q['pass_rate'])})"
        r_ = shown(q["agreement_r"], UNIT_DECIMALS)
        out = " (excluded)" if q["excluded"] else ""
        lines.append(f"  {q['rater']}: {q['items']:,} items, checks {rate}, agreement {r_}{out}")
    lines += [f"note: {n}" for n in doc["notes"]]
    return "\n".join(lines) + "\n"


def add_campaign_parser(sub) -> dict:
    p = sub.add_parser(
        "campaign",
        help="export a Pearmut annotation campaign of a set's systems, spans pre-filled from a metric (ESA-AI)",
    )
    p.add_argument("--set", required=True, metavar="ID")
    p.add_argument("--systems", required=True, help="comma-separated system names")
    p.add_argument(
        "--segments",
        choices=["all", "sample", "disagree"],
        default="all",
        help="every segment, a sample (--count, --seed), or those where the systems disagree most (--count, --by)",
    )
    p.add_argument("--count", type=int, metavar="N", help="how many segments for sample or disagree")
    p.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    p.add_argument("--by", metavar="METRIC", help="the metric whose segment scores the systems disagree on")
    p.add_argument("--spans", metavar="METRIC", help="pre-fill error spans from this metric (xcomet:NAME, esa, ...)")
    p.add_argument("--protocol", choices=["ESA", "MQM", "DA"], default="ESA")
    p.add_argument("--id", metavar="CAMPAIGN", help="the campaign's id (default: from the set and the choice)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the campaign JSON here (default: standard output)")
    flags.add_data_dir(p)
    return {"campaign": run_campaign}


def run_campaign(args: argparse.Namespace) -> str:
    from ..exports.tables import dumps
    from ..service.ratings import campaign
    from .common import say, write_output

    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    doc = campaign(
        store(args), args.set, systems, args.segments, args.count, args.seed, args.by, args.spans, args.protocol,
        args.id, say,
    )  # fmt: skip
    text = dumps(doc) + "\n"
    items = sum(len(d) for d in doc["data"])
    if args.output:
        write_output(args.output, text, [])
        say(
            f"wrote the campaign '{doc['campaign_id']}' ({items:,} segments) to {args.output}: pearmut add {args.output}"
        )
        return ""
    return text
