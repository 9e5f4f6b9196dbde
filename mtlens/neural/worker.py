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
    import comet

    return {"kind": kind, "inputs": inputs, "class": ident, "comet": getattr(comet, "__version__", "?")}


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


def score(checkpoint: str, batch_size: int, chunk: int) -> None:
    groups = [json.loads(line) for line in sys.stdin if line.strip()]
    import torch
    from comet import load_from_checkpoint

    torch.set_float32_matmul_precision("high")
    gpus, device = _device()
    inputs = describe(checkpoint)["inputs"]
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
    model.set_embedding_cache()
    _say({"ready": len(groups), "device": device, "batch": batch_size})
    # whole batches per predict call: CHUNK segments when given; else (CHUNK 0) as many as take about
    # SAVE_SECONDS, measured as it goes (each call's results are saved: a small model makes few calls, a
    # large one on a CPU still saves every few seconds)
    adaptive = chunk <= 0
    per_call = 1 if adaptive else max(1, chunk // batch_size)
    target = float(os.environ.get("MTLENS_NEURAL_SAVE_SECONDS", "5") or 5)
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


def main(argv: list[str]) -> None:
    if len(argv) >= 2 and argv[0] == "describe":
        _say(describe(argv[1]))
    elif len(argv) == 4 and argv[0] == "score":
        score(argv[1], int(argv[2]), int(argv[3]))
    else:
        _fail("usage: worker.py describe CKPT | score CKPT BATCH CHUNK")


if __name__ == "__main__":
    for name, value in (
        ("HF_HUB_OFFLINE", "1"),
        ("TRANSFORMERS_OFFLINE", "1"),
        ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1"),
        ("TOKENIZERS_PARALLELISM", "false"),
    ):
        os.environ.setdefault(name, value)
    try:
        main(sys.argv[1:])
    except ImportError as err:
        _fail(f"the neural environment lacks a package ({err}); reinstall it with scripts/install-neural.sh")
