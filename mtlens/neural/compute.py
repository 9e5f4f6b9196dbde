"""Computing a model's missing scores: the worker started in the extra's environment (or on a Ray cluster), its
batches fed as JSON lines, every answer saved as it comes (a killed run loses at most one call's work),
progress and cancellation; and the scores a set offers once complete."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.limits import env_number
from ..core.secrets import redact
from . import kept
from .environment import RAY_ENV, check_ray, error_of, ray_address, worker_env
from .models import EXACT, FAST, MODES, Model, cache_digest, mode, models
from .segments import batch_size, cached_scores, missing, spans_json, work_size
from .worker_base import END_OF_WORK


def compute(
    store,
    model: Model,
    corpus: Corpus,
    progress: Callable[[int, int], object] | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_start: Callable[[subprocess.Popen], object] | None = None,
    counts: dict | None = None,
) -> bool:
    """Score every segment not in the cache (in the current :func:`mode`), saving each call's results as
    they finish (a killed run loses at most one call's work). ``progress(done, total)`` after each call;
    ``should_stop()`` between calls ends the run early (False is returned). Raises InputError with one
    sentence when the worker fails; what was scored before stays saved. In fast mode ``total`` counts
    distinct inputs (what is computed), in exact mode each system's segments. ``counts``, when given, gains
    what the model did, as the worker reports it: ``rows`` scored and, in fast mode, sentences ``encoded``."""
    how = mode()
    todo = missing(store, model, corpus, how)
    total = work_size(todo)
    if progress:
        progress(0, total)
    if not todo:
        return True
    if how == FAST:
        check_ray()  # exact mode (comet-score's batches, Google's one at a time) always runs here
    size = batch_size(how)
    # rows per call: 0 lets the worker choose (exact mode: calls of about 5 s each, as it measures; fast
    # mode: blocks of about 1/32 of the work, worker.blocks)
    chunk = int(env_number("MTLENS_NEURAL_CHUNK", 0))
    if how == EXACT:
        wanted = {g["group"]: set(g["todo"]) for g in todo}
        feed = [json.dumps(g, ensure_ascii=False) for g in todo]
    else:
        keys, rows = todo[0]["keys"], todo[0]["rows"]
        feed = [json.dumps({"rows": rows}, ensure_ascii=False)]
    command = _command(model, "score" if how == EXACT else "fast", size, chunk)
    # on this machine, a worker that answered the same command's last work in full may take this one too (the model
    # loaded once: mtlens.neural.kept); a Ray cluster's workers end with their work
    reuse = not (how == FAST and ray_address()) and kept.keeping()
    if reuse and how == EXACT:
        feed.append(json.dumps(END_OF_WORK))  # the exact path's groups end here, not at the end of the input
    found = kept.take(command) if reuse else None
    if found is not None:
        proc, err = found
    else:
        err = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - kept with the worker, or closed below
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            encoding="utf-8",
            env=worker_env(),
            start_new_session=True,
        )
    err_from = err.seek(0, os.SEEK_END)  # this work's errors: what the worker writes from here on
    with contextlib.ExitStack() as owned:
        if on_start:
            on_start(proc)
        feeder = threading.Thread(target=_feed, args=(proc, feed, not reuse), daemon=True)
        feeder.start()
        done, output, finished = 0, [], False
        # issue 51: a Ray address that accepts TCP and never answers held the job (and the set) for ever: a worker
        # that has not joined the cluster within the deadline is stopped, and the job fails with a sentence
        joined, watchdog = threading.Event(), None
        if how == FAST and ray_address():
            watchdog = threading.Timer(ray_join_seconds(), _stop_unless, args=(proc, joined))
            watchdog.daemon = True
            watchdog.start()
        try:
            for line in proc.stdout:
                output.append(line)
                msg = _message(line)
                if msg.get("joined") or "ready" in msg:
                    joined.set()
                if "idx" in msg:
                    spans = msg.get("spans") or [None] * len(msg["idx"])
                    if how == EXACT:
                        g = msg["group"]
                        where = [f"{g}:{i}" for i in msg["idx"]]
                        done += len(wanted[g].intersection(msg["idx"]))
                    else:
                        where = [keys[i] for i in msg["idx"]]
                        done += len(msg["idx"])
                    store.put_neural(
                        cache_digest(model),
                        [
                            (key, float(v), spans_json(sp) if model.kind == "xcomet" else None)
                            for key, v, sp in zip(where, msg["scores"], spans, strict=True)
                        ],
                    )
                    if counts is not None:
                        counts["rows"] = counts.get("rows", 0) + len(msg["idx"])
                        counts["encoded"] = counts.get("encoded", 0) + int(msg.get("encoded") or 0)
                    if progress:
                        progress(done, total)
                    if should_stop and should_stop():
                        return False
                elif "retry" in msg:  # a Ray worker died; its block is computed again elsewhere
                    if counts is not None:
                        counts["retried"] = counts.get("retried", 0) + int(msg["retry"])
                elif msg.get("end"):
                    finished = True
                    if reuse:  # the worker waits for its next work: this one is complete
                        break
        finally:
            if watchdog is not None:
                watchdog.cancel()
            feeder.join(timeout=5)
            if not (reuse and finished and not feeder.is_alive() and kept.keep(command, proc, err)):
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
                owned.callback(_close, proc, err)
        if watchdog is not None and not joined.is_set() and not finished:
            raise InputError(
                f"the Ray cluster at '{redact(ray_address())}' ({RAY_ENV}) accepted the connection but did not let the "
                f"job join within {ray_join_seconds():g} s (MTLENS_RAY_JOIN_SECONDS); the job is stopped: check that "
                f"the address is a Ray head's, or unset {RAY_ENV} to score on this machine"
            )
        if not finished:
            err.seek(err_from)
            raise InputError(
                f"{error_of(''.join(output), err.read(), proc.returncode)}; the {done} segment(s) scored so far "
                "are saved, run it again to go on"
            )
    return True


def _close(proc: subprocess.Popen, err) -> None:
    for f in (proc.stdin, proc.stdout, err):
        with contextlib.suppress(OSError, ValueError):
            f.close()


def _command(model: Model, verb: str, size: int, chunk: int) -> list[str]:
    """The worker that scores the model: its kind's (COMET's, or MetricX's: :mod:`mtlens.neural.metricx_worker`)."""
    return model.checkpoint.command(model, verb, size, chunk)


#: how long a worker may take to join the Ray cluster before the job is stopped (``MTLENS_RAY_JOIN_SECONDS``)
RAY_JOIN_SECONDS = 120


def ray_join_seconds() -> float:
    return env_number("MTLENS_RAY_JOIN_SECONDS", RAY_JOIN_SECONDS, 1)


def _stop_unless(proc: subprocess.Popen, joined: threading.Event) -> None:
    """Stop the worker (its whole session: Ray's helpers too) unless it has joined the cluster."""
    if not joined.is_set() and proc.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)


