"""The workspace's commands: ``import``, ``list``, ``delete``, ``add`` (a run), ``history`` and ``store copy``."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core.errors import InputError
from ..exports.history import history_to_table
from ..exports.tables import dumps
from ..service.inputs import read_bytes
from . import args as flags
from .args import Parser
from .common import as_typed, columns, note, say, store, workspace


def add_parsers(sub) -> dict:
    """The workspace commands' parsers; returns command name -> its function."""
    i = sub.add_parser("import", help="save a folder or file as set(s) of the workspace; prints the new id(s)")
    i.add_argument(
        "path", nargs="?", metavar="PATH", help="a folder (ref*.txt, src.txt, systems, human*.tsv; or mt-metrics-eval)"
    )
    i.add_argument(
        "--ratings",
        metavar="FILE",
        help="human ratings: an MQM annotation file (Google's TSV: system, doc, doc_id, seg_id, rater, source, target "
        "with <v> spans, category, severity[, comment]), alone a set of its hypotheses and sources with an mqm metric; "
        "or ESA ratings (Appraise's CSV, WMT's JSONL, a Pearmut log) with --set: an esa metric of the set's systems "
        "(ratings of other systems and language pairs are counted in a note)",
    )
    i.add_argument(
        "--set", metavar="ID", help="with --ratings: annotate this saved set's hypotheses instead of making a set"
    )
    i.add_argument("--name", help="the set's name (default: the folder or file name; mt-metrics-eval: + the pair)")
    flags.add_language_pair(i, "declare the language pair (default: detect)")
    flags.add_docs(
        i,
        "every line's document and domain for a folder's set: 'doc_id<TAB>domain' per line, or mt-metrics-eval's "
        "'domain doc_id' (a .docs file, or --docs-order domain-id)",
    )
    i.add_argument("--project", help="group the set(s) into this project (e.g. 'WMT21')")
    flags.add_terms(i)  # a glossary saved with the set
    flags.add_data_dir(i)

    ls = sub.add_parser("list", help="the saved sets of the workspace")
    flags.add_format(ls)
    ls.add_argument("--project", help="only this project's sets")
    flags.add_data_dir(ls)

    d = sub.add_parser("delete", help="delete a saved set and everything stored with it")
    d.add_argument("id", metavar="ID")
    flags.add_data_dir(d)

    ad = sub.add_parser("add", help="add a system output to a saved set as a run (time, family, metadata)")
    ad.add_argument("--set", required=True, metavar="ID")
    ad.add_argument(
        "file", metavar="FILE", help="the system output (one line per segment), or a set bundle: its new systems"
    )
    ad.add_argument("--name", help="the run's name (default: the file's stem)")
    ad.add_argument("--family", help="the run's lineage, e.g. my-model (steps are tested within a family)")
    ad.add_argument("--at", metavar="ISO-8601", help="when the output was made (default: now; no offset: UTC)")
    ad.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE", help="metadata (repeat)")
    ad.add_argument(
        "--tuned-on",
        metavar="METRICS",
        help="the metrics it was decoded or tuned with (MBR, QE re-ranking, RL), e.g. comet,metricx: the gate "
        "then wants a held-out metric to agree",
    )
    ad.add_argument("--price-in", type=float, metavar="USD_PER_1M", help="its price per million prompt tokens")
    ad.add_argument("--price-out", type=float, metavar="USD_PER_1M", help="its price per million completion tokens")
    ad.add_argument("--tokens-in", type=float, metavar="N", help="prompt tokens for this test set (default: estimated)")
    ad.add_argument("--tokens-out", type=float, metavar="N", help="completion tokens (default: estimated)")
    ad.add_argument("--cost", type=float, metavar="USD", help="what this test set cost, instead of prices")
    ad.add_argument("--seconds-per-segment", type=float, metavar="S", help="its latency per segment")
    ad.add_argument("--tokens-per-second", type=float, metavar="T", help="its speed, instead of the latency")
    flags.add_format(ad)
    flags.add_data_dir(ad)

    hi = sub.add_parser("history", help="a set's runs over time, with intervals and the significance of every step")
    hi.add_argument("--set", required=True, metavar="ID")
    hi.add_argument("--family", help="only this family's runs")
    hi.add_argument("--metrics", default=None, help="comma-separated (default bleu,chrf)")
    hi.add_argument("--baseline", metavar="NAME", help="also give every run's delta to this run")
    flags.add_alpha(hi)
    flags.add_resample(hi, "intervals and steps over documents")
    hi.add_argument(
        "--last", type=int, metavar="N", help="only the newest N runs (their steps are tested and corrected together)"
    )
    hi.add_argument("--skip", type=int, default=0, metavar="K", help="with --last: leave out the K newest runs first")
    flags.add_format(hi)
    flags.add_exact_flag(hi)
    flags.add_data_dir(hi)

    sto = sub.add_parser("store", help="the workspace's store itself")
    sto_sub = sto.add_subparsers(dest="action", required=True, parser_class=Parser)
    a = sto_sub.add_parser("copy", help="copy a whole workspace into an empty store (SQLite folder <-> PostgreSQL)")
    a.add_argument("source", metavar="FROM", help="a data folder or postgresql://...")
    a.add_argument("target", metavar="TO", help="an empty data folder or database")
    return {
        "import": run_import,
        "list": run_list,
        "delete": run_delete,
        "add": run_add,
        "history": run_history,
        "store": run_store,
    }


