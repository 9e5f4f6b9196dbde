"""Bounds on everything read from outside: files, decompression, JSON nesting, settings.

One place for the limits (docs/security.md): every decompression and parse of data that comes from a
user has a bound, and going past it is one sentence naming the limit, never a traceback or a server
that runs out of memory.

Example:
    >>> load_json(b'{"a": [1, 2]}', "x.json")
    {'a': [1, 2]}
    >>> load_json(b"[" * 40 + b"]" * 40, "deep.json")
    Traceback (most recent call last):
    ...
    mtlens.core.errors.InputError: 'deep.json' nests its JSON more than 32 levels deep
"""

from __future__ import annotations

import json
import math
import os
import re
import zlib

from .errors import InputError

#: the deepest JSON an imported file or bundle may nest (comet-score's output nests 4 deep, bundles 3)
MAX_JSON_DEPTH = 32
#: the largest file the command line reads, MB (``MTLENS_MAX_FILE_MB``): ``--sys /dev/zero`` stops here
DEFAULT_MAX_FILE_MB = 512
#: the most text a set bundle may unpack to, MB (``MTLENS_MAX_BUNDLE_MB``); its JSON is parsed only below it
DEFAULT_MAX_BUNDLE_MB = 256


#: the most hypothesis x reference word pairs TER aligns in one line (``MTLENS_MAX_TER_WORD_PAIRS``):
#: its tables take 16 bytes a pair (two lines of 3,000 words: 144 MB); a 19,000-word line would take 5.8 GB
DEFAULT_MAX_TER_WORD_PAIRS = 9_000_000
#: the longest word tolerant BLEU compares with another word of similar length, characters
#: (``MTLENS_MAX_TBLEU_WORD_CHARS``): the affix distance takes time with the square of the length
DEFAULT_MAX_TBLEU_WORD_CHARS = 1_000


def env_number(name: str, default: float, low: float = 0.0, high: float = 1e9) -> float:
    """A positive number from the environment variable ``name`` (``default`` when unset), or a sentence.

    >>> env_number("MTLENS_NOT_SET_ANYWHERE", 5)
    5
    """
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not low <= value <= high:
        raise InputError(
            f"{name}={raw!r} is not a number from {low:g} to {high:g}; set it to a number in that range or unset it"
        )
    return value


def max_file_bytes() -> int:
    return int(env_number("MTLENS_MAX_FILE_MB", DEFAULT_MAX_FILE_MB, 0.001) * 2**20)


#: the most rows a table on a page draws (``MTLENS_MAX_TABLE_ROWS``); its downloads hold every row
DEFAULT_MAX_TABLE_ROWS = 5_000


def max_table_rows() -> int:
    return int(env_number("MTLENS_MAX_TABLE_ROWS", DEFAULT_MAX_TABLE_ROWS, 1))


#: the most line texts (lines x (references + systems)) of a set a dashboard visitor uploads, imports as a bundle or
#: grows with runs (``MTLENS_MAX_VISITOR_LINES``); the operator's command line is not bound by it. Measured (issue
#: 51: benchmarks/bench_visitor_memory.py, a shared server and Chromium, the server's process tree RSS): 3 x 50,000
#: lines peaked at 1,411 MB on Rankings, so the bound is 90,000 (WMT22 en-de, 1 reference and 15 systems, is 32,592)
DEFAULT_MAX_VISITOR_LINES = 90_000
#: the most documents of a visitor's set (``MTLENS_MAX_VISITOR_DOCUMENTS``): every document is a group of the
#: pages' per-document tables and a unit of the document-level tests (WMT22's largest test set has 511)
DEFAULT_MAX_VISITOR_DOCUMENTS = 10_000


def max_visitor_lines() -> int:
    return int(env_number("MTLENS_MAX_VISITOR_LINES", DEFAULT_MAX_VISITOR_LINES, 1))


