"""The command line: ``python -m mtlens score|compare ...`` (a contract: keep its options stable).

Errors are printed to stderr as one sentence and the exit status is 2; no traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import report
from .errors import InputError
from .io import load_corpus, read_bytes
from .metrics import METRIC_NAMES
from .metrics.bleu import SMOOTH_DEFAULTS
from .scoring import parse_metric_list, score
from .significance import DEFAULT_SEED, compare
from .tokenizers import TOKENIZERS
from .version import __version__


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one sentence, exit 2, no usage dump
        self.exit(2, f"mtlens: error: {message} (see '{self.prog} --help')\n")


def _add_data_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("--ref", action="append", default=[], metavar="REF", help="a reference file (repeat for several)")
    s.add_argument("--sys", nargs="+", default=[], metavar="SYS", help="system output files (names: file stems)")
    s.add_argument("--src", metavar="SRC", help="the source file (optional, checked for line count)")
    s.add_argument(
        "--data", metavar="FILE", help="one TSV (with header) or WMT XML file holding references and systems"
    )


def _add_metric_args(s: argparse.ArgumentParser, default_metrics: str) -> None:
    s.add_argument(
        "--metrics",
        default=default_metrics,
        help=f"comma-separated: {','.join(METRIC_NAMES)} (default {default_metrics})",
    )
    s.add_argument("--tokenize", default="13a", choices=TOKENIZERS, help="word BLEU tokenizer (default 13a)")
    s.add_argument("--lowercase", action="store_true", help="case-insensitive scores")
    s.add_argument("--smooth-method", default="exp", choices=list(SMOOTH_DEFAULTS), help="BLEU smoothing")
    s.add_argument("--smooth-value", type=float, default=None, help="value for floor (0.1) or add-k (1)")
    s.add_argument("--char-order", type=int, default=18, metavar="M", help="character BLEU order (default 18)")
    s.add_argument("--char-keep-spaces", action="store_true", help="character BLEU counts spaces as characters")
    s.add_argument("--ter-normalized", action="store_true", help="TER: tercom's normalisation")
    s.add_argument("--ter-no-punct", action="store_true", help="TER: remove punctuation")
    s.add_argument("--ter-asian-support", action="store_true", help="TER: CJK handling (with normalized/no-punct)")
    s.add_argument("--ter-case-sensitive", action="store_true", help="TER: do not lowercase")
    s.add_argument(
        "--tbleu-epsilon", type=float, default=0.05, metavar="E", help="tBLEU affix-distance threshold (0.05)"
    )
    s.add_argument("--nist-case-sensitive", action="store_true", help="NIST: do not lowercase (mteval's -c)")
    s.add_argument("--format", default="table", choices=["table", "json", "csv", "latex"])


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mtlens", description="Compare machine translation systems (sacrebleu-compatible scores).")
    p.add_argument("--version", action="version", version=f"mtlens {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("score", help="score systems against references")
    _add_data_args(s)
    _add_metric_args(s, "bleu,chrf")
    s.add_argument("--sentence-level", action="store_true", help="also give one score per line")

    c = sub.add_parser("compare", help="significance tests between systems (all pairs, or against a baseline)")
    _add_data_args(c)
    _add_metric_args(c, "bleu,chrf")
    c.add_argument(
        "--test", default="bootstrap", choices=["bootstrap", "ar"], help="paired bootstrap or approximate randomisation"
    )
    c.add_argument(
        "--n", type=int, default=None, help="resamples (bootstrap, default 1000) or trials (ar, default 10000)"
    )
    c.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED}; 0 is a seed)")
    c.add_argument("--baseline", metavar="NAME", help="compare every system with this one only")
    c.add_argument("--sacrebleu-compatible", action="store_true", help="reproduce sacrebleu's sampling and p-values")
    c.add_argument("--alpha", type=float, default=0.05, help="significance level after Holm's correction")

    a = sub.add_parser("analyze", help="words vs characters (Denoual & Lepage), human correlation, tBLEU sweep")
    _add_data_args(a)
    _add_metric_args(a, "bleu,chrf")
    a.add_argument("--word-order", type=int, default=4, metavar="N", help="word BLEU order N (default 4)")
    a.add_argument("--char-orders", default="1-30", help="character orders M to study: '1-30' or '5,18' (default 1-30)")
    a.add_argument("--ranking-char-order", type=int, default=18, metavar="M", help="M for the system ranking (18)")
    a.add_argument("--human", metavar="FILE", help="human scores: WMT-style TSV (system level or segment level)")
    a.add_argument(
        "--tbleu-sweep", action="store_true", help="tBLEU for epsilon 0, 0.05, ..., 1 (with --human: correlation)"
    )
    a.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the bootstrap intervals")

    r = sub.add_parser("report", help="a standalone HTML report (opens offline) with rankings, charts, clusters")
    _add_data_args(r)
    _add_metric_args(r, "bleu,chrf,ter")
    r.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    r.add_argument("--n", type=int, default=1000, help="bootstrap resamples for intervals and clusters (1000)")
    r.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    r.add_argument("--title", default="mtlens report", help="the report's title")
    return p


def _load(args):
    if args.data is None and not args.ref:
        raise InputError("give at least one --ref file (or --data FILE.tsv|FILE.xml)")
    if args.data is None and not args.sys:
        raise InputError("give at least one --sys file (or --data FILE.tsv|FILE.xml)")
    return load_corpus(args.ref, args.sys, args.src, args.data)


def _load_and_score(args, corpus=None):
    metrics = parse_metric_list(args.metrics)
    if not 0 <= args.tbleu_epsilon <= 1:
        raise InputError(f"--tbleu-epsilon must be between 0 and 1, not {args.tbleu_epsilon}")
    if args.char_order < 1:
        raise InputError(f"--char-order must be at least 1, not {args.char_order}")
    corpus = corpus if corpus is not None else _load(args)
    results = score(
        corpus,
        metrics,
        tokenize=args.tokenize,
        lowercase=args.lowercase,
        smooth_method=args.smooth_method,
        smooth_value=args.smooth_value,
        char_order=args.char_order,
        char_keep_spaces=args.char_keep_spaces,
        ter_normalized=args.ter_normalized,
        ter_no_punct=args.ter_no_punct,
        ter_asian_support=args.ter_asian_support,
        ter_case_sensitive=args.ter_case_sensitive,
        nist_case_sensitive=args.nist_case_sensitive,
        tbleu_epsilon=args.tbleu_epsilon,
    )
    return corpus, results


def _run_score(args) -> str:
    corpus, results = _load_and_score(args)
    if args.format == "json":
        return report.to_json(results, args.sentence_level) + "\n"
    if args.format == "csv":
        return report.to_csv(results, args.sentence_level)
    if args.format == "latex":
        return report.to_latex(results)
    text = report.to_table(results)
    if corpus.warnings:
        text += "\nnotes on the data:\n" + "\n".join(f"- {w}" for w in corpus.warnings) + "\n"
    if args.sentence_level:
        text += "\n" + report.to_csv(results, sentence_level=True)
    return text


def _run_compare(args) -> str:
    _, results = _load_and_score(args)
    if len(next(iter(results.values())).scores) < 2:
        raise InputError("significance tests need at least two systems")
    comparisons = {
        m: compare(
            r,
            test=args.test,
            n=args.n,
            seed=args.seed,
            baseline=args.baseline,
            alpha=args.alpha,
            sacrebleu_compatible=args.sacrebleu_compatible,
        )
        for m, r in results.items()
    }
    if args.format == "json":
        return report.dumps(report.comparisons_to_dict(comparisons)) + "\n"
    if args.format == "csv":
        return report.comparisons_to_csv(comparisons)
    if args.format == "latex":
        return report.comparisons_to_latex(comparisons)
    return report.comparisons_to_table(comparisons)


def _run_analyze(args) -> str:
    from . import analysis

    orders = analysis.parse_orders(args.char_orders)
    if args.format in ("csv", "latex"):
        raise InputError("analyze writes json or table")
    corpus = _load(args)
    wvc = analysis.words_vs_chars(
        corpus, args.word_order, orders, args.ranking_char_order, tokenize=args.tokenize, lowercase=args.lowercase
    )
    doc = analysis.words_vs_chars_to_dict(wvc)
    human = None
    if args.human:
        human = analysis.read_human(read_bytes(args.human), args.human, corpus)
        _, results = _load_and_score(args, corpus)
        doc.update(analysis.human_correlation(results, human, seed=args.seed))
    if args.tbleu_sweep:
        doc["tbleu_sweep"] = analysis.tbleu_sweep(corpus, human=human, tokenize=args.tokenize, lowercase=args.lowercase)
    if args.format == "json":
        return report.dumps(doc) + "\n"
    return report.analysis_to_table(doc)


def _run_report(args) -> str:
    from pathlib import Path

    from .html_report import build_html_report

    corpus, results = _load_and_score(args)
    comparisons = {}
    if len(corpus.systems) > 1:
        comparisons = {m: compare(r, "bootstrap", n=args.n, seed=args.seed) for m, r in results.items()}
    html = build_html_report(corpus, results, comparisons, args.title)
    try:
        Path(args.output).write_text(html, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write '{args.output}': {err.strerror or err}") from None
    return f"wrote {args.output} ({len(html) / 1e6:.1f} MB)\n"


_COMMANDS = {"score": _run_score, "compare": _run_compare, "analyze": _run_analyze, "report": _run_report}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        out = _COMMANDS[args.command](args)
    except InputError as err:
        print(f"mtlens: error: {err}", file=sys.stderr)
        return 2
    except MemoryError:
        print("mtlens: error: out of memory; score fewer or shorter files at once", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # a bug: still one sentence, never a traceback
        print(f"mtlens: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    return 0
