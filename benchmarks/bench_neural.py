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

The shared-work case (issue 39, ``--case multi``): 8 systems x 1,002 lines of WMT22 en-de (../shared/data;
the sample's 4 systems without it) scored by each tiny checkpoint (reference-based COMET, CometKiwi-like,
xCOMET-like) with ``comet-score`` over the 8 files in one process and with ``mtlens score --metrics
comet:NAME`` (default fast mode) from an empty store. Both run with the same environment, which sets
``TOKENIZERS_PARALLELISM=false`` (mtlens's worker sets it; comet-score's speed depends on it). Printed per
model: CPU seconds of each whole process tree (the process and every child it waited for) and wall time,
the ratio comet-score / mtlens with met / not met (reference-based: at least 2x, moonshot 3x; the others:
not slower), the largest segment difference from comet-score in half-precision steps and in absolute
value, the largest system difference, and ``--exact`` checked equal to comet-score.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import resource
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


def cpu_timed(cmd, env=None) -> tuple[float, float, subprocess.CompletedProcess]:
    """(CPU seconds of the whole process tree, wall seconds, the finished process): the children's rusage
    before and after, so the worker a command starts and waits for is counted with it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, proc = timed(cmd, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc


def half_steps(diff: float, gold: float) -> float:
    """A difference in steps of float16 at the gold value (2^(e-10) for |gold| in [2^e, 2^(e+1)))."""
    g = abs(gold) or 2.0**-14
    return diff / 2.0 ** (math.floor(math.log2(g)) - 10)


def multi(python: str, models_dir: Path, work: Path, env: dict) -> None:
    """The shared-work case: comet-score vs mtlens's default mode over 8 systems of one test set."""
    from common import SHARED

    from mtlens.neural import models as neural
    from mtlens.storage.store import Store

    folder = SHARED / "wmt" / "en-de"
    if folder.exists():
        names = sorted(p.stem for p in folder.glob("*.txt") if not p.stem.startswith(("ref", "src")))[:8]
        where = "WMT22 en-de (../shared/data)"
    else:
        folder, names, where = SAMPLE, list(SYSTEMS), "the bundled sample (no ../shared/data)"
    files = {n: folder / f"{n}.txt" for n in ("src", "ref", *names)}
    n_lines = len(files["src"].read_text(encoding="utf-8").split("\n")) - 1
    same = {**env, "TOKENIZERS_PARALLELISM": "false", "TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1"}
    print(f"\nshared work: {len(names)} systems x {n_lines} lines of {where}, CPU, whole processes, one run each;")
    print("both with TOKENIZERS_PARALLELISM=false (the same environment)")
    for model, needs_ref, target in (("tiny-comet", True, 2.0), ("tiny-kiwi", False, 1.0), ("tiny-xcomet", True, 1.0)):
        ckpt = models_dir / model / "checkpoints" / "model.ckpt"
        out = work / f"multi-{model}.json"
        cmd = [
            str(Path(python).with_name("comet-score")),
            "-s",
            str(files["src"]),
            "-t",
            *[str(files[n]) for n in names],
        ]
        if needs_ref:
            cmd += ["-r", str(files["ref"])]
        cmd += ["--model", str(ckpt), "--gpus", "0", "--quiet", "--to_json", str(out)]
        c_cpu, c_wall, _ = cpu_timed(cmd, same)
        gold = {Path(k).stem: [x["COMET"] for x in v] for k, v in json.loads(out.read_text()).items()}
        results = {}
        for how in ("fast", "exact"):
            if how == "exact" and model != "tiny-comet":
                continue
            store_dir = work / f"multi-store-{model}-{how}"
            neural.add_model(Store(store_dir), "m", ckpt)
            args = [sys.executable, "-m", "mtlens", "score", "--src", str(files["src"]), "--sys"]
            args += [str(files[n]) for n in names] + ["--ref", str(files["ref"]), "--metrics", "comet:m"]
            args += ["--format", "csv", "--sentence-level", "--data-dir", str(store_dir)]
            if how == "exact":
                args.append("--exact")
            cpu, wall, proc = cpu_timed(args, same)
            rows = list(csv.DictReader(io.StringIO(proc.stdout)))
            ours: dict[str, list[float]] = {}
            for r in rows:
                ours.setdefault(r["system"], []).append(float(r["comet:m"]))
            seg = [(abs(a - b), b) for n in names for a, b in zip(ours[n], gold[n], strict=True)]
            results[how] = dict(
                cpu=cpu,
                wall=wall,
                worst=max(d for d, _ in seg),
                steps=max(half_steps(d, g) for d, g in seg),
                off=sum(d > 0 for d, _ in seg),
                n=len(seg),
                system=max(abs(sum(ours[n]) / len(ours[n]) - sum(gold[n]) / len(gold[n])) for n in names),
            )
        f = results["fast"]
        ratio = c_cpu / f["cpu"]
        goal = f"at least {target:.0f}x" if target > 1 else "not slower (1x)"
        print(
            f"{model}: comet-score {c_cpu:.1f} s CPU ({c_wall:.1f} s wall); mtlens {f['cpu']:.1f} s CPU "
            f"({f['wall']:.1f} s wall); ratio {ratio:.2f}x CPU, {c_wall / f['wall']:.2f}x wall "
            f"(target {goal}{', moonshot 3x' if target > 1 else ''}): {'met' if ratio >= target else 'not met'}"
        )
        print(
            f"  segments: {f['off']} of {f['n']} differ from comet-score, at most {f['worst']:.2e} "
            f"({f['steps']:.2f} half-precision steps; tolerance 1 step); systems at most {f['system']:.1e} "
            f"(4 decimals: {'met' if f['system'] < 5e-5 else 'not met'}); within 1e-4: "
            f"{'met' if f['worst'] <= 1e-4 else 'not met'}"
        )
        if "exact" in results:
            e = results["exact"]
            print(
                f"  --exact: {e['cpu']:.1f} s CPU ({e['wall']:.1f} s wall), largest difference {e['worst']:.1e} "
                f"({'equal' if e['worst'] <= 1e-6 else 'NOT equal'} to comet-score)"
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=4)
    ap.add_argument("--lines", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--case", default="all", choices=["parity", "multi", "all"])
    args = ap.parse_args()
    from mtlens.core.corpus import Corpus
    from mtlens.neural import environment as neural_env
    from mtlens.neural import models as neural
    from mtlens.neural import segments as neural_segments
    from mtlens.storage.store import Store

    try:
        python = neural_env.python()
    except neural_env.NeuralUnavailable as err:  # one sentence, as every benchmark without its data
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
    if args.case in ("multi", "all"):
        multi(python, work / "models", work, env)
    if args.case == "multi":
        return
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
        took, proc = timed(score_set(set_id, store_dir, "--format", "csv", "--sentence-level", "--exact"))
        t_ours = min(t_ours, took)
    rows = list(csv.DictReader(io.StringIO(proc.stdout.split("\n\n")[-1] if "\n\n" in proc.stdout else proc.stdout)))
    worst = max(abs(float(r["comet:tiny"]) - gold[r["system"]][int(r["line"]) - 1]) for r in rows)
    assert worst <= 1e-6, f"scores differ from comet-score by {worst}"

    # reopening: a new Store (a new session's connection) reads the set and its cached scores
    t = time.perf_counter()
    store = Store(store_dir)
    model = neural.get_model(store, "tiny")
    scores = neural_segments.cached_scores(store, model, store.load(set_id).corpus, neural.EXACT)
    reopen = time.perf_counter() - t
    assert scores is not None
    t_cli, _ = timed(score_set(set_id, store_dir, "--exact"))

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