def check_visitor_size(n_lines: int, n_streams: int, n_documents: int = 0, what: str = "this set") -> None:
    """Refuse, in one sentence, a set larger than a dashboard visitor may make the server hold (the operator
    imports larger sets with the command line).

    >>> check_visitor_size(2_000, 10)
    >>> check_visitor_size(100_000, 3)
    Traceback (most recent call last):
    ...
    mtlens.core.errors.InputError: this set has 100,000 lines x 3 texts (300,000 line texts); a set made on the dashboard may hold at most 90,000 (MTLENS_MAX_VISITOR_LINES): the operator can import it with python -m mtlens import
    """
    most = max_visitor_lines()
    if n_lines * n_streams > most:
        raise InputError(
            f"{what} has {n_lines:,} lines x {n_streams} texts ({n_lines * n_streams:,} line texts); a set made on "
            f"the dashboard may hold at most {most:,} (MTLENS_MAX_VISITOR_LINES): the operator can import it with "
            "python -m mtlens import"
        )
    docs = int(env_number("MTLENS_MAX_VISITOR_DOCUMENTS", DEFAULT_MAX_VISITOR_DOCUMENTS, 1))
    if n_documents > docs:
        raise InputError(
            f"{what} has {n_documents:,} documents; a set made on the dashboard may have at most {docs:,} "
            "(MTLENS_MAX_VISITOR_DOCUMENTS): the operator can import it with python -m mtlens import"
        )


#: the most rows of human ratings (MQM errors, ESA ratings) a dashboard visitor gives a set, all its files together
#: (``MTLENS_MAX_VISITOR_RATINGS``); the operator's command line is not bound by it. Issue 58: a visitor's 27 MB ESA
#: file (500,000 rows, 83,334 raters) pinned the server, a 200,001-row MQM file took it past 3.5 GB; WMT24's two
#: published ESA waves of en-ja and en-zh have 31,733 rows together
DEFAULT_MAX_VISITOR_RATINGS = 100_000


def rating_rows(data: bytes) -> int:
    """The rows a ratings file holds, counted before it is parsed: its lines, or its JSON objects where a file holds
    them on fewer lines (a single-line JSON file)."""
    lines = data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))
    return max(lines, data.count(b"{"))


def check_visitor_ratings(files, already: int = 0, what: str = "these ratings") -> None:
    r"""Refuse, in one sentence, human ratings beyond what a dashboard visitor may give a set (``files``: ``(name,
    bytes)``; ``already``: the rows the set holds).

    >>> check_visitor_ratings([("a.tsv", b"x\n" * 10)])
    >>> check_visitor_ratings([("a.tsv", b"x\n" * 100_001)])
    Traceback (most recent call last):
    ...
    mtlens.core.errors.InputError: these ratings: 100,001 rows; a visitor may give a set at most 100,000 rows of ratings (MTLENS_MAX_VISITOR_RATINGS): the operator can import them with python -m mtlens import --ratings FILE --set ID
    """
    most = int(env_number("MTLENS_MAX_VISITOR_RATINGS", DEFAULT_MAX_VISITOR_RATINGS, 1))
    rows = already + sum(rating_rows(data) for _, data in files)
    if rows > most:
        held = f" (the set holds {already:,} already)" if already else ""
        raise InputError(
            f"{what}: {rows:,} rows{held}; a visitor may give a set at most {most:,} rows of ratings "
            "(MTLENS_MAX_VISITOR_RATINGS): the operator can import them with python -m mtlens import --ratings FILE "
            "--set ID"
        )


def max_ter_word_pairs() -> int:
    return int(env_number("MTLENS_MAX_TER_WORD_PAIRS", DEFAULT_MAX_TER_WORD_PAIRS, 1))


def max_tbleu_word_chars() -> int:
    return int(env_number("MTLENS_MAX_TBLEU_WORD_CHARS", DEFAULT_MAX_TBLEU_WORD_CHARS, 1))


def max_bundle_bytes() -> int:
    return int(env_number("MTLENS_MAX_BUNDLE_MB", DEFAULT_MAX_BUNDLE_MB, 0.001) * 2**20)