def run_import(args: argparse.Namespace) -> str:
    from ..service.bundles import import_bundle
    from ..service.evaluation import evaluate, save, with_glossary
    from ..service.inputs import read_path

    target = store(args)
    if args.ratings:
        return _import_ratings(args, target)
    if not args.path:
        raise InputError("give a PATH to import (or --ratings FILE)")
    if str(args.path).endswith(".mtlens.json.gz"):
        sid = import_bundle(target, read_bytes(args.path), args.name)
        if args.project:
            workspace(args).set_project(sid, args.project)
        say(f"saved the bundle '{args.path}' as a set")
        return sid + "\n"
    found = read_path(args.path, args.name)
    if args.docs:  # issue 52: documents and domains for a plain folder too
        if len(found) != 1:
            raise InputError(f"--docs gives one test set's documents; '{args.path}' holds {len(found)} test sets")
        found = [_with_documents(found[0], args.docs, args.docs_order)]
    lines = []
    for item in found:
        ev = evaluate(item.corpus, args.language_pair, item.human, item.scores)  # bad side files: nothing saved
        if args.terms:  # a bad glossary: nothing saved either
            with as_typed(args.terms):
                ev = with_glossary(ev, read_bytes(args.terms), Path(args.terms).name, args.terms_key)
        corpus, lang = ev.corpus, ev.language
        saved = save(target, ev, item.name, args.project).set_id
        assert saved is not None  # a saved set has its id
        lines.append(saved)
        say(
            f"saved '{item.name}' ({len(corpus.systems)} systems, {len(corpus.references)} references, "
            f"{corpus.n_lines} lines; {lang.describe()})"
        )
        for sentence in item.notes:
            note(sentence)
    return "\n".join(lines) + "\n"


def _with_documents(item, path, order):
    """A found test set with the documents and domains of ``path`` (:func:`mtlens.readers.testset.read_documents`)."""
    import dataclasses

    from ..service.inputs import with_documents

    corpus, notes = with_documents(item.corpus, str(path), read_bytes(path), order)
    return dataclasses.replace(item, corpus=corpus, notes=(*item.notes, *notes))


