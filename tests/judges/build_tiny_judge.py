"""Build, offline, a tiny causal language model whose greedy answer to any chat is one fixed GEMBA-MQM answer, for
the end-to-end test against ``transformers serve`` (a real OpenAI-compatible server mtlens did not write).

    python tests/judges/build_tiny_judge.py OUT_DIR ANSWER_FILE

Run in the serving environment (.venv-serve: scripts/install-serve.sh), never the core one.

How the answer is fixed, without training: the tokenizer is byte-level (any prompt text tokenizes) plus one added
token per line of the answer, and one marker token per chat role. The model is a one-layer Llama whose attention and
MLP write nothing (their output projections are zero), so the last hidden state is the last token's embedding.
Embeddings are one-hot and the output head maps each token to its successor: the generation prompt's marker to the
answer's first line, each line to the next, the last line (and every other token) to the end-of-sequence token. So
greedy decoding (temperature 0) answers the fixed text whatever the prompt. Lines must be distinct (a line's
successor is a function of the line).
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path


def build(out: Path, answer: str) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    lines = [line + "\n" for line in answer.rstrip("\n").split("\n")]
    if len(set(lines)) != len(lines):
        raise SystemExit("the answer's lines must be distinct")
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    roles = ["<|system|>", "<|user|>", "<|assistant|>", "<|end|>"]
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|eos|>", pad_token="<|eos|>")
    tok.add_special_tokens({"additional_special_tokens": roles})
    tok.add_tokens(lines)  # plain tokens: they decode as their text
    tok.chat_template = (
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )
    size = len(tok)
    hidden = ((size + 7) // 8) * 8
    config = LlamaConfig(
        vocab_size=size,
        hidden_size=hidden,
        intermediate_size=8,
        num_hidden_layers=1,
        num_attention_heads=1,
        num_key_value_heads=1,
        max_position_embeddings=16384,
        tie_word_embeddings=False,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.eos_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    ids = [tok.convert_tokens_to_ids(line) for line in lines]
    successor = {tok.convert_tokens_to_ids("<|assistant|>"): ids[0]}
    successor.update(itertools.pairwise(ids))
    with torch.no_grad():
        model.model.embed_tokens.weight.zero_()
        model.model.embed_tokens.weight[:, :size] = torch.eye(size)
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        model.model.norm.weight.fill_(1.0)
        head = torch.zeros(size, hidden)
        for t in range(size):
            head[successor.get(t, tok.eos_token_id), t] = 1.0
        model.lm_head.weight.copy_(head)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.eos_token_id
    model.generation_config.do_sample = False
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    # the check this script makes of its own model: greedy generation answers the text
    chat = [{"role": "user", "content": "Übersetze «x» 你好"}]
    text = tok.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
    prompt = tok(text, add_special_tokens=False)["input_ids"]
    got = model.generate(torch.tensor([list(prompt)]), max_new_tokens=len(lines) + 4, do_sample=False)
    text = tok.decode(got[0, len(prompt) :], skip_special_tokens=True)
    if text != "".join(lines):
        raise SystemExit(f"the built model answers {json.dumps(text)}, not the answer")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: python tests/judges/build_tiny_judge.py OUT_DIR ANSWER_FILE")
    build(Path(sys.argv[1]), Path(sys.argv[2]).read_text(encoding="utf-8"))
