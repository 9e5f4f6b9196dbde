"""Neural metrics (COMET, CometKiwi, xCOMET) computed from the user's own local checkpoints.

Decisions (docs/decisions.md, "Neural metrics"):
- COMET runs in the optional extra's own environment (``.venv-neural``, made by
  ``scripts/install-neural.sh``; ``MTLENS_NEURAL_PYTHON`` names another interpreter). unbabel-comet pins
  numpy < 2, protobuf < 5 and transformers < 5, which the core does not share; the core install stays
  as light and as fast as it is. mtlens talks to the worker (``mtlens/neural/worker.py``) with JSON lines
  over pipes: nothing is pickled across.
- A model is a registered local checkpoint (``python -m mtlens models add NAME PATH``): name, path,
  kind (comet, cometkiwi, xcomet, from its hparams.yaml), inputs, and the BLAKE2b digest of the
  checkpoint file. Nothing is downloaded, ever (``HF_HUB_OFFLINE=1``); checkpoints are read with torch's
  weights-only loader.
- Scores are cached in the store by what determines them: the checkpoint's digest and the digest of
  the segment's inputs (source, hypothesis, first reference, as the model reads them). Reopening a set,
  adding a system or scoring the same text in another set computes only segments never scored.
- Scores are those of ``comet-score`` for the same checkpoint (the worker prepares the model as
  comet-score does); a set with several references is scored against its first reference, as
  ``comet-score -r`` takes one file.
- A computed model becomes a metric named ``comet:NAME`` with segment statistics ``[score, 1]`` (like an
  imported one): the system score is the mean of the segment scores, and it feeds rankings,
  significance, sentence views, buckets, human correlation, exports and the report. Its signature names
  the model, the first 12 characters of the digest and the COMET version.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError
from ..scores.sources import COMET as COMET_FAMILY
from ..scores.sources import COMET_PREFIX, MODEL, source_of
from .environment import (
    HOW_TO_ENABLE,
    available,
    error_of,
    python,
    versions,
    worker_command,
    worker_env,
)
from .kinds import CheckpointKind
from .metricx import MetricXKind

#: how ``--metrics`` names a registered COMET model: ``comet:NAME``
PREFIX = COMET_PREFIX
_NAME_OK = set("abcdefghijklmnopqrstuvwxyz0123456789-_.")


@dataclass(frozen=True)
class Model:
    """A registered checkpoint (for MetricX, one of its two metrics: :func:`models`)."""

    name: str
    path: str
    digest: str  # a MetricX-QE metric's is the checkpoint's with ":qe" (its own cache and job)
    kind: str  # comet | cometkiwi | xcomet | metricx | metricx-qe
    inputs: tuple[str, ...]
    size: int
    mtime: float
    tokenizer: str | None = None  # MetricX: the mT5 tokenizer's folder (the checkpoint's own when it has one)
    dtype: str | None = None  # MetricX: the weights' dtype (float32, bfloat16), what it computes in

    @property
    def checkpoint(self) -> CheckpointKind:
        """The kind of checkpoint it is (:mod:`mtlens.neural.kinds`): everything that differs between kinds."""
        return kind_of(self.kind)

    @property
    def metric(self) -> str:
        return self.checkpoint.metric(self)

    @property
    def higher_is_better(self) -> bool:
        """COMET's scores grow with quality; MetricX's are errors (0 best, 25 worst)."""
        return self.checkpoint.higher_is_better(self)

    @property
    def job_name(self) -> str:
        """What names the model's job (:mod:`mtlens.runtime.jobs`): a COMET model's name, a MetricX metric."""
        return self.checkpoint.job_name(self)

    @property
    def registered(self) -> str:
        """What the command line says of its registration (:meth:`mtlens.neural.kinds.CheckpointKind.registered`)."""
        return self.checkpoint.registered(self)

    @property
    def metrics_given(self) -> list[str]:
        """Every metric its registration gives (``comet:NAME``; ``metricx:NAME`` and ``metricx-qe:NAME``)."""
        return [m.metric for m in self.checkpoint.metrics(self)]

    @property
    def needs_reference(self) -> bool:
        return "ref" in self.inputs

    @property
    def needs_source(self) -> bool:
        return "src" in self.inputs


# --------------------------------------------------------------------------- the registry
def checkpoint_file(path: str | Path) -> Path:
    """A model folder (``hparams.yaml`` + ``checkpoints/model.ckpt``) or the checkpoint file itself."""
    try:
        p = Path(os.path.expanduser(str(path))).resolve()
        if p.is_dir():
            p = p / "checkpoints" / "model.ckpt"
        usable = p.is_file() and os.access(p, os.R_OK)
    except (OSError, RuntimeError):  # a symbolic link loop (RuntimeError before Python 3.13), a name too long
        usable = False
    if not usable:
        raise InputError(
            f"'{str(path)[:200]}' is not a readable COMET checkpoint: give the model folder (hparams.yaml and "
            "checkpoints/model.ckpt) or its checkpoints/model.ckpt"
        )
    return p


def cache_digest(model) -> str:
    """What a model's scores are cached under (issue 61): the checkpoint's digest and the signature's fields that
    change its numbers besides the inputs (the versions that compute it, the precision, the layer transformation);
    scores made in another environment are never read as this one's. The batch mode is in the keys themselves."""
    fields = [(k, v) for k, v in signature_fields(model, "") if k not in ("model", "batch")]
    return f"{model.digest}@{hashlib.blake2b(json.dumps(fields).encode('utf-8'), digest_size=8).hexdigest()}"


