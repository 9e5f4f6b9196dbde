"""Build tiny COMET checkpoints offline, for the tests and the benchmark (run with the neural extra's
Python: ``.venv-neural/bin/python tests/neural/build_tiny_comet.py OUT_DIR TEXT_FILE...``).

Nothing is downloaded: a SentencePiece model is trained on the given text (the bundled sample), an
XLM-R-shaped encoder with random weights (seed 0) is saved with transformers, and COMET models are built
around it with COMET's own classes and saved in COMET's checkpoint layout
(``NAME/hparams.yaml`` + ``NAME/checkpoints/model.ckpt``), the layout ``comet-score --model`` loads:

- ``tiny-comet``: a reference-based regression model (``regression_metric``, like wmt22-comet-da);
- ``tiny-kiwi``: a source-only model (``unified_metric`` with inputs mt and src, like wmt22-cometkiwi-da);
- ``tiny-xcomet``: an xCOMET-shaped model (``xcomet_metric``, segment scores and error spans).

``--shape large`` (first argument, for the GPU benchmark, benchmarks/gpu.sh) builds ``tiny-comet`` alone with
wmt22-comet-da's shape: an XLM-R-large encoder (24 layers of 1,024 units) and its estimator's hidden sizes (3,072,
1,024); the weights are random all the same, so only its speed means anything.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import sentencepiece as spm
import torch
import yaml
from transformers import XLMRobertaConfig, XLMRobertaModel, XLMRobertaTokenizer

ENCODER = dict(
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=64,
    max_position_embeddings=514,
    type_vocab_size=1,
)
#: the shapes ``--shape`` names: the encoder's and the estimator's hidden sizes
SHAPES = {
    "tiny": (ENCODER, [64]),
    "large": (
        {**ENCODER, "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096},
        [3072, 1024],
    ),
}


def build_encoder(out: Path, texts: list[str], shape: dict = ENCODER) -> Path:
    enc = out / "encoder"
    enc.mkdir(parents=True, exist_ok=True)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts),
        model_writer=model,
        # the larger shapes: 8,000 pieces, or every distinct character and a few more (newer sentencepiece requires it)
        vocab_size=400 if shape is ENCODER else max(8000, len(set("".join(texts))) + 16),
        model_type="unigram",
        character_coverage=1.0,
        num_threads=1,
        bos_id=-1,
        eos_id=-1,
        unk_id=0,
        pad_id=-1,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    (enc / "sentencepiece.bpe.model").write_bytes(model.getvalue())
    tok = XLMRobertaTokenizer(vocab_file=str(enc / "sentencepiece.bpe.model"))
    tok.save_pretrained(str(enc))
    torch.manual_seed(0)
    config = XLMRobertaConfig(
        vocab_size=len(tok),
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        **shape,
    )
    XLMRobertaModel(config, add_pooling_layer=False).save_pretrained(str(enc))
    return enc


def save_comet(model, out: Path, name: str) -> Path:
    """COMET's layout: hparams.yaml beside checkpoints/model.ckpt, which holds the weights and the
    hyperparameters as Lightning writes them (tensors and plain values only)."""
    folder = out / name
    (folder / "checkpoints").mkdir(parents=True, exist_ok=True)
    hparams = dict(model.hparams)
    hparams["class_identifier"] = CLASS_IDS[type(model).__name__]
    (folder / "hparams.yaml").write_text(yaml.safe_dump(hparams), encoding="utf-8")
    ckpt = {
        "state_dict": model.state_dict(),
        "hyper_parameters": {k: v for k, v in hparams.items() if k != "class_identifier"},
        "pytorch-lightning_version": "2.6.0",
        "epoch": 0,
        "global_step": 0,
    }
    torch.save(ckpt, folder / "checkpoints" / "model.ckpt")
    return folder / "checkpoints" / "model.ckpt"


CLASS_IDS = {
    "RegressionMetric": "regression_metric",
    "UnifiedMetric": "unified_metric",
    "XCOMETMetric": "xcomet_metric",
}


def main(argv: list[str]) -> None:
    from comet.models import RegressionMetric, UnifiedMetric, XCOMETMetric

    name = "tiny"
    if argv[:1] == ["--shape"]:
        name, argv = argv[1], argv[2:]
    encoder, hidden = SHAPES[name]
    out = Path(argv[0])
    texts = []
    for f in argv[1:]:
        texts += [t for t in Path(f).read_text(encoding="utf-8").splitlines() if t.strip()]
    enc = str(build_encoder(out, texts, encoder))
    common = dict(
        pretrained_model=enc,
        load_pretrained_weights=False,
        local_files_only=True,
        encoder_model="XLM-RoBERTa",
        dropout=0.0,
    )
    torch.manual_seed(1)
    save_comet(RegressionMetric(hidden_sizes=hidden, layer="mix", **common), out, "tiny-comet")
    if name != "tiny":
        print(out)
        return
    torch.manual_seed(2)
    save_comet(
        UnifiedMetric(
            hidden_sizes=[64],
            input_segments=["mt", "src"],
            sent_layer="mix",
            word_layer=2,
            final_activation="sigmoid",
            **common,
        ),
        out,
        "tiny-kiwi",
    )
    torch.manual_seed(3)
    save_comet(XCOMETMetric(hidden_sizes=[64], sent_layer="mix", word_layer=2, **common), out, "tiny-xcomet")
    print(out)


if __name__ == "__main__":
    main(sys.argv[1:])
