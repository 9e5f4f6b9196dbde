"""Workers kept between one process's neural jobs (mtlens/neural/kept.py): kept only inside the block, given back
only while alive, ended when the outermost block ends. The workers here are plain Python processes that echo their
input, so the rules are tested without the neural extra; tests/neural/test_metricx.py counts the real worker's starts."""

from __future__ import annotations

import subprocess
import sys
import tempfile

from mtlens.neural import kept

ECHO = "import sys\nfor line in sys.stdin:\n    print(line, end='', flush=True)\n"


def worker():
    err = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - the keep closes it
    proc = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                            text=True)  # fmt: skip
    return proc, err


def ask(proc, text: str) -> str:
    proc.stdin.write(text + "\n")
    proc.stdin.flush()
    return proc.stdout.readline().strip()


def test_a_worker_is_kept_only_inside_the_block_and_ends_with_it():
    cmd = ["python", "worker.py", "fast", "model"]
    proc, err = worker()
    assert not kept.keeping() and not kept.keep(cmd, proc, err)  # outside: the caller ends it
    with kept.kept_workers():
        assert kept.keeping() and kept.take(cmd) is None
        assert kept.keep(cmd, proc, err)
        assert kept.take(["python", "worker.py", "fast", "other-model"]) is None  # another command: not this one
        with kept.kept_workers():  # a nested block (a job run by a command) is the same block
            got = kept.take(cmd)
            assert got is not None and got[0] is proc and ask(proc, "one") == "one"  # the same process, still serving
            assert kept.keep(cmd, proc, err)
        assert proc.poll() is None  # the inner block's end does not end it
    assert proc.wait(timeout=10) == 0  # its input closed at the outer end: it ended by itself
    assert not kept.keeping()


def test_a_worker_that_ended_meanwhile_is_not_given_out():
    cmd = ["python", "worker.py", "fast", "model"]
    with kept.kept_workers():
        proc, err = worker()
        assert kept.keep(cmd, proc, err)
        proc.kill()
        proc.wait()
        assert kept.take(cmd) is None  # killed from outside: the next work starts a new worker
        assert not kept.keep(cmd, proc, err)  # and a dead one is never kept
