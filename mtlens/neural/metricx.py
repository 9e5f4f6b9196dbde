"""MetricX-24 checkpoints in the registry (issue 49; docs/decisions.md, "MetricX-24 computed in place").

- A folder is a MetricX-24 checkpoint when its ``config.json`` names ``MT5ForRegression`` (Google's class). Its
  weights are ``model.safetensors`` or ``pytorch_model.bin`` (or shards with their index), float32 or bfloat16; its
  mT5 tokenizer is in the folder or given apart (``--tokenizer FOLDER``, or a model id such as ``google/mt5-xl`` found
  in the local Hugging Face cache, as Google's ``--tokenizer`` takes it; nothing is downloaded).
  The extra's worker (:mod:`mtlens.neural.metricx_worker`) checks at registration that the weights load without
  running code and that the tokenizer loads.
- The digest covers everything that decides a score: ``config.json``, every weight file and every tokenizer file.
  A change to any of them (size or modification time) is digested again, and the scores are cached anew.
- One registration gives two metrics: ``metricx:NAME`` (source, translation, reference) and ``metricx-qe:NAME``
  (source and translation), each with its own cache and job (:func:`mtlens.neural.models.models`).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

from ..core.errors import InputError
from ..scores.sources import METRICX, METRICX_PREFIX, METRICX_QE_PREFIX
from .environment import error_of, python, worker_env
from .kinds import CheckpointKind

WORKER = Path(__file__).with_name("metricx_worker.py")
#: the tokenizer's files (whichever are present), digested with the checkpoint
TOKENIZER_FILES = (
    "spiece.model",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
)
#: a config.json larger than this is not read (a checkpoint's is a few kB)
CONFIG_LIMIT = 1 << 20


def _folder(path: str | Path) -> Path | None:
    try:
        p = Path(os.path.expanduser(str(path))).resolve()
        return p if p.is_dir() else None
    except (OSError, RuntimeError):
        return None


def is_metricx(path: str | Path) -> bool:
    """Whether ``path`` is a folder whose ``config.json`` names ``MT5ForRegression``."""
    folder = _folder(path)
    config = folder / "config.json" if folder else None
    try:
        if config is None or not config.is_file() or config.stat().st_size > CONFIG_LIMIT:
            return False
        doc = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, ValueError, RecursionError):  # issue 58, G7: nested 100,000 deep
        return False
    return isinstance(doc, dict) and "MT5ForRegression" in (doc.get("architectures") or [])


def command(verb: str, folder: str, tokenizer: str, *args: str) -> list[str]:
    # -I: the worker's folder (mtlens/neural, with modules named like libraries) is not put on sys.path
    return [python(), "-I", str(WORKER), verb, folder, tokenizer, *args]


def _describe(folder: Path, tokenizer: str) -> dict:
    proc = subprocess.run(
        command("describe", str(folder), str(tokenizer)), capture_output=True, text=True, env=worker_env()
    )
    if proc.returncode != 0:
        raise InputError(error_of(proc.stdout, proc.stderr, proc.returncode))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _tokenizer_folder(folder: Path, tokenizer: str | Path | None) -> str:
    """The tokenizer to give the worker: the checkpoint's own folder, a folder given apart, or a model id the worker
    resolves in the local Hugging Face cache (``google/mt5-xl``, as Google's ``--tokenizer`` takes it)."""
    if tokenizer is None:
        if not any((folder / f).is_file() for f in TOKENIZER_FILES[:2]):
            raise InputError(
                f"'{folder}' holds no mT5 tokenizer (spiece.model or tokenizer.json): give its folder with "
                "--tokenizer FOLDER (Google's checkpoints use google/mt5-xl's, downloaded beforehand)"
            )
        return str(folder)
    found = _folder(tokenizer)
    if found is None:
        return str(tokenizer)  # a model id: the worker looks in the local cache (and says so when it is not there)
    if not any((found / f).is_file() for f in TOKENIZER_FILES[:2]):
        raise InputError(f"'{str(tokenizer)[:200]}' is not a tokenizer folder (spiece.model or tokenizer.json)")
    return str(found)


def _files(folder: Path, weights: list[str], tokenizer: Path) -> list[Path]:
    """Every file that decides a score, in a fixed order."""
    tok = [tokenizer / f for f in TOKENIZER_FILES if (tokenizer / f).is_file()]
    return [folder / "config.json", *map(Path, weights), *tok]


def _row_files(model) -> list[Path]:
    """The files of a registered MetricX model (OSError when its weights are gone or its index is broken)."""
    from .worker_base import weight_files  # the workers' own rule (a module of the standard library only)

    folder = Path(model.path)
    try:
        weights = weight_files(folder)
    except ValueError as err:
        raise OSError(str(err)) from None
    return _files(folder, [str(p) for p in weights], Path(model.tokenizer or folder))


def fingerprint(model) -> tuple[int, float]:
    """(total size, latest modification time) of the files that decide the model's scores (OSError when one is
    gone)."""
    stats = [p.stat() for p in _row_files(model)]
    return sum(s.st_size for s in stats), max(s.st_mtime for s in stats)


def _digest(files: list[Path]) -> str:
    h = hashlib.blake2b(digest_size=32)
    for p in files:
        h.update(p.name.encode() + b"\0")
        with p.open("rb") as f:
            for block in iter(lambda f=f: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def folder_digest(model) -> str:
    return _digest(_row_files(model))


def metricx_row(name: str, path: str | Path, tokenizer: str | Path | None = None) -> dict:
    """The registry row of a MetricX-24 folder, after the worker has checked its weights and tokenizer
    (:func:`mtlens.neural.models.add_model` saves it)."""
    folder = _folder(path)
    info = _describe(folder, _tokenizer_folder(folder, tokenizer))
    tok = Path(info["tokenizer"])  # a model id resolved to its cached folder, by the worker
    files = _files(folder, info["files"], tok)
    stats = [p.stat() for p in files]
    return {
        "name": name,
        "path": str(folder),
        "digest": _digest(files),
        "kind": "metricx",
        "inputs": ",".join(info["inputs"]),
        "size": sum(s.st_size for s in stats),
        "mtime": max(s.st_mtime for s in stats),
        "tokenizer": str(tok),
        "dtype": info.get("dtype"),
    }


class MetricXKind(CheckpointKind):
    """MetricX-24's checkpoints (Google's ``MT5ForRegression`` folders): one registration, two metrics
    (``metricx:NAME`` reads source, translation and reference; ``metricx-qe:NAME`` source and translation), lower is
    better, scored by the MetricX worker on the lines as they are (Google's predict.py reads its text unchanged)."""

    family = METRICX
    model_kinds = ("metricx", "metricx-qe")

    def recognises(self, path) -> bool:
        return is_metricx(path)

    def row(self, name, path, tokenizer) -> dict:
        return metricx_row(name, path, tokenizer)

    def metrics(self, model):
        import dataclasses

        qe = dataclasses.replace(model, kind="metricx-qe", digest=model.digest + ":qe", inputs=("mt", "src"))
        return [model, qe]

    def metric(self, model) -> str:
        return (METRICX_QE_PREFIX if model.kind == "metricx-qe" else METRICX_PREFIX) + model.name

    def job_name(self, model) -> str:
        return self.metric(model)

    def higher_is_better(self, model) -> bool:
        return False

    def stat(self, model) -> tuple[int, float]:
        return fingerprint(model)

    def digest(self, model) -> str:
        return folder_digest(model)

    def command(self, model, verb: str, size: int, chunk: int) -> list[str]:
        return command(verb, model.path, model.tokenizer or model.path, str(size), str(chunk))

    def clean(self, text: str) -> str:
        return text

    def signature(self, model, how: str) -> tuple[tuple[str, str], ...]:
        from .environment import torch_version, transformers_version, versions

        return (
            ("model", model.name),
            ("digest", model.digest[:12]),
            ("kind", model.kind),
            ("transformers", transformers_version()),
            ("python", versions()[1]),
            ("torch", torch_version()),
            ("precision", model.dtype or "?"),
            ("batch", how),
        )

    def registered(self, model) -> str:
        return (
            f"{model.name}: MetricX-24 ({model.dtype}), checkpoint {model.path}, tokenizer {model.tokenizer}, digest "
            f"{model.digest[:12]}\nscore with: --metrics metricx:{model.name} (source, translation, reference) or "
            f"metricx-qe:{model.name} (source and translation); lower is better\n"
        )
