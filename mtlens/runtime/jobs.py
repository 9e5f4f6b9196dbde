"""Background scoring jobs: a neural model or an LLM judge over a saved set, one job per (set, checkpoint digest)
or (set, judge identity: :func:`mtlens.judges.compute.identity`).

Decisions (docs/decisions.md, "Neural metrics"):
- A job is an operating-system process (``python -m mtlens.runtime.jobs SET_ID MODEL``, its own session) whose
  state is a row of the store's ``jobs`` table: the process outlives a closed tab, a reload and the
  dashboard's own restart. No job library fitted: huey, RQ, Celery and Dramatiq need a broker server or
  pickle their tasks into their store, and nothing read from the store is ever unpickled.
- Starting is atomic (:meth:`mtlens.storage.store.Store.claim_job` under SQLite's write lock): two visitors asking
  for the same scores share one job; a job whose process died (no heartbeat for :data:`STALE` s) is taken
  over, and computes only what the cache lacks (completed batches are saved as they finish).
- Cancelling sets the state to ``cancelling``; the job stops after the batches it is computing.
- Progress is read from the row: segments done of the set's total, segments per second since this run
  started, and the time left at that rate.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time

from ..core.errors import InputError
from ..judges import compute as judge_compute
from ..judges import registry as judge_registry
from ..neural import compute as neural_compute
from ..neural import environment as neural_env
from ..neural import models as neural
from ..neural import segments as neural_segments
from ..neural.kept import kept_workers
from ..scores.progress import ACTIVE, Progress, duration_text, metric_of
from ..scores.sources import source_of

#: seconds without a heartbeat after which a running job is taken for dead
STALE = 30.0
#: seconds between heartbeats of a running job
HEARTBEAT = 3.0

_children: list[subprocess.Popen] = []  # started by this process; reaped so none stays a zombie
_lock = threading.Lock()


def _reap() -> None:
    with _lock:
        _children[:] = [p for p in _children if p.poll() is None]


def alive(job: dict) -> bool:
    """A job runs while its heartbeat is recent."""
    return time.time() - float(job["updated"]) < STALE


def progress(job: dict) -> Progress:
    state = job["state"]
    if state in ACTIVE and not alive(job):
        state = "failed"
        message = job["message"] or "the job stopped (its process ended); start it again to go on"
    else:
        message = job["message"]
    new = job["done"] - job["resumed_at"]
    elapsed = max(1e-9, float(job["updated"]) - float(job["started"]))
    rate = new / elapsed if new > 0 else None
    eta = (job["total"] - job["done"]) / rate if rate and state in ACTIVE else None
    return Progress(job["model"], state, job["done"], job["total"], rate, eta, message, job["digest"])


def status(store, set_id: str) -> list[Progress]:
    """Every job of the set, as pages show them."""
    _reap()
    return [progress(j) for j in store.jobs(set_id)]


class _NeuralWork:
    """A registered checkpoint's scores of a set (:mod:`mtlens.neural.compute`)."""

    def __init__(self, store, name: str):
        self.store, self.model = store, neural.get_model(store, name)
        self.name, self.digest = self.model.job_name, self.model.digest

    def check(self, corpus) -> None:
        neural_segments.check_inputs(self.model, corpus)

    def prepare(self) -> None:
        neural_env.python()  # the extra is there (else one sentence on how to install it)
        if neural.mode() == neural.FAST:
            neural_env.check_ray()  # a configured cluster answers (else one sentence, on the page too)

    def _references(self, corpus):
        """The references as systems, for a reference-free model (it scores them too: issue 50); else None."""
        return None if self.model.needs_reference else neural_segments.reference_corpus(corpus)

    def nothing_new(self, corpus) -> bool:
        refs = self._references(corpus)
        return not neural_segments.missing(self.store, self.model, corpus) and (
            refs is None or not neural_segments.missing(self.store, self.model, refs)
        )

    def already(self, corpus) -> int:
        return neural_segments.segments_cached(self.store, self.model, corpus)

    def compute(self, corpus, on_progress, should_stop) -> tuple[bool, str | None]:
        with kept_workers():  # the references' step takes the systems' worker, the model loaded once
            finished = neural_compute.compute(self.store, self.model, corpus, on_progress, should_stop=should_stop)
            refs = self._references(corpus)
            if finished and refs is not None:  # then the references, as systems (a small last step)
                finished = neural_compute.compute(self.store, self.model, refs, None, should_stop=should_stop)
        return finished, None


