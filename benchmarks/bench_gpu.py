"""COMET and MetricX on the device torch sees (a GPU where there is one) against their own runners, whole processes,
in one run (issue 62). Run through ``benchmarks/gpu.sh``, which prepares the interpreter; by hand:

    python benchmarks/bench_gpu.py [--shape large] [--systems 8] [--lines 1002] [--mx-systems 4] [--mx-lines 250]

Checkpoints are built offline first, with random weights (tests/neural/build_tiny_comet.py and build_tiny_metricx.py):
``--shape large`` gives wmt22-comet-da's shape (XLM-R large) and MetricX-24-Hybrid-Large's (mT5-large), so that the
times are those of the real models' sizes; ``--shape tiny`` the tests' checkpoints (the CPU check of this script).
The work: the first ``--systems`` systems x ``--lines`` lines of WMT22 en-de (``--data``; ../shared/data/wmt/en-de,
else the bundled sample) with the source and the first reference. Each side runs from nothing, as a user meets it:

- COMET: ``comet-score --gpus 1`` (``--gpus 0`` without a GPU) at its default batch size (16) and at ``--batch_size
  256``, the faster of the two being the peer; ``mtlens score --metrics comet:m`` (default, fast mode: each distinct
  sentence encoded once, batches by length, the batch size from the GPU's free memory) and ``--exact``
  (comet-score's path);
- MetricX: Google's ``metricx24.predict`` (tests/neural/google_metricx, vendored) at batch size 1, the only one its
  runner computes right (metricx#2); ``mtlens score --metrics metricx:m`` (default: distinct rows in padded batches by
  length, the batch size from the GPU's free memory) and ``--exact`` (one segment at a time, as Google's).

Printed: the device, the versions, a table of wall and CPU seconds, the ratios of mtlens's default mode to the
strongest peer, and whether the numbers are the same within the tolerance each mode promises: COMET's fast mode within
one half-precision step of comet-score at every segment, ``--exact`` equal (1e-6); MetricX within 1e-4 of Google's.
``--json FILE`` writes the same figures for a test to read.
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
from pathlib import Path

from bench_neural import cpu_timed, half_steps
from common import ROOT, SHARED

sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "sample_data"
COMET_SCORE = "import sys; from comet.cli.score import score_command; sys.argv[0] = 'comet-score'; score_command()"
DEVICE = (
    "import json, torch, transformers; cuda = torch.cuda.is_available(); print(json.dumps({'cuda': cuda, "
    "'name': torch.cuda.get_device_name(0) if cuda else 'CPU', 'torch': torch.__version__, "
    "'transformers': transformers.__version__}))"
)


def cut(folder: Path, systems: int, lines: int, into: Path) -> tuple[list[str], int]:
    """The first ``systems`` systems and ``lines`` lines of a folder of plain-text files, written to ``into``."""
    names = sorted(p.stem for p in folder.glob("*.txt") if not p.stem.startswith(("ref", "src")))[:systems]
    ref = sorted(p.stem for p in folder.glob("ref*.txt"))[0]
    into.mkdir(parents=True, exist_ok=True)
    text = {n: (folder / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:lines] for n in ("src", ref, *names)}
    n = min(len(v) for v in text.values())
    for name, rows in text.items():
        (into / f"{'ref' if name == ref else name}.txt").write_text("\n".join(rows[:n]) + "\n", encoding="utf-8")
    return names, n


def mtlens_scores(metric: str, model: Path, data: Path, names: list[str], env: dict, *extra: str):
    """(CPU s, wall s, every segment's score) of ``mtlens score`` on a fresh store (nothing cached)."""
    store = Path(tempfile.mkdtemp(prefix="store-", dir=data.parent))  # inside the run's folder, removed with it
    add = [sys.executable, "-m", "mtlens", "models", "add", "m", str(model), "--data-dir", str(store)]
    subprocess.run(add, check=True, capture_output=True, env=env, cwd=ROOT)
    cmd = [sys.executable, "-m", "mtlens", "score", "--src", str(data / "src.txt"), "--ref", str(data / "ref.txt"),
           "--sys", *[str(data / f"{s}.txt") for s in names], "--metrics", f"{metric}:m", "--format", "csv",
           "--sentence-level", "--data-dir", str(store), *extra]  # fmt: skip
    cpu, wall, proc = cpu_timed(cmd, env)
    by: dict[str, list[float]] = {}
    for row in csv.DictReader(io.StringIO(proc.stdout)):
        by.setdefault(row["system"], []).append(float(row[f"{metric}:m"]))
    return cpu, wall, [v for s in names for v in by[s]]


def both_modes(metric: str, model: Path, data: Path, names: list[str], env: dict, n: int):
    """``(mode, CPU s, wall s, scores)`` of mtlens's default mode, then ``--exact``; a run that fails is said and
    its figures are NaN, so the rest still runs (a GPU's time is scarce)."""
    for how, extra in (("default (fast)", ()), ("--exact", ("--exact",))):
        try:
            yield (how, *mtlens_scores(metric, model, data, names, env, *extra))
        except SystemExit as err:
            print(f"mtlens {how} failed: {err}", flush=True)
            yield how, float("nan"), float("nan"), [float("nan")] * n


def gap(got: list[float], gold: list[float]) -> dict:
    """The largest segment difference, absolute and in float16 steps at the gold value."""
    diffs = [(abs(a - b), b) for a, b in zip(got, gold, strict=True)] or [(0.0, 1.0)]
    return {"worst": max(d for d, _ in diffs), "steps": max(half_steps(d, g) for d, g in diffs)}


def build(py: str, script: str, shape: str, out: Path, env: dict) -> None:
    """A checkpoint built as the tests build it (the same texts: MetricX's with Chinese and Japanese lines)."""
    texts = [str(SAMPLE / f) for f in ("src.txt", "ref.txt", "UEdin.txt")]
    if "metricx" in script:
        texts += [str(ROOT / "tests" / "data" / d / f) for d, f in (("en-zh", "ref.txt"), ("ja-en", "src.txt"))]
    cmd = [py, str(ROOT / "tests" / "neural" / script), "--shape", shape, str(out), *texts]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode:
        raise SystemExit(f"{script} failed: {done.stderr[-2000:]}")


def comet(py: str, args, tmp: Path, env: dict, device: dict) -> dict:
    if args.comet_model is None:
        build(py, "build_tiny_comet.py", args.shape, tmp / "comet", env)
    ckpt = (args.comet_model or tmp / "comet" / "tiny-comet") / "checkpoints" / "model.ckpt"
    data = tmp / "comet-data"
    names, n = cut(args.data, args.systems, args.lines, data)
    peers = []
    for batch in args.peer_batches:
        out = tmp / f"comet-score-{batch}.json"
        cmd = [py, "-c", COMET_SCORE, "-s", str(data / "src.txt"), "-t", *[str(data / f"{s}.txt") for s in names],
               "-r", str(data / "ref.txt"), "--model", str(ckpt), "--gpus", "1" if device["cuda"] else "0",
               "--batch_size", str(batch), "--quiet", "--to_json", str(out)]  # fmt: skip
        cpu, wall, _ = cpu_timed(cmd, env)
        by = {Path(k).stem: [x["COMET"] for x in v] for k, v in json.loads(out.read_text()).items()}
        peers.append({"run": f"comet-score, batch size {batch}", "cpu": cpu, "wall": wall,
                      "scores": [v for s in names for v in by[s]]})  # fmt: skip
    gold = peers[0]["scores"]
    rows = [{"run": f"mtlens score --metrics comet:m, {how}", "cpu": cpu, "wall": wall, **gap(got, gold)}
            for how, cpu, wall, got in both_modes("comet", ckpt, data, names, env, len(gold))]  # fmt: skip
    # how far comet-score's own numbers move when only its batch size changes (half precision rounds by batch shape)
    peer_gap = gap([a for p in peers[1:] for a in p["scores"]], gold * (len(peers) - 1))
    return {"segments": len(names) * n, "peers": peers, "mtlens": rows, "peer_gap": peer_gap}


def metricx(py: str, args, tmp: Path, env: dict) -> dict:
    if args.metricx_model is None:
        build(py, "build_tiny_metricx.py", args.shape, tmp / "metricx", env)
    model = args.metricx_model or tmp / "metricx" / "tiny-metricx"
    data = tmp / "metricx-data"
    names, n = cut(args.data, args.mx_systems, args.mx_lines, data)
    text = {p.stem: p.read_text(encoding="utf-8").split("\n")[:-1] for p in data.glob("*.txt")}
    given, out = tmp / "google-in.jsonl", tmp / "google-out.jsonl"
    with given.open("w", encoding="utf-8") as f:
        for s in names:
            for i in range(n):
                doc = {"source": text["src"][i], "hypothesis": text[s][i], "reference": text["ref"][i]}
                f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    cmd = [py, "-m", "metricx24.predict", "--tokenizer", str(model), "--model_name_or_path", str(model),
           "--max_input_length", "1536", "--batch_size", "1", "--input_file", str(given), "--output_file", str(out)]  # fmt: skip
    google_env = {**env, "PYTHONPATH": os.pathsep.join(
        x for x in (str(ROOT / "tests" / "neural" / "google_metricx"), env.get("PYTHONPATH", "")) if x)}  # fmt: skip
    cpu, wall, _ = cpu_timed(cmd, google_env)
    gold = [json.loads(line)["prediction"] for line in out.read_text(encoding="utf-8").splitlines()]
    peers = [{"run": "Google's metricx24.predict, batch size 1", "cpu": cpu, "wall": wall}]
    rows = [{"run": f"mtlens score --metrics metricx:m, {how}", "cpu": cpu, "wall": wall, "worst": gap(got, gold)["worst"]}
            for how, cpu, wall, got in both_modes("metricx", model, data, names, env, len(gold))]  # fmt: skip
    return {"segments": len(names) * n, "peers": peers, "mtlens": rows}


def report(name: str, part: dict, device: dict) -> list[str]:
    lines = [f"\n{name}: {part['segments']:,} segments", "", "| run | wall s | CPU s | largest segment difference |",
             "|---|---:|---:|---:|"]  # fmt: skip
    for p in part["peers"]:
        lines.append(f"| {p['run']} | {p['wall']:.1f} | {p['cpu']:.1f} | (the reference) |")
    for r in part["mtlens"]:
        steps = f" ({r['steps']:.2f} half-precision steps)" if "steps" in r else ""
        lines.append(f"| `{r['run']}` | {r['wall']:.1f} | {r['cpu']:.1f} | {r['worst']:.2e}{steps} |")
    best = min(part["peers"], key=lambda p: p["wall"])
    fast, exact = part["mtlens"]
    part["ratio_wall"] = best["wall"] / fast["wall"]
    part["ratio_cpu"] = best["cpu"] / fast["cpu"]
    lines.append(f"default mode vs the strongest peer ({best['run']}): {part['ratio_wall']:.2f}x less wall time, "
                 f"{part['ratio_cpu']:.2f}x fewer CPU seconds, on {device['name']}")  # fmt: skip
    if "steps" in fast:
        part["same"] = fast["steps"] <= 1.0 and exact["worst"] <= 1e-6
        lines.append(f"same numbers: fast mode within one half-precision step of comet-score "
                     f"({'yes' if fast['steps'] <= 1 else 'NO'}), --exact equal ({'yes' if exact['worst'] <= 1e-6 else 'NO'})")  # fmt: skip
        if len(part["peers"]) > 1:
            gap = part["peer_gap"]
            lines.append(f"comet-score against itself at batch size {part['peers'][1]['run'].split()[-1]}: at most "
                         f"{gap['worst']:.2e} ({gap['steps']:.2f} half-precision steps)")  # fmt: skip
    else:
        part["same"] = fast["worst"] <= 1e-4 and exact["worst"] <= 1e-4
        lines.append(f"same numbers: default within 1e-4 of Google's ({'yes' if fast['worst'] <= 1e-4 else 'NO'}), "
                     f"--exact within 1e-4 ({'yes' if exact['worst'] <= 1e-4 else 'NO'})")  # fmt: skip
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=("tiny", "large"), default="large")
    ap.add_argument("--systems", type=int, default=8)
    ap.add_argument("--lines", type=int, default=1002)
    ap.add_argument("--mx-systems", type=int, default=4)
    ap.add_argument("--mx-lines", type=int, default=250)
    ap.add_argument("--peer-batches", type=lambda s: [int(x) for x in s.split(",")], default=[16, 256])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--only", choices=("comet", "metricx"), default=None)
    ap.add_argument("--json", type=Path, default=None)
    # checkpoints built before by the same scripts (the tests pass their own session's): the builds are skipped
    ap.add_argument("--comet-model", type=Path, default=None, help="a built tiny-comet folder (not built again)")
    ap.add_argument("--metricx-model", type=Path, default=None, help="a built tiny-metricx folder (not built again)")
    args = ap.parse_args()
    if args.data is None:
        args.data = SHARED / "wmt" / "en-de" if (SHARED / "wmt" / "en-de").is_dir() else SAMPLE
    from mtlens.neural.environment import NeuralUnavailable, python

    try:
        py = python()
    except NeuralUnavailable as err:
        raise SystemExit(f"bench_gpu needs the neural extra: {err}") from None
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore", "TOKENIZERS_PARALLELISM": "false",
           "TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1"}  # fmt: skip
    device = json.loads(subprocess.run([py, "-c", DEVICE], capture_output=True, text=True, check=True).stdout)
    print(f"device: {device['name']}; torch {device['torch']}, transformers {device['transformers']}; "
          f"shape {args.shape}; data {args.data}", flush=True)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-gpu-") as folder:  # checkpoints, data and stores: removed after
        run(py, args, Path(folder), env, device)


def run(py: str, args, tmp: Path, env: dict, device: dict) -> None:
    result = {"device": device, "shape": args.shape}
    if args.only in (None, "comet"):
        result["comet"] = comet(py, args, tmp, env, device)
        print("\n".join(report("COMET (reference-based, wmt22-comet-da's shape)" if args.shape == "large"
                               else "COMET (tiny checkpoint)", result["comet"], device)), flush=True)  # fmt: skip
    if args.only in (None, "metricx"):
        result["metricx"] = metricx(py, args, tmp, env)
        print("\n".join(report("MetricX-24 (reference-based, Hybrid-Large's shape)" if args.shape == "large"
                               else "MetricX-24 (tiny checkpoint)", result["metricx"], device)), flush=True)  # fmt: skip
    if args.json:
        for part in ("comet", "metricx"):
            for p in result.get(part, {}).get("peers", []):
                p.pop("scores", None)
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
