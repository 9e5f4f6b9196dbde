"""The MetricX-24 worker: scores with a MetricX-24 checkpoint (Google's ``MT5ForRegression``) in the neural extra's
own interpreter (docs/decisions.md, "MetricX-24 computed in place"). It imports only the standard library, torch and
transformers, never mtlens, and speaks the workers' protocol (:mod:`mtlens.neural.worker_base`):

    python metricx_worker.py describe FOLDER TOKENIZER
        one JSON object: the checkpoint's kind, inputs, weight files and dtype, after checking that its weights load
        without running code and that the tokenizer loads.
    python metricx_worker.py score FOLDER TOKENIZER BATCH CHUNK      (``--exact``: Google's runner, one at a time)
        JSON lines ``{"group", "rows", "todo"}`` on stdin, up to a line ``{"end": true}`` or the end of the input;
        each segment scored alone, as Google's ``predict.py`` scores it at batch size 1 (its only working batch
        size, metricx#2); prints ``{"ready"}``, then per call ``{"group", "idx", "scores", "spans": null}``, then
        ``{"end": true}``; then the next groups, with the model kept.
    python metricx_worker.py fast FOLDER TOKENIZER BATCH CHUNK       (the default)
        one JSON object ``{"rows": [...]}`` per line (the distinct inputs of every system); the segments tokenised,
        sorted by length and scored in padded batches with an attention mask (float32: the encoder's attention
        through torch's fused kernel, :func:`fuse_attention`); prints ``{"ready"}``, ``{"idx", "scores"}`` per block
        and ``{"end": true}`` for each object. The model is loaded for the first and kept for the next, until the
        input ends (both metrics of one checkpoint, and a QE job's references, share one worker:
        :mod:`mtlens.neural.kept`).

A row with ``ref`` is scored reference-based, one without as quality estimation (MetricX-24 is hybrid). The input is
built exactly as ``metricx24/predict.py`` builds it: ``"source: S candidate: H reference: R"`` (QE: without the
reference part), tokenised with truncation to :data:`MAX_INPUT_LENGTH` tokens, then its last token (the end-of-sequence
token) removed. The score is the logit of id :data:`SCORE_ID` (``<extra_id_10>``) at the decoder's single step from id
0, clamped to 0..25, as Google's ``MT5ForRegression.forward`` reads it. The model is transformers' own
``MT5ForConditionalGeneration`` on the checkpoint's weights (the same modules and weight names): its encoder and decoder
are called through their public arguments only, so the worker does not depend on the head masks that Google's class
passes and that newer transformers removed (metricx PR #22). Weights are read by safetensors or by torch's
weights-only loader (``TORCH_FORCE_WEIGHTS_ONLY_LOAD=1``): a checkpoint cannot run code. Nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

#: Google's ``--max_input_length`` for MetricX-24 (its README's commands)
MAX_INPUT_LENGTH = 1536
#: where Google's model reads its score: the logit of ``<extra_id_10>``
SCORE_ID = 250089
#: the score's range (Google clamps the logit to it)
LOW, HIGH = 0.0, 25.0


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
#: what every process that loads a model sets first (the workers' settings: nothing downloaded, weights only)
_OFFLINE_ENV = (*base.OFFLINE_ENV, ("TRANSFORMERS_VERBOSITY", "error"))


def _config(folder: Path) -> dict:
    path = folder / "config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, ValueError, RecursionError) as err:
        base.fail(f"'{path}' cannot be read as JSON ({type(err).__name__})")
    architectures = config.get("architectures") if isinstance(config, dict) else None
    if not isinstance(architectures, list) or "MT5ForRegression" not in architectures:
        base.fail(f"'{path}' does not name MT5ForRegression: not a MetricX-24 checkpoint")
    vocab = config.get("vocab_size")
    if isinstance(vocab, bool) or not isinstance(vocab, int) or vocab <= SCORE_ID:
        base.fail(f"'{path}' has a vocabulary of {config.get('vocab_size')}: MetricX reads its score at id {SCORE_ID}")
    return config


def _tokenizer(path: str):
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(path)  # as Google's predict.py loads it (the fast one when it can)
    except Exception as err:  # every loader failure becomes one sentence
        text = str(err).splitlines()[0] if str(err) else type(err).__name__
        base.fail(f"the mT5 tokenizer in '{path}' cannot be loaded: {text[:200]} (give it with --tokenizer FOLDER)")


def tokenizer_folder(name: str) -> str:
    """A tokenizer folder as given, or a model id (``google/mt5-xl``, as Google's ``--tokenizer`` takes it) resolved
    in the local Hugging Face cache, never downloaded."""
    if Path(name).is_dir():
        return name
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(name, local_files_only=True)
    except Exception:  # not a folder and not in the cache: one sentence
        base.fail(
            f"the tokenizer '{name[:200]}' is neither a folder nor a model in the local Hugging Face cache (mtlens "
            "downloads nothing: download it beforehand, or give its folder)"
        )
    return name


def describe(folder: str, tokenizer: str) -> dict:
    import importlib.metadata

    path = Path(folder)
    _config(path)
    try:
        files = base.weight_files(path)
    except ValueError as err:
        base.fail(str(err))
    dtype, keys = base.check_weights(files)
    if "lm_head.weight" not in keys:  # Google's class never ties its head: without it the score would be random
        base.fail(
            f"the weights in '{files[0].parent}' have no output layer (lm_head.weight), where MetricX reads its score"
        )

    tokenizer = tokenizer_folder(tokenizer)
    _tokenizer(tokenizer)
    return {
        "kind": "metricx",
        "inputs": ["mt", "src", "ref"],
        "files": [str(f) for f in files],
        "dtype": dtype,
        "tokenizer": str(Path(tokenizer).resolve()),
        "transformers": importlib.metadata.version("transformers"),
    }


def _load(folder: str):
    import torch
    from transformers import MT5ForConditionalGeneration

    rescale = bool(json.loads((Path(folder) / "config.json").read_text(encoding="utf-8")).get("tie_word_embeddings"))
    try:
        # torch_dtype "auto": the checkpoint's own dtype, as Google's predict.py loads it. The head is never tied to
        # the embeddings: Google's MT5ForRegression has no output-embedding hook, so its lm_head always keeps the
        # checkpoint's own weights; it only rescales its input when the configuration says the embeddings are tied.
        model = MT5ForConditionalGeneration.from_pretrained(folder, torch_dtype="auto", tie_word_embeddings=False)
    except Exception as err:  # every loader failure becomes one sentence
        text = str(err).splitlines()[0] if str(err) else type(err).__name__
        base.fail(f"transformers could not load the MetricX checkpoint '{folder}': {text[:200]}")
    model.eval()
    model.metricx_rescale = rescale
    if torch.cuda.is_available():  # the GPU when torch sees one, as Google's runner (benchmarks/gpu.sh)
        model.to("cuda")
    else:
        torch.set_num_threads(max(1, os.cpu_count() or 1))
    return model


def _device(model) -> str:
    return str(model.device)


def make_input(row: dict) -> str:
    """Google's input text (``metricx24/predict.py``'s ``_make_input``)."""
    text = "source: " + row["src"] + " candidate: " + row["mt"]
    return text + " reference: " + row["ref"] if "ref" in row else text


def encode(tokenizer, texts: list[str]) -> list[list[int]]:
    """Google's tokenisation: truncation to MAX_INPUT_LENGTH, no padding, then the last (end) token removed."""
    ids = tokenizer(texts, max_length=MAX_INPUT_LENGTH, truncation=True, padding=False)["input_ids"]
    return [list(x[:-1]) for x in ids]


