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
import hashlib
import os
import re
import stat
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.limits import max_file_bytes

_BOM = b"\xef\xbb\xbf"


# --------------------------------------------------------------------------- bytes -> lines
def files_fingerprint(files: list[tuple[str, bytes]] | tuple) -> str:
    """A digest of side files' names and contents (part of every cache key that uses them)."""
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode("utf-8", "surrogatepass") + b"\x00" + hashlib.sha256(data).digest())
    return h.hexdigest()[:24]


def decode_lines(data: bytes, name: str) -> list[str]:
    """Decode a UTF-8 text file into its lines.

    Args:
        data: the file's bytes.
        name: the file name used in error messages.

    UTF-16 with a byte order mark is read too; UTF-16 without one is named as such.

    Raises:
        InputError: empty file, binary file (NUL bytes), UTF-16 without a byte
            order mark, or invalid UTF-8 (with line number and byte offset).

    Example:
        >>> decode_lines(b"\\xef\\xbb\\xbfa\\tb\\r\\nc\\r\\n", "x.txt")
        ['a\\tb', 'c']
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InputError(f"file '{name}' was not read as bytes")
    data = bytes(data)
    if not data:
        raise InputError(f"file '{name}' is empty")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            data = data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            raise InputError(
                f"file '{name}' starts like UTF-16 text but is not valid UTF-16; save it as UTF-8"
            ) from None
    elif _looks_utf16(data):
        raise InputError(
            f"file '{name}' looks like UTF-16 text without a byte order mark; save it as UTF-8 "
            "(or as UTF-16 with a byte order mark)"
        )
    skipped = 0
    if data.startswith(_BOM):
        data, skipped = data[3:], 3
        if not data:
            raise InputError(f"file '{name}' is empty (it holds only a byte order mark)")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputError(
            f"file '{name}' looks binary, not text: it contains a NUL byte on line {line} "
            f"(byte offset {nul + skipped}); upload plain UTF-8 text, one segment per line"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1)
        bad = data[err.start : err.start + 4].hex(" ")
        raise InputError(
            f"file '{name}' is not valid UTF-8: line {line}, byte {col + 1} of that line "
            f"(byte offset {err.start + skipped} in the file) starts with bytes {bad}; "
            "convert the file to UTF-8"
        ) from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\r" not in text:
        return lines
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


#: bytes from the start of a file that :func:`_looks_utf16` looks at (a file is UTF-16 from its start)
UTF16_SAMPLE = 1 << 20


def _looks_utf16(data: bytes) -> bool:
    """UTF-16 without a byte order mark: in mostly-Latin text one byte of every pair is zero, the other
    never (judged on the first :data:`UTF16_SAMPLE` bytes)."""
    data = data[: UTF16_SAMPLE & ~1]
    if len(data) < 4:
        return False
    half = len(data) // 2
    even0, odd0 = data[0::2].count(0), data[1::2].count(0)
    return (odd0 >= 0.4 * half and even0 == 0) or (even0 >= 0.4 * half and odd0 == 0)


def read_bytes(path: str | Path) -> bytes:
    """Read a file, turning a missing or unreadable file into an :class:`InputError`."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"file '{path}' does not exist")
    if p.is_dir():
        raise InputError(f"'{path}' is a folder, not a file")
    limit = max_file_bytes()
    try:
        # a named pipe opened for reading waits for a writer, forever if none comes: opened without
        # waiting, then read as usual (a pipe with a writer, e.g. bash's <(zcat sys.gz), reads whole;
        # one without reads nothing)
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
        pipe = stat.S_ISFIFO(os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as f:  # bounded: a device or pipe that never ends (/dev/zero) stops at the limit
            data = f.read(limit + 1)
    except OSError as err:
        raise InputError(f"file '{path}' cannot be read: {err.strerror or err}") from None
    if pipe and not data:
        raise InputError(f"'{path}' is a named pipe that nothing writes to; give a file")
    if len(data) > limit:
        raise InputError(
            f"file '{path}' is larger than {limit / 2**20:.0f} MB, the limit for one file (MTLENS_MAX_FILE_MB)"
        )
    return data


def read_lines(path: str | Path) -> list[str]:
    """The lines of a plain-text file (see :func:`decode_lines`)."""
    return decode_lines(read_bytes(path), str(path))


# --------------------------------------------------------------------------- TSV
_SOURCE_COLUMNS = {"src", "source"}
_REF_COLUMN = re.compile(r"^(ref|reference)([\W_].*|\d*)$", re.IGNORECASE)


def column_role(name: str) -> str:
    """``source``, ``reference``, ``document``, ``domain`` or ``system`` for a TSV column name.

    ``src``/``source`` is the source; ``ref``, ``ref2``, ``ref-A``, ``reference_1``... are
    references; ``doc``/``doc_id``/``document`` every line's document id and ``domain`` its domain
    (issue 35); every other column is a system.
    """
    low = name.strip().lower()
    if low in _SOURCE_COLUMNS:
        return "source"
    if low in ("doc", "doc_id", "docid", "document"):
        return "document"
    if low == "domain":
        return "domain"
    if _REF_COLUMN.match(low):
        return "reference"
    return "system"


def parse_tsv(data: bytes, name: str) -> Corpus:
    """A TSV file with a header row: a column per source, reference and system.

    Fields are split on tabs only (no quoting: quotes are ordinary characters in
    translations). Every row must have as many fields as the header.
    """
    lines = decode_lines(data, name)
    header = lines[0].split("\t")
    names = [h.strip() for h in header]
    if any(not h for h in names):
        raise InputError(f"the header of '{name}' has an empty column name")
    dup = sorted({h for h in names if names.count(h) > 1})
    if dup:
        raise InputError(f"the header of '{name}' repeats the column name '{dup[0]}'")
    roles = [column_role(h) for h in names]
    if "reference" not in roles:
        raise InputError(
            f"the header of '{name}' has no reference column (name it 'ref', 'ref2', ...); "
            f"its columns are: {', '.join(names)}"
        )
    if "system" not in roles:
        raise InputError(f"the header of '{name}' has no system column; its columns are: {', '.join(names)}")
    if len(lines) < 2:
        raise InputError(f"'{name}' has a header but no segments")
    cols: list[list[str]] = [[] for _ in names]
    for i, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(names):
            raise InputError(
                f"line {i} of '{name}' has {len(fields)} tab-separated fields, the header has {len(names)}"
            )
        for c, f in zip(cols, fields, strict=True):
            c.append(f)
    refs = {h: c for h, r, c in zip(names, roles, cols, strict=True) if r == "reference"}
    syss = {h: c for h, r, c in zip(names, roles, cols, strict=True) if r == "system"}
    src = next((c for r, c in zip(roles, cols, strict=True) if r == "source"), None)
    docs = next((c for r, c in zip(roles, cols, strict=True) if r == "document"), None)
    domains = next((c for r, c in zip(roles, cols, strict=True) if r == "domain"), None)
    if domains is not None and docs is None:
        raise InputError(f"'{name}' has a domain column but no document column (name it 'doc')")
    if docs is not None and any(not d.strip() for d in docs):
        raise InputError(f"'{name}' has a line without a document id in its 'doc' column")
    return Corpus.build(refs, syss, src, documents=docs, domains=domains)


# --------------------------------------------------------------------------- WMT XML
def parse_wmt_xml(data: bytes, name: str) -> Corpus:
    """The WMT test-set XML format (WMT21 on): ``<dataset><doc><src|ref|hyp><p><seg id>``.

    References are named ``ref``, ``ref2``, ... by position in the document
    (``ref-<translator>`` when they carry a ``translator`` attribute), systems by
    their ``system`` attribute. Segments are matched by their ``id`` (by position
    where they have none) and keep the order of the document's source; a reference
    or system lacking a segment, or having one more, is an error.
    """
    if not data:
        raise InputError(f"file '{name}' is empty")
    try:
        root = ET.fromstring(data.removeprefix(_BOM))
    except ET.ParseError as err:
        raise InputError(f"'{name}' is not well-formed XML: {err}") from None
    src: list[str] = []
    refs: dict[str, list[str]] = {}
    syss: dict[str, list[str]] = {}
    doc_of: list[str] = []  # every line's document id and domain (issue 35)
    domain_of: list[str] = []
    docs = root.findall(".//doc")
    if not docs:
        raise InputError(f"'{name}' has no <doc> element; expected WMT XML: <dataset><doc><src>...")
    for number, doc in enumerate(docs, start=1):
        doc_id = " ".join((doc.get("id") or f"#{number}").split())[:200]
        src_el = doc.find("src")
        ref_els = doc.findall("ref")
        doc_src = _segments(src_el, doc_id, "source", name) if src_el is not None else None
        doc_refs = _named(ref_els, _ref_names(ref_els), doc_id, "reference", name)
        doc_hyps = _named(doc.findall("hyp"), _hyp_names(doc.findall("hyp"), doc_id, name), doc_id, "system", name)
        if doc_src is not None:
            order = list(doc_src)
        elif doc_refs:
            order = list(next(iter(doc_refs.values())))
        else:
            order = []
        offset = len(src) if doc_src is not None else len(next(iter(refs.values()), []))
        doc_of.extend([doc_id] * len(order))
        domain_of.extend([" ".join((doc.get("domain") or "").split())[:200]] * len(order))
        if doc_src is not None:
            src.extend(doc_src.values())
        for store, kind, group in ((refs, "reference", doc_refs), (syss, "system", doc_hyps)):
            for key, segs in group.items():
                if segs.keys() != set(order):
                    missing = [i for i in order if i not in segs]
                    extra = [i for i in segs if i not in set(order)]
                    what = (
                        f"lacks segment id(s) {', '.join(missing[:5])}"
                        if missing
                        else f"has segment id(s) {', '.join(extra[:5])} that the document's source does not"
                    )
                    raise InputError(f"document '{doc_id}' of '{name}': {kind} '{key}' {what}")
                if key not in store:
                    if offset:
                        raise InputError(f"'{name}': '{key}' first appears in document '{doc_id}', not in the first")
                    store[key] = []
                store[key].extend(segs[i] for i in order)
    total = sum(1 for _ in root.iter("seg"))
    if total == 0:
        raise InputError(f"'{name}' contains no <seg> segments")
    if not refs:
        raise InputError(f"'{name}' contains no <ref> element")
    if not syss:
        raise InputError(f"'{name}' contains no <hyp> element (system output)")
    pair = None
    s_lang, t_lang = (
        root.get("source-language") or root.get("srclang"),
        root.get("target-language") or root.get("trglang"),
    )
    if s_lang and t_lang:
        pair = f"{s_lang}-{t_lang}"
    return Corpus.build(refs, syss, src if src else None, language_pair=pair, documents=doc_of, domains=domain_of)


def _ref_names(els) -> list[str]:
    """References of a document by position: ``ref``, ``ref2``, ... or ``ref-<translator>``;
    a repeated name gets the position's number, so no reference is ever lost."""
    names = []
    for k, el in enumerate(els):
        t = el.get("translator")
        base = f"ref-{t}" if t else ("ref" if k == 0 else f"ref{k + 1}")
        names.append(base if base not in names else f"{base}-{k + 1}")
    return names


def _hyp_names(els, doc_id, name) -> list[str]:
    """Systems by their ``system`` attribute (anonymous ones: ``system``, ``system2``, ...);
    two outputs with the same system name are refused (which one is meant?)."""
    names = []
    anonymous = 0
    for el in els:
        sys_name = el.get("system")
        if not sys_name:
            anonymous += 1
            sys_name = "system" if anonymous == 1 else f"system{anonymous}"
        elif sys_name in names:
            raise InputError(
                f"document '{doc_id}' of '{name}' has two <hyp system=\"{sys_name}\"> elements; "
                "give each system output its own name"
            )
        names.append(sys_name)
    return names


def _named(els, names, doc_id, kind, name) -> dict[str, dict[str, str]]:
    return {n: _segments(el, doc_id, f"{kind} '{n}'", name) for n, el in zip(names, els, strict=True)}


def _segments(el, doc_id, what, name) -> dict[str, str]:
    """Segment id -> text in document order; segments without ``id`` are numbered by position."""
    out: dict[str, str] = {}
    for k, seg in enumerate(el.iter("seg"), start=1):
        sid = seg.get("id") or f"#{k}"
        if sid in out:
            raise InputError(f"document '{doc_id}' of '{name}': {what} repeats segment id {sid}")
        out[sid] = "".join(seg.itertext())
    return out


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
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"
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
def read_documents(data: bytes, name: str, n_lines: int) -> tuple[list[str], list[str] | None]:
    """A documents file: one line per segment, ``doc_id`` or ``doc_id<TAB>domain``, aligned with the test
    set's lines. Returns (document ids, domains or None). A document's lines need not be contiguous."""
    lines = decode_lines(data, name)
    if len(lines) != n_lines:
        raise InputError(f"the documents file '{name}' has {len(lines):,} lines; the test set has {n_lines:,}")
    docs, domains = [], []
    for k, line in enumerate(lines, start=1):
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
