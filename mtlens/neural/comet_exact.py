"""The COMET worker's exact path (``worker.py score``): comet-score's numbers, bit for bit, for each system. Loaded
by the COMET worker (:mod:`mtlens.neural.worker`) from beside it, with the worker's model functions passed in as
``comet`` (the model is loaded, described and encoded in one place); like the workers it imports only the standard
library at module level, never mtlens.
"""

from __future__ import annotations

import time


def plan(rows: list[dict], batch_size: int) -> list[list[int]]:
    """comet-score's batches of one system's segments: ``predict`` sorts them by the length of the source
    (of the reference when there is none) with numpy's argsort and cuts batches of ``batch_size``. The
    batch a segment is in changes its score in half precision (padding), so mtlens forms the same ones."""
    import numpy as np

    field = "src" if all("src" in r for r in rows) else "ref"
    order = np.argsort([len(r[field]) for r in rows]).tolist()
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def score(comet, checkpoint: str, batch_size: int, chunk: int) -> None:
    """comet-score's path (``score``): each system's segments in comet-score's batches (:func:`plan`), one call of
    whole batches at a time; an estimator's sources and references encoded once (:func:`_exact_shared`)."""
    model = None
    # each request's groups, the model kept for the next (mtlens.neural.kept)
    for groups in comet.base.group_requests():
        if model is None:
            inputs = comet.describe(checkpoint)["inputs"]
            model = comet._load(checkpoint)
            model.set_embedding_cache()
            if comet._estimator(model) and comet._device()[1] == "cuda":  # encoded here, not by predict's Trainer
                model.to("cuda")
        _score_one(comet, model, inputs, groups, batch_size, chunk)


def _score_one(comet, model, inputs: list[str], groups: list[dict], batch_size: int, chunk: int) -> None:
    base = comet.base
    import torch

    gpus, device = comet._device()
    shared = comet._estimator(model)
    base.say({"ready": len(groups), "device": device, "batch": batch_size, "shared": shared})
    if shared:
        _exact_shared(comet, model, groups, inputs, batch_size, chunk, device)
        base.say({"end": True})
        return
    pace = base.Pace(chunk, batch_size)  # whole batches per predict call
    for group in groups:
        rows = [{k: str(r.get(k, "")).strip() for k in inputs} for r in group["rows"]]
        todo = set(group["todo"])
        batches = [b for b in plan(rows, batch_size) if todo.intersection(b)]
        start = 0
        while start < len(batches):
            part = batches[start : start + pace.per_call]
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
                base.fail(f"the GPU ran out of memory with batches of {batch_size}; set MTLENS_NEURAL_BATCH lower")
            except MemoryError:
                base.fail(f"the machine ran out of memory with batches of {batch_size}; set MTLENS_NEURAL_BATCH lower")
            pace.took(time.perf_counter() - began, len(part))
            spans = None
            meta = out.get("metadata") if hasattr(out, "get") else None
            if meta is not None and "error_spans" in meta:
                spans = [list(s) for s in meta["error_spans"]]
            base.say({"group": group["group"], "idx": idx, "scores": [float(x) for x in out.scores], "spans": spans})
    base.say({"end": True})


def _exact_shared(
    comet, model, groups: list[dict], inputs: list[str], batch_size: int, chunk: int, device: str
) -> None:
    """comet-score's numbers bit for bit, with the sources and references encoded once for all systems.

    Each system's segments are cut into comet-score's batches (:func:`plan`: sorted by source length), and
    each batch is computed as comet-score's forward pass computes it (the same sentences, in the same order,
    padded alike, through the same encoder call and estimator), so every number is the same; but a batch of
    sources or references that another system already needs at the same position (the same sentences: the
    plan depends on the sources only) is encoded once. The loop goes batch position by batch position
    across the systems, so only the current position's embeddings are held."""
    base = comet.base
    import torch

    rows = [[{k: str(r.get(k, "")).strip() for k in inputs} for r in g["rows"]] for g in groups]
    plans = []
    for g, rs in zip(groups, rows, strict=True):
        todo = set(g["todo"])
        plans.append([b for b in plan(rs, batch_size) if todo.intersection(b)])
    pace = base.Pace(chunk, batch_size)  # batch positions per call
    positions = max((len(p) for p in plans), default=0)

    def encode(texts: list[str]):
        nonlocal encoded
        encoded += len(texts)
        try:
            return comet._encode(model, texts, device)
        except (torch.cuda.OutOfMemoryError, MemoryError):
            base.fail(f"out of memory with batches of {batch_size}; set MTLENS_NEURAL_BATCH lower")

    encoded = 0
    start = 0
    with torch.inference_mode():
        while start < positions:
            stop = min(positions, start + pace.per_call)
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
                    base.say({"group": g["group"], "idx": idx, "scores": scores, "spans": None, "encoded": encoded})
                    encoded = 0
            pace.took(time.perf_counter() - began, stop - start)
            start = stop
