"""Importing whole test sets: plain folders, single files, and the mt-metrics-eval layout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from mtlens.analysis.human import read_human_files
from mtlens.cli import main
from mtlens.core.errors import InputError
from mtlens.readers.folders import read_path
from mtlens.storage.store import FILE_NAME, Store

from ..conftest import PAIRS, ROOT, SHARED, TESTDATA, pair_files
from ..storage.test_store import kill_while_writing


def _mme_layout(root):
    """An mt-metrics-eval layout made of the bundled en-cs excerpt (40 real lines)."""
    refs, systems = pair_files(TESTDATA / "en-cs")
    for d in ("references", "system-outputs/en-cs", "human-scores", "sources"):
        (root / d).mkdir(parents=True)
    for tag, lines in zip(("refA", "refB"), refs, strict=True):
        (root / "references" / f"en-cs.{tag}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, lines in systems.items():
        (root / "system-outputs" / "en-cs" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # mt-metrics-eval also lists references among the system outputs
    (root / "system-outputs" / "en-cs" / "refB.txt").write_text("\n".join(refs[1]) + "\n", encoding="utf-8")
    seg = []
    for name in systems:
        seg += [f"{name} {'None' if i % 4 == 0 else -0.5 * (i % 3)}" for i in range(40)]
    (root / "human-scores" / "en-cs.mqm.seg.score").write_text("\n".join(seg) + "\n", encoding="utf-8")
    (root / "human-scores" / "en-cs.wmt-z.sys.score").write_text(
        "CUNI-DocTransformer 0.25\nOnline-W -0.1\nrefB 0.5\n", encoding="utf-8"
    )
    (root / "human-scores" / "en-cs.mqm.doc.score").write_text("CUNI-DocTransformer 1\n", encoding="utf-8")
    (root / "metric-scores" / "en-cs").mkdir(parents=True)
    comet = [f"{name} {0.5 + 0.01 * (i % 9)}" for name in [*systems, "refB"] for i in range(40)]
    (root / "metric-scores" / "en-cs" / "COMET-22-refA.seg.score").write_text("\n".join(comet) + "\n", encoding="utf-8")
    return refs, systems


def test_mt_metrics_eval_layout(tmp_path):
    _, systems = _mme_layout(tmp_path / "mme")
    (found,) = read_path(tmp_path / "mme")
    c = found.corpus
    assert found.name == "en-cs" and c.language_pair == "en-cs"
    assert c.reference_names == ("refA", "refB") and c.system_names == ("CUNI-DocTransformer", "Online-W")
    assert any("doc-level human scores are not used" in n for n in found.notes)
    human = read_human_files(list(found.human), c)
    assert human.system["wmt-z"] == {"CUNI-DocTransformer": 0.25, "Online-W": -0.1}
    assert human.ignored == ("refB",)
    seg = human.segment["mqm"]["Online-W"]
    assert len(seg) == 30 and 0 not in seg and seg[1] == -0.5  # None rows left out; lines are 0-based here
    for name, hyp in systems.items():
        assert c.systems[name] == tuple(hyp)
    from mtlens.readers.scores import read_score_files

    (comet,) = read_score_files(list(found.scores), c)
    assert comet.name == "comet-22" and comet.scores["Online-W"][2] == pytest.approx(0.52)


def test_mt_metrics_eval_errors(tmp_path):
    _mme_layout(tmp_path / "mme")
    bad = tmp_path / "mme" / "human-scores" / "en-cs.mqm.seg.score"
    bad.write_text("Online-W 1 2\n", encoding="utf-8")
    with pytest.raises(InputError, match="is not 'SYSTEM SCORE'"):
        read_path(tmp_path / "mme")
    (tmp_path / "empty" / "system-outputs").mkdir(parents=True)
    with pytest.raises(InputError, match="has no language pair folder"):
        read_path(tmp_path / "empty")


def test_plain_folder_and_errors(tmp_path):
    (found,) = read_path(TESTDATA / "ja-en")
    assert found.corpus.language_pair == "ja-en" and found.corpus.source is not None
    assert [n for n, _ in found.human] == ["human.tsv", "human_seg.tsv"]
    (tmp_path / "norefs").mkdir()
    (tmp_path / "norefs" / "A.txt").write_text("a\n", encoding="utf-8")
    with pytest.raises(InputError, match="has no reference file .* and no src.txt"):
        read_path(tmp_path / "norefs")
    # a source and outputs, no reference: a reference-free (QE) set, for CometKiwi-like models
    (tmp_path / "norefs" / "src.txt").write_text("x\n", encoding="utf-8")
    (qe,) = read_path(tmp_path / "norefs")
    assert qe.corpus.references == {} and qe.corpus.source == ("x",) and qe.corpus.system_names == ("A",)
    (tmp_path / "norefs" / "B.txt").write_text("b\nc\n", encoding="utf-8")
    with pytest.raises(InputError, match="system 'B.txt' has 2 lines, the source 'src.txt' has 1"):
        read_path(tmp_path / "norefs")
    with pytest.raises(InputError, match="does not exist"):
        read_path(tmp_path / "nowhere")


@pytest.mark.shared
@pytest.mark.parametrize("pair", PAIRS)
def test_every_shared_pair_imports_with_its_human_files(tmp_path, pair):
    (found,) = read_path(SHARED / "wmt" / pair)
    assert found.corpus.language_pair == pair and len(found.corpus.systems) == 8
    human = read_human_files(list(found.human), found.corpus)  # real files pass the strict reader
    assert human.system


def test_import_project_and_score_a_set(tmp_path, capsys):
    d = str(tmp_path / "ws")
    _mme_layout(tmp_path / "mme")
    assert main(["import", str(tmp_path / "mme"), "--project", "WMT", "--name", "MME", "--data-dir", d]) == 0
    sid = capsys.readouterr().out.strip()
    assert main(["list", "--project", "WMT", "--format", "json", "--data-dir", d]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["name"] == "MME en-cs" and row["project"] == "WMT" and row["id"] == sid
    assert main(["analyze", "--set", sid, "--data-dir", d, "--char-orders", "18", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {r["human"] for r in doc["human_correlation"]} == {"wmt-z", "mqm"}  # the set's own human files
    assert main(["score", "--set", sid, "--data-dir", d, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["systems"][0]["scores"]) == {"bleu", "chrf", "comet-22"}  # the set's imported metric too
    refs, systems = pair_files(TESTDATA / "en-cs")
    assert main(["score", "--set", sid, "--data-dir", d, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for entry in doc["systems"]:
        assert entry["scores"]["bleu"] == pytest.approx(
            SacreBLEU().corpus_score(systems[entry["name"]], refs).score, abs=1e-9
        )
    assert doc["language_pair"] == "en-cs"


def test_an_import_killed_with_sigkill_leaves_no_half_written_set(tmp_path):
    """`python -m mtlens import` killed while it writes a large folder: the set saved before is intact and
    no half-written set appears."""
    d = tmp_path / "ws"
    store = Store(d)
    before = store.save(__import__("mtlens").Corpus.build({"r": ["a"]}, {"A": ["a"]}), "saved before")
    big = tmp_path / "big"
    big.mkdir()
    lines = "".join(f"segment {i} " + "word " * 40 + "\n" for i in range(20000))
    (big / "ref.txt").write_text(lines, encoding="utf-8")
    for k in range(30):
        (big / f"S{k}.txt").write_text(lines, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mtlens", "import", str(big), "--data-dir", str(d)], cwd=ROOT, env=env
    )
    kill_while_writing(proc, d / (FILE_NAME + "-wal"))
    assert [s.name for s in store.list()] == ["saved before"]
    assert store.load(before).corpus.systems["A"] == ("a",)


def test_dashboard_command_prints_the_link_and_serves_the_set(tmp_path):
    import socket
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = tmp_path / "ws"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mtlens",
            "dashboard",
            "--data-dir",
            str(d),
            "--port",
            str(port),
            "--ref",
            str(TESTDATA / "en-cs" / "ref.txt"),
            "--sys",
            str(TESTDATA / "en-cs" / "Online-W.txt"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first = proc.stdout.readline().strip()
        (info,) = Store(d).list()
        assert first == f"mtlens dashboard: open http://127.0.0.1:{port}/?set={info.id}"
        quick = f"http://127.0.0.1:{port}/quick/rankings?set={info.id}"
        assert (
            proc.stdout.readline().strip()
            == f"mtlens dashboard: the set's quick view (its Rankings as plain HTML) {quick}"
        )
        for _ in range(120):
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the dashboard did not start")
        page = urllib.request.urlopen(quick, timeout=30).read().decode()  # the same server answers it
        assert "<table id='rankings'>" in page and "<td class='t'>Online-W</td>" in page
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    code = main(["dashboard", "--data-dir", str(d), "--set", "f" * 32])
    assert code == 2


def test_mt_metrics_eval_documents_and_domains(tmp_path):
    _mme_layout(tmp_path / "mme")
    (tmp_path / "mme" / "documents").mkdir()
    docs = [f"{'news' if i < 25 else 'social'} doc{i // 10}" for i in range(40)]
    (tmp_path / "mme" / "documents" / "en-cs.docs").write_text("\n".join(docs) + "\n", encoding="utf-8")
    (found,) = read_path(tmp_path / "mme")
    assert found.corpus.documents == tuple(f"doc{i // 10}" for i in range(40))
    assert found.corpus.domains == tuple("news" if i < 25 else "social" for i in range(40))
    (tmp_path / "mme" / "documents" / "en-cs.docs").write_text("a\nb\n", encoding="utf-8")
    (found,) = read_path(tmp_path / "mme")
    assert found.corpus.documents is None and any("2 lines for 40 segments" in n for n in found.notes)