def predict(model, batch: list[list[int]], exact: bool = True):
    """Scores of a batch of token id lists: right-padded with the pad id, masked, one decoder step from id 0, the
    logit of SCORE_ID clamped. ``exact``: the full output projection, as Google computes it, so that its rounding is
    the same (bfloat16); else (float32 in the fast mode) only the row of SCORE_ID, the same sum to float32 rounding."""
    import torch

    n, width = len(batch), max(len(x) for x in batch)
    pad = int(model.config.pad_token_id or 0)
    ids = torch.full((n, width), pad, dtype=torch.long)
    mask = torch.zeros((n, width), dtype=torch.long)
    for i, x in enumerate(batch):
        ids[i, : len(x)] = torch.tensor(x, dtype=torch.long)
        mask[i, : len(x)] = 1
    device = model.device
    ids, mask = ids.to(device), mask.to(device)
    with torch.inference_mode():
        hidden = model.encoder(input_ids=ids, attention_mask=mask, return_dict=True).last_hidden_state
        start = torch.zeros((n, 1), dtype=torch.long, device=device)
        out = model.decoder(
            input_ids=start,
            encoder_hidden_states=hidden,
            encoder_attention_mask=mask,
            use_cache=False,
            return_dict=True,
        ).last_hidden_state
        if model.metricx_rescale:  # Google's model rescales before projecting when the configuration ties the head
            out = out * (model.config.d_model**-0.5)
        if exact:
            logits = model.lm_head(out)[:, 0, SCORE_ID]
        else:
            logits = out[:, 0] @ model.lm_head.weight[SCORE_ID]
        return [float(x) for x in torch.clamp(logits, LOW, HIGH).float().tolist()]


