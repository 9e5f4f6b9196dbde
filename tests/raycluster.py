"""A real local Ray cluster for the tests: a head and a second node on this machine (1 CPU each), started
with the neural extra's ``ray`` (the workers need COMET) in a temporary folder, and stopped at the end."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .ports import free_port


class Unavailable(RuntimeError):
    """Ray is not installed in the neural extra."""


class Cluster:
    def __init__(self, python: str, nodes: int = 2):
        ray = Path(python).parent / "ray"
        if not ray.exists():
            raise Unavailable(f"Ray is missing from the neural extra ({ray}); bash scripts/install-neural.sh")
        self.ray = str(ray)
        self.temp = Path(tempfile.mkdtemp(prefix="mtlens-ray-"))
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"}
        common = ["--num-cpus", "1", "--disable-usage-stats"]
        self._run(
            "start",
            "--head",
            "--node-ip-address",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--include-dashboard",
            "false",
            "--temp-dir",
            str(self.temp),
            *common,
        )
        for _ in range(nodes - 1):
            self._run("start", "--address", self.address, *common)

    def _run(self, *args: str) -> None:
        proc = subprocess.run([self.ray, *args], capture_output=True, text=True, env=self.env, timeout=180)
        if proc.returncode:
            raise RuntimeError(f"ray {args[0]} failed: {proc.stdout[-1500:]} {proc.stderr[-1500:]}")

    def actor_pids(self) -> list[int]:
        """Processes of the scoring actors (Ray names them after the class)."""
        out = subprocess.run(["pgrep", "-f", "ray::_Scorer"], capture_output=True, text=True).stdout.split()
        return [int(p) for p in out]

    def stop(self) -> None:
        subprocess.run([self.ray, "stop", "--force"], capture_output=True, env=self.env, timeout=120)
        shutil.rmtree(self.temp, ignore_errors=True)
