"""The scoring commands: ``score``, ``compare``, ``analyze`` (with ``--pair``) and ``report``."""

from __future__ import annotations

import argparse

from ..analysis.policy import ALPHA, DEFAULT_SAMPLES, MIN_TEST_LINES, check_test_settings
from ..analysis.significance import compare
from ..core.errors import InputError
from ..exports.analyses import analysis_to_table, pair_to_table
from ..exports.comparisons import comparisons_to_csv, comparisons_to_dict, comparisons_to_latex, comparisons_to_table
from ..exports.tables import dumps, groups_to_dict, groups_to_table, results_to_dict, to_csv, to_latex, to_table
from ..service import comparisons
from ..service.inputs import read_bytes
from ..service.results import REGISTRY
from . import args as flags
from .common import load_and_score, prepare, score_evaluation, store, workspace


def add_parsers(sub) -> dict:
    """The scoring commands' parsers; returns command name -> its function."""
    s = sub.add_parser("score", help="score systems against references")
    flags.add_data_args(s)
    flags.add_metric_args(s, "bleu,chrf")
    s.add_argument("--sentence-level", action="store_true", help="also give one score per line")
    s.add_argument("--by", choices=["domain", "document"], help="also score every domain (or document) on its own")

    c = sub.add_parser("compare", help="significance tests between systems (all pairs, or against a baseline)")
    flags.add_data_args(c)
    flags.add_metric_args(c, "bleu,chrf")
    c.add_argument(
        "--test", default="bootstrap", choices=["bootstrap", "ar"], help="paired bootstrap or approximate randomisation"
    )
    flags.add_resamples(
        c,
        f"resamples (bootstrap, default {DEFAULT_SAMPLES['bootstrap']}) or trials (ar, default "
        f"{DEFAULT_SAMPLES['ar']}), raised where Holm's correction needs more",
    )
    flags.add_seed(c)
    c.add_argument("--baseline", metavar="NAME", help="compare every system with this one only")
    c.add_argument("--sacrebleu-compatible", action="store_true", help="reproduce sacrebleu's sampling and p-values")
    flags.add_alpha(c)
    flags.add_resample(
        c,
        "resample segments (sacrebleu's way, the default) or whole documents (segments of a document are "
        "correlated; needs documents: --data FILE.xml or --docs FILE)",
    )

    a = sub.add_parser("analyze", help="words vs characters (Denoual & Lepage), human correlation, tBLEU sweep")
    flags.add_data_args(a)
    flags.add_metric_args(a, "bleu,chrf")
    a.add_argument("--word-order", type=int, default=4, metavar="N", help="word BLEU order N (default 4)")
    a.add_argument("--char-orders", default="1-30", help="character orders M to study: '1-30' or '5,18' (default 1-30)")
    a.add_argument("--ranking-char-order", type=int, default=18, metavar="M", help="M for the system ranking (18)")
    a.add_argument(
        "--human",
        action="append",
        default=[],
        metavar="FILE",
        help="human scores: WMT-style TSV, system or segment level (repeat for several files)",
    )
    a.add_argument(
        "--autorank",
        metavar="M1,M2",
        help="AutoRank-style aggregate of these metrics (each rescaled to 1..N systems, then averaged)",
    )
    a.add_argument("--pair", nargs=2, metavar=("A", "B"), help="two-system analysis: n-grams and buckets with tests")
    flags.add_resample(a, "with --slices: test each slice over whole documents (needs documents)")
    a.add_argument(
        "--slices",
        action="store_true",
        help="with --pair: the slices where A and B differ most (domain, document, source length, digits, names, "
        "punctuation-only differences), each tested, Holm over the slices",
    )
    a.add_argument(
        "--freq-corpus",
        metavar="FILE",
        help="with --pair: count word frequencies in this text (e.g. the training data) instead of the reference",
    )
    a.add_argument(
        "--tbleu-sweep", action="store_true", help="tBLEU for epsilon 0, 0.05, ..., 1 (with --human: correlation)"
    )
    flags.add_seed(a, "seed of the bootstrap intervals")

    r = sub.add_parser("report", help="a standalone HTML report (opens offline) with rankings, charts, clusters")
    flags.add_data_args(r)
    flags.add_metric_args(r, "bleu,chrf,ter")
    r.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    flags.add_resamples(
        r,
        f"bootstrap resamples for intervals and clusters (default {DEFAULT_SAMPLES['bootstrap']}, more "
        "when there are many systems)",
    )
    flags.add_seed(r)
    r.add_argument(
        "--title", default=None, help="the report's title (default: the saved set's name, else 'mtlens report')"
    )
    return {"score": run_score, "compare": run_compare, "analyze": run_analyze, "report": run_report}


