"""Neural metrics computed in place (mtlens/neural/models.py, mtlens/runtime/jobs.py), against COMET's own command line.

Every golden value comes from ``comet-score --to_json`` run on the same tiny checkpoint (built offline by
tests/neural/build_tiny_comet.py: random weights, a SentencePiece vocabulary trained on the sample) and
the same files: mtlens's segment scores must equal comet-score's to 1e-6, system scores their means.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mtlens.core.corpus import Corpus
from mtlens.core.errors import InputError
from mtlens.neural import compute as neural_compute
from mtlens.neural import environment as neural_env
from mtlens.neural import models as neural
from mtlens.neural import segments as neural_segments
from mtlens.runtime import jobs
from mtlens.storage.store import Store

from ..conftest import ROOT, SAMPLE

N = 48  # lines of the sample used (keeps comet-score's own runs short)
SYSTEMS = ("UEdin", "HuaweiTSC")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A 48-line excerpt of the bundled sample as files: src, ref, and three systems."""
    d = tmp_path_factory.mktemp("neural-files")
    for name in ("src", "ref", "UEdin", "HuaweiTSC", "Online-W"):
        lines = (SAMPLE / f"{name}.txt").read_text(encoding="utf-8").split("\n")[:N]
        (d / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


def comet_score(python: str, model: Path, files: Path, systems, reference: bool = True) -> dict:
    """COMET's own scores: system name -> list of segment dicts (``COMET``, ``errors``...)."""
    out = files / f"comet-{model.name}-{'-'.join(systems)}.json"
    if not out.exists():
        cmd = [
            str(Path(python).with_name("comet-score")),
            "-s",
            str(files / "src.txt"),
            "-t",
            *[str(files / f"{s}.txt") for s in systems],
            "--model",
            str(model / "checkpoints" / "model.ckpt"),
            "--gpus",
            "0",
            "--quiet",
            "--to_json",
            str(out),
        ]
        if reference:
            cmd[3:3] = ["-r", str(files / "ref.txt")]
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1", "PYTHONWARNINGS": "ignore"}
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text(encoding="utf-8"))
    return {Path(k).stem: v for k, v in doc.items()}


