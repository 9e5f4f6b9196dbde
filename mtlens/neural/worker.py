"""The neural worker: runs COMET in the optional extra's own interpreter (docs/decisions.md, "Neural
metrics"). It imports only the standard library and COMET, never mtlens (whose environment may differ).

    python worker.py describe CHECKPOINT
        prints one JSON object: the model's kind and inputs, read from its hparams.yaml (safe YAML).
    python worker.py score CHECKPOINT BATCH_SIZE CHUNK
        reads one JSON line per system from stdin until EOF, ``{"group": KEY, "rows": [{"src", "mt",
        "ref"}, ...], "todo": [line indices to score]}``, loads the model, prints ``{"ready": ...,
        "device": ...}``, then one JSON line per call of about CHUNK segments (whole batches)
        ``{"group": KEY, "idx": [...], "scores": [...], "spans": [...] | null}``, then ``{"end": true}``.
        Every failure is one line ``{"error": SENTENCE}`` and exit status 3.
    python worker.py fast CHECKPOINT BATCH_SIZE CHUNK
        (with MTLENS_RAY_ADDRESS set: the same blocks on that Ray cluster, :func:`ray_fast`)
        the shared-work path (docs/decisions.md, "Faster than comet-score"): reads one JSON object
        ``{"rows": [{"src", "mt", "ref"}, ...]}``, the distinct inputs of every system at once, prints
        ``{"ready": ...}``, then ``{"idx": [...], "scores": [...], "spans": [...] | null}`` per call and
        ``{"end": true}``. For an estimator (COMET-DA: each sentence encoded on its own) every distinct
        sentence, whether it is a source, a translation or a
        reference, is encoded once, in batches of sentences of similar length, and the estimator runs on
        the stored embeddings; other models (CometKiwi, xCOMET: joint encoding) score the distinct rows in
        batches formed by length across all systems. BATCH_SIZE 0: chosen from the device (64 on a CPU;
        from free memory on a GPU); an out-of-memory error halves the batch and retries it.

The model is prepared exactly as ``comet-score`` prepares it (``load_from_checkpoint``, ``eval``,
``half``, the embedding cache, float32 matmul precision "high", stripped lines), so that the scores equal
``comet-score --to_json`` for the same checkpoint. Checkpoints are read with torch's weights-only loader
(``TORCH_FORCE_WEIGHTS_ONLY_LOAD=1``, set by mtlens): a checkpoint cannot run code. Nothing is downloaded
(``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

#: COMET's class identifiers -> (mtlens kind, the inputs the model reads when hparams do not say)
KINDS = {
    "regression_metric": ("comet", ["mt", "src", "ref"]),
    "referenceless_regression_metric": ("cometkiwi", ["mt", "src"]),
    "unified_metric": ("comet", ["mt", "src", "ref"]),
    "xcomet_metric": ("xcomet", ["mt", "src", "ref"]),
}


#: what every process that loads a model sets first: nothing downloaded, checkpoints read by torch's
#: weights-only loader, no tokenizer threads
_OFFLINE_ENV = (
    ("HF_HUB_OFFLINE", "1"),
    ("TRANSFORMERS_OFFLINE", "1"),
    ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1"),
    ("TOKENIZERS_PARALLELISM", "false"),
)


def _say(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=True) + "\n")
    sys.stdout.flush()


def _fail(message: str) -> None:
    _say({"error": message})
    sys.exit(3)


def describe(checkpoint: str) -> dict:
    import yaml

    ckpt = Path(checkpoint)
    hp_file = ckpt.parent.parent / "hparams.yaml"
    if not ckpt.is_file():
        _fail(f"'{ckpt}' is not a file (give the model folder or its checkpoints/model.ckpt)")
    if not hp_file.is_file():
        _fail(f"'{hp_file}' is missing: a COMET checkpoint folder holds hparams.yaml beside checkpoints/")
    try:
        hp = yaml.safe_load(hp_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, yaml.YAMLError) as err:
        _fail(f"'{hp_file}' cannot be read as YAML ({type(err).__name__})")
    ident = hp.get("class_identifier") if isinstance(hp, dict) else None
    if ident not in KINDS:
        _fail(f"'{hp_file}' names no COMET model mtlens runs (class_identifier {ident!r})")
    kind, inputs = KINDS[ident]
    if ident == "unified_metric" and isinstance(hp.get("input_segments"), list):
        inputs = [str(x) for x in hp["input_segments"]]
        if "ref" not in inputs:
            kind = "cometkiwi"
    if ident == "unified_metric" and hp.get("word_level_training") is True:
        kind = "xcomet"  # what the model outputs decides: word-level tags give error spans, as xCOMET's
    return {"kind": kind, "inputs": inputs, "class": ident, "comet": _comet_version()}


def _comet_version() -> str:
    """COMET's installed version, without importing it: registering a model reads hparams.yaml only, and
    importing COMET (torch, Lightning, transformers) would cost 8 CPU-seconds for one string. A missing
    package is still the extra's one sentence (an ImportError, see the end of this file)."""
    import importlib.metadata
    import importlib.util

    if importlib.util.find_spec("comet") is None:
        raise ImportError("No module named 'comet'")
    try:
        return importlib.metadata.version("unbabel-comet")
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _save_seconds() -> float:
    """About how long one call's work takes before its results are sent (and saved by the parent)."""
    return float(os.environ.get("MTLENS_NEURAL_SAVE_SECONDS", "5") or 5)


