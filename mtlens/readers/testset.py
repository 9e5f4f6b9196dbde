"""Readers: plain text, TSV with a header, WMT XML -> a validated :class:`Corpus`.

Readers never drop, merge or reorder lines. A plain-text file is split on
``\\n`` only (a tab, a form feed or U+2028 inside a line stays in that line);
a final newline does not start an extra line; a UTF-8 byte order mark and
CRLF line ends are removed, so such files score exactly like clean ones.
Every problem is reported as an :class:`InputError` whose message names the
file, the line and the numbers involved.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.paths import find_app_root
from .lines import (
    decode_lines,
    read_bytes,
)
from .wmt import (
    parse_tsv,
    parse_wmt_xml,
)


# --------------------------------------------------------------------------- corpus builders
def stem(name: str) -> str:
    r"""The system/reference name of a file: its base name without the last extension.

    Only ``/`` separates folders (a backslash is an ordinary character of a file name).

    Example:
        >>> stem("out/a\\b.de.txt"), stem(".hidden"), stem("A (2).txt")
        ('a\\b.de', '.hidden', 'A (2)')
    """
    base = name.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base.strip(".") else base


def unique_names(paths: Sequence[str], kind: str) -> list[str]:
    """A name per file: its stem, or, where stems collide, as much of its path as tells them apart
    (``d1/A``, ``d2/A``). The same path given twice is refused: a name never silently hides a file.

    Example:
        >>> unique_names(["d1/A.txt", "d2/A.txt", "A (2).txt"], "system")
        ['d1/A', 'd2/A', 'A (2)']
    """
    parts = [p.split("/") for p in paths]
    dup = sorted({p for p in paths if list(paths).count(p) > 1})
    if dup:
        raise InputError(f"two {kind} files are named '{dup[0]}'; give each file once, under its own name")
    names = [stem(p[-1]) for p in parts]
    depth = [1] * len(paths)
    while True:
        clash = {n for n in names if names.count(n) > 1}
        if not clash:
            return names
        grown = False
        for i, n in enumerate(names):
            if n in clash and depth[i] < len(parts[i]):
                depth[i] += 1
                names[i] = "/".join([*parts[i][-depth[i] : -1], stem(parts[i][-1])])
                grown = True
        if not grown:
            n = sorted(clash)[0]
            same = [p for p, m in zip(paths, names, strict=True) if m == n]
            raise InputError(
                f"{kind} files {', '.join(repr(p) for p in same)} would all be named '{n}'; rename one of them"
            )


def corpus_from_bytes(
    references: Sequence[tuple[str, bytes]],
    systems: Sequence[tuple[str, bytes]],
    source: tuple[str, bytes] | None = None,
) -> Corpus:
    """Build a Corpus from ``(file name, bytes)`` pairs of plain-text files.

    Names come from file stems; where stems collide, from as much of the path as tells the files
    apart (:func:`unique_names`); names that still collide are refused.
    Errors name the files: "system 'B.txt' has 999 lines, the reference 'ref.txt' has 1000".
    """
    if not references and source is None:
        raise InputError(
            "no reference file was given (reference-free metrics such as CometKiwi need the source text instead)"
        )
    if not systems:
        raise InputError("no system output file was given")
    ref_lines = [(fn, decode_lines(b, fn)) for fn, b in references]
    sys_lines = [(fn, decode_lines(b, fn)) for fn, b in systems]
    src = decode_lines(source[1], source[0]) if source is not None else None
    # the line count every file must have: the first reference's, or the source's for a reference-free set
    anchor, (first_fn, first) = ("reference", ref_lines[0]) if ref_lines else ("source", (source[0], src))
    for kind, group in (("reference", ref_lines[1:]), ("system", sys_lines)):
        for fn, lines in group:
            if len(lines) != len(first):
                raise InputError(f"{kind} '{fn}' has {len(lines)} lines, the {anchor} '{first_fn}' has {len(first)}")
    if src is not None and len(src) != len(first):
        raise InputError(f"source '{source[0]}' has {len(src)} lines, the reference '{first_fn}' has {len(first)}")
    ref_names = unique_names([fn for fn, _ in ref_lines], "reference")
    sys_names = unique_names([fn for fn, _ in sys_lines], "system")
    corpus = Corpus.build(
        dict(zip(ref_names, (x for _, x in ref_lines), strict=True)),
        dict(zip(sys_names, (x for _, x in sys_lines), strict=True)),
        src,
        allow_no_reference=not ref_lines,  # a source and outputs: reference-free (QE) metrics only
    )
    return with_warnings(corpus)


def corpus_from_single(data: bytes, name: str) -> Corpus:
    """A Corpus from one TSV (``.tsv``) or WMT XML (``.xml``) file holding everything."""
    low = name.lower()
    if low.endswith(".xml"):
        return with_warnings(parse_wmt_xml(data, name))
    if low.endswith((".tsv", ".tab")):
        return with_warnings(parse_tsv(data, name))
    raise InputError(f"'{name}' is neither a .tsv nor a .xml file; a single file must hold references and systems")


def load_corpus(
    references: Sequence[str | Path] = (),
    systems: Sequence[str | Path] = (),
    source: str | Path | None = None,
    data: str | Path | None = None,
) -> Corpus:
    """Read files from disk: plain-text references and systems, or one TSV/XML ``data`` file."""
    if data is not None:
        if references or systems:
            raise InputError("give either one TSV/XML data file or reference and system files, not both")
        return corpus_from_single(read_bytes(data), str(data))
    return corpus_from_bytes(
        [(str(p), read_bytes(p)) for p in references],
        [(str(p), read_bytes(p)) for p in systems],
        (str(source), read_bytes(source)) if source is not None else None,
    )


# --------------------------------------------------------------------------- data warnings
_ENTITY = re.compile(r"&(amp|quot|lt|gt|apos|#\d+|#x[0-9a-fA-F]+);")
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")


def _line_list(nums: list[int]) -> str:
    shown = ", ".join(str(n) for n in nums[:5])
    return shown + (f" and {len(nums) - 5} more" if len(nums) > 5 else "")


def _numbered(lines: Sequence[str], text: str | None, pattern: re.Pattern) -> list[int]:
    """The numbers (from 1) of the lines where ``pattern`` occurs, found in ``text`` (the lines joined by
    newlines) at once, or line by line when ``text`` is None."""
    if text is None:
        return [i for i, line in enumerate(lines, start=1) if pattern.search(line)]
    out: list[int] = []
    line, pos = 1, 0
    for m in pattern.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        if not out or out[-1] != line:
            out.append(line)
    return out


_TAB = re.compile("\t")


def stream_warnings(kind: str, name: str, lines: Iterable[str]) -> list[str]:
    """Notes about oddities real data has: empty lines, HTML entities, zero-width characters, tabs.

    Each kind is looked for in the whole text at once, and the lines are numbered from where it
    occurs (a million clean lines: no Python loop over them); line by line if a line holds a newline."""
    lines = lines if isinstance(lines, (list, tuple)) else list(lines)
    text = "\n".join(lines)
    joined = text if text.count("\n") == len(lines) - 1 else None
    blank = "" in lines or any(map(str.isspace, lines))
    empty = [i for i, line in enumerate(lines, start=1) if not line.strip()] if blank else []
    ent = _numbered(lines, joined, _ENTITY) if "&" in text else []
    zw = _numbered(lines, joined, _ZERO_WIDTH)
    tab = _numbered(lines, joined, _TAB) if "\t" in text else []
    out = []
    if empty:
        out.append(f"{kind} '{name}' has {len(empty)} empty line(s): {_line_list(empty)}")
    if ent:
        out.append(
            f"{kind} '{name}' has leftover HTML entities such as &amp; on {len(ent)} line(s): {_line_list(ent)} "
            "(the 13a tokenizer unescapes &amp; &quot; &lt; &gt;, the others do not)"
        )
    if zw:
        out.append(f"{kind} '{name}' has zero-width characters on {len(zw)} line(s): {_line_list(zw)}")
    if tab:
        out.append(f"{kind} '{name}' has tabs inside {len(tab)} line(s): {_line_list(tab)} (kept as one segment)")
    return out


def with_warnings(corpus: Corpus) -> Corpus:
    """The same corpus with :func:`stream_warnings` for every stream attached."""
    notes = list(corpus.warnings)
    for kind, group in (("reference", corpus.references), ("system", corpus.systems)):
        for name, lines in group.items():
            notes += stream_warnings(kind, name, lines)
    if corpus.source is not None:
        notes += stream_warnings("source", "source", corpus.source)
    return dataclasses.replace(corpus, warnings=tuple(notes))


#: the bundled sample (WMT21 en-de, 200 lines; sample_data/README.md)
SAMPLE_DIR = (find_app_root() or Path(__file__).resolve().parents[2]) / "sample_data"  # checkout or installed
SAMPLE_SYSTEMS = ("VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin")
SAMPLE_REFERENCES = ("ref.txt", "ref2.txt")


def sample_files() -> tuple[list, list, tuple]:
    """The bundled sample's ``(references, systems, source)`` as ``(name, bytes)`` pairs."""
    refs = [(n, read_bytes(SAMPLE_DIR / n)) for n in SAMPLE_REFERENCES]
    systems = [(f"{n}.txt", read_bytes(SAMPLE_DIR / f"{n}.txt")) for n in SAMPLE_SYSTEMS]
    return refs, systems, ("src.txt", read_bytes(SAMPLE_DIR / "src.txt"))


