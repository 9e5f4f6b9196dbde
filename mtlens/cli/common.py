"""What every command shares: its workspace (opened once), its data turned into an evaluation, its options,
its scores, and how it speaks (notes and warnings on stderr, one sentence each)."""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path

from ..core.errors import InputError
from ..core.names import terminal_safe
from ..core.options import DEFAULTS, SPECS, Options
from ..service.inputs import build_corpus, read_bytes, read_files


class Exit(Exception):
    """A command's output with an exit status other than 0 (the gate's regression: 1)."""

    def __init__(self, out: str, status: int):
        super().__init__(out)
        self.out, self.status = out, status


def say(sentence: str) -> None:
    """One sentence on stderr, ``mtlens: ...`` (progress, notes)."""
    print(terminal_safe(f"mtlens: {sentence}"), file=sys.stderr)


def note(sentence: str) -> None:
    print(terminal_safe(f"mtlens: note: {sentence}"), file=sys.stderr)


def warn(sentence: str) -> None:
    print(terminal_safe(f"mtlens: warning: {sentence}"), file=sys.stderr)


@contextlib.contextmanager
def as_typed(path):
    """Messages name a file as it was typed (issue 51: some named it with its folder, some without): a file kept
    under its own name (an annotation file) is renamed back to the typed path in an error's sentence."""
    try:
        yield
    except InputError as err:
        typed, name = str(path), Path(path).name
        if typed != name and f"'{name}'" in str(err):
            raise InputError(str(err).replace(f"'{name}'", f"'{typed}'")) from None
        raise


def open_store(args):
    from ..service.sets import Store

    if args.store and args.data_dir:
        raise InputError("give --store or --data-dir, not both")
    return Store(args.data_dir, url=args.store)


def store(args):
    """The command's store, opened once per command (what scoring noticed, e.g. damaged stored
    statistics, is in the notes of the instance that scored), for the service functions that compute."""
    found = getattr(args, "_store", None)
    if found is None:
        found = args._store = open_store(args)
    return found


def workspace(args):
    """The command's workspace: its store with the operator as the one who asks
    (:class:`mtlens.service.workspace.Workspace`); what the command changes goes through it."""
    from ..service.workspace import Workspace

    return Workspace(store(args))


def given_options(args) -> dict:
    """The metric options given as flags (the rest comes from the language's defaults, then Options')."""
    return {name: getattr(args, name) for name in SPECS if getattr(args, name, None) is not None}


def options_from_args(args, language=None) -> Options:
    """The :class:`Options` of a command line: the flags given, over the defaults of the language
    (``-l`` or detected; sacrebleu's ``-l`` rule: :func:`mtlens.service.evaluation.options_for`), over Options'
    defaults. Checked: out-of-bounds values name their flag."""
    from ..service.evaluation import options_for

    return options_for(language, DEFAULTS, given_options(args))


#: the arguments that name files a command reads (an output is never written over one of them)
INPUT_ARGS = ("ref", "sys", "src", "data", "docs", "scores", "human", "baseline", "candidate", "freq_corpus")


def inputs_of(args) -> list[str]:
    """Every file the command line names as an input."""
    out = []
    for name in INPUT_ARGS:
        value = getattr(args, name, None)
        out += [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)] if value else []
    return out


def write_output(path: str, text: str, inputs: Sequence[str] = ()) -> None:
    """Write a command's ``-o`` file safely (issue 51: in a CI job a pull request can commit the report's name as a
    link to a file of the runner's): never through a symbolic link (a link, even a dangling one, is refused), never
    over one of the command's inputs, and atomically (a new file in the same folder renamed over the old one, so a
    reader never sees half a report and a crash leaves the old one). A failure is one sentence."""
    import os
    import tempfile

    target = Path(path)
    if target.is_symlink():
        raise InputError(
            f"'{path}' is a symbolic link; mtlens does not write through links: remove it or choose another file"
        )
    for given in inputs:
        try:
            same = target.exists() and os.path.samefile(target, given)
        except OSError:
            same = False
        if same:
            raise InputError(f"-o '{path}' is one of the command's inputs ('{given}'); choose another file")
    if target.exists() and not target.is_file():
        raise InputError(f"'{path}' is not a regular file; choose another file")
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            mask = os.umask(0)  # a file as open() would make it (mkstemp's are private)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
            os.replace(tmp, target)  # replaces a name, never writes through one
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as err:
        raise InputError(f"cannot write '{path}': {err.strerror or err}") from None


