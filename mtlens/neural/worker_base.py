"""What every neural worker shares (the COMET worker, :mod:`mtlens.neural.worker`, and MetricX's,
:mod:`mtlens.neural.metricx_worker`): the protocol's messages, the offline settings, the parent watch, the
out-of-memory halving, the fast path's blocks and the Ray loop. Like the workers it imports only the standard library
at module level, never mtlens: a worker runs with ``python -I`` in the neural extra's interpreter and loads this file
from beside its own (the one thing that cannot be shared is how the shared part is found).

The protocol, on the worker's stdin and stdout, one JSON object per line:

    WORKER describe ARGS...
        one object: the model's kind and inputs (and what the worker checked).
    WORKER score ARGS... BATCH_SIZE CHUNK
        reads one line per system until EOF, ``{"group": KEY, "rows": [{"src", "mt", "ref"}, ...], "todo": [line
        indices to score]}``, loads the model, prints ``{"ready": ..., "device": ...}``, then one line per call of
        about CHUNK segments (whole batches) ``{"group": KEY, "idx": [...], "scores": [...], "spans": [...] | null}``,
        then ``{"end": true}``.
    WORKER fast ARGS... BATCH_SIZE CHUNK
        reads one object ``{"rows": [{"src", "mt", "ref"}, ...]}``, the distinct inputs of every system at once,
        prints ``{"ready": ...}``, then ``{"idx": [...], "scores": [...], "spans": [...] | null}`` per block and
        ``{"end": true}`` (on a Ray cluster, :func:`ray_fast`, first ``{"joined": true}``).

Every failure is one line ``{"error": SENTENCE}`` and exit status 3.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

#: what every process that loads a model sets first: nothing downloaded, checkpoints read by torch's
#: weights-only loader, no tokenizer threads
OFFLINE_ENV = (
    ("HF_HUB_OFFLINE", "1"),
    ("TRANSFORMERS_OFFLINE", "1"),
    ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1"),
    ("TOKENIZERS_PARALLELISM", "false"),
)


def say(obj) -> None:
    """One line of the protocol on stdout (ASCII JSON), sent at once."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=True) + "\n")
    sys.stdout.flush()


def fail(message: str) -> None:
    """The one failure line ``{"error": SENTENCE}`` and exit status 3."""
    say({"error": message})
    sys.exit(3)


def save_seconds() -> float:
    """About how long one call's work takes before its results are sent (and saved by the parent)."""
    return float(os.environ.get("MTLENS_NEURAL_SAVE_SECONDS", "5") or 5)


