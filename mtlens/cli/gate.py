"""``gate``: may the candidate replace the baseline? Exit 0 no regression, 1 regression, 2 bad input."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from ..core.errors import InputError
from . import args as flags
from .common import Exit, given_options, inputs_of, read_bytes, say, store, write_output


def add_parsers(sub) -> dict:
    g = sub.add_parser(
        "gate",
        help="may the candidate replace the baseline? exit 0 no regression, 1 regression, 2 bad input",
    )
    g.add_argument("--ref", action="append", default=[], metavar="REF", help="a reference file (repeat for several)")
    g.add_argument("--src", metavar="SRC", help="the source file (QE models need it)")
    flags.add_language_pair(g)
    g.add_argument("--set", metavar="ID", help="a saved set: --baseline and --candidate name two of its runs")
    g.add_argument("--baseline", required=True, metavar="FILE|NAME", help="the baseline's output (or run name)")
    g.add_argument("--candidate", required=True, metavar="FILE|NAME", help="the candidate's output (or run name)")
    g.add_argument("--metrics", default=None, help="comma-separated, e.g. chrf,bleu,comet:NAME (default bleu,chrf)")
    flags.add_alpha(g)
    g.add_argument(
        "--min-agreement",
        type=float,
        default=None,
        metavar="A",
        help="a regression must also be one humans would notice: estimated agreement at least A (0-1, Kocmi et al. 2024)",
    )
    g.add_argument(
        "--scores",
        action="append",
        default=[],
        metavar="FILE",
        help="segment scores of another metric for both systems (comet-score JSON or text, MetricX JSONL, a TSV with "
        "system/line columns), named in --metrics; repeat for several",
    )
    g.add_argument(
        "--candidate-tuned-on",
        metavar="METRICS",
        help="the metrics the candidate was decoded or tuned with (e.g. comet,metricx; a saved set's run says its "
        "own): an improvement they alone measure is not certified",
    )
    g.add_argument(
        "--max-cost-increase", type=float, metavar="P", help="fail a candidate more than P%% costlier than the baseline"
    )
    g.add_argument(
        "--baseline-cost", type=float, metavar="USD", help="with files: the baseline's cost for this test set"
    )
    g.add_argument("--candidate-cost", type=float, metavar="USD", help="with files: the candidate's cost")
    flags.add_docs(g)
    flags.add_resample(g, "resample segments (default) or whole documents (--docs, or a saved set's documents)")
    flags.add_format(g, ("text", "json", "markdown", "junit"))
    g.add_argument("-o", "--output", metavar="FILE", help="also write the verdict (in --format) to this file")
    flags.add_exact_flag(g)
    g.add_argument(
        "--max-check-failures",
        metavar="CHECK=PCT,...",
        help="the most percent of the candidate's lines a check may fail, e.g. placeholders=0,numbers=0.5 (the checks "
        "run whenever --src is given; a check significantly above the baseline's is a regression too)",
    )
    g.add_argument(
        "--min-term-success", type=float, metavar="PCT", help="the least term success rate (percent) with --terms"
    )
    flags.add_terms(g)  # with a glossary the gate scores 'term' too
    flags.add_option_flags(g)
    flags.add_data_dir(g)
    return {"gate": run_gate}


def run_gate(args: argparse.Namespace) -> str:
    """The verdict; on bad input a Markdown or JUnit report says why too (a CI job shows it), exit 2."""
    try:
        return _verdict(args)
    except InputError as err:
        from ..exports.gate import render_error

        report = render_error(str(err), args.format)
        if not report:
            raise
        print(f"mtlens: error: {err}", file=sys.stderr)
        if args.output:
            with contextlib.suppress(InputError):  # the sentence above is the error; a report is a courtesy
                write_output(args.output, report, inputs_of(args))
        raise Exit(report, 2) from None


def _verdict(args: argparse.Namespace) -> str:
    from ..exports.gate import render
    from ..service.gate import gate_files, gate_set

    common = dict(
        metrics=args.metrics,
        alpha=args.alpha,
        min_agreement=args.min_agreement,
        options=given_options(args),
        say=say,
        resample=args.resample,
        candidate_tuned_on=args.candidate_tuned_on,
        extra_scores=[(f, read_bytes(f)) for f in args.scores],
        max_cost_increase=args.max_cost_increase,
        costs=(args.baseline_cost, args.candidate_cost),
        max_check_failures=args.max_check_failures,
        min_term_success=args.min_term_success,
    )
    if args.set is not None:
        extra = [f for f, v in (("--ref", args.ref), ("--src", args.src), ("--docs", args.docs)) if v]
        if extra:
            raise InputError(f"--set names a saved set; leave out {', '.join(extra)}")
        if args.terms:
            raise InputError("--set names a saved set: its glossary is the one saved with it; leave out --terms")
        res = gate_set(store(args), args.set, args.baseline, args.candidate, **common)
    else:
        res = gate_files(
            store(args),
            args.ref,
            args.baseline,
            args.candidate,
            args.src,
            args.language_pair,
            args.docs,
            args.docs_order,
            terms=(Path(args.terms).name, read_bytes(args.terms), args.terms_key) if args.terms else None,
            **common,
        )
    out = render(res, args.format)
    if args.output:
        write_output(args.output, out, inputs_of(args))
    if not res.passed:  # a regression, an improvement no held-out metric confirms, too costly
        raise Exit(out, 1)
    return out
