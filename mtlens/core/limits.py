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
            f"{name}={raw!r} is not a number from {low:g} to {high:g}; set it to a number of MB or unset it"
        )
    return value


def max_file_bytes() -> int:
    return int(env_number("MTLENS_MAX_FILE_MB", DEFAULT_MAX_FILE_MB, 0.001) * 2**20)


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


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{]|[\]}]')


def json_depth(text: str, stop: int = MAX_JSON_DEPTH) -> int:
    """The deepest bracket nesting of JSON text, strings skipped; stops counting past ``stop``.

    >>> json_depth('{"a": ["[[[", {"b": 1}]}')
    3
    """
    depth = deepest = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop:
                    break
        elif tok in "]}":
            depth -= 1
    return deepest


def load_json(data: bytes | str, file_name: str, label: str | None = None):
    """Parse JSON from a file (``label`` names the part, e.g. one line) with a sentence for bad text
    and for nesting deeper than :data:`MAX_JSON_DEPTH` (checked before parsing)."""
    label = label or f"'{file_name}'"
    if isinstance(data, str):
        text = data
    else:
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise InputError(f"{label} is not UTF-8 text (byte {err.start})") from None
    if json_depth(text) > MAX_JSON_DEPTH:
        raise InputError(f"{label} nests its JSON more than {MAX_JSON_DEPTH} levels deep")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:
        raise InputError(f"{label} is not valid JSON: {str(err)[:120]}") from None
