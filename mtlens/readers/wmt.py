"""Test sets in one file: a TSV with a header (``src``/``source``, ``ref``..., one column per system) and WMT XML
(``<dataset><doc><src|ref|hyp><p><seg id>``, with document ids and domains)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ..core.corpus import Corpus
from ..core.errors import InputError
from .lines import BOM, decode_lines

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
        root = ET.fromstring(data.removeprefix(BOM))
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
    pair, warnings = _declared_pair(root, name)
    return Corpus.build(
        refs, syss, src if src else None, warnings, language_pair=pair, documents=doc_of, domains=domain_of
    )


#: a language code as WMT XML writes it (``en``, ``zh``, ``zh-TW``, ``sr-Latn``)
_LANG = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")


def _declared_pair(root, name: str) -> tuple[str | None, list[str]]:
    """The language pair the file declares: its root's attributes (``srclang``/``trglang``), else the ``lang`` of
    its ``<src>`` and of its ``<ref>``/``<hyp>`` elements (WMT22's test sets declare them there: issue 51, the
    pair was ignored and every signature said ``und-zh``). Several values on one side declare nothing (said)."""
    s_lang = root.get("source-language") or root.get("srclang")
    t_lang = root.get("target-language") or root.get("trglang")
    if s_lang and t_lang:
        return f"{s_lang}-{t_lang}", []
    sources = {el.get("lang").strip() for el in root.iter("src") if (el.get("lang") or "").strip()}
    targets = {
        el.get("lang").strip() for tag in ("ref", "hyp") for el in root.iter(tag) if (el.get("lang") or "").strip()
    }
    found = [*sources, *targets]
    if len(sources) == 1 and len(targets) == 1 and all(_LANG.match(x) for x in found):
        return f"{next(iter(sources))}-{next(iter(targets))}", []
    if len(sources) > 1 or len(targets) > 1:
        said = ", ".join(sorted(sources)) + " -> " + ", ".join(sorted(targets))
        return None, [
            f"'{name}' declares several languages ({said[:120]}); the pair is detected instead (-l declares it)"
        ]
    return None, []


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
