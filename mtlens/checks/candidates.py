"""Which lines the costly checks need to look at, for every line at once (issue 60: the checks over 8 systems x 100,000
lines as fast as BLEU). Two conditions of docs/checks.md are cheap to state and costly in Python one line at a
time; here they are computed for all lines of a system in one compiled pass over their code points:

- ``repetition`` looks at a line only when its tokens (words, marks, CJK characters of its case-folded text, as
  :mod:`.lines` cuts them) repeat an n-gram back to back often enough to be a loop, or it has a code point outside
  the Basic Multilingual Plane;
- ``untranslated`` looks at an output only when at least half of its distinct space-separated tokens (case-folded)
  are tokens of its source line.

Tokens and words are hashed (64-bit FNV-1a over their case-folded code points); two different ones with one hash
only make a line looked at for nothing, never a line passed over. The tables (each code point's token kind by the
check's own regular expressions, whether ``str.split`` splits on it, its ``str.casefold``) are Python's own, read
once per process; the exact
rules then run on the lines found (:mod:`.lines`), so the verdicts are the same as without this module
(tests/checks/test_candidates.py compares them on real lines).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from ..metrics import _compiled
from .lines import CJK as CJK_CHARS
from .lines import LOOP_REPEATS, MAX_LOOP_N, WORD_REPEATS

#: a code point's kind as the loop check's tokens have them (``_TOKEN`` of :mod:`.lines`)
OTHER, ALNUM, MARK, CJK = 0, 1, 2, 3
_CJK = re.compile(CJK_CHARS)
_ALNUM = re.compile(r"[^\W_]")
_MARK = re.compile(r"[^\w\s]")
#: the compiled loops' module (built ahead of time like the metrics' kernels: :mod:`mtlens.runtime.kernels`)
KERNEL = "mtlens.metrics._candidates_kernel"


@functools.lru_cache(maxsize=1)
def tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every code point of the Basic Multilingual Plane: its token kind (as the loop check's regular expression
    has it), whether ``str.split`` splits on it, and its case folding as a slice of one array (``start``,
    ``length``, ``data``). About 0.3 s, once per process."""
    kind = np.empty(0x10000, dtype=np.uint8)
    space = np.empty(0x10000, dtype=np.bool_)
    start = np.empty(0x10000, dtype=np.int32)
    length = np.empty(0x10000, dtype=np.int8)
    data: list[int] = []
    for cp in range(0x10000):
        ch = chr(cp)
        if 0xD800 <= cp <= 0xDFFF:  # a lone surrogate: a mark of its own
            kind[cp], space[cp], start[cp], length[cp] = MARK, False, len(data), 1
            data.append(cp)
            continue
        kind[cp] = CJK if _CJK.match(ch) else ALNUM if _ALNUM.match(ch) else MARK if _MARK.match(ch) else OTHER
        space[cp] = ch.isspace()
        folded = ch.casefold()
        start[cp], length[cp] = len(data), len(folded)
        data.extend(ord(c) for c in folded)
    return kind, space, start, length, np.array(data, dtype=np.uint32)


def _code_points(lines: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(lines) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lines], out=offsets[1:])
    text = bytearray("".join(lines).encode("utf-32-le", errors="surrogatepass"))  # writable: the kernel's signature
    return np.frombuffer(text, dtype=np.uint32), offsets


def may_loop(lines: Sequence[str]) -> np.ndarray:
    """Per line, whether :func:`mtlens.checks.lines.check_repetition` must look at it (the module's first rule)."""
    if not lines:
        return np.zeros(0, dtype=bool)
    cps, offsets = _code_points(lines)
    kind, _, fstart, flen, fdata = tables()
    loops = _compiled.load(KERNEL).loops
    return loops(cps, offsets, kind, fstart, flen, fdata, MAX_LOOP_N, WORD_REPEATS, LOOP_REPEATS).astype(bool)


def may_be_copies(sources: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """Per line, whether :func:`mtlens.checks.lines.check_untranslated` must look at the output (the second rule)."""
    if not outputs:
        return np.zeros(0, dtype=bool)
    out_cps, out_offsets = _code_points(outputs)
    src_cps, src_offsets = _code_points(sources)
    _, space, fstart, flen, fdata = tables()
    copies = _compiled.load(KERNEL).copies
    return copies(out_cps, out_offsets, src_cps, src_offsets, space, fstart, flen, fdata).astype(bool)
