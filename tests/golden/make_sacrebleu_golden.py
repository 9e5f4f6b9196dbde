"""Compute sacrebleu's golden values for the full-data parity tests and write them to
``tests/golden/sacrebleu.json.gz``, and those of the bundled excerpts' slow questions to
``tests/golden/excerpts.json``.

    .venv/bin/python -m tests.golden.make_sacrebleu_golden [--check]

Runs sacrebleu (the version in requirements.txt) on every case of ``tests/golden/cases.py`` over
``../shared/data/wmt``; the file also holds sacrebleu's version and a SHA-256 of every data file a case
reads, so a parity test fails (and says to run this script) when either changed. sacrebleu's TER is
pure Python and slow on long lines: its lines are shared among the cores. About 10 minutes on 2 cores.
With ``--check`` nothing is written: the script recomputes everything and exits 1 when a value differs
from the file (a scheduled CI job can run this weekly).
"""

from __future__ import annotations

import argparse
import functools
import gzip
import hashlib
import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF, TER

from .cases import PAIRS, SAMPLE_TER, beam_shapes, cases, excerpt_cases, select, stats_digest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "wmt"
OUT = Path(__file__).with_name("sacrebleu.json.gz")
EXCERPTS = ROOT / "tests" / "data"
OUT_EXCERPTS = Path(__file__).with_name("excerpts.json")
#: what a test that finds stale golden values says
REDO = "run 'python -m tests.golden.make_sacrebleu_golden' again"


def read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def pair_files(folder: Path):
    """References (ref.txt, ref2.txt, ...) and systems of a pair folder, as the tests read them."""
    refs = [read(p) for p in sorted(folder.glob("ref*.txt"))]
    systems = {p.stem: read(p) for p in sorted(folder.glob("*.txt")) if not p.stem.startswith(("ref", "src"))}
    return refs, systems


def data_digest(folder: Path) -> str:
    """SHA-256 over the names and bytes of a pair's text files."""
    h = hashlib.sha256()
    for p in sorted(folder.glob("*.txt")):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _ter_part(refs, hyp, options):
    return [[float(v) for v in row] for row in TER(**options, references=refs)._extract_corpus_statistics(hyp, None)]


def ter_stats(refs, hyp, options) -> list[list[float]]:
    """sacrebleu's per-line TER statistics; each line depends on itself alone, so every k-th line goes to
    one process and the lines are put back in order."""
    k = max(1, min(len(os.sched_getaffinity(0)), 4))
    if k == 1 or len(hyp) < 100:
        return _ter_part(refs, hyp, options)
    parts = [([r[j::k] for r in refs], hyp[j::k], options) for j in range(k)]
    with ProcessPoolExecutor(k, mp_context=multiprocessing.get_context("spawn")) as ex:
        done = list(ex.map(_ter_part, *zip(*parts, strict=True)))
    out = [None] * len(hyp)
    for j, part in enumerate(done):
        out[j::k] = part
    return out


def golden(case, refs, systems):
    if case.kind == "ter":
        return {name: ter_stats(refs, hyp, case.options) for name, hyp in systems.items()}
    if case.kind == "bleu-counts":
        out = {}
        for name, hyp in systems.items():
            b = BLEU(**case.options).corpus_score(hyp, refs)
            out[name] = {"score": b.score, "counts": b.counts, "totals": b.totals}
        return out
    if case.kind == "chrf-lines":
        return {
            name: {
                "score": CHRF(**case.options).corpus_score(hyp, refs).score,
                "lines": stats_digest(CHRF(**case.options)._extract_corpus_statistics(hyp, refs)),
            }
            for name, hyp in systems.items()
        }
    cls = {"bleu": BLEU, "chrf": CHRF, "ter": TER}[case.metric]
    if case.kind == "sentence":
        m = cls(**case.options)
        return {
            name: [m.sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(hyp)]
            for name, hyp in systems.items()
        }
    m = cls(**case.options, references=refs)
    return {name: m.corpus_score(hyp, None).score for name, hyp in systems.items()}


def compute() -> dict:
    data = {pair: pair_files(SHARED / pair) for pair in PAIRS}
    out = {
        "sacrebleu": sacrebleu.__version__,
        "data": {pair: data_digest(SHARED / pair) for pair in PAIRS},
        "cases": {},
    }
    for case in cases():
        refs, systems = select(case, *data[case.pair])
        out["cases"][case.id] = golden(case, refs, systems)
        print(f"{case.id}: {len(systems)} system(s)", file=sys.stderr)
    return out