def _encode(model, texts: list[str], device: str):
    """Sentence embeddings of ``texts`` in one batch, as COMET's forward pass computes them."""
    enc = model.encoder.prepare_sample(texts)
    return model.get_sentence_embedding(enc["input_ids"].to(device), enc["attention_mask"].to(device))


def _device() -> tuple[int, str]:
    import torch

    if torch.cuda.is_available():
        return 1, "cuda"
    return 0, "cpu"


def plan(rows: list[dict], batch_size: int) -> list[list[int]]:
    """comet-score's batches of one system's segments: ``predict`` sorts them by the length of the source
    (of the reference when there is none) with numpy's argsort and cuts batches of ``batch_size``. The
    batch a segment is in changes its score in half precision (padding), so mtlens forms the same ones."""
    import numpy as np

    field = "src" if all("src" in r for r in rows) else "ref"
    order = np.argsort([len(r[field]) for r in rows]).tolist()
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def _load(checkpoint: str):
    """The model, prepared as comet-score prepares it; one sentence when it cannot be loaded."""
    import torch
    from comet import load_from_checkpoint

    torch.set_float32_matmul_precision("high")
    try:
        model = load_from_checkpoint(checkpoint)
    except Exception as err:  # every loader failure becomes one sentence
        text = str(err).splitlines()[0] if str(err) else type(err).__name__
        if "Weights only load failed" in text:
            text = (
                "it holds Python objects besides weights, which torch's safe loader refuses (so does comet-score "
                "with torch 2.6 or newer); mtlens never runs code from a checkpoint"
            )
        elif "PytorchStreamReader" in text or "invalid load key" in text or "zip archive" in text:
            text = "it is not a torch checkpoint file"
        _fail(f"COMET could not load '{checkpoint}': {text[:200]}")
    model.eval()
    model.half()
    return model