def run_score(args: argparse.Namespace) -> str:
    corpus, results = load_and_score(args)
    if args.by:
        from ..analysis.groups import group_scores
        from ..analysis.groups import labels_for as groups_labels

        groups = group_scores(results, groups_labels(corpus, args.by))
        if args.format == "json":
            doc = results_to_dict(results, args.sentence_level)
            doc["language_pair"] = corpus.language_pair
            doc.update(groups_to_dict(groups, args.by))
            return dumps(doc) + "\n"
        if args.format in ("csv", "latex"):
            raise InputError("--by writes json or table")
        return to_table(results) + "\n" + groups_to_table(groups, args.by)
    if args.format == "json":
        doc = results_to_dict(results, args.sentence_level)
        doc["language_pair"] = corpus.language_pair
        if args.pitfalls is not None:
            doc["pitfalls"] = args.pitfalls.to_dict()
        doc["reference_notes"] = getattr(args, "reference_notes", [])
        if "term" in results:  # which terms each system misses (issue 60)
            from ..service.results import term_rows

            doc["terms"] = term_rows(args.evaluation)
        return dumps(doc) + "\n"
    if args.format == "csv":
        return to_csv(results, args.sentence_level)
    if args.format == "latex":
        return to_latex(results)
    text = to_table(results)
    notes = list(corpus.warnings)
    if args.pitfalls is not None:
        from ..analysis.pitfalls import neural_names

        notes += args.pitfalls.notes(neural_names(results))
    notes += getattr(args, "reference_notes", [])
    if notes:
        text += "\nnotes on the data:\n" + "\n".join(f"- {w}" for w in notes) + "\n"
    if args.sentence_level:
        text += "\n" + to_csv(results, sentence_level=True)
    return text


def run_compare(args: argparse.Namespace) -> str:
    check_test_settings(args.n or 1, args.seed, args.alpha)
    corpus, results = load_and_score(args)
    found = comparisons.compare_all(
        results,
        corpus,
        test=args.test,
        n=args.n,
        seed=args.seed,
        baseline=args.baseline,
        alpha=args.alpha,
        sacrebleu_compatible=args.sacrebleu_compatible,
        resample=args.resample,
    )
    if args.format == "json":
        return dumps(comparisons_to_dict(found)) + "\n"
    if args.format == "csv":
        return comparisons_to_csv(found)
    if args.format == "latex":
        return comparisons_to_latex(found)
    return comparisons_to_table(found)


def _check_seed(args: argparse.Namespace) -> None:
    check_test_settings(getattr(args, "n", None) or 1, args.seed, getattr(args, "alpha", ALPHA))