def evaluation(args):
    """The evaluation of the command line's data (files, or a saved set as it was decided)."""
    from ..service.evaluation import evaluate
    from ..service.sets import open_set

    if args.set is None:
        return _with_terms(args, evaluate(load(args), args.language_pair))
    extra = [f for f, v in (("--ref", args.ref), ("--sys", args.sys), ("--src", args.src), ("--data", args.data)) if v]
    if getattr(args, "docs", None):
        extra.append("--docs (a saved set keeps the documents it was saved with)")
    if extra:
        raise InputError(f"--set names a saved set; leave out {', '.join(extra)}")
    ev = open_set(store(args), args.set)
    if args.language_pair:
        ev = dataclasses.replace(evaluate(ev.corpus.with_language(None), args.language_pair), terms=ev.terms)
    return _with_terms(args, ev)


def _with_terms(args, ev):
    """The evaluation with ``--terms`` (read against the set: a bad glossary is one sentence); a saved set's own
    glossary otherwise."""
    from ..service.evaluation import with_glossary

    path = getattr(args, "terms", None)
    if path:
        with as_typed(path):
            return with_glossary(ev, read_bytes(path), Path(path).name, getattr(args, "terms_key", None))
    if getattr(args, "terms_key", None) and ev.terms:  # the saved glossary read with another key
        name, data, _ = ev.terms[0]
        return with_glossary(ev, data, name, args.terms_key)
    return ev


def load(args):
    """The corpus of the command's files (``--data``, or ``--ref``/``--sys``/``--src``, with ``--docs``)."""
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
    docs = getattr(args, "docs", None)
    return build_corpus(
        read_files(args.ref),
        read_files(args.sys),
        read_files([args.src])[0] if args.src else None,
        read_files([args.data])[0] if args.data is not None else None,
        read_files([docs])[0] if docs else None,
        getattr(args, "docs_order", None),
    )


def prepare(args):
    """The evaluation (its corpus with its language pair) and the options, saying on stderr what was
    detected."""
    from ..service.inputs import documents_notes

    ev = evaluation(args)
    for sentence in documents_notes(ev.corpus.documents, ev.corpus.domains):
        note(sentence)
    lang = ev.language
    if lang.how == "detected" and lang.target and args.tokenize is None:
        note(f"{lang.describe()} (declare the pair with -l SRC-TGT)")
    for w in lang.warnings():
        warn(w)
    return ev, options_from_args(args, lang)


def load_and_score(args):
    ev, options = prepare(args)
    return score_evaluation(args, ev, options)


def score_evaluation(args, ev, options):
    """The command's metrics scored on the evaluation (a saved set's stored statistics reused), with what
    scoring noticed said on stderr; ``args.pitfalls``: the COMET pitfalls, for the command's own output."""
    from ..analysis.pitfalls import neural_names
    from ..service.results import pitfalls_for, scored

    corpus = ev.corpus
    args.evaluation = ev  # what the command's own output may read again (a glossary's per-term table)
    names, builtin, imported = chosen(args, ev)
    results = scored(lambda: store(args), ev, names, builtin, imported, options)
    if ev.set_id is not None and builtin:
        for sentence in workspace(args).notes:
            warn(sentence)
    for scores in imported.values():
        for sentence in scores.notes:
            note(sentence)
    if not results:
        if not corpus.references:
            raise InputError(
                "this set has no reference: name a reference-free metric with --metrics (comet:NAME of a "
                "CometKiwi-like model, or imported scores), or add a reference"
            )
        raise InputError("no metric was given")
    # the COMET pitfalls (empty, copied, wrong-language lines; languages the encoder never saw), said once
    # whatever the command; kept on args for the command's own output (JSON, the report)
    args.pitfalls = pitfalls_for(corpus, list(results))
    if args.pitfalls is not None:
        for sentence in args.pitfalls.notes(neural_names(results)):
            warn(sentence)
    # is the reference the problem? (issue 50) said here, and kept for the report
    from ..service.references import reference_notes

    args.reference_notes = reference_notes(None, ev, list(imported.values()), results.get("chrf"))
    for sentence in args.reference_notes:
        warn(sentence)
    return corpus, results


def chosen(args, ev):
    """The command's metrics (:func:`mtlens.service.results.chosen_metrics`: ``--metrics``, else the defaults
    and what the set offers; ``--scores`` files and ``--mqm-weights`` with them)."""
    from ..service.results import chosen_metrics

    extra = [(f, read_bytes(f)) for f in getattr(args, "scores", None) or []]
    return chosen_metrics(
        lambda: store(args), ev, args.metrics, args.default_metrics, extra, getattr(args, "mqm_weights", None), say
    )


def columns(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], right=()) -> str:
    """A plain text table, every column as wide as its widest cell (nothing is cut); the last column is
    not padded. Numbers (``right``: column indices) are right-aligned."""
    widths = [max(len(x) for x in col) for col in zip(header, *rows, strict=True)]

    def line(cells):
        out = [c.rjust(w) if k in right else c.ljust(w) for k, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join([*out[:-1], cells[-1]]).rstrip()

    return "\n".join(line(r) for r in [header, *rows]) + "\n"
