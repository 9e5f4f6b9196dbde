"""A span source made by a fixed rule, written as comet-score's JSON with xCOMET's ``errors`` (the test input of
issue 61's meta-evaluation, not an expected value): every run of Latin letters is a major error, every run of four
or more katakana a minor one; the score falls with the errors, plus distinct small terms so that no two items tie
(the criticality F1's ordering is then the same in any item order). Used by make_meta_golden.py and the tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

RULE = re.compile(r"[A-Za-z]+|[\u30a1-\u30f4\u30fc]{4,}")


def span_source(folder: Path, systems: list[str]) -> dict:
    out = {}
    for k, name in enumerate(systems):
        segs = []
        for i, line in enumerate((folder / f"{name}.txt").read_text(encoding="utf-8").split("\n")[:-1]):
            errs = [
                {"text": m.group(), "start": m.start(), "end": m.end(), "confidence": 0.5,
                 "severity": "major" if m.group()[0].isascii() else "minor"}
                for m in RULE.finditer(line)
            ]  # fmt: skip
            score = 1.0 - 0.07 * len(errs) - 0.001 * (i % 7) - 0.0001 * k - 1e-7 * i
            segs.append({"src": "", "mt": line, "COMET": score, "errors": errs})
        out[f"{name}.txt"] = segs
    return out


def write(folder: Path, systems: list[str], path: Path) -> Path:
    path.write_text(json.dumps(span_source(folder, systems), ensure_ascii=False), encoding="utf-8")
    return path