def layer_transformation(path: str | Path) -> str:
    """The checkpoint's ``layer_transformation`` (``softmax``, ``sparsemax``...: how its layers are mixed; xCOMET's
    and CometKiwi's scores changed with it between revisions of their configuration), read from the hparams.yaml
    beside it as text (never evaluated); ``?`` where it cannot be read."""
    try:
        hp = checkpoint_file(path).parent.parent / "hparams.yaml"
        return _layer(str(hp), hp.stat().st_mtime_ns)
    except (InputError, OSError):
        return "?"


@functools.lru_cache(maxsize=64)
def _layer(hp: str, _mtime: int) -> str:
    with open(hp, encoding="utf-8", errors="replace") as f:
        for line in itertools.islice(f, 10_000):
            m = re.match(r"\s*layer_transformation:\s*['\"]?([A-Za-z0-9_-]{1,40})", line)
            if m:
                return m.group(1)
    return "?"


def file_digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=32)
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def describe(ckpt: Path) -> dict:
    """The model's kind and inputs, as the worker reads them from hparams.yaml."""
    proc = subprocess.run(worker_command("describe", str(ckpt)), capture_output=True, text=True, env=worker_env())
    if proc.returncode != 0:
        raise InputError(error_of(proc.stdout, proc.stderr, proc.returncode))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check_name(name: str) -> str:
    name = name.strip().lower()
    if not name or len(name) > 64 or not set(name) <= _NAME_OK:
        raise InputError(f"'{name[:64]}' is not a model name: use letters, digits, '-', '_' and '.' (up to 64)")
    return name


def add_model(store, name: str, path: str | Path, tokenizer: str | Path | None = None) -> Model:
    """Register a local checkpoint under a name (replacing an earlier one of that name): a COMET folder or checkpoint
    file, or a MetricX-24 folder (:func:`mtlens.neural.metricx.metricx_row`; ``tokenizer``: its mT5 tokenizer's
    folder when the checkpoint's own folder has none)."""
    name = check_name(name)
    python()  # the extra reads the checkpoint (else one sentence on how to install it)
    kind = next(k for k in KINDS if k.recognises(path))  # COMET's last: it says why a folder is not its
    row = kind.row(name, path, tokenizer)
    store.put_model(row)
    return _expand(row)[0]


def _model(row: dict) -> Model:
    return Model(
        row["name"],
        row["path"],
        row["digest"],
        row["kind"],
        tuple(row["inputs"].split(",")),
        row["size"],
        row["mtime"],
        row.get("tokenizer"),
        row.get("dtype"),
    )


def _expand(row: dict) -> list[Model]:
    """A registry row as its metrics: a COMET model is one; a MetricX checkpoint is two (reference-based and QE)."""
    m = _model(row)
    return m.checkpoint.metrics(m)


def models(store) -> list[Model]:
    """Every registered model's metrics (a MetricX checkpoint gives two)."""
    return [m for r in store.models() for m in _expand(r)]


def get_model(store, name: str) -> Model:
    """A registered model's metric by name: ``comet:NAME``, ``metricx:NAME``, ``metricx-qe:NAME`` or the bare name (a
    MetricX checkpoint's reference-based metric). A checkpoint changed on disk since it was registered is digested
    again (its scores are then cached under the new digest)."""
    source = source_of(name)  # the prefix, read by the one resolver
    named = source.kind == MODEL  # comet:NAME, metricx:NAME, metricx-qe:NAME; a bare name is the checkpoint's first
    if named:
        name = source.registered
    rows = {r["name"]: r for r in store.models()}
    if name not in rows:
        known = ", ".join(m.metric for r in rows.values() for m in _expand(r))
        known = known or "none (add one with: python -m mtlens models add NAME PATH)"
        hint = "" if available() else f" ({HOW_TO_ENABLE})"
        raise InputError(f"no model is registered as '{name}'; registered: {known}{hint}")
    row = rows[name]
    first = _model(row)
    if named and source.family != first.checkpoint.family:  # metricx:NAME of a COMET model, or the reverse
        raise InputError(f"'{name}' is a {first.kind} model: name it {first.metric}")
    try:
        size, mtime = first.checkpoint.stat(first)
    except OSError:
        raise InputError(f"the checkpoint of model '{name}' is gone: '{first.path}' does not exist") from None
    if size != first.size or mtime != first.mtime:
        digest = first.checkpoint.digest(first)
        row = {**row, "digest": digest, "size": size, "mtime": mtime}
        store.put_model(row)
    found = _expand(row)
    return next((m for m in found if m.metric == source.prefix + name), found[0]) if named else found[0]


