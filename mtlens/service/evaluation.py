"""The evaluation service: what every way into mtlens (upload, command line, bundle, a saved set)
decides and checks before a set is used or saved, in one place.

- :func:`evaluate` / :func:`open_saved` / :func:`save`: the language (and how it was decided), the data
  notes and the side files of a test set, decided once and kept with the set;
- :func:`options_for`: the language's defaults under the user's explicit options;
- :func:`check_side_files`: human score files and imported metric score files read against the corpus;
- set bundles (read, imported, exported): :mod:`mtlens.service.bundles`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..checks.terms import MATCHES as TERMS_MATCHES
from ..core.access import is_operator
from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.language import Language, language_defaults, with_language
from ..core.options import DEFAULTS, Options
from ..readers.glossary import DEFAULT_KEY as TERMS_KEY
from ..readers.testset import with_warnings
from ..scores.sources import JUDGE_KIND, source_of

if TYPE_CHECKING:
    from ..readers.esa import ESARatings
    from ..readers.mqm import Annotations

__all__ = [
    "SAMPLE_NAME",
    "TERMS_KEY",
    "TERMS_MATCHES",
    "Evaluation",
    "add_annotations",
    "annotation_metrics",
    "annotations_said",
    "check_side_files",
    "evaluate",
    "evaluate_annotations",
    "file_metrics",
    "finished_neural",
    "kept_options",
    "open_saved",
    "options_for",
    "sample_evaluation",
    "save",
    "with_glossary",
]


def check_side_files(corpus: Corpus, human: Sequence[tuple[str, bytes]] = (), scores=(), annotations=()) -> None:
    """Read human score files, metric score files and annotation files against the corpus; a bad one is
    an InputError."""
    from ..readers.annotations import read_annotations
    from ..readers.esa import read_esa
    from ..readers.esa_set import split_annotations
    from ..readers.mqm import check_against

    mqm, esa, _ = split_annotations(annotations)
    for name, data in esa:  # ESA ratings (issue 52): placed on the set's lines
        read_esa(data, name, corpus)
    for name, data in mqm:
        check_against(read_annotations(data, name, corpus), corpus)
    if human:
        from ..analysis.human import read_human_files

        read_human_files(list(human), corpus)
    if scores:
        from ..readers.scores import read_score_files

        read_score_files(list(scores), corpus)


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
        terms: ``(name, bytes, key)`` of its glossary (issue 60: ``--terms``, or the one saved with it; the key is
            ``--terms-key`` for a JSONL glossary), or empty.
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
    terms: tuple[tuple[str, bytes, str], ...] = ()


def evaluate(corpus: Corpus, declared_pair: str | None = None, human=(), scores=(), annotations=()) -> Evaluation:
    """Decide the language (declared, else the corpus' own pair, else detected) and validate the side
    files: an InputError names what is wrong."""
    corpus, language = with_language(corpus, declared_pair)
    human, scores, annotations = tuple(human), tuple(scores), tuple(annotations)
    check_side_files(corpus, human, scores, annotations)
    return Evaluation(corpus, language, human, scores, annotations=annotations)


def evaluate_annotations(data: bytes, name: str, declared_pair: str | None = None, visitor=None) -> Evaluation:
    """A test set made from an MQM annotation file alone (its hypotheses and sources; no reference); for a
    dashboard ``visitor``, within the visitors' bound."""
    from ..readers.esa import is_esa
    from ..readers.mqm import corpus_of, read_mqm_tsv
    from .inputs import check_visitor_ratings_of

    check_visitor_ratings_of([(name, data)], visitor, what=f"'{name}'")  # before it is parsed (issue 58, G2)

    if is_esa(data, name):  # ESA ratings name lines of texts they do not all carry
        raise InputError(
            f"'{name}' holds ESA ratings: they rate the lines of a test set, so give them with its references and "
            "systems (the home page's uploaders), or add them to a saved set: python -m mtlens import --ratings FILE "
            "--set ID"
        )
    corpus = with_warnings(corpus_of(read_mqm_tsv(data, name), visitor))
    return evaluate(corpus, declared_pair, annotations=[(name, data)])


def annotation_metrics(corpus: Corpus, annotations, weights=None, esa_mean: str = "domains") -> list:
    """The MQM metric of each MQM annotation file (``mqm``, then ``mqm-2``...), and one ``esa`` metric of all the
    set's ESA rating files together (WMT's waves: :func:`mtlens.readers.esa_set.esa_metric`, its system score the
    mean of per-domain means, or ``esa_mean="segments"``), like imported metrics."""
    from ..readers.annotations import read_annotations
    from ..readers.esa_set import esa_metric, read_esa_files, split_annotations
    from ..readers.mqm import mqm_metric, parse_weights

    weights = parse_weights(weights)
    out = []
    for k, (name, data) in enumerate(split_annotations(annotations)[0]):
        m = mqm_metric(read_annotations(data, name, corpus), corpus, weights)
        out.append(dataclasses.replace(m, name="mqm" if k == 0 else f"mqm-{k + 1}"))
    esa = read_esa_files(annotations, corpus)  # without the raters the set leaves out
    if esa:
        out.append(esa_metric(esa, corpus, esa_mean))
    return out


def finished_neural(store, ev: Evaluation) -> tuple[tuple[str, str], ...]:
    """``(model, digest)`` of the set's finished neural jobs whose model is still registered as it was, and of its
    finished LLM judges' jobs (``judge:NAME``, the judge's identity) likewise (none for a set that is not saved, or
    when the store cannot say). The pages and the command line offer a set's neural scores by this one rule
    (:func:`file_metrics`); the command line's ``--metrics comet:NAME`` on a saved set runs the set's job too, so
    its scores are offered afterwards by both. The pages key their caches on it."""
    from ..judges.compute import PREFIX
    from ..judges.registry import identity, registered
    from ..neural.models import models
    from ..runtime.jobs import status

    if not ev.set_id:
        return ()
    try:
        jobs = [p for p in status(store, ev.set_id) if p.state == "done"]
        if not jobs:
            return ()
        known = {(m.job_name, m.digest) for m in models(store)}
        known |= {(PREFIX + j.name, identity(j)) for j in registered(store)}
    except InputError:
        return ()
    return tuple(sorted((p.model, p.digest) for p in jobs if (p.model, p.digest) in known))


def file_metrics(
    store, ev: Evaluation, neural: Sequence[tuple[str, str]] = (), extra_scores=(), mqm_weights=None
) -> list:
    """The set's metrics that are read, not computed here, in this order: its imported score files, then
    ``extra_scores`` (``(name, bytes)``: the command line's ``--scores``), its annotations' MQM (with
    ``mqm_weights``) and the cached scores of its neural models ``neural`` (:func:`finished_neural`); each
    an :class:`mtlens.scores.results.ImportedScores`, a name taken once (the first)."""
    from ..neural.compute import offered_scores
    from ..neural.models import get_model
    from ..readers.scores import read_score_files

    files = [*ev.scores, *extra_scores]
    out = read_score_files(files, ev.corpus) if files else []
    out += annotation_metrics(ev.corpus, ev.annotations, mqm_weights)
    for name, digest in neural:
        if (
            source_of(name).kind == JUDGE_KIND
        ):  # offered below, with every registered judge whose answers are all cached
            continue
        if any(m.name == f"comet:{name}" or m.name == name for m in out):
            continue
        try:
            model = get_model(store, name)
            scores = offered_scores(store, model, ev.corpus) if model.digest == digest else None
        except InputError:
            continue
        if scores is not None:
            out.append(_with_references(store, model, ev.corpus, scores))
    if store is not None:  # the registered LLM judges whose answers for the set are all cached (issue 48)
        from ..judges.compute import finished_judges

        out += [m for m in finished_judges(store, ev.corpus) if all(x.name != m.name for x in out)]
    return out


def _with_references(store, model, corpus, scores):
    """A reference-free model's scores with its scores of the references, when its job scored them (issue 50)."""
    from ..neural.compute import offered_scores
    from ..neural.segments import reference_corpus

    refs = None if model.needs_reference else reference_corpus(corpus)
    got = offered_scores(store, model, refs) if refs is not None else None
    if got is None:
        return scores
    return dataclasses.replace(scores, reference_scores={n: got.scores[n] for n in corpus.references})


#: the bundled sample's name (its set id is :data:`mtlens.storage.store.SAMPLE_ID`)
SAMPLE_NAME = "Bundled sample: WMT21 en-de, 200 lines"


def sample_evaluation() -> Evaluation:
    """The bundled sample (WMT21 en-de, its human scores) as an evaluation with the sample's set id."""
    from ..readers.lines import read_bytes
    from ..readers.testset import SAMPLE_DIR, sample_corpus
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
        terms=ev.terms,
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
        terms=saved.terms,
    )