class _JudgeWork:
    """A registered LLM judge's answers for a set (:mod:`mtlens.judges.compute`); the job's message, once done,
    says what this run asked and what it cost."""

    def __init__(self, store, name: str):
        self.store = store
        self.judge = judge_registry.get_judge(store, source_of(name).registered)
        self.name, self.digest = judge_compute.PREFIX + self.judge.name, judge_registry.identity(self.judge)

    def check(self, corpus) -> None:
        judge_compute.plan(self.judge, corpus)

    def prepare(self) -> None:
        pass

    def nothing_new(self, corpus) -> bool:
        return judge_compute.judge_scores(self.store, self.judge, corpus, cached_only=True) is not None

    def already(self, corpus) -> int:
        return judge_compute.answered_segments(self.store, self.judge, corpus)[0]

    def compute(self, corpus, on_progress, should_stop) -> tuple[bool, str | None]:
        if on_progress:
            on_progress(0, 1)
        try:
            _, tally = judge_compute.judge_scores(self.store, self.judge, corpus, on_progress, should_stop)
        except judge_compute.Stopped:
            return False, None
        return True, judge_compute.run_summary(self.judge, tally)


def work(store, name: str):
    """What a job named ``name`` computes: ``judge:NAME`` an LLM judge's answers, any other name a registered
    checkpoint's scores (InputError when neither is registered)."""
    return (_JudgeWork if name.startswith(judge_compute.PREFIX) else _NeuralWork)(store, name)


def start(store, set_id: str, model_name: str) -> Progress:
    """Start the job of (set, model or ``judge:NAME``) in the background, or join the one already running; a
    finished job with nothing new to compute is returned as it is."""
    w = work(store, model_name)
    ev_corpus = _corpus(store, set_id)
    w.check(ev_corpus)
    w.prepare()
    job = store.job(set_id, w.digest)
    if job and job["state"] == "done" and w.nothing_new(ev_corpus):
        return progress(job)  # nothing new to score: no process at all
    claimed, job = store.claim_job(set_id, w.digest, w.name, alive)
    if claimed:
        env = {**os.environ, **store.child_env()}
        proc = subprocess.Popen(
            [sys.executable, "-m", "mtlens.runtime.jobs", set_id, w.name],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=str(neural_env.ROOT),
            env=env,
            start_new_session=True,  # a job outlives the server that started it
        )
        with _lock:
            _children.append(proc)
        store.update_job(set_id, w.digest, pid=proc.pid)
        job = store.job(set_id, w.digest) or job
    return progress(job)


def cancel(store, set_id: str, digest: str) -> None:
    job = store.job(set_id, digest)
    if job and job["state"] in ("queued", "running"):
        store.update_job(set_id, digest, state="cancelling")


def _corpus(store, set_id: str):
    return store.load(set_id).corpus  # the bundled sample is saved in the store as any set


#: seconds between two progress sentences of the command line at most (besides every tenth of the work)
SAY_EVERY = 10.0


def _pace(new: int, left: int, seconds: float) -> str:
    """`` · 12.3 segments/s · about 4 min left`` from this run's segments so far (empty before any)."""
    if new <= 0 or seconds <= 0:
        return ""
    rate = new / seconds
    return f" · {rate:.1f} segments/s" + (f" · about {duration_text(left / rate)} left" if left > 0 else "")