def _message(line: str) -> dict:
    try:
        msg = json.loads(line)
    except ValueError:
        return {}
    return msg if isinstance(msg, dict) else {}


def _feed(proc: subprocess.Popen, lines: Sequence[str], last: bool = True) -> None:
    """Write the work to the worker; ``last``: then close its input (a kept worker's stays open for its next work)."""
    try:
        for line in lines:
            proc.stdin.write(line + "\n")
        if last:
            proc.stdin.close()
        else:
            proc.stdin.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass


def scores_for(store, model: Model, corpus: Corpus, progress=None):
    """Compute what is missing, then the model's metric for the corpus."""
    compute(store, model, corpus, progress)
    result = cached_scores(store, model, corpus)
    if result is None:  # pragma: no cover - compute() raises or leaves nothing unscored
        raise InputError(f"model '{model.name}' left segments unscored")
    return result


def offered_scores(store, model: Model, corpus: Corpus):
    """The model's cached scores for the corpus in the current mode, else in the other one (a set scored
    with ``--exact`` shows its scores on a fast-mode server too, and the reverse; the signature says which
    batch mode made them); None while neither is complete."""
    current = mode()
    for how in (current, *(x for x in MODES if x != current)):
        scores = cached_scores(store, model, corpus, how)
        if scores is not None:
            return scores
    return None


def completed(store, corpus: Corpus) -> list:
    """Every registered model whose scores for the whole corpus are cached (:func:`offered_scores`)."""
    out = []
    for m in models(store):
        try:
            scores = offered_scores(store, m, corpus)
        except InputError:
            continue
        if scores is not None:
            out.append(scores)
    return out
