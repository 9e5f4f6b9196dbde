"""The evaluation service: what every way into mtlens (upload, command line, bundle, a saved set)
decides and checks before a set is used or saved, in one place.

- :func:`evaluate` / :func:`open_saved` / :func:`save`: the language (and how it was decided), the data
  notes and the side files of a test set, decided once and kept with the set;
- :func:`options_for`: the language's defaults under the user's explicit options;
- :func:`check_side_files`: human score files and imported metric score files read against the corpus;
- :func:`read_bundle` / :func:`import_bundle`: a set bundle unpacked within limits (decompressed size,
  JSON nesting, counts) and validated line by line by the same code as an uploaded text file, so a
  bundle can never save what an upload would refuse.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.language import Language, language_defaults, parse_pair, with_language
from ..core.limits import gunzip, load_json, max_bundle_bytes
from ..core.options import Options
from ..readers.testset import decode_lines, with_warnings

BUNDLE_FORMAT = "mtlens-set"
BUNDLE_VERSION = 1
#: counts a bundle may hold (a set with more is not one people compare in a dashboard)
MAX_BUNDLE_STREAMS = 1000
MAX_BUNDLE_FILES = 100
#: lines a bundle may hold in all (counted before its JSON is parsed, so memory stays bounded)
MAX_BUNDLE_LINES = 5_000_000


def check_side_files(corpus: Corpus, human: Sequence[tuple[str, bytes]] = (), scores=(), annotations=()) -> None:
    """Read human score files, metric score files and annotation files against the corpus; a bad one is
    an InputError."""
    for name, data in annotations:
        from ..readers.mqm import check_against, read_annotations

        check_against(read_annotations(data, name, corpus), corpus)
    if human:
        from ..analysis.human import read_human_files

        read_human_files(list(human), corpus)
    if scores:
        from ..readers.scores import read_score_files

        read_score_files(list(scores), corpus)


@dataclass(frozen=True)
class Bundle:
    """A bundle's content, validated."""

    name: str
    project: str | None
    corpus: Corpus
    human: tuple[tuple[str, bytes], ...]
    scores: tuple[tuple[str, bytes], ...]
    language_how: str | None = None
    annotations: tuple[tuple[str, bytes], ...] = ()


_BAD = "that file is not an mtlens set bundle (export one with 'Download this set')"


def _lines(value, what: str) -> list[str]:
    """One stream of a bundle, checked as an uploaded text file is (UTF-8, not empty, line bounds)."""
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InputError(f"{_BAD}: {what} is not a list of lines")
    if not value:
        raise InputError(f"the bundle's {what} has no lines")
    try:
        data = ("\n".join(value) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"the bundle's {what} holds text that is not valid Unicode (a lone surrogate)") from None
    lines = decode_lines(data, f"the bundle's {what}")
    if lines != value:
        raise InputError(f"the bundle's {what} holds line breaks or a byte order mark inside its lines")
    return lines


