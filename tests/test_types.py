"""The service and the faces are typed (issue 59): mypy, pinned in requirements-dev.txt and configured in
pyproject.toml ([tool.mypy]: mtlens/service, mtlens/cli, mtlens/ui, app.py and the pages), finds no error. A face that
passes a set's id that may be None, or a service name that does not exist, fails here before a visitor meets it."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


def test_mypy_finds_no_error_in_the_service_and_the_faces(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache"), "--no-error-summary"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