class CometKind(CheckpointKind):
    """COMET's checkpoints (COMET-DA, CometKiwi, xCOMET): one file with its hparams.yaml, one metric ``comet:NAME``,
    scored by the COMET worker as comet-score scores it (stripped lines)."""

    family = COMET_FAMILY
    model_kinds = ("comet", "cometkiwi", "xcomet")

    def recognises(self, path) -> bool:
        return True  # the last kind tried: checkpoint_file says why a path is not a COMET checkpoint

    def row(self, name, path, tokenizer) -> dict:
        if tokenizer is not None:
            raise InputError("--tokenizer is for a MetricX checkpoint; a COMET checkpoint carries its own")
        ckpt = checkpoint_file(path)
        info = describe(ckpt)
        stat = ckpt.stat()
        return {
            "name": name,
            "path": str(ckpt),
            "digest": file_digest(ckpt),
            "kind": info["kind"],
            "inputs": ",".join(info["inputs"]),
            "size": stat.st_size,
            "mtime": stat.st_mtime,
        }

    def metrics(self, model):
        return [model]

    def metric(self, model) -> str:
        return PREFIX + model.name

    def job_name(self, model) -> str:
        return model.name

    def higher_is_better(self, model) -> bool:
        return True

    def stat(self, model) -> tuple[int, float]:
        stat = Path(model.path).stat()
        return stat.st_size, stat.st_mtime

    def digest(self, model) -> str:
        return file_digest(Path(model.path))

    def command(self, model, verb: str, size: int, chunk: int) -> list[str]:
        return worker_command(verb, model.path, str(size), str(chunk))

    def clean(self, text: str) -> str:
        return text.strip()

    def signature(self, model, how: str) -> tuple[tuple[str, str], ...]:
        from .environment import torch_version, transformers_version

        comet, py = versions()
        return (
            ("model", model.name),
            ("digest", model.digest[:12]),
            ("kind", model.kind),
            ("comet", comet),
            ("python", py),
            ("transformers", transformers_version()),
            ("torch", torch_version()),
            ("layer", layer_transformation(model.path)),
            ("precision", PRECISION),
            ("batch", how),
        )

    def registered(self, model) -> str:
        return (
            f"{model.name}: {model.kind} (reads {', '.join(model.inputs)}), checkpoint {model.path}, digest "
            f"{model.digest[:12]}\nscore with: --metrics {model.metric}\n"
        )


def kind_of(model_kind: str) -> CheckpointKind:
    """The kind of checkpoint whose metrics have ``model_kind`` (a registry row's ``kind``); a kind no other adapter
    claims is COMET's, the last (a COMET row keeps the kind its hparams.yaml gave when it was registered, whatever
    name an earlier version gave it)."""
    return next((k for k in KINDS if model_kind in k.model_kinds), KINDS[-1])


# --------------------------------------------------------------------------- mode and signature
#: the scoring modes: ``fast`` shares work across systems (the default), ``exact`` forms comet-score's
#: batches and gives its numbers bit for bit (docs/decisions.md, "Faster than comet-score")
FAST, EXACT = "fast", "exact"
MODES = (FAST, EXACT)
#: the environment variable that chooses the mode (``--exact`` on the command line sets it)
MODE_ENV = "MTLENS_NEURAL_MODE"
#: the cache-key prefix of a fast-mode score (an exact one is ``GROUP:LINE``)
FAST_PREFIX = "fast:"
#: the precision the worker computes in: comet-score's (``model.half()``), in both modes
PRECISION = "fp16"


def mode() -> str:
    """The scoring mode: ``MTLENS_NEURAL_MODE`` (``fast`` or ``exact``), ``fast`` when unset."""
    value = os.environ.get(MODE_ENV, "").strip().lower() or FAST
    if value not in MODES:
        raise InputError(f"{MODE_ENV}={value[:20]!r} is not a scoring mode: use {' or '.join(MODES)}")
    return value


#: how a reference-based model's scores against several references are combined per segment: ``mean`` (the COMET
#: maintainers' advice, COMET#140) or ``max``
REFS_ENV = "MTLENS_NEURAL_REFS"
REFS_COMBINE = ("mean", "max")


def refs_combine() -> str:
    """``MTLENS_NEURAL_REFS`` (``mean`` or ``max``), ``mean`` when unset."""
    value = os.environ.get(REFS_ENV, "").strip().lower() or "mean"
    if value not in REFS_COMBINE:
        raise InputError(f"{REFS_ENV}={value[:20]!r} is not a way to combine references: use mean or max")
    return value


def signature_fields(model: Model, how: str) -> tuple[tuple[str, str], ...]:
    """A sacreCOMET-style signature (Zouhar et al. 2024): the model, its checkpoint's digest, its kind, the
    COMET (MetricX: transformers) and Python versions that compute it, the precision and the batch mode (the kind's
    own fields: :meth:`mtlens.neural.kinds.CheckpointKind.signature`)."""
    return model.checkpoint.signature(model, how)


#: the kinds of checkpoint, in the order registration tries them (COMET's last: it says why a path is none)
KINDS: tuple[CheckpointKind, ...] = (MetricXKind(), CometKind())