def _name(value, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200 or not value.isprintable():
        raise InputError(f"{_BAD}: a {what} name is empty, too long or not printable text")
    return value


def _files(value, what: str) -> tuple[tuple[str, bytes], ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_BUNDLE_FILES:
        raise InputError(f"{_BAD}: its {what} files are not a list of at most {MAX_BUNDLE_FILES}")
    out = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise InputError(f"{_BAD}: a {what} file is not a [name, hex] pair")
        try:
            out.append((_name(item[0], f"{what} file"), bytes.fromhex(item[1])))
        except ValueError:
            raise InputError(f"{_BAD}: the {what} file '{item[0][:60]}' is not hex") from None
    return tuple(out)


def read_bundle(data: bytes) -> Bundle:
    """Unpack and validate a set bundle (see :meth:`mtlens.storage.store.Store.export_bundle`).

    Raises:
        InputError: one sentence: too large unpacked, not a bundle, a newer version, or what an upload
            of the same files would be refused for.
    """
    if not bytes(data[:2]) == b"\x1f\x8b":
        raise InputError(_BAD)
    text = gunzip(data, max_bundle_bytes(), "the bundle").decode("utf-8", "replace")
    if text.count('"') > 2 * MAX_BUNDLE_LINES + 10_000:
        raise InputError(f"the bundle holds more than {MAX_BUNDLE_LINES:,} lines, the limit for one bundle")
    try:
        doc = load_json(text, "bundle", "the bundle")
    except InputError as err:
        raise InputError(f"{_BAD} ({err})") from None
    if not isinstance(doc, dict) or doc.get("format") != BUNDLE_FORMAT:
        raise InputError(_BAD)
    version = doc.get("version")
    if type(version) is not int or version < 1:
        raise InputError(f"{_BAD}: its version is missing")
    if version > BUNDLE_VERSION:
        raise InputError(
            f"the bundle was written by a newer mtlens (bundle version {version}, this one reads up to "
            f"{BUNDLE_VERSION}); upgrade mtlens"
        )
    refs, syss = doc.get("references"), doc.get("systems")
    if (
        not isinstance(refs, dict)
        or not isinstance(syss, dict)
        or not syss
        or (not refs and not doc.get("annotations"))
    ):
        raise InputError(f"{_BAD}: it needs references and systems")
    if len(refs) + len(syss) > MAX_BUNDLE_STREAMS:
        raise InputError(f"the bundle holds more than {MAX_BUNDLE_STREAMS} references and systems")
    annotations = _files(doc.get("annotations"), "annotations")
    if not refs and annotations:  # a set made from annotations alone
        refs = {}
    references = {_name(n, "reference"): _lines(v, f"reference '{n}'") for n, v in refs.items()}
    systems = {_name(n, "system"): _lines(v, f"system '{n}'") for n, v in syss.items()}
    source = None if doc.get("source") is None else _lines(doc.get("source"), "source")
    pair = doc.get("language_pair")
    if pair is not None:
        if not isinstance(pair, str):
            raise InputError(f"{_BAD}: its language pair is not text")
        try:
            pair = "-".join(parse_pair(pair))
        except InputError:
            raise InputError(f"the bundle's language pair {pair[:40]!r} is not of the form 'en-zh'") from None
    name = doc.get("name")
    name = _name(name, "set") if name is not None else "imported set"
    project = doc.get("project")
    if project is not None:
        project = _name(project, "project")
    corpus = with_warnings(
        Corpus.build(references, systems, source, language_pair=pair, allow_no_reference=bool(annotations))
    )
    human, scores = _files(doc.get("human"), "human"), _files(doc.get("scores"), "scores")
    check_side_files(corpus, human, scores, annotations)
    how = doc.get("language_how")
    how = how if how in ("declared", "detected") and pair else ("declared" if pair else None)
    return Bundle(name, project, corpus, human, scores, how, annotations)


def import_bundle(store, data: bytes, name: str | None = None, owner: str | None = None) -> str:
    """Validate a bundle and save it as a new set of ``owner``; returns its id."""
    b = read_bundle(data)
    project = b.project if owner is None else None  # a visitor's copy joins no project
    return store.save(
        b.corpus,
        name or b.name,
        b.human,
        project,
        scores=b.scores,
        owner=owner,
        language_how=b.language_how,
        annotations=b.annotations,
    )


# --------------------------------------------------------------------------- evaluations
@dataclass(frozen=True)
class Evaluation:
    """Everything decided about a test set, once: the corpus (with its language pair and data notes), how
    its language was decided, and its side files (validated against it). The command line, the pages and
    the report all start from one.

    Attributes:
        corpus: the validated corpus; ``corpus.warnings`` are the data notes.
        language: the declared or detected language (``language.how``).
        human: ``(name, bytes)`` of each human score file.
        scores: ``(name, bytes)`` of each imported metric scores file.
        set_id, name, project, owner: where it is saved (None/"" when it is not).
        read_only: nobody may change it (the bundled sample).
    """

    corpus: Corpus
    language: Language
    human: tuple[tuple[str, bytes], ...] = ()
    scores: tuple[tuple[str, bytes], ...] = ()
    set_id: str | None = None
    name: str = ""
    project: str | None = None
    owner: str | None = None
    annotations: tuple[tuple[str, bytes], ...] = ()
    read_only: bool = False


def evaluate(corpus: Corpus, declared_pair: str | None = None, human=(), scores=(), annotations=()) -> Evaluation:
    """Decide the language (declared, else the corpus' own pair, else detected) and validate the side
    files: an InputError names what is wrong."""
    corpus, language = with_language(corpus, declared_pair)
    human, scores, annotations = tuple(human), tuple(scores), tuple(annotations)
    check_side_files(corpus, human, scores, annotations)
    return Evaluation(corpus, language, human, scores, annotations=annotations)


def evaluate_annotations(data: bytes, name: str, declared_pair: str | None = None) -> Evaluation:
    """A test set made from an MQM annotation file alone (its hypotheses and sources; no reference)."""
    from ..readers.mqm import corpus_of, read_mqm_tsv

    corpus = with_warnings(corpus_of(read_mqm_tsv(data, name)))
    return evaluate(corpus, declared_pair, annotations=[(name, data)])


def annotation_metrics(corpus: Corpus, annotations, weights=None) -> list:
    """The MQM metric of each annotation file (``mqm``, then ``mqm-2``...), like imported metrics."""
    from ..readers.mqm import mqm_metric, parse_weights, read_annotations

    weights = parse_weights(weights)
    out = []
    for k, (name, data) in enumerate(annotations):
        m = mqm_metric(read_annotations(data, name, corpus), corpus, weights)
        out.append(dataclasses.replace(m, name="mqm" if k == 0 else f"mqm-{k + 1}"))
    return out


def finished_neural(store, ev: Evaluation) -> tuple[tuple[str, str], ...]:
    """``(model, digest)`` of the set's finished neural jobs whose model is still registered as it was (none
    for a set that is not saved, or when the store cannot say). The pages and the command line offer a set's
    neural scores by this one rule (:func:`file_metrics`); the command line's ``--metrics comet:NAME`` on a
    saved set runs the set's job too, so its scores are offered afterwards by both."""
    from ..neural.models import models
    from ..runtime.jobs import status

    if not ev.set_id:
        return ()
    try:
        jobs = [p for p in status(store, ev.set_id) if p.state == "done"]
        if not jobs:
            return ()
        registered = {(m.name, m.digest) for m in models(store)}
    except InputError:
        return ()
    return tuple(sorted((p.model, p.digest) for p in jobs if (p.model, p.digest) in registered))


def file_metrics(
    store, ev: Evaluation, neural: Sequence[tuple[str, str]] = (), extra_scores=(), mqm_weights=None
) -> list:
    """The set's metrics that are read, not computed here, in this order: its imported score files, then
    ``extra_scores`` (``(name, bytes)``: the command line's ``--scores``), its annotations' MQM (with
    ``mqm_weights``) and the cached scores of its neural models ``neural`` (:func:`finished_neural`); each
    an :class:`mtlens.readers.scores.ImportedScores`, a name taken once (the first)."""
    from ..neural.models import cached_scores, get_model
    from ..readers.scores import read_score_files

    files = [*ev.scores, *extra_scores]
    out = read_score_files(files, ev.corpus) if files else []
    out += annotation_metrics(ev.corpus, ev.annotations, mqm_weights)
    for name, digest in neural:
        if any(m.name == f"comet:{name}" or m.name == name for m in out):
            continue
        try:
            model = get_model(store, name)
            scores = cached_scores(store, model, ev.corpus) if model.digest == digest else None
        except InputError:
            continue
        if scores is not None:
            out.append(scores)
    return out


#: the bundled sample's name (its set id is :data:`mtlens.storage.store.SAMPLE_ID`)
SAMPLE_NAME = "Bundled sample: WMT21 en-de, 200 lines"


def sample_evaluation() -> Evaluation:
    """The bundled sample (WMT21 en-de, its human scores) as an evaluation with the sample's set id."""
    from ..readers.testset import SAMPLE_DIR, read_bytes, sample_corpus
    from ..storage.store import SAMPLE_ID

    human = tuple((n, read_bytes(SAMPLE_DIR / n)) for n in ("human.tsv", "human_seg.tsv"))
    return dataclasses.replace(evaluate(sample_corpus(), "en-de", human), set_id=SAMPLE_ID, name=SAMPLE_NAME)


def save(
    store, ev: Evaluation, name: str, project: str | None = None, owner: str | None = None, set_id: str | None = None
) -> Evaluation:
    """Save an evaluation as a new set (its language decision and data notes with it); ``set_id``: the id
    it gets (default: a new random one)."""
    set_id = store.save(
        ev.corpus,
        name,
        ev.human,
        project,
        set_id,
        scores=ev.scores,
        owner=owner,
        language_how=ev.language.how,
        annotations=ev.annotations,
    )
    return dataclasses.replace(ev, set_id=set_id, name=name, project=project, owner=owner)


def open_saved(store, set_id: str) -> Evaluation:
    """A saved set as it was decided: a detected language is detected again (not read back as declared),
    and the data notes are those found when it was read."""
    saved = store.load(set_id)
    corpus = saved.corpus
    if saved.info.language_how == "detected":
        corpus, language = with_language(corpus.with_language(None), None)
    else:
        corpus, language = with_language(corpus, None)
    return Evaluation(
        corpus,
        language,
        saved.human,
        saved.scores,
        set_id,
        saved.info.name,
        saved.info.project,
        saved.info.owner,
        saved.annotations,
        read_only=not store.may_change(set_id, None),
    )


def options_for(language: Language | None, base: Options, explicit=None) -> Options:
    """The options of an evaluation: ``base`` with its language's defaults (tokenizer, TER's CJK handling),
    then the options the user chose explicitly (a mapping) on top. The one place language defaults apply."""
    target = language.target if language is not None else None
    return Options.from_mapping({**base.as_dict(), **language_defaults(target), **dict(explicit or {})})


def add_annotations(store, set_id: str, name: str, data: bytes, visitor=None):
    """Annotate a saved set: the file must annotate the set's own hypotheses (a different text is named
    by line, nothing is saved then). Returns the parsed annotations."""
    from ..readers.mqm import check_against, read_annotations

    ev = open_saved(store, set_id)
    ann = read_annotations(data, name, ev.corpus)
    check_against(ann, ev.corpus)
    if any(n == name for n, _ in ev.annotations):
        raise InputError(f"the set already has annotations named '{name}'; rename the file")
    store.add_annotations(set_id, name, data, visitor)
    return ann