def sample_corpus() -> Corpus:
    """The bundled sample's corpus (the dashboard's first set; neural jobs on it read it from here)."""
    refs, systems, src = sample_files()
    return corpus_from_bytes(refs, systems, src)


# --------------------------------------------------------------------------- documents and domains (issue 35)
#: the two orders a documents file's lines come in: mtlens's ``doc_id<TAB>domain`` and mt-metrics-eval's
#: ``domain doc_id`` (its ``.docs`` files, which WMT24's are; whitespace between, or ``doc_id`` alone)
DOCS_ORDERS = ("id-domain", "domain-id")


def docs_order(name: str, order: str | None = None) -> str:
    """The order of a documents file: the one asked for, else ``domain-id`` for a ``.docs`` file (mt-metrics-eval's
    name for them) and ``id-domain`` for any other.

    >>> docs_order("en-ja.docs"), docs_order("docs.tsv"), docs_order("x.docs", "id-domain")
    ('domain-id', 'id-domain', 'id-domain')
    """
    if order is not None:
        if order not in DOCS_ORDERS:
            raise InputError(f"--docs-order takes {' or '.join(DOCS_ORDERS)}, not '{order}'")
        return order
    return "domain-id" if name.lower().endswith(".docs") else "id-domain"


def read_documents(
    data: bytes, name: str, n_lines: int, order: str | None = None
) -> tuple[list[str], list[str] | None]:
    """A documents file: one line per segment, aligned with the test set's lines, in one of :data:`DOCS_ORDERS`
    (:func:`docs_order` decides): ``doc_id`` or ``doc_id<TAB>domain``; or mt-metrics-eval's ``domain doc_id``.
    Returns (document ids, domains or None). A document's lines need not be contiguous."""
    order = docs_order(name, order)
    lines = decode_lines(data, name)
    if len(lines) != n_lines:
        raise InputError(f"the documents file '{name}' has {len(lines):,} lines; the test set has {n_lines:,}")
    docs, domains = [], []
    for k, line in enumerate(lines, start=1):
        if order == "domain-id":
            fields = line.split()
            if len(fields) > 2:
                raise InputError(
                    f"line {k} of the documents file '{name}' is not 'domain doc_id' (mt-metrics-eval's order, read "
                    "for a .docs file): it has more than two fields; say --docs-order id-domain if it is 'doc_id<TAB>domain'"
                )
            doc, domain = (fields[-1], fields[0] if len(fields) == 2 else "") if fields else ("", "")
        else:
            doc, _, domain = line.partition("\t")
        doc, domain = " ".join(doc.split()), " ".join(domain.split())
        if not doc:
            raise InputError(f"line {k} of the documents file '{name}' has no document id")
        if len(doc) > 200 or len(domain) > 200:
            raise InputError(f"line {k} of the documents file '{name}' has an id or domain over 200 characters")
        docs.append(doc)
        domains.append(domain)
    return docs, domains if any(domains) else None


def documents_notes(documents, domains=None) -> list[str]:
    """What is worth saying about a test set's documents: documents whose lines are not contiguous (allowed:
    resampling keeps a document whole wherever its lines are), lines without a domain."""
    notes = []
    if documents is None:
        return notes
    seen, last, split = set(), None, []
    for d in documents:
        if d != last:
            if d in seen and d not in split:
                split.append(d)
            seen.add(d)
            last = d
    if split:
        notes.append(
            f"{len(split)} document(s) have lines that are not next to each other (e.g. '{split[0][:60]}'); they "
            "are kept whole when documents are resampled"
        )
    if domains is not None and not all(domains):
        notes.append(f"{sum(1 for x in domains if not x):,} lines have no domain; they form the group '(no domain)'")
    return notes
