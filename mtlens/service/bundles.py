"""Set bundles: one gzip'd JSON file that holds a saved set (its text, names, language decision, human,
score and annotation files), to move a set to another workspace. The format's name and version, the
writer and the reader live here, together (docs/decisions.md, "Workspace").

A bundle is unpacked within limits (decompressed size, JSON nesting, counts) and validated line by line
by the same code as an uploaded text file, so a bundle can never save what an upload would refuse.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.language import parse_pair
from ..core.limits import gunzip, load_json, max_bundle_bytes
from ..core.names import check_names
from ..readers.lines import decode_lines
from ..readers.testset import with_warnings
from .evaluation import check_side_files

__all__ = [
    "BUNDLE_FORMAT",
    "BUNDLE_VERSION",
    "MAX_BUNDLE_FILES",
    "MAX_BUNDLE_LINES",
    "MAX_BUNDLE_STREAMS",
    "Bundle",
    "add_bundle_runs",
    "export_bundle",
    "import_bundle",
    "is_bundle",
    "read_bundle",
]

BUNDLE_FORMAT = "mtlens-set"
#: 2 adds the systems' run facts (time, family, metadata: issue 34) and every line's document id and domain
#: (issue 35); version 1 bundles are still read
BUNDLE_VERSION = 2
#: counts a bundle may hold (a set with more is not one people compare in a dashboard)
MAX_BUNDLE_STREAMS = 1000
MAX_BUNDLE_FILES = 100
#: lines a bundle may hold in all (counted before its JSON is parsed, so memory stays bounded)
MAX_BUNDLE_LINES = 5_000_000


def export_bundle(store, set_id: str) -> bytes:
    """One file holding a saved set: gzip'd ASCII JSON (text as lists of lines, side files as hex), the
    same bytes for the same set (no time stamp in the gzip header)."""
    s = store.load(set_id)
    c = s.corpus
    doc = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "name": s.info.name,
        "language_pair": c.language_pair,
        "language_how": s.info.language_how,
        "project": s.info.project,
        "references": dict(c.references),
        "systems": dict(c.systems),
        "source": list(c.source) if c.source is not None else None,
        "human": [[n, d.hex()] for n, d in s.human],
        "scores": [[n, d.hex()] for n, d in s.scores],
        "annotations": [[n, d.hex()] for n, d in s.annotations],
        "terms": [[n, d.hex(), k] for n, d, k in s.terms],
        "runs": [{"system": r.name, "family": r.family, "at": r.at, "meta": r.meta} for r in store.runs(set_id)],
        "documents": list(c.documents) if c.documents is not None else None,
        "domains": list(c.domains) if c.domains is not None else None,
    }
    return gzip.compress(json.dumps(doc, ensure_ascii=True).encode("ascii"), mtime=0)


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
    #: system -> (family, ISO time in UTC, metadata JSON), as the store keeps run facts
    runs: dict[str, tuple[str | None, str | None, str]] | None = None
    #: its glossary ``(name, bytes, JSONL key)`` (issue 60)
    terms: tuple[tuple[str, bytes, str], ...] = ()


#: the parts a bundle has (export_bundle writes each of them)
_PARTS = frozenset(
    [
        "format",
        "version",
        "name",
        "language_pair",
        "language_how",
        "project",
        "references",
        "systems",
        "source",
        "human",
        "scores",
        "annotations",
        "terms",
        "runs",
        "documents",
        "domains",
    ]
)
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
    """A name in a bundle, as it is (the one name rule, :mod:`mtlens.core.names`; nothing folded)."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{_BAD}: a {what} name is empty or not text")
    check_names([value], what)
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


def is_bundle(data: bytes) -> bool:
    """Whether a file looks like a set bundle (gzip's magic number) rather than text: the test the command
    line's ``add`` and the History page's upload make before reading it."""
    return bytes(data[:2]) == b"\x1f\x8b"


