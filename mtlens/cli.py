"""The command line: ``python -m mtlens score|compare ...`` (a contract: keep its options stable).

Errors are printed to stderr as one sentence and the exit status is 2; no traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .core.errors import InputError
from .core.options import DEFAULTS, SPECS, Options
from .service import presentation as report
from .service.comparisons import ALPHA, MAX_SAMPLES, MIN_TEST_LINES, SEED, compare
from .service.inputs import TOKENIZER_RULE, load_corpus, read_bytes
from .service.neural_scoring import EXACT as NEURAL_EXACT
from .service.neural_scoring import MODE_ENV as NEURAL_MODE_ENV
from .service.results import REGISTRY, metric_names
from .service.sets import __version__

#: the exit status of a bug (0: done, 1: the gate found a regression, 2: bad input, 130: interrupted)
INTERNAL_ERROR = 3


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
    s.add_argument("--set", metavar="ID", help="a saved set of the workspace instead of files (see 'list')")
    s.add_argument(
        "--docs",
        metavar="FILE",
        help="every line's document (one 'doc_id' or 'doc_id<TAB>domain' per line), for --by and --resample "
        "documents; WMT XML (--data) carries them already",
    )
    _add_data_dir(s)
    s.add_argument(
        "-l",
        "--language-pair",
        metavar="SRC-TGT",
        help=f"e.g. en-zh: word BLEU tokenizer by target ({TOKENIZER_RULE}), as "
        "sacrebleu's -l; without it the target is detected from the references' script",
    )


def _add_data_dir(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--data-dir",
        metavar="DIR",
        help="the workspace's folder (default: $MTLENS_DATA_DIR or the per-user data folder)",
    )
    s.add_argument(
        "--store",
        metavar="URL|DIR",
        help="the workspace's store: a folder (SQLite) or postgresql://user@host/db (default: $MTLENS_STORE, else "
        "--data-dir)",
    )


def _open_store(args):
    from .service.sets import Store

    if args.store and args.data_dir:
        raise InputError("give --store or --data-dir, not both")
    return Store(args.data_dir, url=args.store)


def _store(args):
    """The command's workspace, opened once per command (what scoring noticed, e.g. damaged stored
    statistics, is in the notes of the instance that scored)."""
    store = getattr(args, "_workspace", None)
    if store is None:
        store = args._workspace = _open_store(args)
    return store


def _add_exact_flag(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--exact",
        action="store_true",
        help="neural metrics (comet:NAME) in comet-score's own batches, its numbers bit for bit; default: the "
        "faster shared-work mode, equal to one half-precision step (docs/decisions.md)",
    )


def _add_metric_args(s: argparse.ArgumentParser, default_metrics: str) -> None:
    """The metric options, one flag per field of :class:`Options` (flags, help and defaults from
    :data:`mtlens.core.options.SPECS`; bounds are checked when the Options are built)."""
    s.add_argument(
        "--metrics",
        default=None,
        help=f"comma-separated: {','.join(metric_names())}, comet:NAME for a registered model (see 'models'), and the "
        f"names of imported metrics (default {default_metrics}, every --scores metric and a set's computed ones)",
    )
    s.set_defaults(default_metrics=default_metrics)
    _add_exact_flag(s)
    s.add_argument(
        "--mqm-weights",
        metavar="JSON",
        help="MQM weights over Google's (major 5, minor 1, minor fluency/punctuation 0.1, non-translation 25), e.g. "
        '\'{"major": 10, "minor:fluency/punctuation": 0.5}\'',
    )
    s.add_argument(
        "--scores",
        action="append",
        default=[],
        metavar="FILE",
        help="segment scores of another metric (comet-score JSON or text, MetricX JSONL, mt-metrics-eval "
        ".seg.score, TSV with system/line columns); repeat for several",
    )
    _add_option_flags(s)
    s.add_argument("--format", default="table", choices=["table", "json", "csv", "latex"])


def _add_option_flags(s: argparse.ArgumentParser) -> None:
    """One flag per field of :class:`Options` (flags, help and defaults from :data:`mtlens.core.options.SPECS`)."""
    for name, spec in SPECS.items():
        default = getattr(DEFAULTS, name)
        flag = spec.flag(name)
        # every default is None here: a value the user did not give is filled in by the language
        # defaults, then by Options' own defaults (options_from_args)
        if spec.kind == "bool":
            s.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=spec.help)
        elif spec.kind == "choice":
            s.add_argument(flag, dest=name, default=None, choices=spec.choices, help=f"{spec.help} (default {default})")
        else:
            s.add_argument(
                flag,
                dest=name,
                type=int if spec.kind == "int" else float,
                default=None,
                metavar="N" if spec.kind == "int" else "X",
                help=f"{spec.help} (default {default})",
            )


def options_from_args(args, language=None) -> Options:
    """The :class:`Options` of a command line: the flags given, over the defaults of the language
    (``-l`` or detected; sacrebleu's ``-l`` rule: :func:`mtlens.service.evaluation.options_for`), over Options'
    defaults. Checked: out-of-bounds values name their flag."""
    from .service.evaluation import options_for

    given = {name: getattr(args, name) for name in SPECS if getattr(args, name, None) is not None}
    return options_for(language, DEFAULTS, given)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mtlens", description="Compare machine translation systems (sacrebleu-compatible scores).")
    p.add_argument("--version", action="version", version=f"mtlens {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("score", help="score systems against references")
    _add_data_args(s)
    _add_metric_args(s, "bleu,chrf")
    s.add_argument("--sentence-level", action="store_true", help="also give one score per line")
    s.add_argument("--by", choices=["domain", "document"], help="also score every domain (or document) on its own")

    c = sub.add_parser("compare", help="significance tests between systems (all pairs, or against a baseline)")
    _add_data_args(c)
    _add_metric_args(c, "bleu,chrf")
    c.add_argument(
        "--test", default="bootstrap", choices=["bootstrap", "ar"], help="paired bootstrap or approximate randomisation"
    )
    c.add_argument(
        "--n",
        type=int,
        default=None,
        help=f"resamples (bootstrap, default 1000) or trials (ar, default 10000), raised where Holm's correction needs "
        f"more; at most {MAX_SAMPLES}",
    )
    c.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED}; 0 is a seed)")
    c.add_argument("--baseline", metavar="NAME", help="compare every system with this one only")
    c.add_argument("--sacrebleu-compatible", action="store_true", help="reproduce sacrebleu's sampling and p-values")
    c.add_argument("--alpha", type=float, default=ALPHA, help=f"significance level after Holm's correction ({ALPHA})")
    c.add_argument(
        "--resample",
        default="segments",
        choices=["segments", "documents"],
        help="resample segments (sacrebleu's way, the default) or whole documents (segments of a document are "
        "correlated; needs documents: --data FILE.xml or --docs FILE)",
    )

    a = sub.add_parser("analyze", help="words vs characters (Denoual & Lepage), human correlation, tBLEU sweep")
    _add_data_args(a)
    _add_metric_args(a, "bleu,chrf")
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
    a.add_argument(
        "--resample",
        default="segments",
        choices=["segments", "documents"],
        help="with --slices: test each slice over whole documents (needs documents)",
    )
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
    a.add_argument("--seed", type=int, default=SEED, help="seed of the bootstrap intervals")

    r = sub.add_parser("report", help="a standalone HTML report (opens offline) with rankings, charts, clusters")
    _add_data_args(r)
    _add_metric_args(r, "bleu,chrf,ter")
    r.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    r.add_argument(
        "--n",
        type=int,
        default=None,
        help="bootstrap resamples for intervals and clusters (default 1000, more when there are many systems)",
    )
    r.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    r.add_argument(
        "--title", default=None, help="the report's title (default: the saved set's name, else 'mtlens report')"
    )
    i = sub.add_parser("import", help="save a folder or file as set(s) of the workspace; prints the new id(s)")
    i.add_argument(
        "path", nargs="?", metavar="PATH", help="a folder (ref*.txt, src.txt, systems, human*.tsv; or mt-metrics-eval)"
    )
    i.add_argument(
        "--ratings",
        metavar="FILE",
        help="an MQM annotation file (Google's TSV: system, doc, doc_id, seg_id, rater, source, target with "
        "<v> spans, category, severity[, comment]): a set of its hypotheses and sources, with an mqm metric",
    )
    i.add_argument(
        "--set", metavar="ID", help="with --ratings: annotate this saved set's hypotheses instead of making a set"
    )
    i.add_argument("--name", help="the set's name (default: the folder or file name; mt-metrics-eval: + the pair)")
    i.add_argument("-l", "--language-pair", metavar="SRC-TGT", help="declare the language pair (default: detect)")
    i.add_argument("--project", help="group the set(s) into this project (e.g. 'WMT21')")
    _add_data_dir(i)
    ls = sub.add_parser("list", help="the saved sets of the workspace")
    ls.add_argument("--format", default="table", choices=["table", "json"])
    ls.add_argument("--project", help="only this project's sets")
    _add_data_dir(ls)
    d = sub.add_parser("delete", help="delete a saved set and everything stored with it")
    d.add_argument("id", metavar="ID")
    _add_data_dir(d)
    sub.add_parser(
        "build", help="compile the kernels (TER, tBLEU, n-gram counts) now, so no first use waits (installation)"
    )
    db = sub.add_parser("dashboard", help="start the dashboard (on 127.0.0.1) and print the link to open")
    db.add_argument("--set", metavar="ID", help="open this saved set")
    db.add_argument("--ref", action="append", default=[], metavar="REF", help="save these files as a set and open it")
    db.add_argument("--sys", nargs="+", default=[], metavar="SYS")
    db.add_argument("--src", metavar="SRC")
    db.add_argument("-l", "--language-pair", metavar="SRC-TGT")
    db.add_argument("--name", help="name of the set saved from --ref/--sys")
    db.add_argument("--port", type=_port, default=8501, help="TCP port, 1-65535 (default 8501)")
    db.add_argument(
        "--address",
        default="127.0.0.1",
        help="listen address (default 127.0.0.1: this machine only); another address shares the dashboard with "
        "everyone who can reach it, each visitor owning their own sets (docs/security.md)",
    )
    _add_data_dir(db)
    ac = sub.add_parser("access", help="project members on a shared server (the operator's command)")
    ac_sub = ac.add_subparsers(dest="action", required=True, parser_class=_Parser)
    for action, text in (("grant", "make a visitor a member of a project"), ("revoke", "remove a member")):
        a = ac_sub.add_parser(action, help=text)
        a.add_argument("project", metavar="PROJECT")
        a.add_argument(
            "visitor", metavar="VISITOR", help="the visitor id the dashboard shows (user:... or browser:...)"
        )
        _add_data_dir(a)
    a = ac_sub.add_parser("list", help="every project's members")
    _add_data_dir(a)
    g = sub.add_parser(
        "gate",
        help="may the candidate replace the baseline? exit 0 no regression, 1 regression, 2 bad input",
    )
    g.add_argument("--ref", action="append", default=[], metavar="REF", help="a reference file (repeat for several)")
    g.add_argument("--src", metavar="SRC", help="the source file (QE models need it)")
    g.add_argument("-l", "--language-pair", metavar="SRC-TGT", help="e.g. en-de (default: detect the target)")
    g.add_argument("--set", metavar="ID", help="a saved set: --baseline and --candidate name two of its runs")
    g.add_argument("--baseline", required=True, metavar="FILE|NAME", help="the baseline's output (or run name)")
    g.add_argument("--candidate", required=True, metavar="FILE|NAME", help="the candidate's output (or run name)")
    g.add_argument("--metrics", default=None, help="comma-separated, e.g. chrf,bleu,comet:NAME (default bleu,chrf)")
    g.add_argument("--alpha", type=float, default=ALPHA, help=f"significance level after Holm's correction ({ALPHA})")
    g.add_argument(
        "--min-agreement",
        type=float,
        default=None,
        metavar="A",
        help="a regression must also be one humans would notice: estimated agreement at least A (0-1, Kocmi et al. 2024)",
    )
    g.add_argument("--docs", metavar="FILE", help="every line's document ('doc_id[<TAB>domain]' per line)")
    g.add_argument(
        "--resample",
        default="segments",
        choices=["segments", "documents"],
        help="resample segments (default) or whole documents (--docs, or a saved set's documents)",
    )
    g.add_argument("--format", default="text", choices=["text", "json", "markdown", "junit"])
    g.add_argument("-o", "--output", metavar="FILE", help="also write the verdict (in --format) to this file")
    _add_exact_flag(g)
    _add_option_flags(g)
    _add_data_dir(g)
    ad = sub.add_parser("add", help="add a system output to a saved set as a run (time, family, metadata)")
    ad.add_argument("--set", required=True, metavar="ID")
    ad.add_argument(
        "file", metavar="FILE", help="the system output (one line per segment), or a set bundle: its new systems"
    )
    ad.add_argument("--name", help="the run's name (default: the file's stem)")
    ad.add_argument("--family", help="the run's lineage, e.g. my-model (steps are tested within a family)")
    ad.add_argument("--at", metavar="ISO-8601", help="when the output was made (default: now; no offset: UTC)")
    ad.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE", help="metadata (repeat)")
    ad.add_argument("--format", default="table", choices=["table", "json"])
    _add_data_dir(ad)
    hi = sub.add_parser("history", help="a set's runs over time, with intervals and the significance of every step")
    hi.add_argument("--set", required=True, metavar="ID")
    hi.add_argument("--family", help="only this family's runs")
    hi.add_argument("--metrics", default=None, help="comma-separated (default bleu,chrf)")
    hi.add_argument("--baseline", metavar="NAME", help="also give every run's delta to this run")
    hi.add_argument("--alpha", type=float, default=ALPHA, help=f"significance level after Holm's correction ({ALPHA})")
    hi.add_argument(
        "--resample", default="segments", choices=["segments", "documents"], help="intervals and steps over documents"
    )
    hi.add_argument("--format", default="table", choices=["table", "json"])
    _add_exact_flag(hi)
    _add_data_dir(hi)
    mo = sub.add_parser("models", help="neural models (COMET, CometKiwi, xCOMET) from local checkpoints")
    mo_sub = mo.add_subparsers(dest="action", required=True, parser_class=_Parser)
    a = mo_sub.add_parser("add", help="register a local checkpoint; then score with --metrics comet:NAME")
    a.add_argument("name", metavar="NAME", help="the name --metrics uses: comet:NAME")
    a.add_argument("path", metavar="PATH", help="the model folder (hparams.yaml, checkpoints/model.ckpt) or the .ckpt")
    _add_data_dir(a)
    a = mo_sub.add_parser("list", help="the registered models")
    _add_data_dir(a)
    a = mo_sub.add_parser("remove", help="forget a model (its cached scores stay with its checkpoint digest)")
    a.add_argument("name", metavar="NAME")
    _add_data_dir(a)
    sto = sub.add_parser("store", help="the workspace's store itself")
    sto_sub = sto.add_subparsers(dest="action", required=True, parser_class=_Parser)
    a = sto_sub.add_parser("copy", help="copy a whole workspace into an empty store (SQLite folder <-> PostgreSQL)")
    a.add_argument("source", metavar="FROM", help="a data folder or postgresql://...")
    a.add_argument("target", metavar="TO", help="an empty data folder or database")
    return p


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"the port must be a number from 1 to 65535, not '{text}'")
    return port


def _evaluation(args):
    """The evaluation of the command line's data (files, or a saved set as it was decided)."""
    from .service.evaluation import evaluate
    from .service.sets import open_set

    if args.set is None:
        return evaluate(_load(args), args.language_pair)
    extra = [f for f, v in (("--ref", args.ref), ("--sys", args.sys), ("--src", args.src), ("--data", args.data)) if v]
    if getattr(args, "docs", None):
        extra.append("--docs (a saved set keeps the documents it was saved with)")
    if extra:
        raise InputError(f"--set names a saved set; leave out {', '.join(extra)}")
    ev = open_set(_store(args), args.set)
    if args.language_pair:
        ev = evaluate(ev.corpus.with_language(None), args.language_pair)
    return ev


def _load(args):
    if args.data is not None:
        extra = [f for f, v in (("--ref", args.ref), ("--sys", args.sys), ("--src", args.src)) if v]
        if extra:
            raise InputError(f"--data holds references, systems and source already; leave out {', '.join(extra)}")
    if args.data is None and not args.ref and not args.src:
        raise InputError(
            "give at least one --ref file (or --data FILE.tsv|FILE.xml; reference-free metrics such as CometKiwi "
            "take --src and --sys alone)"
        )
    if args.data is None and not args.sys:
        raise InputError("give at least one --sys file (or --data FILE.tsv|FILE.xml)")
    corpus = load_corpus(args.ref, args.sys, args.src, args.data)
    if getattr(args, "docs", None):
        from .service.inputs import read_documents

        documents, domains = read_documents(read_bytes(args.docs), args.docs, corpus.n_lines)
        corpus = corpus.with_documents(documents, domains)
    return corpus


def _prepare(args):
    """The evaluation (its corpus with its language pair) and the options, saying on stderr what was
    detected."""
    ev = _evaluation(args)
    from .service.inputs import documents_notes

    for note in documents_notes(ev.corpus.documents, ev.corpus.domains):
        print(f"mtlens: note: {note}", file=sys.stderr)
    lang = ev.language
    if lang.how == "detected" and lang.target and args.tokenize is None:
        print(f"mtlens: note: {lang.describe()} (declare the pair with -l SRC-TGT)", file=sys.stderr)
    for w in lang.warnings():
        print(f"mtlens: warning: {w}", file=sys.stderr)
    return ev, options_from_args(args, lang)


def _load_and_score(args):
    ev, options = _prepare(args)
    return _load_and_score_corpus(args, ev, options)


def _load_and_score_corpus(args, ev, options):
    from .service.results import scored

    corpus = ev.corpus
    names, builtin, imported = _chosen(args, ev)
    results = scored(lambda: _store(args), ev, names, builtin, imported, options)
    if ev.set_id is not None and builtin:
        for note in _store(args).notes:
            print(f"mtlens: warning: {note}", file=sys.stderr)
    for scores in imported.values():
        for note in scores.notes:
            print(f"mtlens: note: {note}", file=sys.stderr)
    if not results:
        if not corpus.references:
            raise InputError(
                "this set has no reference: name a reference-free metric with --metrics (comet:NAME of a "
                "CometKiwi-like model, or imported scores), or add a reference"
            )
        raise InputError("no metric was given")
    from .service.results import neural_names, pitfalls_for

    # the COMET pitfalls (empty, copied, wrong-language lines; languages the encoder never saw), said once
    # whatever the command; kept on args for the command's own output (JSON, the report)
    args.pitfalls = pitfalls_for(corpus, list(results))
    if args.pitfalls is not None:
        for note in args.pitfalls.notes(neural_names(results)):
            print(f"mtlens: warning: {note}", file=sys.stderr)
    return corpus, results


def _chosen(args, ev):
    """The command's metrics (:func:`mtlens.service.results.chosen_metrics`: ``--metrics``, else the defaults
    and what the set offers; ``--scores`` files and ``--mqm-weights`` with them)."""
    from .service.results import chosen_metrics

    extra = [(f, read_bytes(f)) for f in getattr(args, "scores", None) or []]
    return chosen_metrics(
        lambda: _store(args), ev, args.metrics, args.default_metrics, extra, getattr(args, "mqm_weights", None), _say
    )


def _say(sentence: str) -> None:
    print(f"mtlens: {sentence}", file=sys.stderr)


def _run_score(args) -> str:
    corpus, results = _load_and_score(args)
    if args.by:
        from .service.analyses import group_scores, groups_labels

        groups = group_scores(results, groups_labels(corpus, args.by))
        if args.format == "json":
            doc = report.results_to_dict(results, args.sentence_level)
            doc["language_pair"] = corpus.language_pair
            doc.update(report.groups_to_dict(groups, args.by))
            return report.dumps(doc) + "\n"
        if args.format in ("csv", "latex"):
            raise InputError("--by writes json or table")
        return report.to_table(results) + "\n" + report.groups_to_table(groups, args.by)
    if args.format == "json":
        doc = report.results_to_dict(results, args.sentence_level)
        doc["language_pair"] = corpus.language_pair
        if args.pitfalls is not None:
            doc["pitfalls"] = args.pitfalls.to_dict()
        return report.dumps(doc) + "\n"
    if args.format == "csv":
        return report.to_csv(results, args.sentence_level)
    if args.format == "latex":
        return report.to_latex(results)
    text = report.to_table(results)
    notes = list(corpus.warnings)
    if args.pitfalls is not None:
        from .service.results import neural_names

        notes += args.pitfalls.notes(neural_names(results))
    if notes:
        text += "\nnotes on the data:\n" + "\n".join(f"- {w}" for w in notes) + "\n"
    if args.sentence_level:
        text += "\n" + report.to_csv(results, sentence_level=True)
    return text


def _run_compare(args) -> str:
    from .service.comparisons import check_test_settings

    check_test_settings(args.n or 1, args.seed, args.alpha)
    corpus, results = _load_and_score(args)
    if len(next(iter(results.values())).scores) < 2:
        raise InputError("significance tests need at least two systems")
    documents = None
    if args.resample == "documents":
        if corpus.documents is None:
            raise InputError("--resample documents needs documents: --data FILE.xml (WMT XML) or --docs FILE")
        documents = corpus.documents
    comparisons = {
        m: compare(
            r,
            test=args.test,
            n=args.n,
            seed=args.seed,
            baseline=args.baseline,
            alpha=args.alpha,
            sacrebleu_compatible=args.sacrebleu_compatible,
            documents=documents,
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


def _check_seed(args) -> None:
    from .service.comparisons import check_test_settings

    check_test_settings(getattr(args, "n", None) or 1, args.seed, getattr(args, "alpha", ALPHA))


def _run_analyze(args) -> str:
    from .service.analyses import human as human_mod
    from .service.analyses import words_chars

    if args.format in ("csv", "latex"):
        raise InputError("analyze writes json or table")
    _check_seed(args)
    if args.freq_corpus and not args.pair:
        raise InputError("--freq-corpus goes with --pair A B")
    if args.slices and not args.pair:
        raise InputError("--slices goes with --pair A B")
    ev, options = _prepare(args)
    corpus = ev.corpus
    if args.pair:
        return _run_pair(args, ev, options)
    orders = words_chars.parse_orders(args.char_orders)
    wvc = words_chars.words_vs_chars(
        corpus, args.word_order, orders, args.ranking_char_order, tokenize=options.tokenize, lowercase=options.lowercase
    )
    doc = words_chars.to_dict(wvc)
    human = None
    files = [(f, read_bytes(f)) for f in args.human]
    if not files and args.set is not None:
        files = list(_store(args).load(args.set).human)  # the set's own human scores
    results = None
    if files:
        human = human_mod.read_human_files(files, corpus)
        _, results = _load_and_score_corpus(args, ev, options)
        doc.update(human_mod.to_dict(human_mod.human_correlation(results, human, seed=args.seed)))
        if human.segment:
            from dataclasses import asdict

            from .service.analyses import human_ranking

            doc["human_ranking"] = {}
            for kind, by_sys in human.segment.items():
                ranks, pairs = human_ranking(by_sys)
                doc["human_ranking"][kind] = {
                    "systems": [asdict(r) for r in ranks],
                    "pairs": [asdict(p) for p in pairs],
                    "test": f"Wilcoxon signed-rank on shared segments (>= {MIN_TEST_LINES}), Holm-corrected, alpha {ALPHA}",
                }
    if args.autorank:
        from .service.analyses import autorank

        wanted = [m.strip().lower() for m in args.autorank.split(",") if m.strip()]
        if results is None:
            _, results = _load_and_score_corpus(args, ev, options)
        missing = [m for m in wanted if m not in results]
        if missing:
            raise InputError(f"--autorank: '{missing[0]}' is not among the metrics scored ({', '.join(results)})")
        doc["autorank"] = autorank(
            {m: results[m].scores for m in wanted}, {m: results[m].higher_is_better for m in wanted}
        )
    if args.tbleu_sweep:
        from dataclasses import asdict

        from .service.analyses import tbleu_sweep

        sweep = tbleu_sweep(corpus, human=human, tokenize=options.tokenize, lowercase=options.lowercase)
        doc["tbleu_sweep"] = asdict(sweep)
    if args.format == "json":
        return report.dumps(doc) + "\n"
    return report.analysis_to_table(doc)


def _run_pair(args, ev, options) -> str:
    from .service.analyses import pair_analysis
    from .service.inputs import read_lines

    corpus = ev.corpus
    a, b = args.pair
    for name in (a, b):
        if name not in corpus.systems:
            raise InputError(f"--pair: '{name}' is not one of the systems: {', '.join(corpus.system_names)}")
    if a == b:
        raise InputError("--pair needs two different systems")
    from .service.results import scored

    _, builtin, imported = _chosen(args, ev)
    first = builtin[:1] or list(imported)[:1]  # the first metric only: a built-in one when there is one
    if not first:
        raise InputError("no metric was given")
    result = scored(lambda: _store(args), ev, first, builtin[:1], imported, options)[first[0]]
    freq = read_lines(args.freq_corpus) if args.freq_corpus else None
    doc = pair_analysis(corpus, result, a, b, options, freq, args.freq_corpus or "", seed=args.seed)
    if args.slices:
        from .service.analyses import slices

        doc["slices"] = slices(corpus, result, a, b, seed=args.seed, resample=args.resample)
    if args.format == "json":
        return report.dumps(doc) + "\n"
    return report.pair_to_table(doc)


def _run_report(args) -> str:
    from pathlib import Path

    from .service.presentation import build_html_report

    _check_seed(args)
    corpus, results = _load_and_score(args)
    comparisons = {}
    if len(corpus.systems) > 1 and corpus.n_lines >= MIN_TEST_LINES:
        comparisons = {m: compare(r, "bootstrap", n=args.n, seed=args.seed) for m, r in results.items()}
    title = args.title or (_store(args).load(args.set).info.name if args.set else "mtlens report")
    pins = _store(args).pins(args.set) if args.set else []  # the sentences pinned for the presentation
    history = None
    if args.set:  # a set with runs of a family: their history on the first metric, a slide of the presentation
        from .service.runs import families, history_to_dict
        from .service.runs import history as runs_history

        first = next(iter(results))
        if families(_store(args), args.set) and first in REGISTRY:
            history = history_to_dict(runs_history(_store(args), args.set, metrics=first, seed=args.seed))
    html = build_html_report(corpus, results, comparisons, title, pins, history, args.pitfalls)
    try:
        Path(args.output).write_text(html, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write '{args.output}': {err.strerror or err}") from None
    return f"wrote {args.output} ({len(html) / 1e6:.1f} MB)\n"


def _run_import(args) -> str:
    from .service.bundles import import_bundle
    from .service.evaluation import evaluate, save
    from .service.inputs import read_path

    store = _store(args)
    if args.ratings:
        from pathlib import Path

        from .service.evaluation import evaluate_annotations

        if args.path:
            raise InputError("give either PATH or --ratings FILE, not both")
        if args.set:
            from .service.evaluation import add_annotations

            ann = add_annotations(store, args.set, Path(args.ratings).name, read_bytes(args.ratings))
            for note in ann.problems:
                print(f"mtlens: note: {note}", file=sys.stderr)
            return args.set + "\n"
        ev = evaluate_annotations(read_bytes(args.ratings), Path(args.ratings).name, args.language_pair)
        name = args.name or Path(args.ratings).name
        sid = save(store, ev, name, args.project).set_id
        c = ev.corpus
        print(
            f"mtlens: saved '{name}' ({len(c.systems)} systems, {c.n_lines} segments, no reference; "
            f"{ev.language.describe()})",
            file=sys.stderr,
        )
        from .service.inputs import read_mqm_tsv

        for note in [*c.warnings, *read_mqm_tsv(ev.annotations[0][1], ev.annotations[0][0]).problems]:
            print(f"mtlens: note: {note}", file=sys.stderr)
        return sid + "\n"
    if not args.path:
        raise InputError("give a PATH to import (or --ratings FILE)")
    if str(args.path).endswith(".mtlens.json.gz"):
        sid = import_bundle(store, read_bytes(args.path), args.name)
        if args.project:
            store.set_project(sid, args.project)
        print(f"mtlens: saved the bundle '{args.path}' as a set", file=sys.stderr)
        return sid + "\n"
    found = read_path(args.path, args.name)
    lines = []
    for item in found:
        ev = evaluate(item.corpus, args.language_pair, item.human, item.scores)  # bad side files: nothing saved
        corpus, lang = ev.corpus, ev.language
        sid = save(store, ev, item.name, args.project).set_id
        lines.append(sid)
        print(
            f"mtlens: saved '{item.name}' ({len(corpus.systems)} systems, {len(corpus.references)} references, "
            f"{corpus.n_lines} lines; {lang.describe()})",
            file=sys.stderr,
        )
        for note in item.notes:
            print(f"mtlens: note: {note}", file=sys.stderr)
    return "\n".join(lines) + "\n"


def _run_list(args) -> str:
    from dataclasses import asdict

    sets = _store(args).list(args.project)
    if args.format == "json":
        return (
            report.dumps(
                [{k: v for k, v in asdict(s).items() if k != "project"} | {"project": s.project} for s in sets]
            )
            + "\n"
        )
    if not sets:
        return "no saved sets (python -m mtlens import PATH)\n"
    header = ("id", "pair", "systems", "lines", "created", "owner", "name")
    table = [
        (s.id, s.language_pair or "-", str(len(s.systems)), str(s.lines), s.created, s.owner or "operator", s.name)
        for s in sets
    ]
    return _columns(header, table, right=(2, 3))


def _columns(header: tuple[str, ...], rows: list[tuple[str, ...]], right=()) -> str:
    """A plain text table, every column as wide as its widest cell (nothing is cut); the last column is
    not padded. Numbers (``right``: column indices) are right-aligned."""
    widths = [max(len(x) for x in col) for col in zip(header, *rows, strict=True)]

    def line(cells):
        out = [c.rjust(w) if k in right else c.ljust(w) for k, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join([*out[:-1], cells[-1]]).rstrip()

    return "\n".join(line(r) for r in [header, *rows]) + "\n"


def _run_access(args) -> str:
    store = _store(args)
    if args.action == "grant":
        store.grant(args.project, args.visitor)
        return f"{args.visitor} is a member of '{args.project}'\n"
    if args.action == "revoke":
        store.revoke(args.project, args.visitor)
        return f"{args.visitor} is no longer a member of '{args.project}'\n"
    rows = store.members()
    return "".join(f"{p}\t{m}\n" for p, m in rows) or "no project has members yet\n"


def _run_models(args) -> str:
    from .service import neural_scoring as neural

    store = _store(args)
    if args.action == "add":
        m = neural.add_model(store, args.name, args.path)
        return (
            f"{m.name}: {m.kind} (reads {', '.join(m.inputs)}), checkpoint {m.path}, digest {m.digest[:12]}\n"
            f"score with: --metrics {m.metric}\n"
        )
    if args.action == "remove":
        store.remove_model(args.name)
        return f"removed {args.name}\n"
    rows = [f"{m.metric}\t{m.kind}\t{','.join(m.inputs)}\t{m.digest[:12]}\t{m.path}" for m in neural.models(store)]
    return "\n".join(rows) + "\n" if rows else "no model is registered (python -m mtlens models add NAME PATH)\n"


def _run_build(args) -> str:
    import time

    from .service.results import build_kernels

    start = time.perf_counter()
    built = build_kernels()
    how = f"{len(built)} built ahead of time" if built else "numba's, cached (no C compiler for ahead-of-time builds)"
    return f"mtlens: kernels ready ({how}) in {time.perf_counter() - start:.1f} s\n"


def _run_store(args) -> str:
    from .service.sets import Store, copy_store

    source, target = Store(url=args.source), Store(url=args.target)
    counts = copy_store(source, target)
    rows = ", ".join(f"{n} {table}" for table, n in counts.items() if n)
    return f"copied {source.location} to {target.location}: {rows or 'no rows'}\n"


def _run_delete(args) -> str:
    _store(args).delete(args.id)
    return f"deleted {args.id}\n"


def _run_dashboard(args) -> str:
    import os
    from pathlib import Path

    app = Path(__file__).resolve().parents[1] / "app.py"
    if not app.exists():
        raise InputError(f"the dashboard's app.py is not next to the mtlens package ({app}); run from a checkout")
    store = _open_store(args)
    set_id = args.set
    if args.ref or args.sys:
        if set_id:
            raise InputError("give either --set ID or --ref/--sys files, not both")
        from .service.evaluation import evaluate, save

        ev = evaluate(load_corpus(args.ref, args.sys, args.src), args.language_pair)
        set_id = save(store, ev, args.name or "from the command line").set_id
    elif set_id:
        store.load(set_id)  # a wrong id is said now, not in the browser
    store.check()  # an unreachable database too
    from .service.neural_scoring import check_ray

    check_ray()  # and an unreachable Ray cluster (MTLENS_RAY_ADDRESS)
    from .service.sets import is_loopback

    link = f"http://{args.address}:{args.port}/" + (f"?set={set_id}" if set_id else "")
    print(f"mtlens dashboard: open {link}", flush=True)
    if set_id:
        from .service.rankings import quick_link

        quick = f"http://{args.address}:{args.port}/{quick_link({'set': set_id})}"
        print(f"mtlens dashboard: the set's quick view (its Rankings as plain HTML) {quick}", flush=True)
    if not is_loopback(args.address):
        print(
            f"mtlens: warning: the dashboard listens on {args.address}, not only on this machine: everyone who can "
            "reach that address can upload files, read any set whose link they have, and create sets of their own "
            "(each visitor owns what they upload; see docs/security.md for a login and a reverse proxy)",
            file=sys.stderr,
            flush=True,
        )
    env = dict(os.environ, **store.child_env())
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app),
        "--server.address",
        args.address,
        "--server.port",
        str(args.port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]
    sys.stdout.flush()
    os.execve(sys.executable, cmd, env)  # streamlit replaces this process: stopping it stops the server
    return ""  # pragma: no cover


class _Exit(Exception):
    """A command's output with an exit status other than 0 (the gate's regression: 1)."""

    def __init__(self, out: str, status: int):
        super().__init__(out)
        self.out, self.status = out, status


def _run_gate(args) -> str:
    from .service.gate import gate_files, gate_set, render

    given = {name: getattr(args, name) for name in SPECS if getattr(args, name, None) is not None}
    common = dict(
        metrics=args.metrics,
        alpha=args.alpha,
        min_agreement=args.min_agreement,
        options=given,
        say=_say,
        resample=args.resample,
    )
    if args.set is not None:
        extra = [f for f, v in (("--ref", args.ref), ("--src", args.src), ("--docs", args.docs)) if v]
        if extra:
            raise InputError(f"--set names a saved set; leave out {', '.join(extra)}")
        res = gate_set(_store(args), args.set, args.baseline, args.candidate, **common)
    else:
        res = gate_files(
            _store(args), args.ref, args.baseline, args.candidate, args.src, args.language_pair, args.docs, **common
        )
    out = render(res, args.format)
    if args.output:
        from pathlib import Path

        try:
            Path(args.output).write_text(out, encoding="utf-8")
        except OSError as err:
            raise InputError(f"cannot write '{args.output}': {err.strerror or err}") from None
    if res.verdict == "regression":
        raise _Exit(out, 1)
    return out


def _run_add(args) -> str:
    from pathlib import Path

    from .service.bundles import add_bundle_runs, is_bundle
    from .service.runs import add_run, parse_meta

    data = read_bytes(args.file)
    if is_bundle(data):  # a set bundle: its new systems, with their run facts
        given = [
            f
            for f, v in (("--name", args.name), ("--family", args.family), ("--at", args.at), ("--meta", args.meta))
            if v
        ]
        if given:
            raise InputError(f"a bundle's runs carry their own facts; leave out {', '.join(given)}")
        added = add_bundle_runs(_store(args), args.set, data)
        if args.format == "json":
            return report.dumps({"added": added}) + "\n"
        return f"added {len(added)} run(s) from the bundle to set {args.set}: {', '.join(added)}\n"
    meta = parse_meta(args.meta)
    run = add_run(_store(args), args.set, data, Path(args.file).name, args.name, args.family, args.at, meta)
    doc = {"name": run.name, "family": run.family, "at": run.at, "meta": run.meta}
    if args.format == "json":
        return report.dumps(doc) + "\n"
    fam = f", family {run.family}" if run.family else ""
    return f"added run '{run.name}'{fam}, made {run.at}, to set {args.set}\n"


def _run_history(args) -> str:
    from .service.runs import history, history_to_dict

    h = history(_store(args), args.set, args.family, args.metrics, args.baseline, args.alpha, resample=args.resample)
    doc = history_to_dict(h)
    if args.format == "json":
        return report.dumps(doc) + "\n"
    return report.history_to_table(doc)


_COMMANDS = {
    "gate": _run_gate,
    "add": _run_add,
    "history": _run_history,
    "score": _run_score,
    "compare": _run_compare,
    "analyze": _run_analyze,
    "report": _run_report,
    "import": _run_import,
    "list": _run_list,
    "delete": _run_delete,
    "build": _run_build,
    "dashboard": _run_dashboard,
    "access": _run_access,
    "models": _run_models,
    "store": _run_store,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "exact", False):  # the mode is the environment's: a job this command starts inherits it
        os.environ[NEURAL_MODE_ENV] = NEURAL_EXACT
    try:
        out = _COMMANDS[args.command](args)
    except InputError as err:
        print(f"mtlens: error: {err}", file=sys.stderr)
        return 2
    except _Exit as done:
        out, status = done.out, done.status
    except MemoryError:
        print("mtlens: error: out of memory; score fewer or shorter files at once", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # a bug: still one sentence, never a traceback; 3, so no CI reads it as a verdict
        print(f"mtlens: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return INTERNAL_ERROR
    else:
        status = 0
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        return status
    return status
