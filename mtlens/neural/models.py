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
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.limits import env_number

#: how ``--metrics`` names a registered model: ``comet:NAME``
PREFIX = "comet:"
#: environment variable naming the Python that has unbabel-comet
PYTHON_ENV = "MTLENS_NEURAL_PYTHON"
WORKER = Path(__file__).with_name("worker.py")
ROOT = Path(__file__).resolve().parents[2]
#: one sentence wherever a neural metric is offered without the extra
HOW_TO_ENABLE = (
    "neural metrics need the optional extra: run `bash scripts/install-neural.sh` (COMET in .venv-neural), "
    f"or set {PYTHON_ENV} to a Python with unbabel-comet installed"
)
#: the same, as a sentence on its own (the pages)
HOW_TO_ENABLE_SENTENCE = HOW_TO_ENABLE[0].upper() + HOW_TO_ENABLE[1:] + "."
_NAME_OK = set("abcdefghijklmnopqrstuvwxyz0123456789-_.")


class NeuralUnavailable(InputError):
    """The optional extra is not installed (the message says how to install it)."""


@dataclass(frozen=True)
class Model:
    """A registered checkpoint."""

    name: str
    path: str
    digest: str
    kind: str  # comet | cometkiwi | xcomet
    inputs: tuple[str, ...]
    size: int
    mtime: float

    @property
    def metric(self) -> str:
        return PREFIX + self.name

    @property
    def needs_reference(self) -> bool:
        return "ref" in self.inputs

    @property
    def needs_source(self) -> bool:
        return "src" in self.inputs


# --------------------------------------------------------------------------- the environment
def python() -> str:
    """The interpreter that runs COMET: ``MTLENS_NEURAL_PYTHON``, else the repository's ``.venv-neural``,
    else this one when it has COMET. Raises :class:`NeuralUnavailable` with how to install it."""
    named = os.environ.get(PYTHON_ENV, "").strip()
    if named:
        if not Path(named).is_file():
            raise NeuralUnavailable(f"{PYTHON_ENV} names '{named}', which is not a file; {HOW_TO_ENABLE}")
        return named
    venv = ROOT / ".venv-neural" / "bin" / "python"
    if venv.is_file():
        return str(venv)
    import importlib.util

    if importlib.util.find_spec("comet") is not None:
        return sys.executable
    raise NeuralUnavailable(HOW_TO_ENABLE)


def available() -> bool:
    try:
        python()
        return True
    except NeuralUnavailable:
        return False


def _worker_env() -> dict:
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "PYTHONWARNINGS": "ignore",
    }


#: a Ray cluster to score on (``host:port`` of its head, or ``ray://host:port``); unset: this machine
RAY_ENV = "MTLENS_RAY_ADDRESS"


def ray_address() -> str | None:
    return os.environ.get(RAY_ENV, "").strip() or None


def check_ray() -> None:
    """With :data:`RAY_ENV` set, its head must answer a TCP connection within 5 s: an unreachable cluster is
    one sentence when a job starts or the dashboard starts, never a hang in the worker."""
    import socket

    address = ray_address()
    if address is None:
        return
    host, _, port = address.split("://", 1)[-1].rstrip("/").rpartition(":")
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5):
            return
    except (OSError, ValueError) as err:
        why = str(err) or type(err).__name__
    raise InputError(
        f"cannot reach the Ray cluster at '{address}' ({RAY_ENV}): {why}; start it, correct the address, or unset "
        f"{RAY_ENV} to score on this machine"
    )


def _command(*args: str) -> list[str]:
    # -I: the worker's folder (mtlens/, with modules named like tokenizers) is not put on sys.path
    return [python(), "-I", str(WORKER), *args]


def _error_of(output: str, stderr: str, code: int) -> str:
    for line in output.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and "error" in doc:
            return str(doc["error"])
    if code < 0:
        return f"the COMET worker was killed (signal {-code}), probably out of memory"
    tail = [t for t in stderr.strip().splitlines() if t.strip()][-1:] or ["no message"]
    return f"the COMET worker stopped (exit status {code}): {tail[0][:300]}"


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