def fuse_attention(model) -> bool:
    """The fast mode's encoder self-attention through torch's fused ``scaled_dot_product_attention`` (scale 1, as T5
    does not scale; the relative position bias and the padding mask as its additive mask), in float32 only: the same
    sums in another order, within 5e-5 of the eager path on the tests' checkpoints (docs/decisions.md). Each encoder
    attention module's own projections, bias table and head sizes are used (the weights' names, stable across
    transformers releases); a module without them keeps transformers' code. bfloat16 keeps it too (a fused kernel
    rounds differently there). Returns whether the encoder was fused."""
    import torch

    if next(model.parameters()).dtype != torch.float32:
        return False
    need = ("q", "k", "v", "o", "n_heads", "key_value_proj_dim", "inner_dim", "has_relative_attention_bias")
    modules = [block.layer[0].SelfAttention for block in model.encoder.block]
    if not all(all(hasattr(m, a) for a in need) for m in modules) or not hasattr(modules[0], "compute_bias"):
        return False
    for m in modules:
        m.forward = _fused_forward(m)
    return True


def _fused_forward(att):
    import torch
    import torch.nn.functional as F

    def forward(hidden_states, mask=None, position_bias=None, **_):
        b, n = hidden_states.shape[:2]

        def heads(x):
            return x.view(b, -1, att.n_heads, att.key_value_proj_dim).transpose(1, 2)

        q, k, v = heads(att.q(hidden_states)), heads(att.k(hidden_states)), heads(att.v(hidden_states))
        if position_bias is None:  # the first layer's: reused by the next layers, as transformers does
            if att.has_relative_attention_bias:
                # laid out as the fused kernel reads it (the table's permuted view would be copied at every layer)
                position_bias = att.compute_bias(n, n, device=q.device).to(q.dtype).contiguous()
            else:
                position_bias = torch.zeros((1, att.n_heads, n, n), device=q.device, dtype=q.dtype)
            if mask is not None and bool(mask.any()):  # padding to mask (a batch of one length has none)
                position_bias = position_bias + mask[:, :, :, :n].to(q.dtype)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=position_bias, scale=1.0)
        return att.o(out.transpose(1, 2).contiguous().view(b, -1, att.inner_dim)), position_bias

    return forward


def exact(folder: str, tokenizer_path: str, chunk: int) -> None:
    """Google's runner: every segment alone (identical inputs in several systems computed once: a segment's score
    at batch size 1 depends on its inputs only)."""
    tokenizer = model = None
    for groups in base.group_requests():  # each request's groups; the model kept for the next (mtlens.neural.kept)
        if model is None:
            tokenizer, model = _tokenizer(tokenizer_path), _load(folder)
        _exact_one(groups, tokenizer, model, chunk)


def _exact_one(groups: list[dict], tokenizer, model, chunk: int) -> None:
    base.say({"ready": len(groups), "device": _device(model), "batch": 1, "shared": False})
    memo: dict[str, float] = {}
    target = base.save_seconds()
    for group in groups:
        rows, todo = group["rows"], list(group["todo"])
        start = 0
        while start < len(todo):
            began, idx, scores = time.perf_counter(), [], []
            while start < len(todo) and (len(idx) < chunk if chunk > 0 else time.perf_counter() - began < target):
                i = todo[start]
                start += 1
                text = make_input(rows[i])
                if text not in memo:
                    memo[text] = predict(model, encode(tokenizer, [text]))[0]
                idx.append(i)
                scores.append(memo[text])
            base.say({"group": group["group"], "idx": idx, "scores": scores, "spans": None, "encoded": len(idx)})
    base.say({"end": True})


#: segments per padded batch on a CPU when BATCH is 0 (larger batches of similar length gain little there)
AUTO_BATCH = 16


