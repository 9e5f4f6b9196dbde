"""Glossaries (issue 60): a TSV of ``source<TAB>target`` applied wherever the source term occurs, or a JSONL file
with one object per line of the set whose key (``--terms-key``, default ``terms``) maps that line's source terms to
target terms (WMT25's terminology files). Read whole before anything is kept: a bad glossary is one sentence and
nothing of it is used or saved. Terms are text, never patterns: ``c++`` or ``a.*b`` match only themselves."""

from __future__ import annotations

import re

from ..checks.terms import MAX_TERM_WORDS, Glossary, tokens
from ..core.errors import InputError
from ..core.limits import load_json, max_file_bytes
from .lines import decode_lines

#: Unicode's control characters (category Cc: C0, DEL, C1)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
#: the default JSONL key of a line's terms
DEFAULT_KEY = "terms"
#: a TSV's optional header
_HEADER = ("source", "target")


def _check_term(text: object, where: str, side: str) -> str:
    if not isinstance(text, str):
        raise InputError(f"{where}: the {side} term is not text")
    if not text.strip():
        raise InputError(f"{where}: the {side} term is empty")
    bad = _CONTROL.search(text)
    if bad is not None:
        raise InputError(f"{where}: the {side} term holds a control character (U+{ord(bad.group()):04X})")
    return text


def is_jsonl(data: bytes, name: str) -> bool:
    """Whether a glossary is JSONL: by its name, else by its first character."""
    if name.lower().endswith((".jsonl", ".json")):
        return True
    if name.lower().endswith((".tsv", ".txt")):
        return False
    return bytes(data).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")


def read_glossary(data: bytes, name: str, n_lines: int, key: str | None = None) -> Glossary:
    """A glossary from a file's bytes, for a set of ``n_lines`` lines; an InputError names what is wrong (one
    sentence): wrong columns, an empty term, a control character, a term given twice (the same or another target),
    a JSONL file whose line count is not the set's or whose line lacks the key."""
    if len(data) > max_file_bytes():
        raise InputError(f"glossary '{name}' is larger than {max_file_bytes() // 2**20} MB (MTLENS_MAX_FILE_MB)")
    if is_jsonl(data, name):
        return _read_jsonl(data, name, n_lines, key or DEFAULT_KEY)
    if key not in (None, DEFAULT_KEY):
        raise InputError(f"glossary '{name}' is a TSV file: --terms-key applies to a JSONL glossary only")
    return _read_tsv(data, name)


def _read_jsonl(data: bytes, name: str, n_lines: int, key: str) -> Glossary:
    lines = decode_lines(data, name)
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) != n_lines:
        raise InputError(
            f"glossary '{name}' has {len(lines):,} lines and the set {n_lines:,}: a JSONL glossary gives one object "
            "per line of the set"
        )
    per_line = []
    for i, text in enumerate(lines, 1):
        where = f"glossary '{name}', line {i}"
        obj = load_json(text, name, where)
        if not isinstance(obj, dict):
            raise InputError(f"{where} is not a JSON object")
        if key not in obj:
            keys = ", ".join(sorted(k for k, v in obj.items() if isinstance(v, dict))) or "none"
            raise InputError(f"{where} has no '{key}' (--terms-key); its keys of terms: {keys}")
        terms = obj[key]
        if not isinstance(terms, dict):
            raise InputError(f"{where}: '{key}' is not an object of source -> target terms")
        per_line.append(
            tuple((_check_term(k, where, "source"), _check_term(v, where, "target")) for k, v in terms.items())
        )
    return Glossary(name, per_line=tuple(per_line), key=key)


def _read_tsv(data: bytes, name: str) -> Glossary:
    table: dict[str, str] = {}
    prefixes: set[str] = set()
    longest = 0
    for i, line in enumerate(decode_lines(data, name), 1):
        if not line.strip():
            continue
        cells = line.split("\t")
        where = f"glossary '{name}', line {i}"
        if len(cells) != 2:
            raise InputError(f"{where} has {len(cells)} columns; a TSV glossary has two: source<TAB>target")
        if i == 1 and tuple(c.strip().lower() for c in cells) == _HEADER:
            continue
        src, tgt = _check_term(cells[0], where, "source").strip(), _check_term(cells[1], where, "target").strip()
        low = src.lower()
        if low in table:
            how = "again" if table[low] == tgt else f"with another target ('{table[low]}', then '{tgt}')"
            raise InputError(f"{where} gives the term '{src}' {how}: give each term once")
        spans = tokens(low)
        if len(spans) > MAX_TERM_WORDS:
            raise InputError(
                f"{where}: the term '{src[:60]}' has {len(spans)} words; terms have at most {MAX_TERM_WORDS}"
            )
        table[low] = tgt
        prefixes.update(low[:end] for _, end in spans[:-1])
        longest = max(longest, len(spans))
    if not table:
        raise InputError(f"glossary '{name}' holds no term")
    return Glossary(name, terms=table, longest=longest, prefixes=frozenset(prefixes))
