"""``judges``: the operator's LLM judges (issue 48): an OpenAI-compatible endpoint, its model and a GEMBA protocol;
then ``--metrics judge:NAME`` on any command that scores."""

from __future__ import annotations

import argparse

from ..core.names import shown
from ..core.secrets import redact
from ..scores.sources import JUDGE_AGGREGATES, JUDGE_PROTOCOLS
from . import args as flags
from .args import Parser
from .common import Exit, say, workspace


def votes_of(j):
    """What a judge's listing says of its votes (samples, temperature, aggregation)."""
    from ..service.judging import vote_fields

    return vote_fields(j.samples, j.temperature, j.aggregate)


def add_parsers(sub) -> dict:
    ju = sub.add_parser(
        "judges", help="LLM judges (GEMBA-MQM, GEMBA-ESA, M-Prometheus) through an OpenAI-compatible endpoint"
    )
    ju_sub = ju.add_subparsers(dest="action", required=True, parser_class=Parser)
    a = ju_sub.add_parser("add", help="register a judge; then score with --metrics judge:NAME")
    a.add_argument("name", metavar="NAME", help="the name --metrics uses: judge:NAME")
    a.add_argument("--url", required=True, help="the API's base URL, e.g. http://127.0.0.1:8000/v1")
    a.add_argument("--model", required=True, help="the model the endpoint serves")
    a.add_argument("--protocol", required=True, choices=list(JUDGE_PROTOCOLS))
    a.add_argument("--api-key-env", metavar="VAR", help="the environment variable holding the key (never the key)")
    a.add_argument(
        "--samples", type=int, default=1,
        help="answers per segment (default 1); raising it later asks only the new samples",
    )  # fmt: skip
    a.add_argument(
        "--temperature", type=float, metavar="T",
        help="every sample's temperature, 0 to 2 (default: the first at 0, the others at 1)",
    )  # fmt: skip
    a.add_argument(
        "--aggregate", choices=list(JUDGE_AGGREGATES), default="mean",
        help="a segment's samples become its score by their mean (default), median, or GEMBA-MQM V2's rule "
        "(answers beyond 2 standard deviations dropped, reciprocal-rank weighted mean)",
    )  # fmt: skip
    a.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    a.add_argument("--price-in", type=float, metavar="USD_PER_1M", help="price of a million prompt tokens")
    a.add_argument("--price-out", type=float, metavar="USD_PER_1M", help="price of a million completion tokens")
    a.add_argument(
        "--score-references",
        action="store_true",
        help="also ask about each set's references, as systems: tells whether the reference is the problem "
        "(costs one more system per reference)",
    )
    flags.add_data_dir(a)
    a = ju_sub.add_parser("list", help="the registered judges")
    flags.add_data_dir(a)
    a = ju_sub.add_parser("remove", aliases=["delete"], help="forget a judge (its cached answers stay)")
    a.add_argument("name", metavar="NAME")
    flags.add_data_dir(a)
    a = ju_sub.add_parser(
        "run",
        help="ask a judge about a saved set: its job, with progress (Ctrl-C stops it; a run again goes on); exit 0 "
        "when every segment has a score, 1 when the job failed, was cancelled or left segments without a score",
    )
    a.add_argument("name", metavar="NAME")
    a.add_argument("--set", required=True, metavar="ID", help="the saved set")
    a.add_argument("--background", action="store_true", help="start the job in its own process and return")
    flags.add_data_dir(a)
    a = ju_sub.add_parser("status", help="a set's judge jobs: progress, or how each ended and what it cost")
    a.add_argument("--set", required=True, metavar="ID", help="the saved set")
    flags.add_data_dir(a)
    a = ju_sub.add_parser("cancel", help="ask a set's running judge job to stop (its answers so far are kept)")
    a.add_argument("name", metavar="NAME")
    a.add_argument("--set", required=True, metavar="ID", help="the saved set")
    flags.add_data_dir(a)
    return {"judges": run_judges}


def _line(p) -> str:
    done = f"{p.done:,}/{p.total:,} segments" if p.total else "starting"
    return f"{p.metric}\t{p.state}\t{done}" + (f"\t{p.message}" if p.message else "")


def run_judges(args: argparse.Namespace) -> str:
    from ..service import jobs, judging

    room = workspace(args)
    target = room.store
    if args.action == "add":
        j = room.add_judge(
            judging.Judge(
                args.name, args.url, args.model, args.protocol, args.api_key_env, args.samples, args.concurrency,
                args.price_in, args.price_out, args.score_references, args.temperature, args.aggregate,
            ),
        )  # fmt: skip
        key = f", key from ${j.key_env}" if j.key_env else ""
        return (
            f"{j.name}: {j.protocol} with {shown(j.model, 200)} at {shown(redact(j.url), 300)}{key}\n"
            f"score with: --metrics judge:{j.name}\n"
        )
    if args.action in ("remove", "delete"):  # the verb models use; delete kept for scripts
        room.remove_judge(args.name)
        return f"removed {args.name}\n"
    if args.action in ("run", "cancel"):
        judge = room.judge(args.name)
        name = judge.name
        if args.action == "cancel":
            jobs.cancel_named(target, args.set, name)
            return "".join(_line(p) + "\n" for p in jobs.status_for(target, args.set) if p.metric == judge.metric)
        from ..service.sets import open_set

        say(judging.before_run(target, judge, open_set(target, args.set).corpus))  # what it will ask, and cost
        if args.background:
            return _line(jobs.start_job(target, args.set, judge.metric)) + "\n"
        p = jobs.run_job(target, args.set, judge.metric, say=say)
        out = _line(p) + "\n"
        if p.state != "done":  # failed or cancelled: exit 1 (issue 58, G8), the reason on the line
            raise Exit(out, 1)
        missing = judging.unscored_segments(target, args.set, name)
        if missing:  # partly failed: some segments have no score (answers unread after the re-asks)
            said = "1 segment has" if missing == 1 else f"{missing:,} segments have"
            raise Exit(out + f"judge:{name}: {said} no score\n", 1)
        return out
    if args.action == "status":
        found = [p for p in jobs.status_for(target, args.set) if p.judge]
        return "".join(_line(p) + "\n" for p in found) or "no judge job on this set\n"
    rows = [
        f"judge:{j.name}\t{j.protocol}\t{shown(j.model, 200)}\t{shown(redact(j.url), 300)}\tsamples {j.samples}"
        + "".join(f"\t{k} {v}" for k, v in votes_of(j)[1:])
        + f"\tconcurrency {j.concurrency}"
        + ("\treferences too" if j.score_references else "")
        for j in room.judges()
    ]
    return (
        "\n".join(rows) + "\n" if rows else "no judge is registered (python -m mtlens judges add NAME --url URL ...)\n"
    )
