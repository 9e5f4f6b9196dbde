"""A neural job against comet-score on the same work, whole processes, in one run (issue 20's targets).

    python benchmarks/bench_neural.py [--systems 4] [--lines 200] [--repeat 3]

The tiny COMET checkpoint is built offline first (tests/neural/build_tiny_comet.py); both sides score the
bundled sample's systems against its first reference on the CPU, as whole processes from an empty cache:
- comet-score: ``comet-score -s src -t SYS... -r ref --model CKPT --gpus 0 --quiet --to_json out``;
- mtlens: ``python -m mtlens score --set ID --metrics comet:tiny`` on a saved set with a fresh store (the
  job runs inline: worker start, model load, scoring, every batch saved), then the same scores checked equal.
Printed: both times (best of --repeat), mtlens's overhead as a share of comet-score's time (target at most
10%), segments per second, and reopening the scored set (its cached scores read by a new Store, as a page
of a new session does; target under 0.5 s) with met / not met.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT

sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "sample_data"
SYSTEMS = ("VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin")


def timed(cmd, env=None) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    took = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed: {proc.stderr[-2000:]}")
    return took, proc


def score_set(set_id: str, store_dir: Path, *extra: str) -> list[str]:
    """``python -m mtlens score --set ID --metrics comet:tiny`` on a store."""
    return [
        sys.executable,
        "-m",
        "mtlens",
        "score",
        "--set",
        set_id,
        "--metrics",
        "comet:tiny",
        *extra,
        "--data-dir",
        str(store_dir),
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=4)
    ap.add_argument("--lines", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from mtlens.core.corpus import Corpus
    from mtlens.neural import models as neural
    from mtlens.storage.store import Store

    try:
        python = neural.python()
    except neural.NeuralUnavailable as err:  # one sentence, as every benchmark without its data
        raise SystemExit(f"bench_neural needs the neural extra: {err}") from None
    work = Path(tempfile.mkdtemp(prefix="mtlens-bench-neural-"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    subprocess.run(
        [
            python,
            "-I",
            str(ROOT / "tests/neural/build_tiny_comet.py"),
            str(work / "models"),
            str(SAMPLE / "src.txt"),
            str(SAMPLE / "ref.txt"),
            str(SAMPLE / "UEdin.txt"),
        ],
        check=True,
        capture_output=True,
        env=env,
    )
    ckpt = work / "models" / "tiny-comet" / "checkpoints" / "model.ckpt"
    names = SYSTEMS[: args.systems]
    files = {}
    for n in ("src", "ref", *names):
        lines = (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[: args.lines]
        files[n] = work / f"{n}.txt"
        files[n].write_text("\n".join(lines) + "\n", encoding="utf-8")
    n_segments = args.lines * len(names)

    comet = [
        str(Path(python).with_name("comet-score")),
        "-s",
        str(files["src"]),
        "-t",
        *[str(files[n]) for n in names],
        "-r",
        str(files["ref"]),
        "--model",
        str(ckpt),
        "--gpus",
        "0",
        "--quiet",
        "--to_json",
        str(work / "c.json"),
    ]
    cenv = {**env, "TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1"}
    t_comet = min(timed(comet, cenv)[0] for _ in range(args.repeat))
    gold = {Path(k).stem: [x["COMET"] for x in v] for k, v in json.loads((work / "c.json").read_text()).items()}

    t_ours, reopen, set_id, store_dir = float("inf"), None, None, None
    for k in range(args.repeat):
        store_dir = work / f"store{k}"
        store = Store(store_dir)
        neural.add_model(store, "tiny", ckpt)
        corpus = Corpus.build(
            {"ref": files["ref"].read_text(encoding="utf-8").split("\n")[:-1]},
            {n: files[n].read_text(encoding="utf-8").split("\n")[:-1] for n in names},
            files["src"].read_text(encoding="utf-8").split("\n")[:-1],
        )
        set_id = store.save(corpus, "bench")
        took, proc = timed(score_set(set_id, store_dir, "--format", "csv", "--sentence-level"))
        t_ours = min(t_ours, took)
    rows = list(csv.DictReader(io.StringIO(proc.stdout.split("\n\n")[-1] if "\n\n" in proc.stdout else proc.stdout)))
    worst = max(abs(float(r["comet:tiny"]) - gold[r["system"]][int(r["line"]) - 1]) for r in rows)
    assert worst <= 1e-6, f"scores differ from comet-score by {worst}"

    # reopening: a new Store (a new session's connection) reads the set and its cached scores
    t = time.perf_counter()
    store = Store(store_dir)
    model = neural.get_model(store, "tiny")
    scores = neural.cached_scores(store, model, store.load(set_id).corpus)
    reopen = time.perf_counter() - t
    assert scores is not None
    t_cli, _ = timed(score_set(set_id, store_dir))

    overhead = (t_ours - t_comet) / t_comet
    print(f"work: {len(names)} systems x {args.lines} lines = {n_segments} segments, tiny COMET checkpoint, CPU")
    print(f"comet-score (whole process, best of {args.repeat}): {t_comet:.2f} s, {n_segments / t_comet:.0f} segments/s")
    print(
        f"mtlens score --set --metrics comet:tiny (whole process, empty cache): {t_ours:.2f} s, "
        f"{n_segments / t_ours:.0f} segments/s; equal to comet-score (max difference {worst:.1e})"
    )
    print(
        f"overhead: {overhead * 100:+.1f}% of comet-score's time (target at most +10%): "
        f"{'met' if overhead <= 0.10 else 'not met'}"
    )
    print(
        f"reopening the scored set (new Store, cached scores): {reopen:.3f} s (target under 0.5 s): "
        f"{'met' if reopen < 0.5 else 'not met'}; the whole command from the cache: {t_cli:.2f} s"
    )


if __name__ == "__main__":
    main()
