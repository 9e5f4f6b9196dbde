"""``judges``: the operator's LLM judges (issue 48): an OpenAI-compatible endpoint, its model and a GEMBA protocol;
then ``--metrics judge:NAME`` on any command that scores."""

from __future__ import annotations

import argparse

from . import args as flags
from .args import Parser
from .common import store


def add_parsers(sub) -> dict:
    ju = sub.add_parser("judges", help="LLM judges (GEMBA-MQM, GEMBA-ESA) through an OpenAI-compatible endpoint")
    ju_sub = ju.add_subparsers(dest="action", required=True, parser_class=Parser)
    a = ju_sub.add_parser("add", help="register a judge; then score with --metrics judge:NAME")
    a.add_argument("name", metavar="NAME", help="the name --metrics uses: judge:NAME")
    a.add_argument("--url", required=True, help="the API's base URL, e.g. http://127.0.0.1:8000/v1")
    a.add_argument("--model", required=True, help="the model the endpoint serves")
    a.add_argument("--protocol", required=True, choices=["gemba-mqm", "gemba-esa"])
    a.add_argument("--api-key-env", metavar="VAR", help="the environment variable holding the key (never the key)")
    a.add_argument("--samples", type=int, default=1, help="answers per segment, their mean scored (default 1)")
    a.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    a.add_argument("--price-in", type=float, metavar="USD_PER_1M", help="price of a million prompt tokens")
    a.add_argument("--price-out", type=float, metavar="USD_PER_1M", help="price of a million completion tokens")
    flags.add_data_dir(a)
    a = ju_sub.add_parser("list", help="the registered judges")
    flags.add_data_dir(a)
    a = ju_sub.add_parser("delete", help="forget a judge (its cached answers stay)")
    a.add_argument("name", metavar="NAME")
    flags.add_data_dir(a)
    return {"judges": run_judges}


def run_judges(args: argparse.Namespace) -> str:
    from ..service import judging

    target = store(args)
    if args.action == "add":
        j = judging.add_judge(
            target,
            judging.Judge(
                args.name, args.url, args.model, args.protocol, args.api_key_env, args.samples, args.concurrency,
                args.price_in, args.price_out,
            ),
        )  # fmt: skip
        key = f", key from ${j.key_env}" if j.key_env else ""
        return f"{j.name}: {j.protocol} with {j.model} at {judging.redact(j.url)}{key}\nscore with: --metrics judge:{j.name}\n"
    if args.action == "delete":
        judging.remove_judge(target, args.name)
        return f"removed {args.name}\n"
    rows = [
        f"judge:{j.name}\t{j.protocol}\t{j.model}\t{judging.redact(j.url)}\tsamples {j.samples}\tconcurrency {j.concurrency}"
        for j in judging.judges(target)
    ]
    return (
        "\n".join(rows) + "\n" if rows else "no judge is registered (python -m mtlens judges add NAME --url URL ...)\n"
    )
