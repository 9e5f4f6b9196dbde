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
    args += ["--mx-systems", "2", "--mx-lines", "15", "--peer-batches", "16,64", "--json", str(out)]
    done = subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu.sh"), *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["device"]["cuda"] is False and result["device"]["name"] == "CPU"
    comet, metricx = result["comet"], result["metricx"]
    assert comet["segments"] == 80 and metricx["segments"] == 30
    assert [p["run"] for p in comet["peers"]] == ["comet-score, batch size 16", "comet-score, batch size 64"]
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
