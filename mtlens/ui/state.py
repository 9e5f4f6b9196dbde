"""Per-session dataset and options, kept under non-widget keys so nothing is lost between pages.

Uploaded data lives only in ``st.session_state`` (one per browser session), never
in a module global; cached computations are keyed by the fingerprints of
everything they depend on (the texts, the human files, the options), so two
sessions share a result only if every input of it is identical.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from typing import NoReturn

import streamlit as st

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.language import Language, language_defaults
from ..core.options import DEFAULTS, Options
from ..service import results, sets
from ..service.evaluation import (
    Evaluation,
    finished_neural,
    options_for,
)
from ..service.inputs import sample_files
from ..service.sets import Store, open_sample
from ..service.sets import open_set as open_saved_set
from . import identity, links

DATA_KEY = "mtlens_dataset"
OPTIONS_KEY = "mtlens_options"
UPLOAD_SIG_KEY = "mtlens_upload_signature"


@dataclass(frozen=True)
class Dataset:
    """What a session works on.

    Attributes:
        corpus: the validated corpus.
        fingerprint: a digest of every line and name (the cache key).
        origin: ``"sample"`` or ``"upload"``.
        files: the file names it came from.
        human: (name, bytes) of each uploaded human-score file.
        human_fingerprint: a digest of the human files (part of every cache key that uses them).
        language: the declared or detected language (its pair is also ``corpus.language_pair``).
        set_id: the id of the saved set in the workspace (``sample`` for the bundled sample; None
            when the upload could not be saved).
        name: the set's name.
        scores: (name, bytes) of each imported metric scores file; ``scores_fingerprint`` their digest.
    """

    corpus: Corpus
    fingerprint: str
    origin: str
    files: tuple[str, ...] = ()
    human: tuple[tuple[str, bytes], ...] = field(default=(), repr=False)
    human_fingerprint: str = ""
    language: Language | None = None
    set_id: str | None = None
    name: str = ""
    scores: tuple[tuple[str, bytes], ...] = field(default=(), repr=False)
    scores_fingerprint: str = ""
    annotations: tuple[tuple[str, bytes], ...] = field(default=(), repr=False)
    #: the neural models whose scores for this set are complete: ``(name, checkpoint digest)`` pairs
    neural: tuple[tuple[str, str], ...] = ()
    #: the project the saved set belongs to (None: none)
    project: str | None = None
    #: nobody may change the set (the bundled sample)
    read_only: bool = False
    #: its glossary ``(name, bytes, JSONL key)`` (issue 60), or empty
    terms: tuple[tuple[str, bytes, str], ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, ev: Evaluation, origin: str, files=()) -> Dataset:
        """The session's view of an evaluation (:mod:`mtlens.service.evaluation` decided everything in it)."""
        from ..service.inputs import files_fingerprint  # not from analysis: that imports scipy (2 s on the home page)

        return cls(
            ev.corpus,
            fingerprint(ev.corpus),
            origin,
            tuple(files),
            ev.human,
            # the human scores are the human files and the annotations' MQM
            files_fingerprint((*ev.human, *((f"annotations:{n}", d) for n, d in ev.annotations))),
            ev.language,
            ev.set_id,
            ev.name,
            ev.scores,
            # the key of every metric read from files: imported scores and the annotations' MQM
            files_fingerprint((*ev.scores, *((f"annotations:{n}", d) for n, d in ev.annotations))),
            ev.annotations,
            project=ev.project,
            read_only=ev.read_only,
            terms=ev.terms,
        )

    def evaluation(self) -> Evaluation:
        assert self.language is not None  # every dataset is made of an evaluation (Dataset.of), which decided it
        return Evaluation(
            self.corpus,
            self.language,
            self.human,
            self.scores,
            self.set_id,
            self.name,
            project=self.project,
            annotations=self.annotations,
            read_only=self.read_only,
            terms=self.terms,
        )


def fingerprint(corpus: Corpus) -> str:
    h = hashlib.sha256()
    for kind, group in (("R", corpus.references), ("S", corpus.systems)):
        for name, lines in group.items():
            h.update(f"{kind}\x00{name}\x00{len(lines)}\x00".encode())
            for line in lines:
                h.update(line.encode("utf-8", "surrogatepass"))
                h.update(b"\n")
    if corpus.source is not None:
        h.update(b"SRC\x00" + "\n".join(corpus.source).encode("utf-8", "surrogatepass"))
    h.update(f"LANG\x00{corpus.language_pair}".encode())  # it is part of every signature
    return h.hexdigest()[:24]


def saved_id(ds: Dataset) -> str:
    """The id of a saved set, where a screen acts on one (the sample is a saved set too; an upload that could not be
    saved has none, and the screens that need one say so before)."""
    assert ds.set_id is not None
    return ds.set_id


@st.cache_resource(show_spinner=False)
def sample_dataset() -> Dataset:
    """The bundled sample (read once per process)."""
    refs, systems, _ = sample_files()
    files = (*(fn for fn, _ in refs + systems), "src.txt", "human.tsv", "human_seg.tsv")
    return Dataset.of(open_sample(store()), "sample", files)


def store() -> Store:
    """The workspace (``MTLENS_DATA_DIR`` or the per-user data directory). Its sentences name its file
    only in local mode: on a shared server where it lies is the operator's business."""
    return Store(reveal_path=identity.mode() == "local")