def file_digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=32)
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def describe(ckpt: Path) -> dict:
    """The model's kind and inputs, as the worker reads them from hparams.yaml."""
    proc = subprocess.run(_command("describe", str(ckpt)), capture_output=True, text=True, env=_worker_env())
    if proc.returncode != 0:
        raise InputError(_error_of(proc.stdout, proc.stderr, proc.returncode))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check_name(name: str) -> str:
    name = name.strip().lower()
    if not name or len(name) > 64 or not set(name) <= _NAME_OK:
        raise InputError(f"'{name[:64]}' is not a model name: use letters, digits, '-', '_' and '.' (up to 64)")
    return name


def add_model(store, name: str, path: str | Path) -> Model:
    """Register a local checkpoint under a name (replacing an earlier one of that name)."""
    name = check_name(name)
    python()  # the extra reads the checkpoint (else one sentence on how to install it)
    ckpt = checkpoint_file(path)
    info = describe(ckpt)
    stat = ckpt.stat()
    row = {
        "name": name,
        "path": str(ckpt),
        "digest": file_digest(ckpt),
        "kind": info["kind"],
        "inputs": ",".join(info["inputs"]),
        "size": stat.st_size,
        "mtime": stat.st_mtime,
    }
    store.put_model(row)
    return _model(row)


def _model(row: dict) -> Model:
    return Model(
        row["name"], row["path"], row["digest"], row["kind"], tuple(row["inputs"].split(",")), row["size"], row["mtime"]
    )


def models(store) -> list[Model]:
    return [_model(r) for r in store.models()]


def get_model(store, name: str) -> Model:
    """A registered model by name (``comet:`` prefix allowed); a checkpoint changed on disk since it was
    registered is digested again (its scores are then cached under the new digest)."""
    name = name[len(PREFIX) :] if name.startswith(PREFIX) else name
    found = {m.name: m for m in models(store)}
    if name not in found:
        known = ", ".join(found) or "none (add one with: python -m mtlens models add NAME PATH)"
        hint = "" if available() else f" ({HOW_TO_ENABLE})"
        raise InputError(f"no model is registered as '{name}'; registered: {known}{hint}")
    m = found[name]
    p = Path(m.path)
    try:
        stat = p.stat()
    except OSError:
        raise InputError(f"the checkpoint of model '{name}' is gone: '{m.path}' does not exist") from None
    if stat.st_size != m.size or stat.st_mtime != m.mtime:
        row = {**m.__dict__, "inputs": ",".join(m.inputs), "digest": file_digest(p), "size": stat.st_size}
        row["mtime"] = stat.st_mtime
        store.put_model(row)
        m = _model(row)
    return m


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


def versions() -> tuple[str, str]:
    """(COMET's version, Python's version) of the neural environment, for the signature; ``?`` without it."""
    try:
        interpreter = python()
    except NeuralUnavailable:
        return "?", "?"
    return _versions(interpreter)