def mtlens(*args, data_dir: Path, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "mtlens", *args, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def sentence_scores(csv_text: str, metric: str) -> dict[str, list[float]]:
    import csv
    import io

    out: dict[str, list[float]] = {}
    for row in csv.DictReader(io.StringIO(csv_text)):
        out.setdefault(row["system"], []).append(float(row[metric]))
    return out


def one_step(gold) -> np.ndarray:
    """One half-precision step at each gold score: the fast mode's documented tolerance (comet-score computes
    in half precision; a segment batched with others of another length may round to the neighbouring
    float16, and nothing further: 2^(e-10) for a score in [2^e, 2^(e+1)))."""
    g = np.abs(np.asarray(gold, dtype=np.float64))
    return np.exp2(np.floor(np.log2(np.where(g > 0, g, 2.0**-14))) - 10)


def assert_fast_close(ours: dict, gold: dict, systems, combined: bool = False) -> None:
    """Fast mode against comet-score: every segment within one half-precision step (``combined``: xCOMET,
    whose score combines several half-precision outputs, within 1e-4), few of them off at all, and every
    system score equal to 4 decimals."""
    off = 0
    for s in systems:
        want = np.array([x["COMET"] for x in gold[s]])
        got = np.asarray(ours[s])
        bound = 1e-4 if combined else one_step(want) + 1e-12
        assert np.all(np.abs(got - want) <= bound), (s, np.max(np.abs(got - want)))
        off += int(np.count_nonzero(got != want))
        assert abs(got.mean() - want.mean()) < 5e-5
    assert off <= 0.05 * len(systems) * len(gold[systems[0]]), off


def comet_version(python: str) -> str:
    """COMET's ``__version__`` as its package's source declares it (read, not imported: 8 CPU-seconds)."""
    import re

    origin = subprocess.run(
        [python, "-I", "-c", "import importlib.util; print(importlib.util.find_spec('comet').origin)"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    (version,) = re.findall(r'^__version__ = "([^"]+)"$', Path(origin).read_text(encoding="utf-8"), re.M)
    return version


def data_args(files: Path, systems=SYSTEMS) -> list[str]:
    return [
        "--ref",
        str(files / "ref.txt"),
        "--src",
        str(files / "src.txt"),
        "--sys",
        *[str(files / f"{s}.txt") for s in systems],
    ]


# --------------------------------------------------------------------------- the command line
def test_score_with_a_registered_comet_model_equals_comet_score(neural_python, tiny_models, files, tmp_path):
    out = mtlens("models", "add", "tiny", str(tiny_models["tiny-comet"]), data_dir=tmp_path)
    assert "comet:tiny" in out.stdout and "comet (reads mt, src, ref)" in out.stdout
    listed = mtlens("models", "list", data_dir=tmp_path).stdout
    assert listed.startswith("comet:tiny\tcomet\tmt,src,ref\t")

    gold = comet_score(neural_python, tiny_models["tiny-comet"], files, SYSTEMS)
    seg = mtlens(
        "score",
        *data_args(files),
        "--metrics",
        "bleu,comet:tiny",
        "--exact",
        "--format",
        "csv",
        "--sentence-level",
        data_dir=tmp_path,
    ).stdout
    ours = sentence_scores(seg, "comet:tiny")
    for s in SYSTEMS:
        np.testing.assert_allclose(ours[s], [x["COMET"] for x in gold[s]], atol=1e-6, rtol=0)
    # the default, shared-work mode: within one half-precision step of comet-score, systems to 4 decimals
    fast = sentence_scores(
        mtlens(
            "score",
            *data_args(files),
            "--metrics",
            "comet:tiny",
            "--format",
            "csv",
            "--sentence-level",
            data_dir=tmp_path,
        ).stdout,
        "comet:tiny",
    )
    assert_fast_close(fast, gold, SYSTEMS)
    # the signature beside the neural scores in CSV (system level), naming the mode
    import csv
    import io

    table = list(
        csv.DictReader(
            io.StringIO(
                mtlens(
                    "score", *data_args(files), "--metrics", "bleu,comet:tiny", "--format", "csv", data_dir=tmp_path
                ).stdout
            )
        )
    )
    assert list(table[0]) == ["rank", "system", "bleu", "comet:tiny", "comet:tiny signature"]
    (signature,) = {r["comet:tiny signature"] for r in table}  # one per metric, on every row
    assert signature.startswith("metric:comet:tiny|model:tiny|") and "|precision:fp16|batch:fast|" in signature

    doc = json.loads(
        mtlens(
            "score", *data_args(files), "--metrics", "bleu,comet:tiny", "--exact", "--format", "json", data_dir=tmp_path
        ).stdout
    )
    assert doc["signatures"]["comet:tiny"].startswith("metric:comet:tiny|model:tiny|digest:")
    assert f"|comet:{comet_version(neural_python)}|" in doc["signatures"]["comet:tiny"]
    assert "|precision:fp16|batch:exact|" in doc["signatures"]["comet:tiny"]
    # issue 61: what else changes a neural number: torch's and transformers' versions (the neural environment's own
    # metadata, asked here) and the checkpoint configuration's layer transformation (its hparams.yaml, read here)
    sig = doc["signatures"]["comet:tiny"]
    asked = subprocess.run(
        [neural_python, "-I", "-c", "import torch, transformers; print(torch.__version__, transformers.__version__)"],
        capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    assert f"|transformers:{asked[1]}|torch:{asked[0]}|" in sig
    hp = (tiny_models["tiny-comet"] / "hparams.yaml").read_text(encoding="utf-8")
    (layer,) = [line.split(":", 1)[1].strip() for line in hp.splitlines() if line.startswith("layer_transformation:")]
    assert f"|layer:{layer}|precision:fp16|" in sig
    digest = doc["signatures"]["comet:tiny"].split("digest:")[1][:12]
    assert (
        len(digest) == 12
        and digest == neural.file_digest(tiny_models["tiny-comet"] / "checkpoints" / "model.ckpt")[:12]
    )
    for row in doc["systems"]:
        system_score = float(np.mean([x["COMET"] for x in gold[row["name"]]]))
        assert row["scores"]["comet:tiny"] == pytest.approx(system_score, abs=1e-6)
        assert "bleu" in row["scores"]


def test_a_source_only_model_needs_no_reference_and_equals_comet_score(neural_python, tiny_models, files, tmp_path):
    mtlens("models", "add", "kiwi", str(tiny_models["tiny-kiwi"] / "checkpoints" / "model.ckpt"), data_dir=tmp_path)
    assert "\tcometkiwi\tmt,src\t" in mtlens("models", "list", data_dir=tmp_path).stdout
    gold = comet_score(neural_python, tiny_models["tiny-kiwi"], files, SYSTEMS, reference=False)
    args = ("score", *data_args(files), "--metrics", "comet:kiwi", "--format", "csv", "--sentence-level")
    ours = sentence_scores(mtlens(*args, "--exact", data_dir=tmp_path).stdout, "comet:kiwi")
    for s in SYSTEMS:
        np.testing.assert_allclose(ours[s], [x["COMET"] for x in gold[s]], atol=1e-6, rtol=0)
    # plain files without a reference (QE needs only the source and the outputs), in the default fast mode
    no_ref = data_args(files)[2:]
    qe = mtlens("score", *no_ref, "--metrics", "comet:kiwi", "--format", "csv", "--sentence-level", data_dir=tmp_path)
    assert_fast_close(sentence_scores(qe.stdout, "comet:kiwi"), gold, SYSTEMS)
    refused = mtlens("score", *no_ref, data_dir=tmp_path, check=False)
    assert refused.returncode == 2 and "this set has no reference: name a reference-free metric" in refused.stderr
    # the reference does not enter the cache key of a source-only model: another reference, nothing new
    store = Store(tmp_path)
    model = neural.get_model(store, "kiwi")
    src = (files / "src.txt").read_text(encoding="utf-8").split("\n")[:N]
    hyp = {s: (files / f"{s}.txt").read_text(encoding="utf-8").split("\n")[:N] for s in SYSTEMS}
    other_ref = Corpus.build({"r": ["x"] * N}, hyp, src)
    assert neural_segments.missing(store, model, other_ref) == []


def test_xcomet_scores_and_spans_equal_comet_score(neural_python, tiny_models, files, tmp_path, monkeypatch):
    mtlens("models", "add", "xc", str(tiny_models["tiny-xcomet"]), data_dir=tmp_path)
    gold = comet_score(neural_python, tiny_models["tiny-xcomet"], files, SYSTEMS[:1])
    store = Store(tmp_path)
    model = neural.get_model(store, "xc")
    assert model.kind == "xcomet"
    hyp = (files / "UEdin.txt").read_text(encoding="utf-8").split("\n")[:N]
    corpus = Corpus.build(
        {"ref": (files / "ref.txt").read_text(encoding="utf-8").split("\n")[:N]},
        {"UEdin": hyp},
        (files / "src.txt").read_text(encoding="utf-8").split("\n")[:N],
    )
    monkeypatch.setenv(neural.MODE_ENV, neural.EXACT)
    result = neural_compute.scores_for(store, model, corpus)
    np.testing.assert_allclose(result.scores["UEdin"], [x["COMET"] for x in gold["UEdin"]], atol=1e-6, rtol=0)
    monkeypatch.setenv(neural.MODE_ENV, neural.FAST)
    fast = neural_compute.scores_for(store, model, corpus)
    assert_fast_close(fast.scores, gold, ["UEdin"], combined=True)
    assert dict(fast.model)["batch"] == "fast" and dict(result.model)["batch"] == "exact"
    got = [[(e.start, e.end, e.text, e.severity) for e in line] for line in (result.spans.get("UEdin") or [[]] * N)]
    # one placement rule for both routes: comet-score's own JSON, imported, gives the very same spans
    from mtlens.readers.scores import read_scores

    out = files / f"comet-{tiny_models['tiny-xcomet'].name}-UEdin.json"
    (imported,) = read_scores(out.read_bytes(), out.name, corpus)
    assert [[(e.start, e.end, e.text, e.severity) for e in line] for line in imported.spans["UEdin"]] == got
    # and a span whose text is at its offsets in the line comet-score read stays at those offsets
    lead = [len(h) - len(h.lstrip()) for h in hyp]
    kept = [
        (i, int(e["start"]) + lead[i], int(e["end"]) + lead[i])
        for i, seg in enumerate(gold["UEdin"])
        for e in seg.get("errors", [])
        if e.get("text") and hyp[i].strip()[int(e["start"]) : int(e["end"])] == e["text"]
    ]
    assert kept and all((a, b) in [(x[0], x[1]) for x in got[i]] for i, a, b in kept)


def test_only_new_segments_are_computed_and_shared_work_is_done_once(
    neural_python, tiny_models, files, tmp_path, monkeypatch
):
    store = Store(tmp_path)
    model = neural.add_model(store, "tiny", tiny_models["tiny-comet"])
    src = (files / "src.txt").read_text(encoding="utf-8").split("\n")[:N]
    ref = {"ref": (files / "ref.txt").read_text(encoding="utf-8").split("\n")[:N]}
    hyp = {s: (files / f"{s}.txt").read_text(encoding="utf-8").split("\n")[:N] for s in (*SYSTEMS, "Online-W")}
    # two systems that share half their lines (B copies A on even lines)
    a = hyp["UEdin"]
    b = [a[i] if i % 2 == 0 else hyp["HuaweiTSC"][i] for i in range(N)]
    two = Corpus.build(ref, {"A": a, "B": b}, src)
    rows = {(src[i].strip(), h[i].strip(), ref["ref"][i].strip()) for h in (a, b) for i in range(N)}
    sentences = {x.strip() for x in (*src, *ref["ref"], *a, *b)}
    assert len(rows) <= 1.5 * N  # the shared lines are one input each
    counts: dict = {}
    seen = []
    neural_compute.compute(store, model, two, progress=lambda d, t: seen.append((d, t)), counts=counts)
    # the model scored each distinct input once and encoded each distinct sentence once (source, reference
    # and translation alike), as the worker counts them: 3 x 2N encodings by comet-score
    assert counts == {"rows": len(rows), "encoded": len(sentences)}
    assert seen[0] == (0, len(rows)) and seen[-1] == (len(rows), len(rows))
    result = neural_segments.cached_scores(store, model, two)
    assert [result.scores["A"][i] for i in range(0, N, 2)] == [result.scores["B"][i] for i in range(0, N, 2)]
    seen.clear()
    neural_compute.compute(store, model, two, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(0, 0)]  # reopened: nothing to compute
    three = Corpus.build(ref, {"A": a, "B": b, "C": hyp["Online-W"]}, src)
    new = {(src[i].strip(), hyp["Online-W"][i].strip(), ref["ref"][i].strip()) for i in range(N)} - rows
    assert [len(g["rows"]) for g in neural_segments.missing(store, model, three)] == [len(new)]  # only the added system
    # the same text in another set (another name for a system) is not computed again either
    renamed = Corpus.build(ref, {"X": a}, src)
    assert neural_segments.missing(store, model, renamed) == []
    # exact mode (comet-score's batches): its own cache keys, one group per system, the same rule after that
    monkeypatch.setenv(neural.MODE_ENV, neural.EXACT)
    assert [len(g["todo"]) for g in neural_segments.missing(store, model, two)] == [N, N]
    counts.clear()
    neural_compute.compute(store, model, two, counts=counts)
    # comet-score's batches, but a source or reference batch is encoded once for both systems: 4N
    # sentences where comet-score encodes 6N (its embedding cache never hits across systems)
    assert counts == {"rows": 2 * N, "encoded": 4 * N}
    assert [len(g["todo"]) for g in neural_segments.missing(store, model, three)] == [N]
    # scores made in one mode are offered in the other (labelled by their batch mode), not hidden
    solo = Corpus.build(ref, {"Z": hyp["Online-W"]}, src)
    neural_compute.compute(store, model, solo)
    monkeypatch.setenv(neural.MODE_ENV, neural.FAST)
    assert neural_segments.cached_scores(store, model, solo) is None
    assert dict(neural_compute.offered_scores(store, model, solo).model)["batch"] == "exact"


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def test_the_worker_stops_when_the_command_that_started_it_is_killed(neural_python, tiny_models, files, tmp_path):
    """kill -9 of a CLI process mid-job: its COMET worker (in its own session) stops within seconds instead
    of computing on until its next write fails."""
    mtlens("models", "add", "tiny", str(tiny_models["tiny-comet"]), data_dir=tmp_path)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mtlens",
            "score",
            *data_args(files),
            "--metrics",
            "comet:tiny",
            "--data-dir",
            str(tmp_path),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = None
    for _ in range(600):
        worker = next((c for c in _children(proc.pid) if b"worker.py" in Path(f"/proc/{c}/cmdline").read_bytes()), None)
        if worker or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert worker is not None, "the worker never started"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for _ in range(200):  # 20 s at most; the worker checks its parent every half second
        if (
            not Path(f"/proc/{worker}").exists()
            or b"Z" in Path(f"/proc/{worker}/stat").read_bytes().split(b")")[-1][:3]
        ):
            break
        time.sleep(0.1)
    else:
        os.kill(worker, signal.SIGKILL)
        raise AssertionError("the worker went on after its parent was killed")


def test_a_worker_whose_parent_died_while_it_started_stops_and_an_empty_input_loads_nothing(
    neural_python, tiny_models, tmp_path
):
    """The race the test above can meet on a loaded machine (CI, stop 73): the command killed before its worker's
    parent watch began. The worker reads its parent from MTLENS_WORKER_PARENT, so a parent already gone when it
    starts stops it (exit 4) although its input is still open; and an input that ends with no line (the parent went
    away before writing) is no work: the worker ends without loading the model."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a process id that was a parent and is no more
    ckpt = str(tiny_models["tiny-comet"] / "checkpoints" / "model.ckpt")
    env = {**neural_env.worker_env(), neural_env.PARENT_ENV: str(gone.pid)}
    orphan = subprocess.Popen([neural_python, "-I", str(neural_env.WORKER), "fast", ckpt, "0", "0"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)  # fmt: skip
    try:
        assert orphan.wait(timeout=30) == 4  # its input never ended: the watch stopped it
    finally:
        orphan.kill()
        orphan.stdin.close()
        orphan.stdout.close()
    for verb in ("fast", "score"):  # -X importtime: every module the worker imported, on stderr
        done = subprocess.run([neural_python, "-X", "importtime", "-I", str(neural_env.WORKER), verb, ckpt, "0", "0"],
                              input="", capture_output=True, text=True, env=neural_env.worker_env(), timeout=120)  # fmt: skip
        imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
        assert done.returncode == 0 and done.stdout == "", (verb, done.stdout, done.stderr[-500:])
        assert "json" in imported and "torch" not in imported and "comet" not in imported, verb


def test_a_background_jobs_workers_idle_threads_sleep_unless_the_user_says_otherwise(monkeypatch):
    """OpenMP's idle threads spin by default; two workers sharing two cores then took 46 s where they take 16 s with
    sleeping threads (docs/decisions.md, "Idle threads sleep in a job"). A background job sets it for its workers, the
    command line does not (alone, spinning is faster), and a user's own OMP_WAIT_POLICY is kept."""
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    assert "OMP_WAIT_POLICY" not in neural_env.worker_env()
    neural_env.sleep_idle_threads()
    assert neural_env.worker_env()["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    neural_env.sleep_idle_threads()
    assert neural_env.worker_env()["OMP_WAIT_POLICY"] == "ACTIVE"
    monkeypatch.delenv("OMP_WAIT_POLICY")
    monkeypatch.setattr(jobs, "lower_priority", lambda: None)  # not this test process's priority
    assert jobs.main(["no-such-set", "comet:none"]) != 0  # a background job's process, which fails at once
    assert neural_env.worker_env()["OMP_WAIT_POLICY"] == "PASSIVE"


def test_a_unified_model_trained_with_word_tags_is_kind_xcomet(neural_python, tiny_models, tmp_path):
    """The kind follows what the model outputs: a unified_metric with word_level_training gives error spans
    (xCOMET's recipe), so its spans are kept like an xcomet_metric's."""
    import shutil

    folder = tmp_path / "unified-word"
    shutil.copytree(tiny_models["tiny-kiwi"], folder)
    text = (folder / "hparams.yaml").read_text(encoding="utf-8")
    assert "class_identifier: unified_metric\n" in text and "\nword_level_training: false\n" in text
    info = neural.describe(folder / "checkpoints" / "model.ckpt")
    assert info["kind"] == "cometkiwi" and info["comet"] == comet_version(neural_python)
    text = text.replace("\nword_level_training: false\n", "\nword_level_training: true\n")
    (folder / "hparams.yaml").write_text(text, encoding="utf-8")
    info = neural.describe(folder / "checkpoints" / "model.ckpt")
    assert info["kind"] == "xcomet" and info["inputs"] == ["mt", "src"]


# --------------------------------------------------------------------------- what goes wrong, in one sentence
def test_missing_or_broken_checkpoints_and_inputs_are_one_sentence(neural_python, tiny_models, tmp_path):
    store = Store(tmp_path)
    with pytest.raises(InputError, match="is not a readable COMET checkpoint"):
        neural.add_model(store, "x", tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")  # issue 38: a RuntimeError before
    with pytest.raises(InputError, match="is not a readable COMET checkpoint"):
        neural.add_model(store, "x", tmp_path / "loop")
    broken = tmp_path / "broken"
    (broken / "checkpoints").mkdir(parents=True)
    (broken / "checkpoints" / "model.ckpt").write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="hparams.yaml"):
        neural.add_model(store, "x", broken)
    (broken / "hparams.yaml").write_text("class_identifier: something_else\n", encoding="utf-8")
    with pytest.raises(InputError, match="names no COMET model"):
        neural.add_model(store, "x", broken)
    (broken / "hparams.yaml").write_text(
        (tiny_models["tiny-comet"] / "hparams.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    model = neural.add_model(store, "broken", broken)  # registering reads hparams only
    corpus = Corpus.build({"r": ["a"]}, {"A": ["b"]}, ["c"])
    with pytest.raises(
        InputError, match="COMET could not load .*: it (is not a torch checkpoint|holds Python objects)"
    ):
        neural_compute.compute(store, model, corpus)
    with pytest.raises(InputError, match="needs the source text"):
        neural_compute.compute(store, neural.get_model(store, "broken"), Corpus.build({"r": ["a"]}, {"A": ["b"]}))
    with pytest.raises(InputError, match="no model is registered as 'nope'; registered: comet:broken"):
        neural.get_model(store, "comet:nope")
    with pytest.raises(InputError, match="is not a model name"):
        neural.add_model(store, "Bad Name!", tiny_models["tiny-comet"])


def test_a_killed_worker_is_one_sentence_and_keeps_what_was_saved(
    neural_python, tiny_models, files, tmp_path, monkeypatch
):
    store = Store(tmp_path)
    model = neural.add_model(store, "tiny", tiny_models["tiny-comet"])
    src = (files / "src.txt").read_text(encoding="utf-8").split("\n")[:N]
    corpus = Corpus.build(
        {"ref": (files / "ref.txt").read_text(encoding="utf-8").split("\n")[:N]},
        {"A": (files / "UEdin.txt").read_text(encoding="utf-8").split("\n")[:N]},
        src,
    )
    monkeypatch.setenv("MTLENS_NEURAL_CHUNK", "16")  # one batch per call
    procs = []

    def kill_after_first(done, total):
        if done > 0:
            os.kill(procs[0].pid, signal.SIGKILL)

    with pytest.raises(InputError, match=r"killed \(signal 9\).*the 16 segment\(s\) scored so far are saved"):
        neural_compute.compute(store, model, corpus, progress=kill_after_first, on_start=procs.append)
    assert neural_segments.work_size(neural_segments.missing(store, model, corpus)) == N - 16
    assert neural_compute.compute(store, model, corpus)
    assert neural_segments.missing(store, model, corpus) == []


def test_without_the_extra_every_offer_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLENS_NEURAL_PYTHON", str(tmp_path / "no-python"))
    assert not neural_env.available()
    with pytest.raises(neural_env.NeuralUnavailable, match=r"scripts/install-neural\.sh"):
        neural_env.python()
    proc = subprocess.run(
        [sys.executable, "-m", "mtlens", "models", "add", "x", str(tmp_path), "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "MTLENS_NEURAL_PYTHON": str(tmp_path / "no-python")},
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "install-neural.sh" in proc.stderr


# --------------------------------------------------------------------------- jobs
def _saved_set(store: Store, files: Path, systems=SYSTEMS, n: int = N) -> str:
    src = (files / "src.txt").read_text(encoding="utf-8").split("\n")[:n]
    corpus = Corpus.build(
        {"ref": (files / "ref.txt").read_text(encoding="utf-8").split("\n")[:n]},
        {s: (files / f"{s}.txt").read_text(encoding="utf-8").split("\n")[:n] for s in systems},
        src,
    )
    return store.save(corpus, "neural test")


def _wait(store, set_id, digest, until, timeout=240.0, every=0.2):
    end = time.time() + timeout
    while time.time() < end:
        job = store.job(set_id, digest)
        if job and until(job):
            return job
        time.sleep(every)
    raise AssertionError(f"job did not get there: {store.job(set_id, digest)}")


def test_a_background_job_is_shared_resumes_after_a_kill_and_can_be_cancelled(
    neural_python, tiny_models, files, tmp_path, monkeypatch
):
    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLENS_NEURAL_CHUNK", "16")
    store = Store(tmp_path)
    model = neural.add_model(store, "tiny", tiny_models["tiny-comet"])
    set_id = _saved_set(store, files)
    total = neural_segments.work_size(
        neural_segments.missing(store, model, store.load(set_id).corpus)
    )  # distinct inputs
    assert N < total <= 2 * N
    first = jobs.start(store, set_id, "tiny")
    second = jobs.start(store, set_id, "comet:tiny")  # a second visitor: the same job, not a new process
    assert first.digest == second.digest == model.digest
    pid = store.job(set_id, model.digest)["pid"]
    # killed mid-way: some segments saved, not all (a job that has saved everything and is only closing its
    # worker is still "running"; killing it then tests no resume); polled often, so the window is not missed
    job = _wait(store, set_id, model.digest, lambda j: j["state"] == "running" and 16 <= j["done"] < 2 * N, every=0.01)
    assert store.job(set_id, model.digest)["pid"] == pid
    os.killpg(job["pid"], signal.SIGKILL)  # the server's machine loses the job (its whole process group)
    saved = total - neural_segments.work_size(neural_segments.missing(store, model, store.load(set_id).corpus))
    assert saved >= 16
    # as the killed process left it: "running", its last heartbeat a minute old (taken for dead)
    with sqlite3.connect(store.path) as con:
        con.execute("UPDATE jobs SET state = 'running', updated = updated - 60 WHERE set_id = ?", (set_id,))
    assert jobs.status(store, set_id)[0].state == "failed"  # what a page shows: it stopped
    again = jobs.start(store, set_id, "tiny")
    assert again.state in ("queued", "running")
    done = _wait(store, set_id, model.digest, lambda j: j["state"] == "done")
    # progress counts the set's segments (2N); what was saved before the kill covers at least as many
    assert done["resumed_at"] >= saved and done["done"] == done["total"] == 2 * N
    p = jobs.progress(done)
    assert p.state == "done" and p.rate and p.rate > 0
    assert neural_segments.cached_scores(store, model, store.load(set_id).corpus) is not None

    other = _saved_set(store, files, systems=("Online-W",))
    jobs.start(store, other, "tiny")
    jobs.cancel(store, other, model.digest)
    end = _wait(store, other, model.digest, lambda j: j["state"] in ("cancelled", "done"))
    assert end["state"] in ("cancelled", "done")  # a tiny job may finish before it sees the cancel
    assert [p.model for p in jobs.status(store, other)] == ["tiny"]
    store.delete(other)
    assert jobs.status(store, other) == []


def test_score_on_a_saved_set_runs_a_job_and_later_commands_find_the_scores(
    neural_python, tiny_models, files, tmp_path
):
    store = Store(tmp_path)
    neural.add_model(store, "tiny", tiny_models["tiny-comet"])
    set_id = _saved_set(store, files)
    first = mtlens("score", "--set", set_id, "--metrics", "comet:tiny", "--format", "json", data_dir=tmp_path)
    assert "scoring the set's missing segments" in first.stderr
    later = mtlens("score", "--set", set_id, "--metrics", "bleu", "--format", "json", data_dir=tmp_path)
    assert later.stderr == ""
    again = json.loads(mtlens("score", "--set", set_id, "--format", "json", data_dir=tmp_path).stdout)
    assert "comet:tiny" in again["signatures"]  # a set's computed scores come with it, like imported ones
    assert store.job(set_id, neural.get_model(store, "tiny").digest)["state"] == "done"


# --------------------------------------------------------------------------- runs (issue 34)
def test_a_fourth_run_scores_only_its_own_segments_and_the_gate_reads_comet(
    neural_python, tiny_models, files, tmp_path
):
    """Three COMET-scored runs, then a fourth added with ``mtlens add``: the set's job scores the new run's
    N segments alone (the cache holds the other 3N), and the gate and the history read comet:tiny."""
    store = Store(tmp_path)
    model = neural.add_model(store, "tiny", tiny_models["tiny-comet"])
    set_id = _saved_set(store, files, systems=(*SYSTEMS, "Online-W"))
    mtlens("score", "--set", set_id, "--metrics", "comet:tiny", "--format", "json", data_dir=tmp_path)
    job = store.job(set_id, model.digest)
    assert (job["resumed_at"], job["done"], job["total"]) == (0, 3 * N, 3 * N)
    with sqlite3.connect(store.path) as con:
        cached = con.execute("SELECT COUNT(*) FROM neural").fetchone()[0]
    fourth = tmp_path / "fourth.txt"
    lines = (SAMPLE / "VolcTrans-GLAT.txt").read_text(encoding="utf-8").split("\n")[:N]
    fourth.write_text("\n".join(lines) + "\n", encoding="utf-8")
    mtlens("add", "--set", set_id, str(fourth), "--name", "run-4", "--family", "f", data_dir=tmp_path)
    gate = mtlens(
        "gate",
        "--set",
        set_id,
        "--baseline",
        "UEdin",
        "--candidate",
        "run-4",
        "--metrics",
        "comet:tiny,bleu",
        "--format",
        "json",
        data_dir=tmp_path,
        check=False,
    )
    assert gate.returncode in (0, 1), gate.stderr
    job = store.job(set_id, model.digest)
    # the cache grows by the new run's distinct inputs that no earlier run had (fast mode keys by inputs)
    text = {
        n: (files / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]
        for n in ("src", "ref", *SYSTEMS, "Online-W")
    }
    seen = {
        (text["src"][i].strip(), text[s][i].strip(), text["ref"][i].strip())
        for s in (*SYSTEMS, "Online-W")
        for i in range(N)
    }
    new = {(text["src"][i].strip(), lines[i].strip(), text["ref"][i].strip()) for i in range(N)} - seen
    assert len(new) > N // 2
    fresh = sum((text["src"][i].strip(), lines[i].strip(), text["ref"][i].strip()) not in seen for i in range(N))
    # only the new run's lines that no earlier run had are computed; the rest were cached
    assert (job["resumed_at"], job["done"], job["total"]) == (4 * N - fresh, 4 * N, 4 * N)
    with sqlite3.connect(store.path) as con:
        assert con.execute("SELECT COUNT(*) FROM neural").fetchone()[0] == cached + len(new)
    doc = json.loads(gate.stdout)
    comet = next(m for m in doc["metrics"] if m["metric"] == "comet:tiny")
    gold = comet_score(neural_python, tiny_models["tiny-comet"], files, SYSTEMS)  # the file the first test made
    # fast mode (the default): comet-score's system score to 4 decimals (docs/decisions.md)
    assert comet["baseline"] == pytest.approx(np.mean([s["COMET"] for s in gold["UEdin"]]), abs=5e-5)
    hist = mtlens("history", "--set", set_id, "--metrics", "comet:tiny", "--format", "json", data_dir=tmp_path)
    runs = json.loads(hist.stdout)["runs"]
    assert runs[-1]["name"] == "run-4" and runs[-1]["scores"]["comet:tiny"] == pytest.approx(comet["candidate"])


def test_the_gate_with_a_qe_model_needs_the_source(neural_python, tiny_models, files, tmp_path):
    mtlens("models", "add", "kiwi", str(tiny_models["tiny-kiwi"]), data_dir=tmp_path)
    proc = mtlens(
        "gate",
        "--ref",
        str(files / "ref.txt"),
        "--baseline",
        str(files / "UEdin.txt"),
        "--candidate",
        str(files / "HuaweiTSC.txt"),
        "--metrics",
        "comet:kiwi",
        data_dir=tmp_path,
        check=False,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "source" in proc.stderr, proc.stderr


# --------------------------------------------------------------------------- team scale (issue 36)
def _neural_rows(store) -> dict:
    with store._db() as con:
        return {
            (d, s): (score, spans)
            for d, s, score, spans in con.execute("SELECT digest, segment, score, spans FROM neural")
        }


def test_a_comet_job_requested_from_two_servers_on_postgresql_runs_once_with_the_local_scores(
    neural_python, tiny_models, files, pg_server, tmp_path
):
    """Two processes (two dashboard servers) ask for the same job on one PostgreSQL database at the same
    moment: one job process is started, and its scores equal the same job's on a local SQLite store."""
    from mtlens.storage import postgres

    url = pg_server.database()
    try:
        store = Store(url=url)
        model = neural.add_model(store, "tiny", tiny_models["tiny-comet"])
        set_id = _saved_set(store, files)
        start = time.time() + 4
        code = (
            "import time; from mtlens.runtime import jobs; from mtlens.storage.store import Store\n"
            "st = Store(); st.list()\n"
            f"time.sleep(max(0, {start} - time.time()))\n"
            f"jobs.start(st, '{set_id}', 'tiny')\n"
            "print(len(jobs._children))\n"
        )
        env = {**os.environ, "MTLENS_STORE": url}
        procs = [
            subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        started = [int(p.communicate(timeout=120)[0].strip()) for p in procs]
        assert sorted(started) == [0, 1]  # one server started the job, the other joined it
        done = _wait(store, set_id, model.digest, lambda j: j["state"] == "done")
        assert done["done"] == done["total"] == 2 * N
        local = Store(tmp_path / "local")
        neural.add_model(local, "tiny", tiny_models["tiny-comet"])
        local_id = _saved_set(local, files)
        assert jobs.run(local, local_id, "tiny") == "done"
        on_pg = _neural_rows(store)
        assert on_pg and on_pg == _neural_rows(local)  # the same segments, the same scores, bit for bit
    finally:
        postgres.close_idle()
        pg_server.drop(url)


def test_a_comet_job_on_a_ray_cluster_equals_the_local_path_even_when_a_worker_is_killed(
    neural_python, tiny_models, files, ray_cluster, tmp_path, monkeypatch
):
    """The fast path's blocks on a real local Ray cluster (two nodes): the same segment scores as the local
    worker, bit for bit; a worker killed mid-job has its block computed again and the job still finishes
    with the same scores. Then a model of the other kind (joint: CometKiwi) on the cluster, and an
    unreachable address as one sentence."""
    monkeypatch.setenv("MTLENS_NEURAL_CHUNK", "4")  # many blocks: the kill lands mid-job
    for name in ("tiny-comet", "tiny-kiwi"):
        local = Store(tmp_path / f"local-{name}")
        local_model = neural.add_model(local, "tiny", tiny_models[name])
        sid = _saved_set(local, files)
        # the same call as on the cluster below (a QE job would also score the references: not compared here)
        assert neural_compute.compute(local, local_model, local.load(sid).corpus)
        monkeypatch.setenv("MTLENS_RAY_ADDRESS", ray_cluster.address)
        on_ray = Store(tmp_path / f"ray-{name}")
        model = neural.add_model(on_ray, "tiny", tiny_models[name])
        corpus = on_ray.load(_saved_set(on_ray, files)).corpus
        counts: dict = {}
        killed: list[int] = []

        def kill_one(done, total, killed=killed, name=name):
            if done and not killed and name == "tiny-comet":
                pids = ray_cluster.actor_pids()
                assert len(pids) == 2  # one actor per node, each with the model loaded once
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        assert neural_compute.compute(on_ray, model, corpus, progress=kill_one, counts=counts)
        monkeypatch.delenv("MTLENS_RAY_ADDRESS")
        assert _neural_rows(on_ray) == _neural_rows(local) != {}  # the same scores, bit for bit
        if name == "tiny-comet":
            assert killed and counts.get("retried", 0) >= 1  # a block was computed again
    monkeypatch.setenv("MTLENS_RAY_ADDRESS", "127.0.0.1:1")
    with pytest.raises(InputError, match="cannot reach the Ray cluster at '127.0.0.1:1'"):
        jobs.start(on_ray, _saved_set(on_ray, files, systems=("Online-W",)), "tiny")


def test_a_ray_address_that_never_answers_stops_the_job_and_releases_it(
    neural_python, tiny_models, files, tmp_path, monkeypatch
):
    """Issue 51: a Ray address that accepts TCP and never answers held a COMET job for more than 300 s, and the
    set then said a job was already running. Here a loopback socket accepts and says nothing; the worker does not
    join within the deadline (3 s here), the job fails with one sentence naming the address (without its
    password), and the set's job can be started again."""
    import socket
    import threading

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)
    held = []
    stop = threading.Event()

    def accept():
        silent.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(silent.accept()[0])  # accepted, never answered
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    try:
        port = silent.getsockname()[1]
        monkeypatch.setenv("MTLENS_RAY_ADDRESS", f"ray://u:secret-pw@127.0.0.1:{port}")
        monkeypatch.setenv("MTLENS_RAY_JOIN_SECONDS", "3")
        store = Store(tmp_path / "ws")
        neural.add_model(store, "tiny", tiny_models["tiny-comet"])
        sid = _saved_set(store, files)
        t = time.time()
        assert jobs.run(store, sid, "tiny") == "failed"
        assert time.time() - t < 60
        digest = neural.get_model(store, "tiny").digest
        job = store.job(sid, digest)
        assert job["state"] == "failed"
        assert "did not let the job join within 3 s" in job["message"] and "secret-pw" not in job["message"]
        assert f"ray://u:***@127.0.0.1:{port}" in job["message"]
        claimed, _ = store.claim_job(sid, digest, "tiny", jobs.alive)
        assert claimed  # released: the set's job can start again
    finally:
        stop.set()
        silent.close()
        for c in held:
            c.close()


def test_a_qe_job_scores_the_references_too_as_comet_score_does(neural_python, tiny_models, files, tmp_path):
    """A reference-free model's job also scores each reference as a system (issue 50: is the reference the
    problem?): its scores of the reference equal comet-score's with the reference given as a translation."""
    from mtlens.service.evaluation import file_metrics, finished_neural
    from mtlens.service.sets import open_set

    store = Store(tmp_path)
    neural.add_model(store, "kiwi", tiny_models["tiny-kiwi"])
    set_id = _saved_set(store, files)
    out = mtlens("score", "--set", set_id, "--metrics", "chrf,comet:kiwi", "--format", "json", data_dir=tmp_path)
    assert isinstance(json.loads(out.stdout)["reference_notes"], list)
    ev = open_set(store, set_id)
    (kiwi,) = [m for m in file_metrics(store, ev, finished_neural(store, ev)) if m.name == "comet:kiwi"]
    gold = comet_score(neural_python, tiny_models["tiny-kiwi"], files, ("ref",), reference=False)
    assert_fast_close({"ref": kiwi.reference_scores["ref"]}, gold, ("ref",))
    # a reference-based model does not score the references (they are its inputs)
    neural.add_model(store, "tiny", tiny_models["tiny-comet"])
    mtlens("score", "--set", set_id, "--metrics", "comet:tiny", "--format", "json", data_dir=tmp_path)
    (tiny,) = [m for m in file_metrics(store, ev, finished_neural(store, ev)) if m.name == "comet:tiny"]
    assert tiny.reference_scores == {}


def test_several_references_are_scored_apart_and_averaged_as_comet_score_would(
    neural_python, tiny_models, tmp_path, monkeypatch
):
    """Three references (the sample's two and a third made of another system's lines): each segment's COMET is the
    mean of comet-score's scores against each reference (exactly, in comet-score's batches), the maximum with
    MTLENS_NEURAL_REFS=max, and the signature says so. A QE model ignores the references."""
    d = tmp_path / "files"
    d.mkdir()
    for name, source in (("src", "src"), ("r1", "ref"), ("r2", "ref2"), ("r3", "VolcTrans-GLAT"), ("UEdin", "UEdin"),
                         ("HuaweiTSC", "HuaweiTSC")):  # fmt: skip
        lines = (SAMPLE / f"{source}.txt").read_text(encoding="utf-8").split("\n")[:N]
        (d / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ckpt = tiny_models["tiny-comet"] / "checkpoints" / "model.ckpt"
    gold = {}
    for ref in ("r1", "r2", "r3"):
        out = d / f"gold-{ref}.json"
        cmd = [str(Path(neural_python).with_name("comet-score")), "-s", str(d / "src.txt"), "-r", str(d / f"{ref}.txt"),
               "-t", str(d / "UEdin.txt"), str(d / "HuaweiTSC.txt"), "--model", str(ckpt), "--gpus", "0", "--quiet",
               "--to_json", str(out)]  # fmt: skip
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1", "PYTHONWARNINGS": "ignore"}
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        gold[ref] = {Path(k).stem: [x["COMET"] for x in v] for k, v in json.loads(out.read_text()).items()}
    mtlens("models", "add", "tiny", str(ckpt), data_dir=tmp_path)
    args = ["score", "--src", str(d / "src.txt"), "--ref", str(d / "r1.txt"), "--ref", str(d / "r2.txt"), "--ref",
            str(d / "r3.txt"), "--sys", str(d / "UEdin.txt"), str(d / "HuaweiTSC.txt"), "--metrics",
            "comet:tiny", "--exact", "--sentence-level", "--format", "csv"]  # fmt: skip
    ours = sentence_scores(mtlens(*args, data_dir=tmp_path).stdout, "comet:tiny")
    for s in SYSTEMS:
        want = np.mean([gold[r][s] for r in ("r1", "r2", "r3")], axis=0)
        np.testing.assert_allclose(ours[s], want, atol=1e-6, rtol=0)
    sig = json.loads(mtlens(*args[:-2], "--format", "json", data_dir=tmp_path).stdout)["signatures"]["comet:tiny"]
    assert "refs:3|combine:mean" in sig
    monkeypatch.setenv("MTLENS_NEURAL_REFS", "max")
    ours = sentence_scores(mtlens(*args, data_dir=tmp_path).stdout, "comet:tiny")
    for s in SYSTEMS:
        np.testing.assert_allclose(ours[s], np.max([gold[r][s] for r in ("r1", "r2", "r3")], axis=0), atol=1e-6)


def _windows(n: int, w: int, s: int) -> list[tuple[int, int]]:
    """SLIDE's windows over a document of n sentences, written here from the definition (docs/decisions.md)."""
    if n <= w:
        return [(0, n)]
    starts = list(range(0, n - w + 1, s))
    if starts[-1] + w < n:
        starts.append(n - w)
    return [(a, a + w) for a in starts]


def test_slide_equals_comet_score_on_chunk_files_and_one_sentence_windows_are_the_sentence_scores(
    neural_python, tiny_models, files, tmp_path, monkeypatch
):
    """SLIDE (issue 49) with the tiny CometKiwi: the windows' scores are comet-score's own on chunk files this test
    writes (each window's sentences joined by a space, never across a document), a document's score their mean and
    a system's the mean of its documents'; with w = 1 a document's score is the mean of the sentence-level scores."""
    sizes = [10, 14, 11, 13]  # four documents over the 48 lines
    docs = [f"doc{k}" for k, n in enumerate(sizes) for _ in range(n)]
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\tnews\n" for d in docs), encoding="utf-8")
    read = lambda n: (files / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]  # noqa: E731
    src, hyps = read("src"), {s: read(s) for s in SYSTEMS}
    w, s = 3, 2
    chunks = tmp_path / "chunks"
    chunks.mkdir()
    owners, first = [], 0
    for k, n in enumerate(sizes):
        owners += [(k, first + a, first + b) for a, b in _windows(n, w, s)]
        first += n
    for name, lines in (("src", src), *hyps.items()):
        text = [" ".join(x.strip() for x in lines[a:b]) for _, a, b in owners]
        (chunks / f"{name}.txt").write_text("\n".join(text) + "\n", encoding="utf-8")
    gold = comet_score(neural_python, tiny_models["tiny-kiwi"], chunks, SYSTEMS, reference=False)
    mtlens("models", "add", "kiwi", str(tiny_models["tiny-kiwi"] / "checkpoints" / "model.ckpt"), data_dir=tmp_path)
    args = ["score", *data_args(files), "--docs", str(tmp_path / "docs.tsv"), "--exact", "--format", "json",
            "--sentence-level"]  # fmt: skip
    monkeypatch.setenv("MTLENS_SLIDE_WINDOW", str(w))
    monkeypatch.setenv("MTLENS_SLIDE_STRIDE", str(s))
    doc = json.loads(mtlens(*args, "--metrics", "slide:kiwi", data_dir=tmp_path).stdout)
    assert "window:3|stride:2" in doc["signatures"]["slide:kiwi"]
    for entry in doc["systems"]:
        windows = [x["COMET"] for x in gold[entry["name"]]]
        per_doc = [np.mean([v for (k, _, _), v in zip(owners, windows, strict=True) if k == d]) for d in range(4)]
        want = np.repeat(per_doc, sizes)
        np.testing.assert_allclose(entry["sentences"]["slide:kiwi"], want, atol=1e-6, rtol=0)
        assert entry["scores"]["slide:kiwi"] == pytest.approx(np.mean(per_doc), abs=1e-6)  # the mean of documents
    monkeypatch.setenv("MTLENS_SLIDE_WINDOW", "1")
    monkeypatch.setenv("MTLENS_SLIDE_STRIDE", "1")
    doc = json.loads(mtlens(*args, "--metrics", "comet:kiwi,slide:kiwi", data_dir=tmp_path).stdout)
    for entry in doc["systems"]:
        sent = np.asarray(entry["sentences"]["comet:kiwi"])
        bounds = np.cumsum([0, *sizes])
        per_doc = [sent[a:b].mean() for a, b in itertools.pairwise(bounds)]
        np.testing.assert_allclose(entry["sentences"]["slide:kiwi"], np.repeat(per_doc, sizes), atol=1e-6, rtol=0)
    without = mtlens("score", *data_args(files), "--metrics", "slide:kiwi", data_dir=tmp_path, check=False)
    assert without.returncode == 2 and "SLIDE reads whole documents" in without.stderr