def excerpt_folder(name: str) -> Path:
    """A bundled excerpt's folder: ``sample_en-de`` is sample_data/, the others are in tests/data/."""
    return ROOT / "sample_data" if name == "sample_en-de" else EXCERPTS / name


def compute_excerpts() -> dict:
    pairs = sorted({c.pair for c in excerpt_cases()})
    data = {pair: pair_files(excerpt_folder(pair)) for pair in pairs}
    out = {"sacrebleu": sacrebleu.__version__, "data": {p: data_digest(excerpt_folder(p)) for p in pairs}, "cases": {}}
    for case in excerpt_cases():
        out["cases"][case.id] = golden(case, *select(case, *data[case.pair]))
    # TER's per-line statistics on the sample's lines joined into the beam's shapes (cases.beam_shapes)
    sample_refs, sample_systems = data["sample_en-de"]
    shapes = beam_shapes(sample_refs, next(iter(sample_systems.values())))
    out["cases"]["ter-beam-shapes"] = {name: ter_stats(r, h, {}) for name, (r, h) in shapes.items()}
    return out


@functools.cache
def shared_golden() -> dict:
    """sacrebleu's values for the full-data cases (``cases.cases``): case id -> values, checked to come
    from this sacrebleu and this data (a test then fails, naming this script)."""
    doc = json.loads(gzip.decompress(OUT.read_bytes()))
    assert doc["sacrebleu"] == sacrebleu.__version__, f"golden values from sacrebleu {doc['sacrebleu']}: {REDO}"
    for pair in PAIRS:
        assert doc["data"][pair] == data_digest(SHARED / pair), f"{pair}'s data changed: {REDO}"
    assert set(doc["cases"]) == {c.id for c in cases()}, f"the cases changed: {REDO}"
    return doc["cases"]


@functools.cache
def _excerpts() -> dict:
    """``excerpts.json``, read and checked once: it comes from this sacrebleu and these excerpts."""
    doc = json.loads(OUT_EXCERPTS.read_text(encoding="utf-8"))
    assert doc["sacrebleu"] == sacrebleu.__version__, f"golden values from sacrebleu {doc['sacrebleu']}: {REDO}"
    for pair, digest in doc["data"].items():
        assert digest == data_digest(excerpt_folder(pair)), f"the {pair} excerpt changed: {REDO}"
    assert set(doc["cases"]) == {c.id for c in excerpt_cases()} | {"ter-beam-shapes"}, f"the cases changed: {REDO}"
    return doc["cases"]


def excerpt_golden(case_id: str) -> dict:
    """sacrebleu's values for one excerpt case (``cases.excerpt_cases``), checked to come from this
    sacrebleu and this data (a test then fails, naming this script)."""
    cases_ = _excerpts()
    assert case_id in cases_, f"no golden values for {case_id}: {REDO}"
    return cases_[case_id]


def ter_score(lines, options: dict | None = None) -> float:
    """sacrebleu's corpus TER from its stored per-line statistics: a line's depend on that line alone, so
    the corpus score of any lines is sacrebleu's own score of the sum of theirs."""
    return TER(**(options or {}))._compute_score_from_stats([float(v) for v in np.sum(lines, axis=0)]).score


def sample_ter() -> dict[str, float]:
    """sacrebleu's corpus TER (default options, both references) of each system on the whole sample,
    from its stored per-line statistics (``cases.SAMPLE_TER``)."""
    return {name: ter_score(stats) for name, stats in excerpt_golden(SAMPLE_TER).items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="recompute and compare with the file; write nothing")
    args = ap.parse_args(argv)
    excerpts = compute_excerpts()
    if args.check:
        if json.loads(OUT_EXCERPTS.read_text(encoding="utf-8")) != excerpts:
            print(f"{OUT_EXCERPTS.name} differs from sacrebleu's values: run the script again", file=sys.stderr)
            return 1
    else:
        OUT_EXCERPTS.write_text(json.dumps(excerpts, sort_keys=True, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {OUT_EXCERPTS}", file=sys.stderr)
    if not SHARED.is_dir():
        print(f"{SHARED} is missing: the golden values are computed from the full data", file=sys.stderr)
        return 2
    new = compute()
    if args.check:
        old = json.loads(gzip.decompress(OUT.read_bytes()))
        if old != new:
            print(f"{OUT.name} differs from sacrebleu's values on this data: run the script again", file=sys.stderr)
            return 1
        print(f"{OUT.name} holds sacrebleu's values", file=sys.stderr)
        return 0
    OUT.write_bytes(gzip.compress(json.dumps(new, sort_keys=True).encode("utf-8"), mtime=0))
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