class Pace:
    """How many units (batches, batch positions) each call computes before its results are sent and saved: CHUNK's
    worth when given; else (CHUNK 0) as many as take about :func:`save_seconds`, measured as it goes (a small model
    makes few calls, a large one on a CPU still saves every few seconds)."""

    def __init__(self, chunk: int, unit: int):
        self.adaptive = chunk <= 0
        self.per_call = 1 if self.adaptive else max(1, chunk // unit)
        self.target = save_seconds()

    def took(self, seconds: float, units: int) -> None:
        """The last call computed ``units`` in ``seconds``: the next one's size."""
        if self.adaptive:
            self.per_call = max(1, min(256, int(self.target / max(1e-3, seconds / units))))


# --------------------------------------------------------------------------- the shared-work path
def shrinking(call, size: int, oom: tuple):
    """``call(size)`` until it fits: an out-of-memory error (one of ``oom``) halves ``size`` and calls again,
    so a batch too large for the device costs a retry, not the job; a size of 1 that does not fit raises.
    Returns the result and the size that worked (later calls start from it)."""
    while True:
        try:
            return call(size), size
        except oom:
            if size == 1:
                raise
            size = max(1, size // 2)
            free_memory()


def halving(run, items: list, size: int, oom: tuple) -> tuple[list, int]:
    """``run(part)`` over ``items`` in parts of ``size``, concatenating the results; a part that does not fit
    is retried halved (:func:`shrinking`). Returns the results and the size that worked."""
    out: list = []
    i = 0
    while i < len(items):
        got, size = shrinking(lambda n, at=i: run(items[at : at + n]), size, oom)
        out.extend(got)
        i += min(size, len(items) - i)
    return out, size


def free_memory() -> None:
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except ImportError:  # pragma: no cover - the worker always has torch
        pass


def oom_errors() -> tuple:
    import torch

    return (torch.cuda.OutOfMemoryError, MemoryError)


#: rows of a block (the unit that is computed, saved and, on a Ray cluster, sent to a worker): about 1/32 of the
#: work, between these bounds, unless MTLENS_NEURAL_CHUNK says
BLOCKS, BLOCK_MIN, BLOCK_MAX = 32, 128, 4096


def cut(order: list[int], size: int, chunk: int, whole_batches: bool = True) -> list[list[int]]:
    """The fast path's blocks: rows in ``order`` (the worker's: by the length that decides the cost), cut into blocks
    of about 1/32 of the work, or of CHUNK rows when given, of whole batches of ``size`` unless ``whole_batches`` is
    false. A block's scores depend only on its rows and the batch size, never on which process computes it or on the
    blocks before it: the local worker and a Ray cluster give the same numbers (docs/decisions.md, "Neural jobs on
    Ray")."""
    per = chunk if chunk > 0 else min(BLOCK_MAX, max(BLOCK_MIN, -(-len(order) // BLOCKS)))
    if whole_batches:
        per = -(-per // size) * size  # whole batches: the same batches however the blocks are spread
    return [order[i : i + per] for i in range(0, len(order), per)]


# --------------------------------------------------------------------------- a Ray cluster
#: the cluster's address (``host:port`` of its head, or ``ray://host:port``); unset: the local worker
RAY_ENV = "MTLENS_RAY_ADDRESS"
#: times a block is sent again after the worker computing it died
RAY_RETRIES = 3


def ray_fast(address: str, rows: list, inputs: list[str], batch_size: int, scorer: tuple) -> None:
    """The fast path's blocks on a Ray cluster: one actor per GPU (or per node's CPUs), each loading the
    model once; blocks go to idle actors and their results are printed as they come (the parent saves
    them); a block whose worker died is sent again (up to RAY_RETRIES times) to a new actor. ``scorer``: the
    model's ``(actor class, its arguments before the thread count, the blocks for a batch size and whether the model
    is an estimator)``: the worker's own (COMET's or MetricX's)."""
    import collections

    import ray  # the parent checked that the address answers (mtlens.neural.models.check_ray)
    import ray.cloudpickle
    from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError, WorkerCrashedError
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    try:
        ray.init(address=address, logging_level="ERROR", log_to_driver=False, namespace="mtlens")
    except Exception as err:  # every way of not joining is one sentence
        fail(f"cannot join the Ray cluster at {address} ({RAY_ENV}): {str(err).splitlines()[0][:200]}")
    # the actors' code calls this module's functions, which the cluster's workers cannot import: sent by value
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    say({"joined": True})  # the parent's deadline for joining ends here (mtlens.neural.compute)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    slots = []  # (node id, CPUs, GPUs) of each actor: one per GPU, else one per node with all its CPUs
    for node in nodes:
        res = node.get("Resources", {})
        gpus, cpus = int(res.get("GPU", 0)), int(res.get("CPU", 0))
        if gpus:
            slots += [(node["NodeID"], 1, 1)] * gpus
        elif cpus:
            slots.append((node["NodeID"], cpus, 0))
    if not slots:
        fail(f"the Ray cluster at {address} has no worker with a CPU or GPU to score on")
    actor_class, actor_args, planned = scorer
    remote = ray.remote(actor_class)

    def make(slot):
        node, cpus, gpus = slot
        return remote.options(
            num_cpus=cpus,
            num_gpus=gpus,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=True),
        ).remote(*actor_args, cpus)

    actors = [make(slot) for slot in slots]
    try:
        shared = ray.get(actors[0].estimator.remote(), timeout=600)
        size = ray.get(actors[0].batch.remote(batch_size), timeout=600)
    except (RayActorError, RayTaskError, GetTimeoutError) as err:
        fail(f"the Ray workers could not load the model: {str(err).splitlines()[0][:200]}")
    say({"ready": len(rows), "device": f"ray:{len(actors)} workers", "batch": size, "shared": shared})
    plan = planned(size, shared)
    queue, idle = collections.deque(range(len(plan))), list(range(len(actors)))
    pending: dict = {}
    tries = collections.Counter()
    while queue or pending:
        while queue and idle:
            a, b = idle.pop(), queue.popleft()
            pending[actors[a].score.remote([rows[i] for i in plan[b]], inputs, size)] = (b, a)
        ready, _ = ray.wait(list(pending), num_returns=1)
        b, a = pending.pop(ready[0])
        try:
            scores, spans, _, encoded = ray.get(ready[0])
        except (RayActorError, WorkerCrashedError) as err:
            tries[b] += 1
            if tries[b] > RAY_RETRIES:
                fail(f"a Ray worker died {tries[b]} times on the same block: {str(err).splitlines()[0][:200]}")
            say({"retry": len(plan[b])})  # rows sent again (the parent counts them)
            queue.appendleft(b)  # the block again, on a new actor in the dead one's place
            actors[a] = make(slots[a])
            idle.append(a)
            continue
        except RayTaskError as err:
            fail(f"a Ray worker failed: {str(err.cause if hasattr(err, 'cause') else err).splitlines()[0][:200]}")
        say({"idx": plan[b], "scores": scores, "spans": spans, "encoded": encoded})
        idle.append(a)
    say({"end": True})


def requests():
    """The fast path's requests: one JSON object per line of stdin, each yielded as it comes (the parent may keep the
    worker for its next work: :mod:`mtlens.neural.kept`), until the input ends. An input that ends with no line at all
    is no request: the parent always sends its work, so its input ended because it went away, and nothing is loaded
    for nobody."""
    for line in sys.stdin:
        if line.strip():
            yield json.loads(line)


#: the line that ends one request of the exact path's groups (the parent writes it when it may keep the worker)
END_OF_WORK = {"end": True}


def group_requests():
    """The exact path's requests: each a list of groups, one JSON object per line, ended by :data:`END_OF_WORK` or by
    the end of the input (a parent that ends its input after its groups gets one request, as before). No group, no
    request (as in :func:`requests`, an input that ends empty means the parent went away)."""
    groups: list = []
    for line in sys.stdin:
        if not line.strip():
            continue
        doc = json.loads(line)
        if doc == END_OF_WORK:
            if groups:
                yield groups
            groups = []
        else:
            groups.append(doc)
    if groups:
        yield groups


# --------------------------------------------------------------------------- the parent
#: the process id of the worker's parent, as the parent sets it (mtlens.neural.environment.worker_env)
PARENT_ENV = "MTLENS_WORKER_PARENT"


def watch_parent() -> None:
    """Stop when the process that started the worker dies (``kill -9`` of a job or a command): the worker
    runs in its own session, so nothing else would stop it before its next write fails. Two signs, checked every
    half second: the worker's parent changes (it was handed to another process), or the process that names itself
    in :data:`PARENT_ENV` (:func:`mtlens.neural.environment.worker_env`) is gone, which also catches a parent killed
    while the worker was still starting, before this watch began, and an interpreter wrapper that did not ``exec``."""
    import threading

    first = os.getppid()
    named = os.environ.get(PARENT_ENV, "")
    parent = int(named) if named.isdigit() else first

    def gone(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # another user's process: it exists
            pass
        return False

    def watch() -> None:
        while True:
            if os.getppid() != first or gone(parent):
                os._exit(4)
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


# --------------------------------------------------------------------------- checkpoints
#: the files a checkpoint's weights may be in (one file, or shards with an index)
WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json", "pytorch_model.bin.index.json")


def weight_files(folder: Path) -> list[Path]:
    """The checkpoint's weight files (an index's shards with the index); ValueError with a sentence when there are
    none or the index is broken (the callers, a worker and the parent, say it their way)."""
    for name in WEIGHTS:
        p = folder / name
        if not p.is_file():
            continue
        if not name.endswith(".index.json"):
            return [p]
        try:
            shards = sorted(set(json.loads(p.read_text(encoding="utf-8"))["weight_map"].values()))
        except (OSError, UnicodeError, ValueError, KeyError, AttributeError, TypeError):
            raise ValueError(f"'{p}' is not a readable index of weight shards") from None
        missing = [s for s in shards if not isinstance(s, str) or Path(s).name != s or not (folder / s).is_file()]
        if missing:
            raise ValueError(f"'{p}' names shards that are not in the folder: {', '.join(map(str, missing[:3]))}")
        return [p, *(folder / s for s in shards)]
    raise ValueError(f"'{folder}' holds no weights ({', '.join(WEIGHTS[:2])}, or an index of shards)")


def check_weights(files: list[Path]) -> tuple[str, set]:
    """Open every weight file as the loader will (safetensors' header, torch's weights-only unpickler) and return
    the weights' dtype and the tensors' names; a file with Python objects besides tensors is refused in one
    sentence."""
    import torch

    dtypes, keys = set(), set()
    for f in files:
        if f.name.endswith(".json"):
            continue
        try:
            if f.suffix == ".safetensors":
                from safetensors import safe_open

                with safe_open(str(f), framework="pt") as st:
                    keys |= set(st.keys())
                    for key in list(st.keys())[:4]:
                        dtypes.add(str(st.get_slice(key).get_dtype()))
            else:
                state = torch.load(str(f), map_location="cpu", weights_only=True, mmap=True)
                keys |= set(state)
                dtypes |= {str(v.dtype).replace("torch.", "") for v in list(state.values())[:4] if hasattr(v, "dtype")}
        except Exception as err:  # every loader failure becomes one sentence
            text = str(err).splitlines()[0] if str(err) else type(err).__name__
            if "Weights only load failed" in str(err) or "weights_only" in str(err):
                text = (
                    "it holds Python objects besides weights, which torch's safe loader refuses; mtlens never runs "
                    "code from a checkpoint"
                )
            fail(f"the weights in '{f}' cannot be loaded: {text[:200]}")
    names = {"BF16": "bfloat16", "F32": "float32", "F16": "float16", "bfloat16": "bfloat16", "float32": "float32"}
    return ",".join(sorted(names.get(d, d.lower()) for d in dtypes)) or "?", keys


def sibling(stem: str):
    """Another worker file beside this one (``STEM.py``), loaded once as ``mtlens_worker_STEM``."""
    import importlib.util

    name = f"mtlens_worker_{stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{stem}.py"))
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


def run(entry, env=OFFLINE_ENV) -> None:
    """A worker's start (COMET's and MetricX's): the offline settings, then ``entry(argv)``; a package missing
    from the neural environment is one sentence."""
    for name, value in env:
        os.environ.setdefault(name, value)
    try:
        entry(sys.argv[1:])
    except ImportError as err:
        fail(f"the neural environment lacks a package ({err}); reinstall it with scripts/install-neural.sh")