def read_bundle(data: bytes, visitor: bool = False) -> Bundle:
    """Unpack and validate a set bundle (as :func:`export_bundle` writes it); ``visitor``: for a dashboard
    visitor, whose bundle is refused beyond the visitors' bound on line texts before its JSON is parsed
    (:func:`mtlens.core.limits.check_visitor_size`; issue 51: 2 x 2.4 M lines took 1.58 GB).

    Raises:
        InputError: one sentence: too large unpacked, not a bundle, a newer version, or what an upload
            of the same files would be refused for.
    """
    if not is_bundle(data):
        raise InputError(_BAD)
    raw = gunzip(data, max_bundle_bytes(), "the bundle")
    if raw.count(b'"') > 2 * MAX_BUNDLE_LINES + 10_000:
        raise InputError(f"the bundle holds more than {MAX_BUNDLE_LINES:,} lines, the limit for one bundle")
    if visitor:  # every line is a JSON string (two quotes), its document and domain too; names and facts: the slack
        from ..core.limits import max_visitor_lines

        most = max_visitor_lines()
        if raw.count(b'"') > 2 * 3 * most + 10_000:
            raise InputError(
                f"the bundle holds more than {most:,} line texts, the most a set made on the dashboard may hold "
                "(MTLENS_MAX_VISITOR_LINES): the operator can import it with python -m mtlens import"
            )
    try:
        doc = load_json(raw, "bundle", "the bundle")  # its values and depth are counted before parsing
    except InputError as err:
        raise InputError(f"{_BAD} ({err})") from None
    if not isinstance(doc, dict) or doc.get("format") != BUNDLE_FORMAT:
        raise InputError(_BAD)
    unknown = sorted(set(doc) - _PARTS)
    if unknown:
        raise InputError(f"{_BAD}: it holds a part that bundles do not have ({unknown[0][:40]!r})")
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
    if visitor and annotations:  # before they are parsed (issue 58, G1, G2)
        from ..core.limits import check_visitor_ratings

        check_visitor_ratings(annotations, what="the bundle's ratings")
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
    documents, domains = doc.get("documents"), doc.get("domains")
    for what, value in (("document ids", documents), ("domains", domains)):
        if value is not None and (not isinstance(value, list) or not all(isinstance(x, str) for x in value)):
            raise InputError(f"{_BAD}: its {what} are not a list of text")
    if documents is not None:
        corpus = corpus.with_documents(documents, domains)
    human, scores = _files(doc.get("human"), "human"), _files(doc.get("scores"), "scores")
    check_side_files(corpus, human, scores, annotations)
    how = doc.get("language_how")
    how = how if how in ("declared", "detected") and pair else ("declared" if pair else None)
    terms = _terms(doc.get("terms"), corpus)
    return Bundle(name, project, corpus, human, scores, how, annotations, _runs(doc.get("runs"), systems), terms)


def _terms(value, corpus) -> tuple[tuple[str, bytes, str], ...]:
    """The bundle's glossary, read against its set as an upload's is (one sentence for a bad one)."""
    from ..readers.glossary import read_glossary

    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > 1 or not all(isinstance(t, list) and len(t) == 3 for t in value):
        raise InputError(f"{_BAD}: its glossary is not one [name, hex, key]")
    out = []
    for name, data, key in value:
        if not (isinstance(name, str) and isinstance(data, str) and isinstance(key, str)):
            raise InputError(f"{_BAD}: its glossary is not one [name, hex, key]")
        try:
            raw = bytes.fromhex(data)
        except ValueError:
            raise InputError(f"{_BAD}: its glossary's bytes are not hexadecimal") from None
        read_glossary(raw, _name(name, "glossary"), corpus.n_lines, key)
        out.append((_name(name, "glossary"), raw, key))
    return tuple(out)


def _runs(value, systems) -> dict[str, tuple[str | None, str | None, str]]:
    """The bundle's run facts, checked as ``mtlens add`` checks them; only for systems the bundle has."""
    from ..storage.runs import check_meta, clean_family
    from .run_facts import checked_facts
    from .runs import parse_at

    if value is None:
        return {}
    if not isinstance(value, list) or len(value) > MAX_BUNDLE_STREAMS:
        raise InputError(f"{_BAD}: its runs are not a list of at most {MAX_BUNDLE_STREAMS}")
    out = {}
    for item in value:
        if not isinstance(item, dict) or set(item) - {"system", "family", "at", "meta"}:
            raise InputError(f"{_BAD}: a run is not an object with system, family, at and meta")
        system, family, at, meta = item.get("system"), item.get("family"), item.get("at"), item.get("meta") or {}
        if system not in systems:
            raise InputError(f"{_BAD}: a run names a system the bundle does not have")
        if family is not None and not isinstance(family, str):
            raise InputError(f"{_BAD}: the family of run '{system}' is not text")
        if not isinstance(at, str) or not isinstance(meta, dict):
            raise InputError(f"{_BAD}: run '{system}' has no time or its metadata is not an object")
        out[str(system)] = (clean_family(family), parse_at(at), json.dumps(checked_facts(check_meta(meta))))
    return out


def import_bundle(store, data: bytes, name: str | None = None, owner: str | None = None) -> str:
    """Validate a bundle and save it as a new set of ``owner``; returns its id."""
    b = read_bundle(data, visitor=owner is not None)
    if owner is not None:  # a visitor's import: within the visitors' bound (issue 51: 2 x 2.4 M lines, 1.58 GB)
        from ..core.access import Visitor
        from .inputs import check_visitor_corpus

        check_visitor_corpus(b.corpus, Visitor(owner, owner), "the bundle")
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
        runs=b.runs,
        terms=b.terms,
    )


def add_bundle_runs(store, set_id: str, data: bytes, visitor=None) -> list[str]:
    """Add the systems of a bundle that a saved set does not have yet, with their run facts (a history
    moved from another workspace, or a colleague's new runs). The bundle must hold the set's own test
    set: the same references, in the same order; else nothing is added. Returns the names added."""
    from ..storage.runs import no_facts

    b = read_bundle(data, visitor=visitor is not None and not visitor.admin)
    saved = store.load(set_id)
    if list(b.corpus.references.values()) != list(saved.corpus.references.values()):
        raise InputError("the bundle's references are not this set's: its runs were made on another test set")
    new = {n: v for n, v in b.corpus.systems.items() if n not in saved.corpus.systems}
    if not new:
        raise InputError("the bundle has no system this set does not have already")
    facts = {n: (b.runs or {}).get(n) or no_facts() for n in new}
    store.add_systems(set_id, new, visitor, runs=facts)
    return list(new)
