"""Bytes to lines, the first step of every reader: size-limited reads, UTF-8 only (a BOM dropped, CRLF folded),
and a sentence naming the file and the line for anything else (UTF-16, binary, non-UTF-8 bytes)."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import stat
import threading
from pathlib import Path

from ..core.errors import InputError
from ..core.limits import max_file_bytes

#: bytes from the start of a file that :func:`_looks_utf16` looks at (a file is UTF-16 from its start)
UTF16_SAMPLE = 1 << 20

BOM = b"\xef\xbb\xbf"


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
    if data.startswith(BOM):
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


_PAUSES = 0
_PAUSED_FROM_ON = False
_PAUSE_LOCK = threading.Lock()


@contextlib.contextmanager
def collector_paused():
    """Python's cyclic garbage collector off while a reader builds a large file's objects, back as it was after.

    Building hundreds of thousands of small objects (one per row) set off full collections that walk every object
    alive: a 400,000-row MQM file took twice as long to read in a process holding other data. The objects a reader
    builds hold no cycles, so nothing is left uncollected. Readers in several threads at once: the collector comes
    back when the last one ends.
    """
    global _PAUSES, _PAUSED_FROM_ON
    with _PAUSE_LOCK:
        if _PAUSES == 0:
            _PAUSED_FROM_ON = gc.isenabled()
            gc.disable()
        _PAUSES += 1
    try:
        yield
    finally:
        with _PAUSE_LOCK:
            _PAUSES -= 1
            if _PAUSES == 0 and _PAUSED_FROM_ON:
                gc.enable()