def run(store, set_id: str, model_name: str, claim: bool = True, say=None) -> str:
    """The job's body (in its own process, or inline from the command line): compute what is missing,
    keep the row's progress and heartbeat current, honour a cancel. Returns the final state.

    ``claim``: take the job first (the command line); a process :func:`start` made has it already.
    ``say``: a callable taking progress sentences (the command line's)."""
    w = work(store, model_name)
    corpus = _corpus(store, set_id)
    w.check(corpus)
    if claim:
        claimed, _ = store.claim_job(set_id, w.digest, w.name, alive)
        if not claimed:
            raise InputError(
                f"a job is already computing {metric_of(w.name)} for this set (started by the dashboard or another "
                "command); wait for it, or cancel it on the Rankings page or with judges cancel"
            )
    store.update_job(set_id, w.digest, state="running", pid=os.getpid(), started=time.time())
    # progress in the set's segments (lines x systems), whatever the work is counted in: fast mode
    # computes distinct inputs, fewer than the segments when systems share lines
    total = corpus.n_lines * len(corpus.systems)
    already = w.already(corpus)
    stop = threading.Event()
    state = {"cancel": False, "said": -1}

    def beat() -> None:
        while not stop.wait(HEARTBEAT):
            with contextlib.suppress(InputError):
                if store.update_job(set_id, w.digest) == "cancelling":
                    state["cancel"] = True

    started = time.monotonic()
    if say:  # what a resumed job already had, before the model loads (issue 58, D10: minutes without a word)
        said = f"{already:,} of {total:,} segments saved by an earlier run; " if already else ""
        say(f"{metric_of(w.name)}: {said}starting")

    def on_progress(done: int, todo: int) -> None:
        share = done / todo if todo else 1.0
        fields = {"done": already + round((total - already) * share), "total": total}
        if done == 0:
            fields["resumed_at"] = already
        store.update_job(set_id, w.digest, **fields)
        pct = int(100 * share)
        now = time.monotonic()
        every = pct != state["said"] and (pct % 10 == 0 or done == todo)
        due = every or (now - state.get("at", started) >= SAY_EVERY and pct != state["said"])
        if say and due and fields["done"] != state.get("said_done"):  # a number already said is not said again
            state["said"], state["at"], state["said_done"] = pct, now, fields["done"]
            say(
                f"{metric_of(w.name)}: {fields['done']:,}/{total:,} segments{_pace(fields['done'] - already, total - fields['done'], now - started)}"
            )

    heart = threading.Thread(target=beat, daemon=True)
    heart.start()
    try:
        finished, summary = w.compute(corpus, on_progress, lambda: state["cancel"])
    except InputError as err:
        store.update_job(set_id, w.digest, state="failed", message=str(err))
        return "failed"
    except KeyboardInterrupt:  # the command line's Ctrl-C: what was computed is saved; a run again goes on
        store.update_job(set_id, w.digest, state="cancelled", message="interrupted")
        raise
    except Exception as err:  # a bug: still a sentence on the page, never a silent stop
        store.update_job(set_id, w.digest, state="failed", message=f"internal error: {type(err).__name__}: {err}")
        raise
    finally:
        stop.set()
    final = "done" if finished else "cancelled"
    store.update_job(set_id, w.digest, state=final, message=summary if finished else None)
    if say and summary:
        say(summary)
    return final


#: how much lower a background job's CPU priority is than the process that started it (Unix ``nice``): the visitors'
#: pages come first, and a machine with nothing else to do still gives the job every core (docs/decisions.md, "Serving
#: many visitors")
NICENESS = 10


def lower_priority() -> None:
    """This process and the workers it starts yield the CPU to the dashboard's server (:data:`NICENESS`); nothing where
    the system has no ``nice``."""
    with contextlib.suppress(AttributeError, OSError):
        os.nice(NICENESS)


def main(argv: list[str]) -> int:
    from ..storage.store import Store

    if len(argv) != 2:
        print("usage: python -m mtlens.runtime.jobs SET_ID MODEL", file=sys.stderr)
        return 2
    lower_priority()  # a job in the background: the command line's own scoring (run inline) keeps its priority
    neural_env.sleep_idle_threads()  # and shares the cores: its workers' idle threads sleep (the CLI's spin as usual)
    store = Store()  # MTLENS_STORE, set by start(): the store that started the job
    try:
        return 0 if run(store, argv[0], argv[1], claim=False) == "done" else 1
    except InputError as err:
        print(f"mtlens: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
