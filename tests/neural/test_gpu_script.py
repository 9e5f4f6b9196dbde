"""The GPU benchmark's script (issue 62), run on the CPU path: ``benchmarks/gpu.sh`` builds its checkpoints, runs
comet-score and Google's MetricX runner beside mtlens, and says whether the numbers are the same. On a machine with a
GPU the same script runs on it (docs/speed.md holds such a run); here it must run through and find the numbers equal
within each mode's tolerance, against the reference tools' own outputs (not against mtlens)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ..conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))


def test_the_gpu_script_runs_on_the_cpu_and_finds_the_reference_tools_numbers(
    neural_python, tiny_models, tiny_metricx, tmp_path
):
    """The session's tiny checkpoints (tests/conftest.py builds them with the scripts and texts the benchmark's own
    ``build`` uses) are passed to it, so it does not build them a second time (about 40 s on a loaded CI machine);
    its own build, taken without --comet-model and --metricx-model, is not run here."""
    out = tmp_path / "gpu.json"
    env = {**os.environ, "CORE_PYTHON": sys.executable, "MTLENS_NEURAL_PYTHON": neural_python}
    args = ["--shape", "tiny", "--data", str(ROOT / "sample_data"), "--systems", "2", "--lines", "40"]
    args += ["--comet-model", str(tiny_models["tiny-comet"]), "--metricx-model", str(tiny_metricx["tiny-metricx"])]
    args += ["--mx-systems", "2", "--mx-lines", "15", "--peer-batches", "16", "--json", str(out)]
    done = subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu.sh"), *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["device"]["cuda"] is False and result["device"]["name"] == "CPU"
    comet, metricx = result["comet"], result["metricx"]
    assert comet["segments"] == 80 and metricx["segments"] == 30
    assert [p["run"] for p in comet["peers"]] == ["comet-score, batch size 16"]  # a second: the test below
    fast, exact = comet["mtlens"]
    assert fast["steps"] <= 1.0 and exact["worst"] <= 1e-6, comet
    fast, exact = metricx["mtlens"]
    assert fast["worst"] <= 1e-4 and exact["worst"] <= 1e-4, metricx
    assert comet["same"] is True and metricx["same"] is True
    assert (
        "same numbers: fast mode within one half-precision step of comet-score (yes), --exact equal (yes)"
        in done.stdout
    )
    assert "default mode vs the strongest peer" in done.stdout


def test_the_report_takes_the_strongest_peer_and_says_how_far_comet_score_moves_with_its_batch_size():
    """What the script prints from its figures, by hand: the strongest peer is the one of least wall time (batch
    256 here, 6 s), the ratios are its wall and CPU over mtlens's default mode's (6 / 2 = 3x, 8 / 4 = 2x); the
    second peer's scores against the first's give comet-score's own spread (0.5 - 0.5 + 2^-12 at 0.5: one float16
    step is 2^-11 there, so half a step); a fast mode two steps off is said to differ."""
    from bench_gpu import report

    def part(fast_steps):
        return {"segments": 2, "peer_gap": {"worst": 2.0**-12, "steps": 0.5}, "peers": [
            {"run": "comet-score, batch size 16", "cpu": 9.0, "wall": 7.0},
            {"run": "comet-score, batch size 256", "cpu": 8.0, "wall": 6.0}], "mtlens": [
            {"run": "mtlens fast", "cpu": 4.0, "wall": 2.0, "worst": 1e-4, "steps": fast_steps},
            {"run": "mtlens --exact", "cpu": 8.0, "wall": 5.0, "worst": 0.0, "steps": 0.0}]}  # fmt: skip

    good = part(0.5)
    lines = report("COMET", good, {"name": "CPU"})
    assert good["ratio_wall"] == 3.0 and good["ratio_cpu"] == 2.0 and good["same"] is True
    assert "default mode vs the strongest peer (comet-score, batch size 256): 3.00x less wall time, " \
           "2.00x fewer CPU seconds, on CPU" in lines  # fmt: skip
    assert "comet-score against itself at batch size 256: at most 2.44e-04 (0.50 half-precision steps)" in lines
    bad = part(2.0)
    lines = report("COMET", bad, {"name": "CPU"})
    assert bad["same"] is False
    assert "same numbers: fast mode within one half-precision step of comet-score (NO), --exact equal (yes)" in lines
