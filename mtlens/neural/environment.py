"""The neural extra's environment: its interpreter (``.venv-neural`` or ``MTLENS_NEURAL_PYTHON``), the worker's
command and offline settings, COMET's and torch's versions, a Ray cluster's address, and the one sentence a
failed worker becomes."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

from ..core.errors import InputError
from ..core.secrets import check_one_at, redact, scrub
from .worker_base import PARENT_ENV

#: environment variable naming the Python that has unbabel-comet
PYTHON_ENV = "MTLENS_NEURAL_PYTHON"


WORKER = Path(__file__).with_name("worker.py")


ROOT = Path(__file__).resolve().parents[2]


#: one sentence wherever a neural metric is offered without the extra
HOW_TO_ENABLE = (
    "neural metrics need the optional extra: run `bash scripts/install-neural.sh` (COMET in .venv-neural), "
    f"or set {PYTHON_ENV} to a Python with unbabel-comet installed"
)


#: the same, as a sentence on its own (the pages)
HOW_TO_ENABLE_SENTENCE = HOW_TO_ENABLE[0].upper() + HOW_TO_ENABLE[1:] + "."


class NeuralUnavailable(InputError):
    """The optional extra is not installed (the message says how to install it)."""


def python() -> str:
    """The interpreter that runs COMET: ``MTLENS_NEURAL_PYTHON``, else the repository's ``.venv-neural``,
    else this one when it has COMET. Raises :class:`NeuralUnavailable` with how to install it."""
    named = os.environ.get(PYTHON_ENV, "").strip()
    if named:
        if not Path(named).is_file():
            raise NeuralUnavailable(f"{PYTHON_ENV} names '{named}', which is not a file; {HOW_TO_ENABLE}")
        return named
    venv = ROOT / ".venv-neural" / "bin" / "python"
    if venv.is_file():
        return str(venv)
    import importlib.util

    if importlib.util.find_spec("comet") is not None:
        return sys.executable
    raise NeuralUnavailable(HOW_TO_ENABLE)


def available() -> bool:
    try:
        python()
        return True
    except NeuralUnavailable:
        return False


#: what the idle OpenMP threads of the workers a background job starts do unless the user's environment says
#: otherwise: sleep, not spin (docs/decisions.md, "Idle threads sleep in a job"); :func:`sleep_idle_threads`
OMP_WAIT = "PASSIVE"


def sleep_idle_threads() -> None:
    """For a process whose cores are shared (a dashboard's background job, the test suite): the neural workers it
    starts let their idle OpenMP threads sleep instead of spinning on cores another process needs. The same numbers;
    a user's own ``OMP_WAIT_POLICY`` is kept."""
    os.environ.setdefault("OMP_WAIT_POLICY", OMP_WAIT)


def worker_env() -> dict:
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "PYTHONWARNINGS": "ignore",
        PARENT_ENV: str(os.getpid()),  # the worker's parent watch (worker_base.watch_parent)
    }


#: a Ray cluster to score on (``host:port`` of its head, or ``ray://host:port``); unset: this machine
RAY_ENV = "MTLENS_RAY_ADDRESS"


def ray_address() -> str | None:
    return os.environ.get(RAY_ENV, "").strip() or None


def where_it_runs() -> str:
    """Where a neural job computes, as a page or the command line says it (issue 51: nothing said a job ran on
    Ray): "on this machine", or the Ray cluster's address without its password."""
    address = ray_address()
    return f"on the Ray cluster at {redact(address)}" if address else "on this machine"


def check_ray() -> None:
    """With :data:`RAY_ENV` set, its head must answer a TCP connection within 5 s: an unreachable cluster is
    one sentence when a job starts or the dashboard starts, never a hang in the worker."""
    import socket

    address = ray_address()
    if address is None:
        return
    check_one_at(address)  # an '@' of a password written as such: refused, naming %40 (issue 58, G11)
    host, _, port = address.split("://", 1)[-1].rstrip("/").rpartition("@")[2].rpartition(":")  # no user information
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5):
            return
    except (OSError, ValueError) as err:
        why = scrub(str(err), address) or type(err).__name__
    raise InputError(
        f"cannot reach the Ray cluster at '{redact(address)}' ({RAY_ENV}): {why}; start it, correct the address, or unset "
        f"{RAY_ENV} to score on this machine"
    )


def worker_command(*args: str) -> list[str]:
    # -I: the worker's folder (mtlens/, with modules named like tokenizers) is not put on sys.path
    return [python(), "-I", str(WORKER), *args]


def error_of(output: str, stderr: str, code: int) -> str:
    """The worker's failure in one sentence, with the Ray address's secrets hidden (the worker may quote it)."""
    address = ray_address()
    text = _error_text(output, stderr, code)
    return scrub(text, address) if address else text


def _error_text(output: str, stderr: str, code: int) -> str:
    for line in output.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and "error" in doc:
            return str(doc["error"])
    if code < 0:
        return f"the COMET worker was killed (signal {-code}), probably out of memory"
    tail = [t for t in stderr.strip().splitlines() if t.strip()][-1:] or ["no message"]
    return f"the COMET worker stopped (exit status {code}): {tail[0][:300]}"


def versions() -> tuple[str, str]:
    """(COMET's version, Python's version) of the neural environment, for the signature; ``?`` without it."""
    return _all_versions()[:2]


def transformers_version() -> str:
    """transformers' version in the neural environment (MetricX's signature); ``?`` without it."""
    return _all_versions()[2]


def torch_version() -> str:
    """torch's version in the neural environment (every neural signature: kernels change numbers); ``?`` without
    it."""
    return _all_versions()[3]


def _all_versions() -> tuple[str, str, str, str]:
    try:
        interpreter = python()
    except NeuralUnavailable:
        return "?", "?", "?", "?"
    return _versions(interpreter)


@functools.lru_cache(maxsize=4)
def _versions(interpreter: str) -> tuple[str, str, str, str]:
    code = (
        "import importlib.metadata as m, platform\n"
        "def v(name):\n    try:\n        return m.version(name)\n    except Exception:\n        return '?'\n"
        "print(v('unbabel-comet'), platform.python_version(), v('transformers'), v('torch'))"
    )
    try:
        out = subprocess.run([interpreter, "-I", "-c", code], capture_output=True, text=True, timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return "?", "?", "?", "?"
    return (out[0], out[1], out[2], out[3]) if len(out) == 4 else ("?", "?", "?", "?")