def options_for(language: Language | None, base: Options, explicit=None) -> Options:
    """The options of an evaluation: ``base`` with its language's defaults (tokenizer, TER's CJK handling),
    then the options the user chose explicitly (a mapping) on top. The one place language defaults apply."""
    target = language.target if language is not None else None
    return Options.from_mapping({**base.as_dict(), **language_defaults(target), **dict(explicit or {})})


def kept_options(store, set_id: str | None, language: Language | None, visitor) -> Options | None:
    """Which statistics a visit stores (:func:`mtlens.runtime.scoring.score_saved_many`'s ``keep_only``):
    all of them (``None``) when ``visitor`` may change the set (``None``: the operator); else only those
    of the set's own options (its language's defaults), one entry per metric whoever asks, so readers
    of a link (and of the quick view) cannot fill the store with new option sets (issue 38)."""
    if is_operator(visitor):
        return None
    try:
        if set_id and store.may_change(set_id, visitor):
            return None
    except InputError:
        pass
    return options_for(language, DEFAULTS)


def annotations_said(ann) -> str:
    """What an added annotation file brought, in one sentence (issue 58, D12: the home page said nothing)."""
    from ..exports.numbers import counted

    if hasattr(ann, "ratings"):  # ESA
        from ..readers.esa import REFERENCE_SYSTEMS

        rated = {r.system for r in ann.ratings}
        refs = len(rated & set(REFERENCE_SYSTEMS))
        raters = len({r.rater for r in ann.ratings})
        said = (f"'{ann.name}': {counted(len(ann.ratings), 'ESA rating')} of {counted(len(rated) - refs, 'system')}"
                + (f" and {counted(refs, 'reference')}" if refs else "") + f" by {counted(raters, 'rater')}")  # fmt: skip
        notes = list(ann.notes)
    else:  # MQM
        said = (f"'{ann.name}': MQM errors of {counted(len(ann.segments), 'segment')} of "
                f"{counted(len(ann.systems), 'system')}")  # fmt: skip
        notes = [f"{counted(len(ann.problems), 'row')} to check"] if ann.problems else []
    return f"Added {said}" + (f" ({'; '.join(notes)})" if notes else "") + "."


