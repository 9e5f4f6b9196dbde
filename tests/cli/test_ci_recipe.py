"""The CI recipe of docs/ci.md, run as written (issue 34).

The GitHub Actions and the GitLab CI snippets must hold the same gate commands; those commands are run in a
fresh bash process (``bash --noprofile --norc -eo pipefail``, as GitHub runs a step), in a folder laid out
as the recipe expects (``mt/ref.txt``, ``mt/baseline.txt``, ``mt/candidate.txt``: the bundled sample), with
``python`` on the PATH being this environment's interpreter and mtlens importable from the clone (the
recipe's ``pip install`` step; the package's metadata is checked by the last test). The job's exit status,
the JUnit XML and the Markdown verdict are what a CI system reads.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ..conftest import ROOT, SAMPLE, read

DOC = ROOT / "docs" / "ci.md"


def _recipes() -> dict[str, str]:
    """The gate commands of each snippet (between its ``# --- mtlens gate ---`` and ``# --- end ---``)."""
    text = DOC.read_text(encoding="utf-8")
    out = {}
    for title in ("GitHub Actions", "GitLab CI"):
        section = text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
        block = re.search(r"^( *)# --- mtlens gate ---\n(.*?)^\1# --- end ---", section, re.S | re.M)
        assert block, f"no gate commands in the {title} snippet"
        out[title] = textwrap.dedent(block.group(2))
    return out


def test_both_snippets_run_the_same_commands():
    recipes = _recipes()
    assert recipes["GitHub Actions"] == recipes["GitLab CI"]
    assert "python -m mtlens gate" in recipes["GitHub Actions"]


def _job(tmp_path: Path, candidate: list[str]) -> subprocess.CompletedProcess:
    work = tmp_path / "repo"
    (work / "mt").mkdir(parents=True)
    (work / "mt" / "ref.txt").write_text((SAMPLE / "ref.txt").read_text(encoding="utf-8"), encoding="utf-8")
    (work / "mt" / "baseline.txt").write_text((SAMPLE / "UEdin.txt").read_text(encoding="utf-8"), encoding="utf-8")
    (work / "mt" / "candidate.txt").write_text("\n".join(candidate) + "\n", encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "python"  # this environment's interpreter as the runner's `python`
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    script = work / "gate.sh"
    script.write_text(_recipes()["GitHub Actions"], encoding="utf-8")
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),  # stands in for the recipe's pip install
        "MTLENS_DATA_DIR": str(tmp_path / "runner-workspace"),
        "HOME": str(tmp_path),
    }
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_regression_fails_the_job_with_junit_and_markdown(tmp_path):
    lines = read(SAMPLE / "UEdin.txt")
    worse = [lines[(i + 7) % len(lines)] if i % 5 == 0 else x for i, x in enumerate(lines)]
    job = _job(tmp_path, worse)
    assert job.returncode == 1, job.stderr
    work = tmp_path / "repo"
    suite = ET.parse(work / "mtlens-gate.xml").getroot().find("testsuite")
    assert suite.get("failures") == "2" and [c.get("name") for c in suite.iter("testcase")] == ["bleu", "chrf"]
    md = (work / "mtlens-gate.md").read_text(encoding="utf-8")
    assert "mtlens gate: **regression**" in md and md.count("| REGRESSION |") == 2


def test_an_unchanged_candidate_passes_the_job(tmp_path):
    job = _job(tmp_path, read(SAMPLE / "UEdin.txt"))
    assert job.returncode == 0, job.stderr
    suite = ET.parse(tmp_path / "repo" / "mtlens-gate.xml").getroot().find("testsuite")
    assert suite.get("failures") == "0"
    assert "**pass**" in (tmp_path / "repo" / "mtlens-gate.md").read_text(encoding="utf-8")


def test_bad_input_fails_the_job_with_one_sentence(tmp_path):
    job = _job(tmp_path, ["only", "three", "lines"])
    assert job.returncode == 2 and "has 3 lines" in job.stderr and "Traceback" not in job.stderr


@pytest.mark.slow
def test_the_package_installs_what_the_recipe_runs(tmp_path):
    """The recipe installs mtlens with pip: its metadata names the runtime dependencies (requirements.txt)
    and the console script, so ``pip install "mtlens @ git+..."`` gives a working ``python -m mtlens``."""
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from setuptools.config.pyprojecttoml import read_configuration as r; "
            "import json, sys; c = r('pyproject.toml')['project']; print(json.dumps([c['dynamic'], c['scripts']]))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert proc.returncode == 0, proc.stderr
    assert '"dependencies"' in proc.stdout and '"mtlens": "mtlens.cli:main"' in proc.stdout
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dependencies = { file = ["requirements.txt"] }' in text
