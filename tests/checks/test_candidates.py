"""The compiled conditions of :mod:`mtlens.checks.candidates` keep every line the checks' own Python conditions keep
(:func:`mtlens.checks.lines.may_loop`'s cheap test, :func:`mtlens.checks.lines.check_untranslated`'s share of
tokens), on every bundled line (English, German, Czech, Chinese, Japanese sources and outputs), the documented
cases, and lines built to sit on each rule's edge; and the verdicts with them equal the verdicts without."""

from __future__ import annotations

import numpy as np

from mtlens.checks import CHECKS, failing
from mtlens.checks.candidates import may_be_copies, may_loop
from mtlens.checks.lines import LOOKED_AT, check_repetition, check_untranslated
from mtlens.checks.lines import may_loop as lines_may_loop

from ..conftest import ROOT, SAMPLE
from .test_documented_cases import CASES

EDGES = [
    "Ha ha ha ha.", "STRASSE straße straße", "ſtraße STRASSE", "a,b,c", "a,b", "x!!! y", "😀 😀 😀 😀", "ΣΑΣ σας σας",
    "the cat the cat", "der die das der die", "a b a b a b", "a_b a_b a_b", "İstanbul İstanbul İstanbul İstanbul",
    "ﬁx ﬁx fix fix", "x x x", "x x x x", "(a)(a)(a)", "a  b  a  b  a  b", "\u00a0nach\u2003Hause nach Hause", "", "   ", "東京 東京",
]  # fmt: skip


def _python_may_loop(line: str) -> bool:
    return lines_may_loop(line) or any(ord(c) > 0xFFFF for c in line)


def _python_may_copy(source: str, output: str) -> bool:
    toks = set(output.casefold().split())
    return bool(toks) and len(toks & set(source.casefold().split())) >= LOOKED_AT * len(toks)


def _lines() -> list[str]:
    files = [*SAMPLE.glob("*.txt"), *(ROOT / "tests" / "data").glob("*/*.txt")]
    out = [x for f in sorted(files) for x in f.read_text(encoding="utf-8").splitlines()]
    return [*out, *(o for rows in CASES.values() for _, o, _ in rows), *EDGES]


def test_the_compiled_conditions_keep_every_line_the_python_ones_keep():
    lines = _lines()
    got = may_loop(lines)
    want = np.array([_python_may_loop(x) for x in lines])
    assert not (want & ~got).any(), [x for x, w, g in zip(lines, want, got, strict=True) if w and not g][:5]
    assert (got == want).mean() > 0.999  # a hash collision only adds a line
    sources = list(reversed(lines))
    got = may_be_copies(sources, lines)
    want = np.array([_python_may_copy(s, o) for s, o in zip(sources, lines, strict=True)])
    same = may_be_copies(lines, lines)
    assert not (want & ~got).any()
    assert (got == want).mean() > 0.999 and same[[bool(x.split()) for x in lines]].all()


def test_the_verdicts_with_the_conditions_equal_the_verdicts_without():
    lines = _lines()
    sources = list(reversed(lines))
    fast = failing(CHECKS["repetition"], sources, {"A": lines, "B": sources})
    assert fast == {
        "A": [bool(check_repetition(s, o)) for s, o in zip(sources, lines, strict=True)],
        "B": [bool(check_repetition(s, s)) for s in sources],
    }
    fast = failing(CHECKS["untranslated"], sources, {"A": lines, "B": sources})
    assert fast == {
        "A": [bool(check_untranslated(s, o)) for s, o in zip(sources, lines, strict=True)],
        "B": [bool(check_untranslated(s, s)) for s in sources],
    }
    assert any(fast["B"])  # a copy of the source fails where the line is long enough to tell
    assert check_repetition(None, "Ha ha ha ha.") and check_untranslated(EDGES[8] * 3, EDGES[8] * 3)