def add_annotations(store, set_id: str, name: str, data: bytes, visitor=None):
    """Annotate a saved set: the file must annotate the set's own hypotheses (a different text is named
    by line, nothing is saved then). Returns the parsed annotations."""
    from ..core.limits import rating_rows
    from ..readers.annotations import read_annotations
    from ..readers.esa import is_esa, read_esa
    from ..readers.mqm import check_against
    from .inputs import check_visitor_ratings_of

    ev = open_saved(store, set_id)
    held = sum(rating_rows(d) for _, d in ev.annotations)  # before it is parsed: the set's files count too (G1, G2)
    check_visitor_ratings_of([(name, data)], visitor, held, f"'{name}' and the set's ratings" if held else f"'{name}'")
    ann: Annotations | ESARatings
    if is_esa(data, name):  # ESA ratings (issue 52)
        ann = read_esa(data, name, ev.corpus)
    else:
        mqm = read_annotations(data, name, ev.corpus)
        check_against(mqm, ev.corpus)
        ann = mqm
    if any(n == name for n, _ in ev.annotations):
        raise InputError(f"the set already has annotations named '{name}'; rename the file")
    store.add_annotations(set_id, name, data, visitor)
    return ann


def with_glossary(ev: Evaluation, data: bytes, name: str, key: str | None = None) -> Evaluation:
    """The evaluation with a glossary (issue 60), read against the set first: a bad glossary is one sentence and
    the evaluation is left as it was (:func:`mtlens.readers.glossary.read_glossary`)."""
    from ..readers.glossary import DEFAULT_KEY, read_glossary

    glossary = read_glossary(data, name, ev.corpus.n_lines, key)
    return dataclasses.replace(ev, terms=((name, bytes(data), glossary.key or key or DEFAULT_KEY),))
