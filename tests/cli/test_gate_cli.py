"""`python -m mtlens gate | add | history` (issue 34): the command-line contract, exit statuses, formats.

The real-data cases run whole processes, as a CI job does; their BLEU and chrF are compared with sacrebleu
2.6.0 computed here on the same two files.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF

from mtlens.storage.store import Store

from ..conftest import ROOT, SAMPLE, SHARED, read

GATE_KEYS = {"metric", "baseline", "candidate", "delta", "p", "p_holm", "human_agreement", "min_detectable_delta"}


def mtlens(*args, data_dir: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mtlens", *args, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )


def inproc(capsys, *argv, data_dir: Path) -> subprocess.CompletedProcess:
    """The same command in this process (``mtlens.cli.main``): the many bad-input cases need no new
    interpreter each; the verdicts and the recipe run whole processes."""
    from mtlens.cli import main

    code = main([*argv, "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, out, err)


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _swap_a_fifth(lines: list[str]) -> list[str]:
    """Every fifth line replaced by the translation of another segment (seven lines further on)."""
    return [lines[(i + 7) % len(lines)] if i % 5 == 0 else x for i, x in enumerate(lines)]


def _three_changed(lines: list[str]) -> list[str]:
    out = list(lines)
    for i in (3, 100, 500):
        out[i] = out[i] + " ,"
    return out


@pytest.mark.shared
@pytest.mark.parametrize(
    ("case", "verdict", "status"),
    [("equal", "pass", 0), ("a fifth swapped", "regression", 1), ("three lines", "pass", 0)],
)
def test_real_en_de_verdicts_and_sacrebleu_scores(tmp_path, case, verdict, status):
    folder = SHARED / "wmt" / "en-de"
    base_lines = read(folder / "UEdin.txt")
    cand_lines = {"equal": list(base_lines), "a fifth swapped": _swap_a_fifth(base_lines)}.get(case)
    if cand_lines is None:
        cand_lines = _three_changed(base_lines)
    cand = _write(tmp_path / "candidate.txt", cand_lines)
    proc = mtlens(
        "gate",
        "--ref",
        str(folder / "ref.txt"),
        "-l",
        "en-de",
        "--baseline",
        str(folder / "UEdin.txt"),
        "--candidate",
        str(cand),
        "--metrics",
        "bleu,chrf",
        "--format",
        "json",
        data_dir=tmp_path / "ws",
    )
    assert proc.returncode == status, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["verdict"] == verdict
    refs = [read(folder / "ref.txt")]
    for m in doc["metrics"]:
        assert GATE_KEYS | {"regression"} <= set(m)
        sb = SacreBLEU(references=refs) if m["metric"] == "bleu" else SacreCHRF(references=refs)
        assert m["baseline"] == pytest.approx(sb.corpus_score(base_lines, None).score, abs=1e-9)
        assert m["candidate"] == pytest.approx(sb.corpus_score(cand_lines, None).score, abs=1e-9)
        assert m["delta"] == pytest.approx(m["candidate"] - m["baseline"], abs=1e-12)
        assert m["regression"] == (verdict == "regression")
    if verdict == "regression":
        assert all(m["delta"] < 0 and m["p_holm"] < 0.05 for m in doc["metrics"])


def _sample_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    ref = SAMPLE / "ref.txt"
    base = SAMPLE / "UEdin.txt"
    bad = _write(tmp_path / "worse.txt", _swap_a_fifth(read(base)))
    return ref, base, bad


def test_every_format_of_a_regression_on_the_sample(tmp_path):
    ref, base, bad = _sample_files(tmp_path)
    common = ["gate", "--ref", str(ref), "--baseline", str(base), "--candidate", str(bad), "--metrics", "bleu,chrf,ter"]
    js = mtlens(*common, "--format", "json", data_dir=tmp_path)
    assert js.returncode == 1, js.stderr
    doc = json.loads(js.stdout)
    assert doc["verdict"] == "regression" and [m["metric"] for m in doc["metrics"]] == ["bleu", "chrf", "ter"]
    ter = doc["metrics"][2]
    assert ter["delta"] > 0 and ter["regression"] and ter["human_agreement"] is None  # TER: higher is worse
    junit = mtlens(*common, "--format", "junit", "-o", str(tmp_path / "gate.xml"), data_dir=tmp_path)
    assert junit.returncode == 1
    root = ET.fromstring((tmp_path / "gate.xml").read_text(encoding="utf-8"))
    suite = root.find("testsuite")
    assert suite.get("tests") == "3" and suite.get("failures") == "3"
    assert [c.get("name") for c in suite.iter("testcase")] == ["bleu", "chrf", "ter"]
    assert all(c.find("failure") is not None for c in suite.iter("testcase"))
    md = mtlens(*common, "--format", "markdown", data_dir=tmp_path)
    rows = [x for x in md.stdout.splitlines() if x.startswith("| ")]
    assert md.returncode == 1 and len(rows) == 4 and "**regression**" in md.stdout
    assert all(r.count("|") == 11 for r in rows)  # ten columns: the metric, its family, eight numbers and words
    text = mtlens(*common, data_dir=tmp_path)
    assert text.returncode == 1 and text.stdout.startswith("REGRESSION: worse (candidate) vs UEdin (baseline)")
    assert "Rule: a metric regresses when" in text.stdout


def test_a_pass_exits_0_and_names_with_the_same_stem_are_told_apart(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    base = _write(tmp_path / "a" / "out.txt", read(SAMPLE / "UEdin.txt"))
    cand = _write(tmp_path / "b" / "out.txt", read(SAMPLE / "UEdin.txt"))
    proc = mtlens(
        "gate",
        "--ref",
        str(SAMPLE / "ref.txt"),
        "--baseline",
        str(base),
        "--candidate",
        str(cand),
        "--format",
        "json",
        data_dir=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["verdict"] == "pass" and (doc["baseline_name"], doc["candidate_name"]) == ("baseline", "candidate")
    assert all(m["p"] == 1.0 for m in doc["metrics"])


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--candidate", "SHORT"], "has 3 lines"),
        (["--metrics", "bleu,nope"], "unknown metric 'nope'"),
        (["--metrics", "comet:nothere"], "no model is registered as 'nothere'"),
        (["--alpha", "2"], "--alpha must be between 0 and 1"),
        (["--min-agreement", "1.5"], "--min-agreement is a share of judges"),
        (["--candidate", "MISSING"], "MISSING"),
    ],
)
def test_bad_input_is_one_sentence_exit_2(tmp_path, capsys, extra, said):
    short = _write(tmp_path / "short.txt", ["a", "b", "c"])
    args = ["gate", "--ref", str(SAMPLE / "ref.txt"), "--baseline", str(SAMPLE / "UEdin.txt")]
    args += ["--candidate", str(SAMPLE / "Online-W.txt")]
    extra = [str(short) if x == "SHORT" else str(tmp_path / "MISSING.txt") if x == "MISSING" else x for x in extra]
    proc = inproc(capsys, *args, *extra, data_dir=tmp_path / "ws")
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert said in proc.stderr and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert Store(tmp_path / "ws").list() == []  # nothing saved


def _saved(tmp_path: Path) -> str:
    proc = mtlens("import", str(SAMPLE), "--name", "sample copy", data_dir=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()[0]


def test_add_then_history_and_gate_on_a_set(tmp_path):
    set_id = _saved(tmp_path)
    good = SAMPLE / "Online-W.txt"
    bad = _write(tmp_path / "bad.txt", _swap_a_fifth(read(good)))
    # added out of time order: the history is in the order the outputs were made
    a = mtlens(
        "add",
        "--set",
        set_id,
        str(bad),
        "--name",
        "ckpt-2",
        "--family",
        "mine",
        "--at",
        "2026-11-21T09:00:00Z",
        "--meta",
        "step=2000",
        data_dir=tmp_path,
    )
    assert a.returncode == 0, a.stderr
    a = mtlens(
        "add",
        "--set",
        set_id,
        str(good),
        "--name",
        "ckpt-1",
        "--family",
        "mine",
        "--at",
        "2026-11-20",
        "--meta",
        "step=1000",
        "--meta",
        "commit=1a2b",
        "--format",
        "json",
        data_dir=tmp_path,
    )
    assert a.returncode == 0 and json.loads(a.stdout) == {
        "name": "ckpt-1",
        "family": "mine",
        "at": "2026-11-20T00:00:00+00:00",
        "meta": {"step": "1000", "commit": "1a2b"},
    }
    h = mtlens("history", "--set", set_id, "--family", "mine", "--format", "json", data_dir=tmp_path)
    assert h.returncode == 0, h.stderr
    runs = json.loads(h.stdout)["runs"]
    assert [(r["name"], r["family"], r["at"]) for r in runs] == [
        ("ckpt-1", "mine", "2026-11-20T00:00:00+00:00"),
        ("ckpt-2", "mine", "2026-11-21T09:00:00+00:00"),
    ]
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")]
    assert runs[0]["scores"]["bleu"] == pytest.approx(
        SacreBLEU(references=refs).corpus_score(read(good), None).score, abs=1e-9
    )
    step = runs[1]["step"]["bleu"]
    assert step["previous"] == "ckpt-1" and step["delta"] < 0 and step["significant"]
    assert runs[0]["step"] == {}
    table = mtlens("history", "--set", set_id, data_dir=tmp_path)
    assert table.returncode == 0 and "ckpt-2" in table.stdout and "*" in table.stdout
    g = mtlens("gate", "--set", set_id, "--baseline", "ckpt-1", "--candidate", "ckpt-2", data_dir=tmp_path)
    assert g.returncode == 1 and g.stdout.startswith("REGRESSION")
    g = mtlens(
        "gate", "--set", set_id, "--baseline", "ckpt-1", "--candidate", "UEdin", "--format", "json", data_dir=tmp_path
    )
    assert g.returncode in (0, 1) and json.loads(g.stdout)["verdict"] in ("pass", "regression")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["add", "--set", "SET", "SHORT"], "has 3 lines; the set's references have 200"),
        (["add", "--set", "SET", "GOOD", "--name", "UEdin"], "already has a system named 'UEdin'"),
        (["add", "--set", "SET", "GOOD", "--at", "yesterday"], "is not an ISO-8601 time"),
        (["add", "--set", "SET", "GOOD", "--meta", "novalue"], "--meta takes KEY=VALUE"),
        (["add", "--set", "sample", "GOOD"], "the bundled sample is read-only"),
        (["add", "--set", "0" * 32, "GOOD"], "no saved set has the id"),
        (["history", "--set", "SET", "--family", "nobody"], "has no runs of family 'nobody'"),
        (["gate", "--set", "SET", "--baseline", "nope", "--candidate", "UEdin"], "the baseline 'nope' is not a system"),
    ],
)
def test_bad_runs_input_is_one_sentence_exit_2_and_saves_nothing(tmp_path, capsys, argv, said):
    from mtlens.readers.testset import load_corpus
    from mtlens.service.evaluation import evaluate, save

    files = [SAMPLE / f"{n}.txt" for n in ("HuaweiTSC", "Online-W", "UEdin", "VolcTrans-GLAT")]
    ev = evaluate(load_corpus([SAMPLE / "ref.txt", SAMPLE / "ref2.txt"], files))
    set_id = save(Store(tmp_path), ev, "sample copy").set_id
    short = _write(tmp_path / "short.txt", ["a", "b", "c"])
    subs = {"SET": set_id, "SHORT": str(short), "GOOD": str(SAMPLE / "Online-W.txt")}
    proc = inproc(capsys, *[subs.get(x, x) for x in argv], data_dir=tmp_path)
    assert proc.returncode == 2 and said in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert [r.name for r in Store(tmp_path).runs(set_id)] == ["HuaweiTSC", "Online-W", "UEdin", "VolcTrans-GLAT"]


def test_the_gate_resamples_documents_and_one_segment_per_document_changes_nothing(tmp_path, capsys):
    ref, base, bad = _sample_files(tmp_path)
    common = ["gate", "--ref", str(ref), "--baseline", str(base), "--candidate", str(bad), "--format", "json"]
    per_line = tmp_path / "lines.tsv"
    per_line.write_text("".join(f"s{i}\n" for i in range(200)), encoding="utf-8")
    fives = tmp_path / "fives.tsv"
    fives.write_text("".join(f"d{i // 5}\n" for i in range(200)), encoding="utf-8")
    seg = json.loads(inproc(capsys, *common, data_dir=tmp_path).stdout)
    one = json.loads(
        inproc(capsys, *common, "--docs", str(per_line), "--resample", "documents", data_dir=tmp_path).stdout
    )
    assert [(m["p"], m["min_detectable_delta"]) for m in seg["metrics"]] == [
        (m["p"], m["min_detectable_delta"]) for m in one["metrics"]
    ]
    docs = inproc(capsys, *common, "--docs", str(fives), "--resample", "documents", data_dir=tmp_path)
    doc = json.loads(docs.stdout)
    assert docs.returncode == 1 and doc["resample"] == "documents" and "resample:documents" in doc["test"]
    assert all(
        d["min_detectable_delta"] != s["min_detectable_delta"]
        for d, s in zip(doc["metrics"], seg["metrics"], strict=True)
    )
    none = inproc(capsys, *common, "--resample", "documents", data_dir=tmp_path)
    assert none.returncode == 2 and "--resample documents needs documents" in none.stderr