def auto_batch(model, ids: list[list[int]]) -> int:
    """The batch size when BATCH is 0: :data:`AUTO_BATCH` on a CPU; on a GPU, what half of its free memory holds for
    rows as long as the longest (one layer's activations at a time under inference: the hidden states, the gated
    feed-forward's two halves and the attention scores, twice over for safety), between 16 and 512 rows."""
    import torch

    if model.device.type != "cuda" or not ids:
        return AUTO_BATCH
    free, _ = torch.cuda.mem_get_info()
    cfg, width = model.config, max(len(x) for x in ids)
    per_row = (
        2 * width * (8 * cfg.d_model + 2 * cfg.d_ff + cfg.num_heads * width) * next(model.parameters()).element_size()
    )
    return max(AUTO_BATCH, min(512, int(free * 0.5) // max(1, per_row)))


def fast(folder: str, tokenizer_path: str, batch_size: int, chunk: int) -> None:
    """The shared-work path: the distinct rows tokenised, sorted by length, scored in padded batches; one block of
    whole batches per call (about 1/32 of the work unless CHUNK says). With ``MTLENS_RAY_ADDRESS`` set, the blocks
    go to a Ray cluster (the workers' loop, :func:`mtlens.neural.worker_base.ray_fast`), each computed as here."""
    kept: dict = {}
    for doc in base.requests():
        _fast_one(doc, folder, tokenizer_path, batch_size, chunk, kept)


def _fast_one(doc: dict, folder: str, tokenizer_path: str, batch_size: int, chunk: int, kept: dict) -> None:
    """One request of :func:`fast`; ``kept``: the tokenizer and the model, loaded by the first request."""
    rows = doc.get("rows", [])
    if "tokenizer" not in kept:
        kept["tokenizer"] = _tokenizer(tokenizer_path)
    ids = encode(kept["tokenizer"], [make_input(r) for r in rows]) if rows else []
    order = sorted(range(len(rows)), key=lambda i: (len(ids[i]), i))
    address = os.environ.get("MTLENS_RAY_ADDRESS", "").strip()
    if address:
        scorer = (_Scorer, (folder,), lambda n, shared: blocks(order, n, chunk))
        base.ray_fast(address, ids, [], batch_size, scorer)
        return
    if "model" not in kept:
        kept["model"] = _load(folder)
        kept["fused"] = fuse_attention(kept["model"])
    model, fused = kept["model"], kept["fused"]
    size = batch_size if batch_size > 0 else auto_batch(model, ids)
    base.say({"ready": len(rows), "device": _device(model), "batch": size, "shared": False, "fused": fused})
    for block in blocks(order, size, chunk):
        base.say({"idx": block, "scores": score_block(model, [ids[i] for i in block], size, fused), "spans": None,
              "encoded": len(block)})  # fmt: skip
    base.say({"end": True})


def blocks(order: list[int], size: int, chunk: int) -> list[list[int]]:
    """The fast path's blocks (:func:`mtlens.neural.worker_base.cut`): the rows in token-length order, in blocks of
    whole batches, so a Ray cluster gives the numbers of this machine."""
    return base.cut(order, size, chunk)


def score_block(model, ids: list[list[int]], size: int, fused: bool) -> list[float]:
    out: list[float] = []
    for s in range(0, len(ids), size):
        out += predict(model, ids[s : s + size], exact=not fused)
    return out


class _Scorer:
    """A Ray actor (:func:`mtlens.neural.worker_base.ray_fast`): the checkpoint loaded once on its worker, then blocks of
    token ids scored as the local fast path scores them."""

    def __init__(self, folder: str, threads: int):
        import torch

        os.environ.update(_OFFLINE_ENV)
        try:
            self.model = _load(folder)
        except SystemExit:  # _load said why on stdout; the driver reads the reason from this error
            raise RuntimeError(f"the MetricX checkpoint '{folder}' could not be loaded on a Ray worker") from None
        torch.set_num_threads(max(1, threads))
        self.fused = fuse_attention(self.model)

    def estimator(self) -> bool:
        return False

    def batch(self, size: int) -> int:
        return size if size > 0 else AUTO_BATCH

    def score(self, ids: list[list[int]], inputs: list[str], size: int):
        return score_block(self.model, ids, size, self.fused), None, size, len(ids)


def main(argv: list[str]) -> None:
    if len(argv) == 3 and argv[0] == "describe":
        base.say(describe(argv[1], argv[2]))
    elif len(argv) == 5 and argv[0] in ("score", "fast"):
        base.watch_parent()
        if argv[0] == "score":
            exact(argv[1], argv[2], int(argv[4]))
        else:
            fast(argv[1], argv[2], int(argv[3]), int(argv[4]))
    else:
        base.fail("usage: metricx_worker.py describe FOLDER TOKENIZER | score|fast FOLDER TOKENIZER BATCH CHUNK")


if __name__ == "__main__":
    base.run(main, _OFFLINE_ENV)