def score(checkpoint: str, batch_size: int, chunk: int) -> None:
    groups = [json.loads(line) for line in sys.stdin if line.strip()]
    import torch

    gpus, device = _device()
    inputs = describe(checkpoint)["inputs"]
    model = _load(checkpoint)
    model.set_embedding_cache()
    shared = _estimator(model)
    _say({"ready": len(groups), "device": device, "batch": batch_size, "shared": shared})
    if shared:
        _exact_shared(model, groups, inputs, batch_size, chunk, device)
        _say({"end": True})
        return
    # whole batches per predict call: CHUNK segments when given; else (CHUNK 0) as many as take about
    # SAVE_SECONDS, measured as it goes (each call's results are saved: a small model makes few calls, a
    # large one on a CPU still saves every few seconds)
    adaptive = chunk <= 0
    per_call = 1 if adaptive else max(1, chunk // batch_size)
    target = _save_seconds()
    for group in groups:
        rows = [{k: str(r.get(k, "")).strip() for k in inputs} for r in group["rows"]]
        todo = set(group["todo"])
        batches = [b for b in plan(rows, batch_size) if todo.intersection(b)]
        start = 0
        while start < len(batches):
            part = batches[start : start + per_call]
            start += len(part)
            idx = [i for b in part for i in b]
            began = time.perf_counter()
            try:
                out = model.predict(
                    [rows[i] for i in idx],
                    batch_size=batch_size,
                    gpus=gpus,
                    progress_bar=False,
                    accelerator="cpu" if gpus == 0 else "auto",
                    length_batching=False,  # the batches are already comet-score's
                )
            except torch.cuda.OutOfMemoryError:
                _fail(f"the GPU ran out of memory with batches of {batch_size}; set MTLENS_NEURAL_BATCH lower")
            except MemoryError:
                _fail(f"the machine ran out of memory with batches of {batch_size}; set MTLENS_NEURAL_BATCH lower")
            if adaptive:
                per_batch = max(1e-3, (time.perf_counter() - began) / len(part))
                per_call = max(1, min(256, int(target / per_batch)))
            spans = None
            meta = out.get("metadata") if hasattr(out, "get") else None
            if meta is not None and "error_spans" in meta:
                spans = [list(s) for s in meta["error_spans"]]
            _say({"group": group["group"], "idx": idx, "scores": [float(x) for x in out.scores], "spans": spans})
    _say({"end": True})


def _exact_shared(model, groups: list[dict], inputs: list[str], batch_size: int, chunk: int, device: str) -> None:
    """comet-score's numbers bit for bit, with the sources and references encoded once for all systems.

    Each system's segments are cut into comet-score's batches (:func:`plan`: sorted by source length), and
    each batch is computed as comet-score's forward pass computes it (the same sentences, in the same order,
    padded alike, through the same encoder call and estimator), so every number is the same; but a batch of
    sources or references that another system already needs at the same position (the same sentences: the
    plan depends on the sources only) is encoded once. The loop goes batch position by batch position
    across the systems, so only the current position's embeddings are held."""
    import torch

    rows = [[{k: str(r.get(k, "")).strip() for k in inputs} for r in g["rows"]] for g in groups]
    plans = []
    for g, rs in zip(groups, rows, strict=True):
        todo = set(g["todo"])
        plans.append([b for b in plan(rs, batch_size) if todo.intersection(b)])
    adaptive = chunk <= 0
    per_call = 1 if adaptive else max(1, chunk // batch_size)
    target = _save_seconds()
    positions = max((len(p) for p in plans), default=0)

    def encode(texts: list[str]):
        nonlocal encoded
        encoded += len(texts)
        try:
            return _encode(model, texts, device)
        except (torch.cuda.OutOfMemoryError, MemoryError):
            _fail(f"out of memory with batches of {batch_size}; set MTLENS_NEURAL_BATCH lower")

    encoded = 0
    start = 0
    with torch.inference_mode():
        while start < positions:
            stop = min(positions, start + per_call)
            began = time.perf_counter()
            out = [([], []) for _ in groups]
            for j in range(start, stop):
                here: dict = {}  # (input, sentences) -> embeddings, for this batch position
                for gi, p in enumerate(plans):
                    if j >= len(p):
                        continue
                    batch = p[j]
                    emb = {}
                    for k in inputs:
                        texts = [rows[gi][i][k] for i in batch]
                        if k == "mt":  # a system's own translations: never another system's batch
                            emb[k] = encode(texts)
                            continue
                        key = (k, tuple(texts))
                        if key not in here:
                            here[key] = encode(texts)
                        emb[k] = here[key]
                    pred = model.estimate(emb["src"], emb["mt"], emb["ref"])
                    out[gi][0].extend(batch)
                    out[gi][1].extend(float(x) for x in pred.score.view(-1).tolist())
            for g, (idx, scores) in zip(groups, out, strict=True):
                if idx:
                    _say({"group": g["group"], "idx": idx, "scores": scores, "spans": None, "encoded": encoded})
                    encoded = 0
            if adaptive:  # batch positions per call: about SAVE_SECONDS each, as in comet-score's path
                per_position = max(1e-3, (time.perf_counter() - began) / (stop - start))
                per_call = max(1, min(256, int(target / per_position)))
            start = stop


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
            _free_memory()


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


def _free_memory() -> None:
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except ImportError:  # pragma: no cover - the worker always has torch
        pass


def _oom_errors() -> tuple:
    import torch

    return (torch.cuda.OutOfMemoryError, MemoryError)


def _auto_batch(model, device: str) -> int:
    """64 sentences on a CPU (larger batches of similar length gain nothing there); on a GPU, what its free
    memory holds for sentences of the encoder's longest length in half precision (activations of about 24
    values per hidden unit per token), between 16 and 512."""
    if device != "cuda":
        return 64
    import torch

    free, _ = torch.cuda.mem_get_info()
    hidden = int(getattr(model.encoder, "output_units", 1024) or 1024)
    per_sentence = max(1, (model.encoder.max_positions or 512) * hidden * 2 * 24)
    return max(16, min(512, int(free * 0.8) // per_sentence))


def _estimator(model) -> bool:
    """Whether the model is COMET-DA's estimator (``RegressionMetric``): each input sentence encoded on its
    own and combined by ``estimate(src, mt, ref)``, so that one sentence's embedding serves every row it is
    in. The referenceless regression (a subclass whose forward pass combines two embeddings in its own
    way, without an ``estimate`` of that shape) and context-enabled models take the joint path."""
    from comet.models import ReferencelessRegression, RegressionMetric

    return (
        isinstance(model, RegressionMetric)
        and not isinstance(model, ReferencelessRegression)
        and not getattr(model, "use_context", False)
    )


#: rows of a block (the unit that is computed, saved and, on a Ray cluster, sent to a worker): about 1/32 of the
#: work, between these bounds, unless MTLENS_NEURAL_CHUNK says
BLOCKS, BLOCK_MIN, BLOCK_MAX = 32, 128, 4096


def blocks(rows: list[dict], inputs: list[str], shared: bool, size: int, chunk: int) -> list[list[int]]:
    """The fast path's blocks: the rows in the order of a length that decides the cost (a joint model reads
    the row's texts together; an estimator keeps line order, so a line's source and reference serve its
    neighbours), cut into blocks of whole batches. A block's scores depend only on its rows and the batch
    size, never on which process computes it or on the blocks before it: the local worker and a Ray
    cluster give the same numbers (docs/decisions.md, "Neural jobs on Ray")."""
    n = len(rows)
    order = list(range(n)) if shared else sorted(range(n), key=lambda i: sum(len(rows[i][k]) for k in inputs))
    per = chunk if chunk > 0 else min(BLOCK_MAX, max(BLOCK_MIN, -(-n // BLOCKS)))
    if not shared:
        per = -(-per // size) * size  # whole batches: the same batches however the blocks are spread
    return [order[i : i + per] for i in range(0, n, per)]


def run_block(model, rows: list[dict], inputs: list[str], size: int, device: str, gpus: int, shared: bool):
    """One block's ``(scores, spans, batch size now, sentences encoded)``: an estimator encodes the block's
    distinct sentences once (sorted by length, batches of ``size``) and estimates every row from them; a
    joint model scores the rows in batches of ``size``."""
    import torch

    with torch.inference_mode():
        if shared:
            scores, size, encoded = _estimate(model, rows, inputs, size, device)
            return scores, None, size, encoded
        scores, spans, size = _joint(model, rows, size, gpus)
        return scores, spans, size, len(rows) * (3 if "ref" in inputs and "src" in inputs else 1)


def fast(checkpoint: str, batch_size: int, chunk: int) -> None:
    doc = json.loads(sys.stdin.read() or "{}")
    inputs = describe(checkpoint)["inputs"]
    rows = [{k: str(r.get(k, "")).strip() for k in inputs} for r in doc.get("rows", [])]
    address = os.environ.get(RAY_ENV, "").strip()
    if address:
        ray_fast(address, checkpoint, rows, inputs, batch_size, chunk)
        return
    import torch

    gpus, device = _device()
    model = _load(checkpoint)
    if device == "cuda":
        model.to("cuda")
    if device == "cpu":
        torch.set_num_threads(max(1, os.cpu_count() or 1))
    size = batch_size if batch_size > 0 else _auto_batch(model, device)
    shared = _estimator(model)
    _say({"ready": len(rows), "device": device, "batch": size, "shared": shared})
    for block in blocks(rows, inputs, shared, size, chunk):
        scores, spans, size, encoded = run_block(model, [rows[i] for i in block], inputs, size, device, gpus, shared)
        # encoded: sentences (or joint inputs) through the encoder in this block, for the parent's counts
        _say({"idx": block, "scores": scores, "spans": spans, "encoded": encoded})
    _say({"end": True})


# --------------------------------------------------------------------------- a Ray cluster
#: the cluster's address (``host:port`` of its head, or ``ray://host:port``); unset: the local worker
RAY_ENV = "MTLENS_RAY_ADDRESS"
#: times a block is sent again after the worker computing it died
RAY_RETRIES = 3


class _Scorer:
    """A Ray actor: the model loaded once on its worker (on the worker's GPU when it has one), then blocks."""

    def __init__(self, checkpoint: str, threads: int):
        os.environ.update(_OFFLINE_ENV)
        import torch

        self.gpus, self.device = _device()
        if self.device == "cpu":
            torch.set_num_threads(max(1, threads))
        try:
            self.model = _load(checkpoint)
        except SystemExit:  # _load said why on stdout; the driver reads the reason from this error
            raise RuntimeError(f"COMET could not load '{checkpoint}' on a Ray worker") from None
        if self.device == "cuda":
            self.model.to("cuda")
        self.shared = _estimator(self.model)

    def estimator(self) -> bool:
        """Whether the model is an estimator (its blocks are cut in line order, not by length)."""
        return self.shared

    def batch(self, size: int) -> int:
        return size if size > 0 else _auto_batch(self.model, self.device)

    def score(self, rows: list[dict], inputs: list[str], size: int):
        return run_block(self.model, rows, inputs, size, self.device, self.gpus, self.shared)


def ray_fast(
    address: str, checkpoint: str, rows: list, inputs: list[str], batch_size: int, chunk: int, scorer=None
) -> None:
    """The fast path's blocks on a Ray cluster: one actor per GPU (or per node's CPUs), each loading the
    model once; blocks go to idle actors and their results are printed as they come (the parent saves
    them); a block whose worker died is sent again (up to RAY_RETRIES times) to a new actor. ``scorer``: another
    model's ``(actor class, its arguments before the thread count, the blocks for a batch size)`` (MetricX's worker,
    :mod:`mtlens.neural.metricx_worker`); None: COMET's :class:`_Scorer` and :func:`blocks`."""
    import collections

    import ray  # the parent checked that the address answers (mtlens.neural.models.check_ray)
    from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError, WorkerCrashedError
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    try:
        ray.init(address=address, logging_level="ERROR", log_to_driver=False, namespace="mtlens")
    except Exception as err:  # every way of not joining is one sentence
        _fail(f"cannot join the Ray cluster at {address} ({RAY_ENV}): {str(err).splitlines()[0][:200]}")
    _say({"joined": True})  # the parent's deadline for joining ends here (mtlens.neural.compute)
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
        _fail(f"the Ray cluster at {address} has no worker with a CPU or GPU to score on")
    actor_class, actor_args, planned = scorer or (_Scorer, (checkpoint,), None)
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
        _fail(f"the Ray workers could not load the model: {str(err).splitlines()[0][:200]}")
    _say({"ready": len(rows), "device": f"ray:{len(actors)} workers", "batch": size, "shared": shared})
    plan = planned(size) if planned else blocks(rows, inputs, shared, size, chunk)
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
                _fail(f"a Ray worker died {tries[b]} times on the same block: {str(err).splitlines()[0][:200]}")
            _say({"retry": len(plan[b])})  # rows sent again (the parent counts them)
            queue.appendleft(b)  # the block again, on a new actor in the dead one's place
            actors[a] = make(slots[a])
            idle.append(a)
            continue
        except RayTaskError as err:
            _fail(f"a Ray worker failed: {str(err.cause if hasattr(err, 'cause') else err).splitlines()[0][:200]}")
        _say({"idx": plan[b], "scores": scores, "spans": spans, "encoded": encoded})
        idle.append(a)
    _say({"end": True})


def _estimate(model, rows: list[dict], inputs: list[str], size: int, device: str):
    """Scores of rows from their sentences' embeddings, each distinct sentence encoded once (batches of
    sentences sorted by length, so little padding)."""
    import torch

    # by length, then by text: a set's order changes with each process's string hashing, and a sentence's
    # batch changes its embedding in half precision, so the order must not
    texts = sorted({r[k] for r in rows for k in inputs}, key=lambda t: (len(t), t))

    vectors, size = halving(lambda part: list(_encode(model, part, device)), texts, size, _oom_errors())
    embeddings = dict(zip(texts, vectors, strict=True))
    stacked = {k: torch.stack([embeddings[r[k]] for r in rows]) for k in inputs}
    pred = model.estimate(stacked["src"], stacked["mt"], stacked["ref"])
    return [float(x) for x in pred.score.float().view(-1).tolist()], size, len(texts)


def _joint(model, rows: list[dict], size: int, gpus: int):
    """Scores (and spans) of distinct rows with a joint-encoding model: one COMET predict call over rows
    already sorted by length, in batches of ``size`` (halved on out-of-memory: :func:`shrinking`)."""

    def call(n: int):
        return model.predict(
            rows,
            batch_size=n,
            gpus=gpus,
            progress_bar=False,
            accelerator="cpu" if gpus == 0 else "auto",
            length_batching=False,  # the rows are already in length order across all systems
        )

    out, size = shrinking(call, size, _oom_errors())
    meta = out.get("metadata") if hasattr(out, "get") else None
    spans = [list(s) for s in meta["error_spans"]] if meta is not None and "error_spans" in meta else None
    return [float(x) for x in out.scores], spans, size


# --------------------------------------------------------------------------- the parent
def _watch_parent() -> None:
    """Stop when the process that started the worker dies (``kill -9`` of a job or a command): the worker
    runs in its own session, so nothing else would stop it before its next write fails."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(4)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def main(argv: list[str]) -> None:
    if len(argv) >= 2 and argv[0] == "describe":
        _say(describe(argv[1]))
    elif len(argv) == 4 and argv[0] in ("score", "fast"):
        _watch_parent()
        (score if argv[0] == "score" else fast)(argv[1], int(argv[2]), int(argv[3]))
    else:
        _fail("usage: worker.py describe CKPT | score CKPT BATCH CHUNK | fast CKPT BATCH CHUNK")


def run(entry, env=_OFFLINE_ENV) -> None:
    """A worker's start (this one's and MetricX's): the offline settings, then ``entry(argv)``; a package missing
    from the neural environment is one sentence."""
    for name, value in env:
        os.environ.setdefault(name, value)
    try:
        entry(sys.argv[1:])
    except ImportError as err:
        _fail(f"the neural environment lacks a package ({err}); reinstall it with scripts/install-neural.sh")


if __name__ == "__main__":
    run(main)