@functools.lru_cache(maxsize=4)
def _versions(interpreter: str) -> tuple[str, str]:
    code = (
        "import importlib.metadata as m, platform\n"
        "try:\n    v = m.version('unbabel-comet')\nexcept Exception:\n    v = '?'\n"
        "print(v, platform.python_version())"
    )
    try:
        out = subprocess.run([interpreter, "-I", "-c", code], capture_output=True, text=True, timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return "?", "?"
    return (out[0], out[1]) if len(out) == 2 else ("?", "?")


def signature_fields(model: Model, how: str) -> tuple[tuple[str, str], ...]:
    """A sacreCOMET-style signature (Zouhar et al. 2024): the model, its checkpoint's digest, its kind, the
    COMET and Python versions that compute it, the precision and the batch mode."""
    comet, py = versions()
    return (
        ("model", model.name),
        ("digest", model.digest[:12]),
        ("kind", model.kind),
        ("comet", comet),
        ("python", py),
        ("precision", PRECISION),
        ("batch", how),
    )


# --------------------------------------------------------------------------- segments and the cache
def _reference(corpus: Corpus) -> tuple[str, ...] | None:
    return next(iter(corpus.references.values())) if corpus.references else None


def check_inputs(model: Model, corpus: Corpus) -> None:
    if model.needs_reference and not corpus.references:
        raise InputError(f"model '{model.name}' ({model.kind}) needs a reference, and this set has none")
    if model.needs_source and corpus.source is None:
        raise InputError(f"model '{model.name}' ({model.kind}) needs the source text, and this set has none")


def _segment_key(mt: str, src: str, ref: str) -> str:
    return hashlib.blake2b("\0".join(("mt", mt, "src", src, "ref", ref)).encode("utf-8"), digest_size=16).hexdigest()


def rows_of(model: Model, corpus: Corpus) -> dict[str, list[dict]]:
    """system -> its segments as the model reads them (stripped as comet-score strips them)."""
    check_inputs(model, corpus)
    ref = _reference(corpus) if model.needs_reference else None
    src = corpus.source if model.needs_source else None
    out = {}
    for system, hyp in corpus.systems.items():
        rows = []
        for i, mt in enumerate(hyp):
            row = {"mt": mt.strip()}
            if src is not None:
                row["src"] = src[i].strip()
            if ref is not None:
                row["ref"] = ref[i].strip()
            rows.append(row)
        out[system] = rows
    return out


def _row_key(row: dict) -> str:
    return _segment_key(row["mt"], row.get("src", ""), row.get("ref", ""))


def keys_of(model: Model, corpus: Corpus, how: str | None = None) -> dict[str, tuple[list[str], list[dict]]]:
    """system -> (the cache key of each of its segments, its rows), for the scoring mode ``how``.

    - ``exact``: comet-score's batches, so a key is (group, line): see :func:`groups`;
    - ``fast``: a segment's score is that of its inputs (source, translation, reference) whatever else is
      scored with it (to one half-precision step, docs/decisions.md), so the key is the inputs' digest:
      identical inputs in two systems, two sets or two runs are one key, scored once."""
    how = how or mode()
    if how == EXACT:
        return {s: (_line_keys(g, len(rows)), rows) for s, (g, rows) in groups(model, corpus).items()}
    return {s: ([FAST_PREFIX + _row_key(r) for r in rows], rows) for s, rows in rows_of(model, corpus).items()}


def groups(model: Model, corpus: Corpus, size: int | None = None) -> dict[str, tuple[str, list[dict]]]:
    """system -> (group key, its segments as the model reads them, stripped as comet-score strips them).

    The group key is the digest of the batch size and every segment of the system in order: comet-score
    scores a system's segments in batches that depend on all of them (sorted by source length), and in half
    precision a segment's score depends on its batch; so a score is cached under (checkpoint digest, group
    key, line), which is exactly what determines it."""
    size = size or batch_size()
    out = {}
    for system, rows in rows_of(model, corpus).items():
        h = hashlib.blake2b(f"batch={size}\n".encode(), digest_size=16)
        for r in rows:
            h.update(_row_key(r).encode())
        out[system] = (h.hexdigest(), rows)
    return out


def _line_keys(group: str, n: int) -> list[str]:
    return [f"{group}:{i}" for i in range(n)]


def missing(store, model: Model, corpus: Corpus, how: str | None = None) -> list[dict]:
    """The work left for this checkpoint on the corpus, in the mode ``how``:

    - ``exact``: the systems with segments never scored, ``{"group", "rows", "todo"}`` each (``todo``: the
      line indices to score), one per distinct group;
    - ``fast``: one item ``{"rows", "keys"}``, the distinct inputs never scored across every system, in
      line order (a line's source and reference serve all its translations)."""
    how = how or mode()
    if how == EXACT:
        grouped = groups(model, corpus)
        have = store.get_neural(model.digest, [k for g, rows in grouped.values() for k in _line_keys(g, len(rows))])
        out: dict[str, dict] = {}
        for g, rows in grouped.values():
            todo = [i for i, k in enumerate(_line_keys(g, len(rows))) if k not in have]
            if todo and g not in out:
                out[g] = {"group": g, "rows": rows, "todo": todo}
        return list(out.values())
    keyed = keys_of(model, corpus, FAST)
    have = store.get_neural(model.digest, [k for ks, _ in keyed.values() for k in ks])
    seen: dict[str, dict] = {}
    for i in range(corpus.n_lines):
        for ks, rows in keyed.values():
            if ks[i] not in have and ks[i] not in seen:
                seen[ks[i]] = rows[i]
    return [{"rows": list(seen.values()), "keys": list(seen)}] if seen else []


def segments_cached(store, model: Model, corpus: Corpus, how: str | None = None) -> int:
    """How many of the corpus's segments (lines x systems) have a cached score (in the mode ``how``)."""
    keyed = keys_of(model, corpus, how or mode())
    keys = [k for ks, _ in keyed.values() for k in ks]
    have = store.get_neural(model.digest, keys)
    return sum(k in have for k in keys)


def work_size(items: Sequence[dict]) -> int:
    """How many scores :func:`missing`'s work items ask for (exact: each system's lines; fast: distinct
    inputs)."""
    return sum(len(g["todo"]) if "todo" in g else len(g["rows"]) for g in items)


def cached_scores(store, model: Model, corpus: Corpus, how: str | None = None):
    """The model's scores for the corpus as a metric (an :class:`~mtlens.readers.scores.ImportedScores`), or
    None while any segment is unscored (in the mode ``how``)."""
    from ..readers.scores import ImportedScores, SpanTally

    how = how or mode()
    keyed = keys_of(model, corpus, how)
    have = store.get_neural(model.digest, [k for ks, _ in keyed.values() for k in ks])
    scores, spans = {}, {}
    tally = SpanTally()
    for system, (ks, _) in keyed.items():
        if any(k not in have for k in ks):
            return None
        scores[system] = np.array([have[k][0] for k in ks], dtype=np.float64)
        if model.kind == "xcomet":  # offsets into the stripped line (what the model read): the import's rule
            spans[system] = [
                tally.place(json.loads(have[k][1] or "[]"), h.strip(), h, f"'{system}' line {i}")
                for i, (h, k) in enumerate(zip(corpus.systems[system], ks, strict=True), start=1)
            ]
    return ImportedScores(
        model.metric,
        True,
        scores,
        f"{model.name} ({model.kind}, checkpoint {model.digest[:12]}, {how})",
        spans if any(any(x) for x in spans.values()) else {},
        tuple(tally.notes(model.metric)),
        signature_fields(model, how),
    )


def _spans_json(spans) -> str | None:
    """xCOMET's spans of one segment as the model gave them (offsets into the stripped line), stored as they
    are: :func:`mtlens.readers.scores.place_span` places them when they are read, as for an imported file."""
    if spans is None:
        return None
    out = []
    for s in spans or []:
        try:
            out.append(
                {
                    "start": int(s["start"]),
                    "end": int(s["end"]),
                    "text": str(s.get("text", "")),
                    "severity": str(s.get("severity", "")),
                    "confidence": float(s.get("confidence", 0.0)),
                }
            )
        except (KeyError, TypeError, ValueError, OverflowError):
            continue
    return json.dumps(out, ensure_ascii=False)


# --------------------------------------------------------------------------- computing
def batch_size(how: str = EXACT) -> int:
    """Sentences per batch: ``MTLENS_NEURAL_BATCH``; unset, comet-score's 16 in exact mode and 0 (the
    worker chooses from the device) in fast mode."""
    if how == FAST and not os.environ.get("MTLENS_NEURAL_BATCH", "").strip():
        return 0
    return int(env_number("MTLENS_NEURAL_BATCH", 16))


def compute(
    store,
    model: Model,
    corpus: Corpus,
    progress: Callable[[int, int], object] | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_start: Callable[[subprocess.Popen], object] | None = None,
    counts: dict | None = None,
) -> bool:
    """Score every segment not in the cache (in the current :func:`mode`), saving each call's results as
    they finish (a killed run loses at most one call's work). ``progress(done, total)`` after each call;
    ``should_stop()`` between calls ends the run early (False is returned). Raises InputError with one
    sentence when the worker fails; what was scored before stays saved. In fast mode ``total`` counts
    distinct inputs (what is computed), in exact mode each system's segments. ``counts``, when given, gains
    what the model did, as the worker reports it: ``rows`` scored and, in fast mode, sentences ``encoded``."""
    how = mode()
    todo = missing(store, model, corpus, how)
    total = work_size(todo)
    if progress:
        progress(0, total)
    if not todo:
        return True
    if how == FAST:
        check_ray()  # exact mode (comet-score's batches) always runs here
    size = batch_size(how)
    # rows per call: 0 lets the worker choose (exact mode: calls of about 5 s each, as it measures; fast
    # mode: blocks of about 1/32 of the work, worker.blocks)
    chunk = int(env_number("MTLENS_NEURAL_CHUNK", 0))
    if how == EXACT:
        wanted = {g["group"]: set(g["todo"]) for g in todo}
        feed = [json.dumps(g, ensure_ascii=False) for g in todo]
    else:
        keys, rows = todo[0]["keys"], todo[0]["rows"]
        feed = [json.dumps({"rows": rows}, ensure_ascii=False)]
    with tempfile.TemporaryFile("w+", encoding="utf-8") as err:
        proc = subprocess.Popen(
            _command("score" if how == EXACT else "fast", model.path, str(size), str(chunk)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            encoding="utf-8",
            env=_worker_env(),
            start_new_session=True,
        )
        if on_start:
            on_start(proc)
        feeder = threading.Thread(target=_feed, args=(proc, feed), daemon=True)
        feeder.start()
        done, output, finished = 0, [], False
        try:
            for line in proc.stdout:
                output.append(line)
                msg = _message(line)
                if "idx" in msg:
                    spans = msg.get("spans") or [None] * len(msg["idx"])
                    if how == EXACT:
                        g = msg["group"]
                        where = [f"{g}:{i}" for i in msg["idx"]]
                        done += len(wanted[g].intersection(msg["idx"]))
                    else:
                        where = [keys[i] for i in msg["idx"]]
                        done += len(msg["idx"])
                    store.put_neural(
                        model.digest,
                        [
                            (key, float(v), _spans_json(sp) if model.kind == "xcomet" else None)
                            for key, v, sp in zip(where, msg["scores"], spans, strict=True)
                        ],
                    )
                    if counts is not None:
                        counts["rows"] = counts.get("rows", 0) + len(msg["idx"])
                        counts["encoded"] = counts.get("encoded", 0) + int(msg.get("encoded") or 0)
                    if progress:
                        progress(done, total)
                    if should_stop and should_stop():
                        return False
                elif "retry" in msg:  # a Ray worker died; its block is computed again elsewhere
                    if counts is not None:
                        counts["retried"] = counts.get("retried", 0) + int(msg["retry"])
                elif msg.get("end"):
                    finished = True
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            feeder.join(timeout=5)
        if not finished:
            err.seek(0)
            raise InputError(
                f"{_error_of(''.join(output), err.read(), proc.returncode)}; the {done} segment(s) scored so far "
                "are saved, run it again to go on"
            )
    return True


def _message(line: str) -> dict:
    try:
        msg = json.loads(line)
    except ValueError:
        return {}
    return msg if isinstance(msg, dict) else {}


def _feed(proc: subprocess.Popen, lines: Sequence[str]) -> None:
    try:
        for line in lines:
            proc.stdin.write(line + "\n")
        proc.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass


def scores_for(store, model: Model, corpus: Corpus, progress=None):
    """Compute what is missing, then the model's metric for the corpus."""
    compute(store, model, corpus, progress)
    result = cached_scores(store, model, corpus)
    if result is None:  # pragma: no cover - compute() raises or leaves nothing unscored
        raise InputError(f"model '{model.name}' left segments unscored")
    return result


def offered_scores(store, model: Model, corpus: Corpus):
    """The model's cached scores for the corpus in the current mode, else in the other one (a set scored
    with ``--exact`` shows its scores on a fast-mode server too, and the reverse; the signature says which
    batch mode made them); None while neither is complete."""
    current = mode()
    for how in (current, *(x for x in MODES if x != current)):
        scores = cached_scores(store, model, corpus, how)
        if scores is not None:
            return scores
    return None


def completed(store, corpus: Corpus) -> list:
    """Every registered model whose scores for the whole corpus are cached (:func:`offered_scores`)."""
    out = []
    for m in models(store):
        try:
            scores = offered_scores(store, m, corpus)
        except InputError:
            continue
        if scores is not None:
            out.append(scores)
    return out
