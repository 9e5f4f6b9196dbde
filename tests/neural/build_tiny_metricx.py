"""Build tiny MetricX-24 checkpoints offline, for the tests and the benchmark (run with the neural extra's Python:
``.venv-neural/bin/python tests/neural/build_tiny_metricx.py OUT_DIR TEXT_FILE...``).

Nothing is downloaded. A SentencePiece vocabulary (T5's special ids: pad 0, end 1, unknown 2) is trained on the given
text (the bundled sample, with Chinese and Japanese lines), and saved as an mT5 tokenizer (``T5Tokenizer``, its 100
``<extra_id_N>`` tokens added). An mT5 model with random weights (seed 0) and the real vocabulary size, 250,112, so that
id 250,089 (where MetricX reads its score) exists, is saved with transformers, its ``config.json`` naming
``MT5ForRegression`` as Google's checkpoints do. The output row of id 250,089 is then fitted by least squares so that
the scores of the given text spread over about -5..30: some segments are clamped at 0 and some at 25.

- ``tiny-metricx``: float32, ``model.safetensors``, the tokenizer in the folder;
- ``tiny-metricx-bf16``: the same weights in bfloat16;
- ``tiny-metricx-bin``: float32 in ``pytorch_model.bin`` (torch's format), the tokenizer apart (``tokenizer/``), given
  with ``--tokenizer`` as Google's ``--tokenizer google/mt5-xl`` is;
- ``tiny-metricx-tied``: ``tiny-metricx`` with ``tie_word_embeddings`` true in its configuration (Google's class then
  rescales the decoder's output by d_model^-0.5 but keeps its own output layer).

``--shape large`` (first argument, for the GPU benchmark, benchmarks/gpu.sh) builds ``tiny-metricx`` alone with
MetricX-24-Hybrid-Large's shape (mT5-large: 24 encoder and 24 decoder layers of 1,024 units, 16 heads, feed-forward
2,816), its weights made and its score row fitted on the GPU when torch sees one; random weights all the same, so only
its speed means anything.
"""

from __future__ import annotations

import io
import json
import random
import shutil
import sys
from pathlib import Path

import sentencepiece as spm
import torch
from transformers import MT5Config, MT5ForConditionalGeneration, T5Tokenizer

SCORE_ID = 250089
VOCAB = 250112
SHAPE = dict(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=1, num_heads=4)
#: the shapes ``--shape`` names
SHAPES = {
    "tiny": SHAPE,
    "large": dict(d_model=1024, d_kv=64, d_ff=2816, num_layers=24, num_decoder_layers=24, num_heads=16),
}


def tokenizer(out: Path, texts: list[str], size: int = 1500) -> T5Tokenizer:
    out.mkdir(parents=True, exist_ok=True)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts),
        model_writer=model,
        vocab_size=size,
        model_type="unigram",
        character_coverage=1.0,
        num_threads=1,
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    (out / "spiece.model").write_bytes(model.getvalue())
    tok = T5Tokenizer(vocab_file=str(out / "spiece.model"), extra_ids=100, legacy=True)
    tok.save_pretrained(str(out))
    return tok


def inputs(texts: list[str]) -> list[str]:
    """Inputs shaped as Google's (source, candidate, reference) from the text, for fitting the score row."""
    rng = random.Random(0)
    out = []
    for i in range(400):
        s, h, r = (rng.choice(texts) for _ in range(3))
        out.append(f"source: {s} candidate: {h} reference: {r}" if i % 2 else f"source: {s} candidate: {h}")
    return out


def build(out: Path, texts: list[str], shape: str = "tiny") -> None:
    tok_dir = out / "tiny-metricx"
    # the larger shapes: 8,000 pieces, or every distinct character and a few more (newer sentencepiece requires it)
    tok = tokenizer(tok_dir, texts, 1500 if shape == "tiny" else max(8000, len(set("".join(texts))) + 16))
    torch.manual_seed(0)
    device = "cuda" if shape != "tiny" and torch.cuda.is_available() else "cpu"
    config = MT5Config(
        vocab_size=VOCAB,
        feed_forward_proj="gated-gelu",
        tie_word_embeddings=False,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
        **SHAPES[shape],
    )
    with torch.device(device):
        model = MT5ForConditionalGeneration(config).eval()
    # the decoder's last hidden state of each input (one step from id 0), then the score row fitted to targets
    enc = tok(inputs(texts), max_length=1536, truncation=True, padding=True, return_tensors="pt").to(device)
    with torch.no_grad():
        hidden = model.encoder(input_ids=enc.input_ids, attention_mask=enc.attention_mask).last_hidden_state
        start = torch.zeros((hidden.shape[0], 1), dtype=torch.long, device=device)
        h = model.decoder(input_ids=start, encoder_hidden_states=hidden, encoder_attention_mask=enc.attention_mask)[0]
        h = h[:, 0, :].double().cpu()  # the fit on the CPU (CUDA's least squares wants more rows than columns)
        # a row whose score is about 12.5 for every input, plus a random direction with its constant part taken out,
        # scaled to a spread of 10: the scores cover about -5..30, so both clamps are met
        ones = torch.linalg.lstsq(h, torch.ones(h.shape[0], 1, dtype=torch.float64)).solution.squeeze(1)
        r = torch.randn(h.shape[1], dtype=torch.float64)
        r = r - (h @ r).mean() * ones
        w = 12.5 * ones + r * (10.0 / (h @ r).std())
        model.lm_head.weight[SCORE_ID] = w.float().to(device)
        got = (h.float() @ w.float()).tolist()
    print(f"fitted scores: min {min(got):.2f}, max {max(got):.2f}, clamped low {sum(x < 0 for x in got)}, "
          f"high {sum(x > 25 for x in got)} of {len(got)}")  # fmt: skip

    def save(folder: Path, m, **kw) -> None:
        m.save_pretrained(str(folder), **kw)
        cfg = json.loads((folder / "config.json").read_text())
        cfg["architectures"] = ["MT5ForRegression"]  # as Google's checkpoints name their class
        (folder / "config.json").write_text(json.dumps(cfg, indent=2))

    model = model.to("cpu")
    save(tok_dir, model)
    if shape != "tiny":
        return
    bf16 = out / "tiny-metricx-bf16"
    save(bf16, MT5ForConditionalGeneration.from_pretrained(str(tok_dir)).to(torch.bfloat16))
    tok.save_pretrained(str(bf16))
    tied = out / "tiny-metricx-tied"  # the same files, the configuration saying the embeddings are tied
    shutil.copytree(tok_dir, tied)
    cfg = json.loads((tied / "config.json").read_text())
    (tied / "config.json").write_text(json.dumps({**cfg, "tie_word_embeddings": True}, indent=2))
    binary = out / "tiny-metricx-bin"
    save(binary, model, safe_serialization=False)
    tok.save_pretrained(str(out / "tokenizer"))


def main() -> None:
    argv, shape = sys.argv[1:], "tiny"
    if argv[:1] == ["--shape"]:
        shape, argv = argv[1], argv[2:]
    out = Path(argv[0])
    texts = []
    for name in argv[1:]:
        texts += [line.strip() for line in Path(name).read_text(encoding="utf-8").splitlines() if line.strip()]
    build(out, texts, shape)


if __name__ == "__main__":
    main()