def _import_ratings(args: argparse.Namespace, target) -> str:
    from ..service.evaluation import evaluate_annotations, save
    from ..service.inputs import read_mqm_tsv

    if args.path:
        raise InputError("give either PATH or --ratings FILE, not both")
    if args.set:
        with as_typed(args.ratings):
            ann = workspace(args).add_annotations(args.set, Path(args.ratings).name, read_bytes(args.ratings))
        for sentence in ann.problems:
            note(sentence)
        return args.set + "\n"
    with as_typed(args.ratings):  # stored under its file name; named in messages as typed
        ev = evaluate_annotations(read_bytes(args.ratings), Path(args.ratings).name, args.language_pair)
    name = args.name or Path(args.ratings).name
    sid = save(target, ev, name, args.project).set_id
    assert sid is not None  # a saved set has its id
    c = ev.corpus
    say(f"saved '{name}' ({len(c.systems)} systems, {c.n_lines} segments, no reference; {ev.language.describe()})")
    for sentence in [*c.warnings, *read_mqm_tsv(ev.annotations[0][1], ev.annotations[0][0]).problems]:
        note(sentence)
    return sid + "\n"


def run_list(args: argparse.Namespace) -> str:
    from dataclasses import asdict

    sets = workspace(args).sets(args.project)
    if args.format == "json":
        return (
            dumps([{k: v for k, v in asdict(s).items() if k != "project"} | {"project": s.project} for s in sets])
            + "\n"
        )
    if not sets:
        return "no saved sets (python -m mtlens import PATH)\n"
    header = ("id", "pair", "systems", "lines", "created", "owner", "name")
    table = [
        (s.id, s.language_pair or "-", str(len(s.systems)), str(s.lines), s.created, s.owner or "operator", s.name)
        for s in sets
    ]
    return columns(header, table, right=(2, 3))


def run_delete(args: argparse.Namespace) -> str:
    workspace(args).delete(args.id)
    return f"deleted {args.id}\n"


def run_add(args: argparse.Namespace) -> str:
    from ..service.bundles import add_bundle_runs, is_bundle
    from ..service.run_facts import FACT_FLAGS
    from ..service.runs import add_run, parse_meta

    data = read_bytes(args.file)
    if is_bundle(data):  # a set bundle: its new systems, with their run facts
        given = [
            f
            for f, v in (("--name", args.name), ("--family", args.family), ("--at", args.at), ("--meta", args.meta),
                         *((f"--{d.replace('_', '-')}", getattr(args, d)) for d in FACT_FLAGS))
            if v is not None and v != []
        ]  # fmt: skip
        if given:
            raise InputError(f"a bundle's runs carry their own facts; leave out {', '.join(given)}")
        added = add_bundle_runs(store(args), args.set, data)
        if args.format == "json":
            return dumps({"added": added}) + "\n"
        return f"added {len(added)} run(s) from the bundle to set {args.set}: {', '.join(added)}\n"
    meta = parse_meta(args.meta)
    meta.update({key: str(getattr(args, d)) for d, key in FACT_FLAGS.items() if getattr(args, d) is not None})
    run = add_run(store(args), args.set, data, str(args.file), args.name, args.family, args.at, meta)
    doc = {"name": run.name, "family": run.family, "at": run.at, "meta": run.meta}
    if args.format == "json":
        return dumps(doc) + "\n"
    fam = f", family {run.family}" if run.family else ""
    return f"added run '{run.name}'{fam}, made {run.at}, to set {args.set}\n"


def run_history(args: argparse.Namespace) -> str:
    from ..service.runs import history, history_to_dict

    h = history(
        store(args),
        args.set,
        args.family,
        args.metrics,
        args.baseline,
        args.alpha,
        resample=args.resample,
        last=args.last,
        skip=args.skip,
    )
    doc = history_to_dict(h)
    if args.format == "json":
        return dumps(doc) + "\n"
    return history_to_table(doc)


def run_store(args: argparse.Namespace) -> str:
    from ..service.sets import Store, copy_store

    source, target = Store(url=args.source), Store(url=args.target)
    counts = copy_store(source, target)
    rows = ", ".join(f"{n} {table}" for table, n in counts.items() if n)
    return f"copied {source.location} to {target.location}: {rows or 'no rows'}\n"
