"""What the faces read: files, uploads and folders -> validated data, through the readers
(:mod:`mtlens.readers`), and the language facts that come with a test set.
"""

from __future__ import annotations

from ..core.access import is_operator
from ..core.errors import InputError
from ..readers.folders import read_path
from ..readers.lines import decode_lines, files_fingerprint, read_bytes, read_lines
from ..readers.mqm import read_mqm_tsv
from ..readers.testset import documents_notes, sample_files

__all__ = [
    "build_corpus",
    "check_visitor_corpus",
    "check_visitor_ratings_of",
    "check_visitor_size_of",
    "decode_lines",
    "documents_notes",
    "files_fingerprint",
    "mqm_annotations",
    "read_bytes",
    "read_files",
    "read_lines",
    "read_mqm_tsv",
    "read_path",
    "sample_files",
    "with_documents",
]


def check_visitor_size_of(n_lines: int, n_streams: int, visitor, what: str = "the upload") -> None:
    """:func:`check_visitor_corpus` before a corpus is built, from the files' line counts (the operator, ``visitor``
    None or an administrator, is not bound)."""
    from ..core.limits import check_visitor_size

    if is_operator(visitor):
        return
    check_visitor_size(n_lines, n_streams, 0, what)


def check_visitor_ratings_of(files, visitor, already: int = 0, what: str = "these ratings") -> None:
    """Human rating files of a dashboard visitor within the visitors' bound, counted before they are parsed
    (:func:`mtlens.core.limits.check_visitor_ratings`; the operator, ``visitor`` None or an administrator, is not
    bound)."""
    from ..core.limits import check_visitor_ratings

    if is_operator(visitor) or not files:
        return
    check_visitor_ratings(files, already, what)


def check_visitor_corpus(corpus, visitor, what: str = "this set") -> None:
    """A dashboard visitor's set within the visitors' bounds (:func:`mtlens.core.limits.check_visitor_size`: its
    line texts and documents); the operator (``visitor`` None, or an administrator) is not bound by them."""
    from ..core.limits import check_visitor_size

    if is_operator(visitor):
        return
    streams = len(corpus.references) + len(corpus.systems) + (corpus.source is not None)
    documents = len(set(corpus.documents)) if corpus.documents is not None else 0
    check_visitor_size(corpus.n_lines, streams, documents, what)


def read_files(paths) -> list[tuple[str, bytes]]:
    """Files on disk as the ``(name, bytes)`` pairs :func:`build_corpus` takes (each read within its limit)."""
    return [(str(p), read_bytes(p)) for p in paths]


def build_corpus(references=(), systems=(), source=None, data=None, documents=None, documents_order=None):
    """The one way a face turns files into a test set (the command line's paths, the home page's uploads, the
    gate's two outputs): ``(name, bytes)`` pairs of plain-text ``references``, ``systems`` and a ``source``,
    or one TSV / WMT XML file holding everything (``data``); with ``documents`` (one ``doc_id[<TAB>domain]``
    per line, or mt-metrics-eval's ``domain doc_id`` for a ``.docs`` file or ``documents_order="domain-id"``:
    :func:`mtlens.readers.testset.read_documents`) every line's document and domain. Errors are one sentence naming the files; what a face's own
    words for its inputs say (``--ref``, "upload") it checks before.
    """
    from ..readers.testset import corpus_from_bytes, corpus_from_single, read_documents

    if data is not None:
        if references or systems or source is not None:
            raise InputError("a TSV or XML file already holds references, systems and source; give it alone")
        corpus = corpus_from_single(data[1], data[0])
    else:
        for name, data in [*references, *systems, *([source] if source is not None else [])]:
            if _is_wmt_xml(data):  # issue 51, D5: read as text it was "has 1003 lines"
                raise InputError(
                    f"'{name}' is a WMT XML test set (its references, systems and source in one file): give it "
                    "alone (--data, or as the only upload), not beside plain-text files"
                )
        corpus = corpus_from_bytes(list(references), list(systems), source)
    if documents is not None:
        ids, domains = read_documents(documents[1], documents[0], corpus.n_lines, documents_order)
        corpus = corpus.with_documents(ids, domains)
    return corpus


def _is_wmt_xml(data: bytes) -> bool:
    """Whether a file's first bytes are WMT XML's (``<?xml`` or ``<dataset``), whatever its name."""
    head = data[:512].removeprefix(b"\xef\xbb\xbf").lstrip()
    return head.startswith(b"<?xml") or head.startswith(b"<dataset")


def with_documents(corpus, name: str, data: bytes, order: str | None = None):
    """``corpus`` with the documents and domains of a documents file (``name``, ``data``: one ``doc_id[<TAB>domain]``
    per line, or mt-metrics-eval's order: :func:`mtlens.readers.testset.read_documents`), and what was noticed."""
    from ..readers.testset import read_documents

    ids, domains = read_documents(data, name, corpus.n_lines, order)
    return corpus.with_documents(ids, domains), documents_notes(ids, domains)


def mqm_annotations(annotations, corpus) -> list:
    """A set's MQM annotation files read (:class:`mtlens.readers.mqm.Annotations`, one per file), against the set's
    own lines for mt-metrics-eval's ratings; the set's ESA ratings are its ``esa`` metric, not annotations."""
    from ..readers.annotations import read_annotations
    from ..readers.esa_set import split_annotations

    return [read_annotations(data, name, corpus) for name, data in split_annotations(annotations)[0]]
