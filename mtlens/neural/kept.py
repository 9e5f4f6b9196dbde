"""Workers kept between one process's neural jobs (docs/decisions.md, "One worker for one checkpoint's work").

A neural worker pays for its start before it scores anything: importing torch and transformers (and COMET and
Lightning for COMET's worker) and loading the checkpoint, about 7 CPU-seconds for MetricX-24's tiny test checkpoint on
this machine. One command often gives the same checkpoint several pieces of work: ``metricx:NAME`` and
``metricx-qe:NAME`` are one checkpoint, and a reference-free model's job also scores the references as systems after
the systems. Within :func:`kept_workers`, a worker (:mod:`mtlens.neural.compute`, either mode) that answered its work
in full is kept, and the next work for the same command (the same worker file, checkpoint, tokenizer, mode and batch
settings, so the same loaded model) goes to it; when the block ends, each kept worker's input is closed and it ends.

Only what finished cleanly is kept: a worker stopped half-way (a cancel, an error) is never given more, nor is one that
sent work to a Ray cluster. Outside the block (the dashboard's server, whose memory must not hold models between visits) every piece
of work has its own worker, as before. Standard library only: the command line enters the block for every command.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_state: dict = {"depth": 0, "workers": {}}


@contextlib.contextmanager
def kept_workers() -> Iterator[None]:
    """Keep workers for the next work of the same command until the block ends (nested blocks are one)."""
    with _lock:
        _state["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["depth"] -= 1
            ending = list(_state["workers"].values()) if _state["depth"] == 0 else []
            if _state["depth"] == 0:
                _state["workers"] = {}
        for proc, err in ending:
            close(proc, err)


def keeping() -> bool:
    return _state["depth"] > 0


def take(command: list[str]):
    """A kept worker for ``command`` (``(process, its stderr file)``), removed from the keep, or None."""
    with _lock:
        found = _state["workers"].pop(tuple(command), None)
    if found is not None and found[0].poll() is not None:  # ended since (killed from outside): not usable
        found[1].close()
        return None
    return found


def keep(command: list[str], proc: subprocess.Popen, err) -> bool:
    """Keep ``proc`` for the next work of ``command`` when inside :func:`kept_workers`; False otherwise (the caller
    ends it)."""
    with _lock:
        if _state["depth"] == 0 or proc.poll() is not None:
            return False
        old = _state["workers"].pop(tuple(command), None)
        _state["workers"][tuple(command)] = (proc, err)
    if old is not None:  # cannot happen with one caller at a time; a second worker for one command is not kept
        close(*old)
    return True


def close(proc: subprocess.Popen, err) -> None:
    """End a kept worker: its input closed (it ends at the end of its input), killed if it has not ended soon."""
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    with contextlib.suppress(OSError, ValueError):
        proc.stdout.close()
    err.close()
