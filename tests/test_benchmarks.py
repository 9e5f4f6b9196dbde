"""Every benchmark run where its data or its extra is missing (a plain clone without ../shared) ends with
one sentence saying what it needs, never a traceback (issue 37, item 9)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import ROOT

NEEDS_DATA = [
    "bench_checks",
    "bench_cli",
    "bench_dashboard",
    "bench_dashboard_large",
    "bench_history_memory",
    "bench_judge",
    "bench_load",
    "bench_memory",
    "bench_million",
    "bench_reopen",
    "bench_score",
    "bench_significance",
    "bench_slow_metrics",
    "bench_tbleu",
    "bench_ter",
    "bench_visit_cpu",
    "bench_visitor_memory",
    "bench_workspace",
]


@pytest.mark.parametrize("name", [*NEEDS_DATA, "bench_neural", "bench_metricx", "bench_gpu"])
def test_a_benchmark_without_its_data_says_what_it_needs(name, tmp_path):
    """... and leaves nothing in the temporary folder (it looks for its data before it makes a folder)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(
        os.environ,
        MTLENS_BENCH_SHARED=str(tmp_path / "no-shared"),
        MTLENS_NEURAL_PYTHON=str(tmp_path / "no-python"),
        TMPDIR=str(tmp),
    )
    r = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{name}.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    said = r.stderr.strip().splitlines()[-1]
    assert "is missing (it needs ../shared/data)" in said or "needs the neural extra" in said, said
    assert sorted(p.name for p in tmp.iterdir()) == []


def test_every_benchmark_is_covered():
    found = {p.stem for p in (ROOT / "benchmarks").glob("bench_*.py")}
    assert found - {*NEEDS_DATA, "bench_neural", "bench_metricx", "bench_gpu"} == {
        "bench_first_use",
        "bench_human_page",
        "bench_ratings_memory",
    }  # no data