def workspace():
    """The workspace as this session's visitor holds it (:class:`mtlens.service.workspace.Workspace`): every
    change it asks for goes through the one access rule."""
    from ..service.workspace import Workspace

    return Workspace(store(), identity.visitor())


def saved_dataset(set_id: str) -> Dataset:
    """A saved set as a dataset (raises InputError for an unknown id or an unreadable store)."""
    ev = open_saved_set(store(), set_id)
    return sample_dataset() if ev.read_only else Dataset.of(ev, "saved")


def current() -> Dataset:
    """The session's dataset: the set named in the address (``?set=<id>``) when there is one, else the
    one the session has, else the bundled sample. The address always names the set shown, so a reload,
    another browser or a colleague with the link sees the same data.

    The first call in a server process also starts compiling the TER and tBLEU kernels in the
    background (:func:`mtlens.runtime.kernels.start_warmup`), while the user is still uploading."""
    identity.gate()
    results.start_warmup()
    ds: Dataset | None = st.session_state.get(DATA_KEY)
    wanted = st.query_params.get("set")
    if wanted and (ds is None or ds.set_id != wanted):
        try:
            ds = saved_dataset(wanted)
        except InputError as err:
            missing_set(err)  # says so, offers the set list; never shows another set's numbers instead
        use_dataset(ds)
    elif ds is None:
        if wanted is not None and not wanted.strip():  # "?set=" with nothing: said, not silently the sample
            links.add_note("the link's set= names no set, so the bundled sample is shown")
        ds = sample_dataset()
        use_dataset(ds)
    assert ds is not None  # the address's set, the session's or the sample
    if ds.set_id and st.query_params.get("set") != ds.set_id:
        st.query_params["set"] = ds.set_id
    done = neural_done(ds)
    if done != ds.neural:  # a neural job finished (or its model changed): the metrics read from it change
        ds = dataclasses.replace(
            ds,
            neural=done,
            scores_fingerprint=ds.scores_fingerprint.split("|")[0] + "".join(f"|{n}@{d}" for n, d in done),
        )
        use_dataset(ds)
    return ds


def missing_set(err: InputError) -> NoReturn:
    """A link whose set cannot be opened (deleted, mistyped, unreadable store): one sentence, the visitor's
    saved sets as links, and the bundled sample on request; then the page stops."""
    from . import render

    st.error(render.md(f"This link's set could not be opened: {err}."))
    try:
        sets = store().list(visitor=identity.visitor())
    except InputError:
        sets = []
    if sets:
        st.markdown("Your saved sets:")
        st.markdown(
            "\n".join(
                f"- [{render.md(s.name)}](?set={s.id}) · {render.md(s.language_pair or 'no language')} · "
                f"{s.lines:,} lines · {len(s.systems)} systems"
                for s in sets[:50]
            )
        )
    else:
        st.caption("You have no saved sets yet.")
    if st.button("Open the bundled sample (and the uploads on the home page)", key="missing_set_sample"):
        st.query_params["set"] = sample_dataset().set_id or ""
        st.rerun()
    st.stop()


def neural_done(ds: Dataset) -> tuple[tuple[str, str], ...]:
    """``(model, digest)`` of the set's finished neural jobs (:func:`mtlens.service.evaluation.finished_neural`)."""
    return finished_neural(store(), ds.evaluation()) if ds.set_id else ()


def use_sample() -> None:
    """Show the bundled sample (files still in the upload widgets are not applied again)."""
    use_dataset(sample_dataset())


def open_set(set_id: str) -> None:
    """Switch the session to a saved set (and the address to its link)."""
    use_dataset(saved_dataset(set_id))


def may_change(set_id: str | None) -> bool:
    """Whether this session's visitor may change the saved set (False for a set that is gone or unreadable)."""
    return sets.may_change(store(), set_id, identity.visitor())


def options() -> Options:
    """The session's metric options (an :class:`Options` under a non-widget key; defaults at first)."""
    opts = st.session_state.get(OPTIONS_KEY)
    if not isinstance(opts, Options):
        opts = DEFAULTS
        st.session_state[OPTIONS_KEY] = opts
    return opts


def set_options(opts: Options) -> None:
    st.session_state[OPTIONS_KEY] = opts


def default_options(ds: Dataset | None) -> Options:
    """The options a set opens with: the defaults, with its language's (tokenizer, TER's CJK handling)."""
    return options_for(ds.language, DEFAULTS) if ds is not None else DEFAULTS


def use_dataset(ds: Dataset, uploaded: bool = False) -> None:
    """Make ``ds`` the session's dataset and apply its language's defaults to the options (and to the
    sidebar's widgets, which are not drawn on the page that calls this). For an upload large enough
    to use it, the scoring worker starts, warm, if it is not running (:func:`mtlens.runtime.engine.start_pool`):
    new text is scored next (the sample and reopened sets, whose statistics are stored, are not slowed
    by its start)."""
    st.session_state[DATA_KEY] = ds
    if uploaded:
        results.prepare_for(ds.corpus)
    if ds.set_id:
        st.query_params["set"] = ds.set_id
    set_options(options_for(ds.language, options()))
    for name in language_defaults(None):  # the sidebar re-reads the language-dependent options
        st.session_state.pop(f"w_{name}", None)