def gunzip(data: bytes, limit: int, label: str) -> bytes:
    """Decompress gzip data, refusing (in one sentence) anything that unpacks to more than ``limit``
    bytes; memory stays at about ``limit`` whatever the data claims.

    >>> import gzip
    >>> gunzip(gzip.compress(b"abc"), 10, "f")
    b'abc'
    >>> gunzip(gzip.compress(b" " * 100), 10, "f")
    Traceback (most recent call last):
    ...
    mtlens.core.errors.InputError: f unpacks to more than 10 bytes (0.0 MB), the limit for one bundle (MTLENS_MAX_BUNDLE_MB)
    """
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(bytes(data), limit + 1)
    except zlib.error:
        raise InputError(f"{label} is not a gzip file") from None
    if len(out) > limit or (d.unconsumed_tail and not d.eof):
        raise InputError(
            f"{label} unpacks to more than {limit} bytes ({limit / 2**20:.1f} MB), the limit for one bundle "
            "(MTLENS_MAX_BUNDLE_MB)"
        )
    if not d.eof:
        raise InputError(f"{label} is cut short (an incomplete gzip file)")
    return out


#: the most JSON values (keys, strings, numbers, lists, objects) one file or bundle may hold
#: (``MTLENS_MAX_JSON_VALUES``): counted before parsing, so 250 MB of ``{},{},...`` is refused
#: instead of becoming 87 million Python objects (about 6 GB); a bundle at its 5 million lines fits
DEFAULT_MAX_JSON_VALUES = 6_000_000

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


def max_json_values() -> int:
    return int(env_number("MTLENS_MAX_JSON_VALUES", DEFAULT_MAX_JSON_VALUES, 1))


def _values(data: bytes) -> int:
    """An upper bound on the values of JSON text (keys counted): each one is the root or follows an
    opening bracket, a comma or a colon."""
    return 1 + sum(data.count(c) for c in (b",", b":", b"[", b"{"))


def json_shape(data: bytes, stop: int = MAX_JSON_DEPTH) -> tuple[int, int]:
    """How many values JSON text holds at most, and how deep it nests (counted up to ``stop``),
    strings skipped. Byte counts in C: about 1 s for 250 MB. In a text over 1 MB strings are cut out
    only when the counts over the whole text are too large to rule out a refusal (the counts are then
    upper bounds).

    >>> json_shape(b'{"a": ["[[[", {"b": 1}]}')
    (7, 3)
    """
    data = bytes(data)
    if len(data) <= 2**20 or _values(data) > max_json_values() or data.count(b"[") + data.count(b"{") > stop:
        data = _STRING.sub(b"", data)  # brackets, commas and colons inside strings do not count
    values = _values(data)
    if values > max_json_values():
        return values, 0  # refused for its size: its depth is not needed
    brackets = data.translate(None, _NOT_BRACKETS)
    if len(brackets) // 2 <= stop:
        return values, len(brackets) // 2 and _deepest(brackets)
    import numpy as np

    steps = np.frombuffer(brackets, dtype=np.uint8)
    return values, int(np.cumsum(np.where((steps == ord("[")) | (steps == ord("{")), 1, -1)).max())


def _deepest(brackets: bytes) -> int:
    depth = deepest = 0
    for b in brackets:
        depth += 1 if b in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def load_json(data: bytes | str, file_name: str, label: str | None = None):
    """Parse JSON from a file (``label`` names the part, e.g. one line) with a sentence for bad text,
    for more values than :func:`max_json_values` and for nesting deeper than :data:`MAX_JSON_DEPTH`
    (both checked before parsing, so parsing never builds more objects than the limit)."""
    label = label or f"'{file_name}'"
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    values, depth = json_shape(raw)
    if values > max_json_values():
        raise InputError(
            f"{label} holds more than {max_json_values():,} JSON values, the limit for one file "
            "(MTLENS_MAX_JSON_VALUES)"
        )
    if depth > MAX_JSON_DEPTH:
        raise InputError(f"{label} nests its JSON more than {MAX_JSON_DEPTH} levels deep")
    if isinstance(data, str):
        text = data
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise InputError(f"{label} is not UTF-8 text (byte {err.start})") from None
        del raw
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:
        raise InputError(f"{label} is not valid JSON: {str(err)[:120]}") from None
