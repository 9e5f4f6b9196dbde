"""The COMET worker: runs COMET in the optional extra's own interpreter (docs/decisions.md, "Neural
metrics"). It imports only the standard library and COMET, never mtlens (whose environment may differ), and speaks
the workers' protocol (:mod:`mtlens.neural.worker_base`):

    python worker.py describe CHECKPOINT
        one JSON object: the model's kind and inputs, read from its hparams.yaml (safe YAML).
    python worker.py score CHECKPOINT BATCH_SIZE CHUNK
        comet-score's path: each system's segments in comet-score's batches.
    python worker.py fast CHECKPOINT BATCH_SIZE CHUNK
        the shared-work path (docs/decisions.md, "Faster than comet-score"; with MTLENS_RAY_ADDRESS set, the same
        blocks on that Ray cluster). For an estimator (COMET-DA: each sentence encoded on its own) every distinct
        sentence, whether it is a source, a translation or a reference, is encoded once, in batches of sentences of
        similar length, and the estimator runs on the stored embeddings; other models (CometKiwi, xCOMET: joint
        encoding) score the distinct rows in batches formed by length across all systems. BATCH_SIZE 0: chosen from
        the device (64 on a CPU; from free memory on a GPU); an out-of-memory error halves the batch and retries it.

The model is prepared exactly as ``comet-score`` prepares it (``load_from_checkpoint``, ``eval``,
``half``, the embedding cache, float32 matmul precision "high", stripped lines), so that the scores equal
``comet-score --to_json`` for the same checkpoint. Checkpoints are read with torch's weights-only loader
(``TORCH_FORCE_WEIGHTS_ONLY_LOAD=1``, set by mtlens): a checkpoint cannot run code. Nothing is downloaded
(``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _shared_part():
    """The workers' shared part (:mod:`mtlens.neural.worker_base`), loaded from beside this file: a worker runs with
    ``python -I``, so its folder is not on the import path."""
    import importlib.util

    name = "mtlens_worker_base"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("worker_base.py"))
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


base = _shared_part()

#: COMET's class identifiers -> (mtlens kind, the inputs the model reads when hparams do not say)
KINDS = {
    "regression_metric": ("comet", ["mt", "src", "ref"]),
    "referenceless_regression_metric": ("cometkiwi", ["mt", "src"]),
    "unified_metric": ("comet", ["mt", "src", "ref"]),
    "xcomet_metric": ("xcomet", ["mt", "src", "ref"]),
}


def describe(checkpoint: str) -> dict:
    import yaml

    ckpt = Path(checkpoint)
    hp_file = ckpt.parent.parent / "hparams.yaml"
    if not ckpt.is_file():
        base.fail(f"'{ckpt}' is not a file (give the model folder or its checkpoints/model.ckpt)")
    if not hp_file.is_file():
        base.fail(f"'{hp_file}' is missing: a COMET checkpoint folder holds hparams.yaml beside checkpoints/")
    try:
        hp = yaml.safe_load(hp_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, yaml.YAMLError) as err:
        base.fail(f"'{hp_file}' cannot be read as YAML ({type(err).__name__})")
    ident = hp.get("class_identifier") if isinstance(hp, dict) else None
    if ident not in KINDS:
        base.fail(f"'{hp_file}' names no COMET model mtlens runs (class_identifier {ident!r})")
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


def _encode(model, texts: list[str], device: str):
    """Sentence embeddings of ``texts`` in one batch, as COMET's forward pass computes them."""
    enc = model.encoder.prepare_sample(texts)
    return model.get_sentence_embedding(enc["input_ids"].to(device), enc["attention_mask"].to(device))


def _device() -> tuple[int, str]:
    import torch

    if torch.cuda.is_available():
        return 1, "cuda"
    return 0, "cpu"


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
        base.fail(f"COMET could not load '{checkpoint}': {text[:200]}")
    model.eval()
    model.half()
    return model


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


