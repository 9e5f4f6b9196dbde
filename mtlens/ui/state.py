"""Per-session dataset and options, kept under non-widget keys so nothing is lost between pages.

Uploaded data lives only in ``st.session_state`` (one per browser session), never
in a module global; cached computations are keyed by the fingerprints of
everything they depend on (the texts, the human files, the options), so two
sessions share a result only if every input of it is identical.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import re
from dataclasses import dataclass, field

import streamlit as st

from ..core.errors import InputError
from ..core.options import DEFAULTS, Options, link_params, read_link
from ..service import results
from ..service.evaluation import (
    Evaluation,
    evaluate,
    evaluate_annotations,
    finished_neural,
    options_for,
    save,
)
from ..service.inputs import Corpus, Language, corpus_from_bytes, corpus_from_single, language_defaults, sample_files
from ..service.sets import Store, open_sample
from ..service.sets import open_set as open_saved_set
from . import identity

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
        )

    def evaluation(self) -> Evaluation:
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
    ds = st.session_state.get(DATA_KEY)
    wanted = st.query_params.get("set")
    if wanted and (ds is None or ds.set_id != wanted):
        try:
            ds = saved_dataset(wanted)
        except InputError as err:
            missing_set(err)  # says so, offers the set list; never shows another set's numbers instead
        use_dataset(ds)
    elif ds is None:
        if wanted is not None and not wanted.strip():  # "?set=" with nothing: said, not silently the sample
            st.session_state[LINK_NOTES_KEY] = [
                *st.session_state.get(LINK_NOTES_KEY, []),
                "the link's set= names no set, so the bundled sample is shown",
            ]
        ds = sample_dataset()
        use_dataset(ds)
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


def missing_set(err: InputError) -> None:
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
        st.query_params["set"] = sample_dataset().set_id
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
    if not set_id:
        return False
    try:
        return store().may_change(set_id, identity.visitor())
    except InputError:
        return False


def slug(name: str) -> str:
    """A set's name as a file name part: letters, digits, "-", "_" (runs of anything else one "-")."""
    out = re.sub(r"-{2,}", "-", "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)).strip("-")
    return out[:60].rstrip("-")


def download_name(kind: str, suffix: str, set_name: str | None) -> str:
    """A download's file name, naming the set it comes from: ``mtlens-scores-WMT21-en-de.csv``."""
    part = slug(set_name or "")
    return f"{kind}-{part}.{suffix}" if part else f"{kind}.{suffix}"


def file_name(kind: str, suffix: str) -> str:
    """:func:`download_name` for the set this session shows."""
    ds = st.session_state.get(DATA_KEY)
    return download_name(kind, suffix, ds.name if ds is not None else None)


def save_upload(ds: Dataset, name: str) -> tuple[Dataset, str | None]:
    """Save an uploaded dataset as a new set; returns it with its id, and a sentence when it could not
    be saved (the session keeps working with the unsaved data)."""
    try:
        ev = save(store(), ds.evaluation(), name, owner=identity.owner_id())
    except InputError as err:
        return ds, f"This upload is not saved in the workspace: {err}"
    return dataclasses.replace(ds, set_id=ev.set_id, name=name, origin="saved"), None


def keep_upload(new: Dataset, files: set, shown: Dataset) -> tuple[Dataset, str | None]:
    """Save an upload under its automatic name; returns it and a sentence when it could not be saved.

    The same upload grown by another file (references first, then systems), or shrunk by removing one
    (its X), replaces the set it made a moment ago, so the list does not fill with intermediate states;
    only while that set is still the one shown, still has its automatic name, and one upload's files
    (``(kind, name, size)``) hold all of the other's.
    """
    pair = new.corpus.language_pair or "no language"
    n = len(new.corpus.systems)
    name = f"{n} system{'' if n == 1 else 's'}, {pair}, {new.corpus.n_lines} lines"
    new, not_saved = save_upload(new, name)
    prev = st.session_state.get("mtlens_upload_set")
    same_upload = prev and (prev[1] <= files or files <= prev[1])
    if same_upload and new.set_id and prev[0] != new.set_id and prev[0] == shown.set_id:
        with contextlib.suppress(InputError):
            if store().load(prev[0]).info.name == prev[2]:
                store().delete(prev[0], identity.visitor())
    st.session_state["mtlens_upload_set"] = (new.set_id, files, name)
    return new, not_saved


def dataset_from_uploads(
    references,
    systems,
    source=None,
    human=(),
    language_pair: str | None = None,
    scores=(),
    annotations=(),
    documents=None,
) -> Dataset:
    """Build a dataset from uploaded files (``(name, bytes)`` pairs).

    One ``.tsv`` or ``.xml`` file among the system outputs, with no reference
    file, is read as a file holding everything.

    Raises:
        InputError: with a readable message.
    """
    if annotations and not references and not systems:  # a set made from annotations alone
        ev = evaluate_annotations(annotations[0][1], annotations[0][0], language_pair or None)
        if len(annotations) > 1 or human or scores:
            ev = evaluate(ev.corpus, language_pair or None, human or (), scores or (), annotations)
        return Dataset.of(ev, "upload", tuple(n for n, _ in annotations))
    if not references and len(systems) == 1 and systems[0][0].lower().endswith((".tsv", ".xml")):
        corpus = corpus_from_single(systems[0][1], systems[0][0])
        if source is not None:
            raise InputError("a TSV or XML file already holds its source; upload the source only with text files")
    else:
        if not references:
            raise InputError("upload at least one reference file (or one TSV/XML file that holds everything)")
        if not systems:
            raise InputError("upload at least one system output file")
        corpus = corpus_from_bytes(references, systems, source)
    if documents is not None:  # a documents file: every line's document id (and domain)
        from ..service.inputs import read_documents

        ids, domains = read_documents(documents[1], documents[0], corpus.n_lines)
        corpus = corpus.with_documents(ids, domains)
    files = tuple(
        n for n, _ in [*references, *systems, *([source] if source else []), *([documents] if documents else [])]
    )
    # the language decided and the side files validated now, so a bad file is reported on the home page
    ev = evaluate(corpus, language_pair or None, human or (), scores or (), annotations or ())
    return Dataset.of(ev, "upload", files)


def options() -> Options:
    """The session's metric options (an :class:`Options` under a non-widget key; defaults at first)."""
    opts = st.session_state.get(OPTIONS_KEY)
    if not isinstance(opts, Options):
        opts = DEFAULTS
        st.session_state[OPTIONS_KEY] = opts
    return opts


def set_options(opts: Options) -> None:
    st.session_state[OPTIONS_KEY] = opts


#: session key: sentences about what the session's link asked for and did not get (shown on every page)
LINK_NOTES_KEY = "mtlens_link_notes"


def options_from_link(opts: Options) -> Options:
    """``opts`` with the options the address names (a colleague's link, :func:`mtlens.core.options.read_link`);
    what it names and cannot be used is kept for :func:`link_notes`."""
    opts, notes = read_link(st.query_params, opts)
    if notes:
        st.session_state[LINK_NOTES_KEY] = [*st.session_state.get(LINK_NOTES_KEY, []), *notes]
    return opts


def link_notes() -> list[str]:
    """What this session's link asked for and did not get (ignored options, an empty set)."""
    return list(st.session_state.get(LINK_NOTES_KEY, []))


def options_to_link(opts: Options, baseline: Options) -> None:
    """Write the options that differ from ``baseline`` (the set's defaults) into the address, and remove
    the others: the link is the view."""
    to_link(**link_params(opts, baseline))


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


def from_link(
    choices: dict[str, tuple[str, list]],
    numbers: dict[str, tuple[str, int]] | None = None,
    lists: dict[str, tuple[str, list]] | None = None,
) -> None:
    """Set widget keys from the address once per session and page (a colleague's link), before the widgets
    are drawn. ``choices``: parameter -> (widget key, allowed values); ``numbers``: parameter -> (key,
    maximum); ``lists``: parameter -> (multiselect key, allowed values), comma-separated in the address.
    Values that do not fit are ignored. The page is named by its parameters' widget keys."""
    numbers, lists = numbers or {}, lists or {}
    page = ",".join(sorted(k for k, _ in [*choices.values(), *numbers.values(), *lists.values()]))
    flag = f"mtlens_link_applied:{page}"
    if st.session_state.get(flag) == st.query_params.get("set"):
        return
    st.session_state[flag] = st.query_params.get("set")
    for param, (key, allowed) in choices.items():
        value = st.query_params.get(param)
        match = next((a for a in allowed if str(a) == value), None)  # numbers in a selectbox: "0.01"
        if value is not None and match is not None:
            st.session_state[key] = match
    for param, (key, high) in numbers.items():
        value = st.query_params.get(param)
        if value is not None and value.isascii() and value.isdigit() and 1 <= int(value) <= high:
            st.session_state[key] = int(value)
    for param, (key, allowed) in lists.items():
        value = st.query_params.get(param)
        if value is not None:
            picked = [v for v in value.split(",") if v in allowed]
            if picked:
                st.session_state[key] = list(dict.fromkeys(picked))


def to_link(**values) -> None:
    """Write what the page shows into the address (None removes a parameter; a list is comma-separated)."""
    for k, v in values.items():
        if isinstance(v, list | tuple):
            v = ",".join(map(str, v))
        if v is None:
            st.query_params.pop(k, None)
        elif st.query_params.get(k) != str(v):
            st.query_params[k] = str(v)
