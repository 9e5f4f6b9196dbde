"""The peak memory of a whole process tree, read from /proc while it runs (Linux).

A process's own VmHWM misses the workers it starts (scoring runs in a pool), so memory bounds
(issue 38) are measured as the largest sum of the resident memory of a command and all its
descendants, sampled every 20 ms.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from pathlib import Path


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                todo.extend(int(c) for c in task.read_text().split())
    return out


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def run_with_peak(args, *, env=None, cwd=None, timeout=600, stdin=None) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``args``; its result and the peak resident memory of its process tree, MB."""
    peak = 0
    with subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL if stdin is None else stdin,
        text=True,
        env=env,
        cwd=cwd,
    ) as proc:
        deadline = time.monotonic() + timeout
        # pipes are drained by threads so a chatty child never blocks on a full pipe
        chunks: dict[str, str] = {}

        def drain(name, stream):
            chunks[name] = stream.read()

        threads = [
            threading.Thread(target=drain, args=(n, s), daemon=True)
            for n, s in (("out", proc.stdout), ("err", proc.stderr))
        ]
        for t in threads:
            t.start()
        while proc.poll() is None:
            peak = max(peak, sum(_rss_kb(p) for p in _descendants(proc.pid)))
            if time.monotonic() > deadline:
                proc.kill()
                raise TimeoutError(f"{args!r} ran longer than {timeout} s")
            time.sleep(0.02)
        for t in threads:
            t.join()
    result = subprocess.CompletedProcess(args, proc.returncode, chunks.get("out", ""), chunks.get("err", ""))
    return result, peak / 1024


def process_exists(pid: int) -> bool:
    """The process is running: a zombie (it has ended; its parent, the test's ``Popen``, has not read its status
    yet) is not. Counting zombies made a test wait its whole deadline for a server that had stopped at once."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc here: the signal's answer stands
    return _after_command(stat)[0] != "Z"


def _after_command(stat: str) -> list[str]:
    """The fields of a ``/proc/PID/stat`` line after the command (which may hold spaces and parentheses): state,
    parent, process group, ..."""
    return stat.rsplit(")", 1)[-1].split()


def group_members(pgid: int) -> list[str]:
    """The running processes (not zombies) of process group ``pgid``, as "pid (command"."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        state, _, group = _after_command(text)[:3]
        if state != "Z" and int(group) == pgid:
            members.append(text.split(")", 1)[0])
    return members