def blocks(rows: list[dict], inputs: list[str], shared: bool, size: int, chunk: int) -> list[list[int]]:
    """The fast path's blocks (:func:`mtlens.neural.worker_base.cut`): the rows in the order of a length that decides
    the cost (a joint model reads the row's texts together; an estimator keeps line order, so a line's source and
    reference serve its neighbours); an estimator's blocks need not be whole batches."""
    n = len(rows)
    order = list(range(n)) if shared else sorted(range(n), key=lambda i: sum(len(rows[i][k]) for k in inputs))
    return base.cut(order, size, chunk, whole_batches=not shared)


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
    """The fast path: one JSON object ``{"rows": [...]}`` per line of stdin, each answered in full (``ready``, the
    blocks, ``end``); the model is loaded for the first and kept for the next until the input ends (a reference-free
    job's references after its systems share the worker: :mod:`mtlens.neural.kept`)."""
    inputs = describe(checkpoint)["inputs"]
    kept: dict = {}
    for doc in base.requests():
        _fast_one(doc, checkpoint, inputs, batch_size, chunk, kept)


def _fast_one(doc: dict, checkpoint: str, inputs: list[str], batch_size: int, chunk: int, kept: dict) -> None:
    rows = [{k: str(r.get(k, "")).strip() for k in inputs} for r in doc.get("rows", [])]
    address = os.environ.get(base.RAY_ENV, "").strip()
    if address:
        scorer = (_Scorer, (checkpoint,), lambda n, shared: blocks(rows, inputs, shared, n, chunk))
        base.ray_fast(address, rows, inputs, batch_size, scorer)
        return
    import torch

    gpus, device = _device()
    if "model" not in kept:
        kept["model"] = model = _load(checkpoint)
        if device == "cuda":
            model.to("cuda")
        if device == "cpu":
            torch.set_num_threads(max(1, os.cpu_count() or 1))
    model = kept["model"]
    size = batch_size if batch_size > 0 else _auto_batch(model, device)
    shared = _estimator(model)
    base.say({"ready": len(rows), "device": device, "batch": size, "shared": shared})
    for block in blocks(rows, inputs, shared, size, chunk):
        scores, spans, size, encoded = run_block(model, [rows[i] for i in block], inputs, size, device, gpus, shared)
        # encoded: sentences (or joint inputs) through the encoder in this block, for the parent's counts
        base.say({"idx": block, "scores": scores, "spans": spans, "encoded": encoded})
    base.say({"end": True})


def _estimate(model, rows: list[dict], inputs: list[str], size: int, device: str):
    """Scores of rows from their sentences' embeddings, each distinct sentence encoded once (batches of
    sentences sorted by length, so little padding)."""
    import torch

    # by length, then by text: a set's order changes with each process's string hashing, and a sentence's
    # batch changes its embedding in half precision, so the order must not
    texts = sorted({r[k] for r in rows for k in inputs}, key=lambda t: (len(t), t))

    vectors, size = base.halving(lambda part: list(_encode(model, part, device)), texts, size, base.oom_errors())
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

    out, size = base.shrinking(call, size, base.oom_errors())
    meta = out.get("metadata") if hasattr(out, "get") else None
    spans = [list(s) for s in meta["error_spans"]] if meta is not None and "error_spans" in meta else None
    return [float(x) for x in out.scores], spans, size


# --------------------------------------------------------------------------- on a Ray cluster
class _Scorer:
    """A Ray actor (:func:`mtlens.neural.worker_base.ray_fast`): the model loaded once on its worker (on the
    worker's GPU when it has one), then blocks."""

    def __init__(self, checkpoint: str, threads: int):
        os.environ.update(base.OFFLINE_ENV)
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


def main(argv: list[str]) -> None:
    if len(argv) >= 2 and argv[0] == "describe":
        base.say(describe(argv[1]))
    elif len(argv) == 4 and argv[0] in ("score", "fast"):
        base.watch_parent()
        if argv[0] == "score":
            base.sibling("comet_exact").score(sys.modules[__name__], argv[1], int(argv[2]), int(argv[3]))
        else:
            fast(argv[1], int(argv[2]), int(argv[3]))
    else:
        base.fail("usage: worker.py describe CKPT | score CKPT BATCH CHUNK | fast CKPT BATCH CHUNK")


if __name__ == "__main__":
    base.run(main)