def run_analyze(args: argparse.Namespace) -> str:
    from ..analysis import human as human_mod
    from ..analysis import words_chars

    if args.format in ("csv", "latex"):
        raise InputError("analyze writes json or table")
    _check_seed(args)
    if args.freq_corpus and not args.pair:
        raise InputError("--freq-corpus goes with --pair A B")
    if args.slices and not args.pair:
        raise InputError("--slices goes with --pair A B")
    ev, options = prepare(args)
    corpus = ev.corpus
    if args.pair:
        return _run_pair(args, ev, options)
    orders = words_chars.parse_orders(args.char_orders)
    if corpus.references:
        wvc = words_chars.words_vs_chars(
            corpus, args.word_order, orders, args.ranking_char_order, tokenize=options.tokenize,
            lowercase=options.lowercase,
        )  # fmt: skip
        doc = words_chars.to_dict(wvc)
    else:  # a set of annotations alone: nothing to compare words and characters with
        doc = {"words_vs_chars_notes": ["words vs characters needs a reference: the set has none"]}
    human = None
    files = [(f, read_bytes(f)) for f in args.human]
    if not files and args.set is not None:  # the set's own human scores: its files, MQM and ESA (issue 52)
        from ..service.ratings import set_human_scores

        human = set_human_scores(ev)
    elif files:
        human = human_mod.read_human_files(files, corpus)
    results = None
    if human is not None:
        _, results = score_evaluation(args, ev, options)
        doc.update(human_mod.to_dict(human_mod.human_correlation(results, human, seed=args.seed)))
        from ..analysis.meta_table import to_dict as meta_dict
        from ..service.meta import meta_of

        doc["meta_evaluation"] = meta_dict(meta_of(ev, results, human, seed=args.seed))
        if human.segment:
            from dataclasses import asdict

            from ..analysis.autorank import human_ranking

            doc["human_ranking"] = {}
            for kind, by_sys in human.segment.items():
                ranks, pairs = human_ranking(by_sys)
                doc["human_ranking"][kind] = {
                    "systems": [asdict(r) for r in ranks],
                    "pairs": [asdict(p) for p in pairs],
                    "test": f"Wilcoxon signed-rank on shared segments (>= {MIN_TEST_LINES}), "
                    f"Holm-corrected, alpha {ALPHA}",
                }
    if args.autorank:
        from ..analysis.autorank import autorank

        wanted = [m.strip().lower() for m in args.autorank.split(",") if m.strip()]
        if results is None:
            _, results = score_evaluation(args, ev, options)
        missing = [m for m in wanted if m not in results]
        if missing:
            raise InputError(f"--autorank: '{missing[0]}' is not among the metrics scored ({', '.join(results)})")
        doc["autorank"] = autorank(
            {m: results[m].scores for m in wanted}, {m: results[m].higher_is_better for m in wanted}
        )
    if args.tbleu_sweep:
        from dataclasses import asdict

        from ..analysis.sweep import tbleu_sweep

        sweep = tbleu_sweep(corpus, human=human, tokenize=options.tokenize, lowercase=options.lowercase)
        doc["tbleu_sweep"] = asdict(sweep)
    if args.format == "json":
        return dumps(doc) + "\n"
    return analysis_to_table(doc)


def _run_pair(args: argparse.Namespace, ev, options) -> str:
    from ..analysis.pairwise import pair_analysis
    from ..analysis.slices import slices
    from ..service.inputs import read_lines
    from ..service.results import scored
    from .common import chosen

    corpus = ev.corpus
    a, b = args.pair
    for name in (a, b):
        if name not in corpus.systems:
            raise InputError(f"--pair: '{name}' is not one of the systems: {', '.join(corpus.system_names)}")
    if a == b:
        raise InputError("--pair needs two different systems")
    _, builtin, imported = chosen(args, ev)
    first = builtin[:1] or list(imported)[:1]  # the first metric only: a built-in one when there is one
    if not first:
        raise InputError("no metric was given")
    result = scored(lambda: store(args), ev, first, builtin[:1], imported, options)[first[0]]
    freq = read_lines(args.freq_corpus) if args.freq_corpus else None
    doc = pair_analysis(corpus, result, a, b, options, freq, args.freq_corpus or "", seed=args.seed)
    if args.slices:
        doc["slices"] = slices(corpus, result, a, b, seed=args.seed, resample=args.resample)
    if args.format == "json":
        return dumps(doc) + "\n"
    return pair_to_table(doc)


def run_report(args: argparse.Namespace) -> str:
    from ..exports.html import build_html_report
    from .common import inputs_of, write_output

    _check_seed(args)
    corpus, results = load_and_score(args)
    found = {}
    if comparisons.can_test(len(corpus.systems), corpus.n_lines):
        found = {m: compare(r, "bootstrap", n=args.n, seed=args.seed) for m, r in results.items()}
    title = args.title or (workspace(args).load(args.set).info.name if args.set else "mtlens report")
    pins = workspace(args).pins(args.set) if args.set else []  # the sentences pinned for the presentation
    history = None
    if args.set:  # a set with runs of a family: their history on the first metric, a slide of the presentation
        from ..service.runs import VIEW_RUNS, families, history_to_dict
        from ..service.runs import history as runs_history

        first = next(iter(results))
        if families(store(args), args.set) and first in REGISTRY:
            history = history_to_dict(
                runs_history(store(args), args.set, metrics=first, seed=args.seed, last=VIEW_RUNS)  # the newest view
            )
    terms: list[dict] = []
    if "term" in results:  # which terms each system misses (issue 60)
        from ..service.results import term_rows

        terms = term_rows(args.evaluation)
    html = build_html_report(
        corpus, results, found, title, pins, history, args.pitfalls, getattr(args, "reference_notes", ()), terms
    )
    write_output(args.output, html, inputs_of(args))
    return f"wrote {args.output} ({len(html) / 1e6:.1f} MB)\n"
