"""Inputs that were internal errors (exit 3) are one sentence with exit 2 (issue 51): a run time outside the years
1-9999 in UTC, a name that is not UTF-8, a damaged job row in the store, a significance level no test can reach."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from mtlens.cli import main
from mtlens.core.corpus import Corpus
from mtlens.storage.store import Store

from ..conftest import ROOT, SAMPLE, read


@pytest.fixture
def saved(tmp_path):
    store = Store(tmp_path / "ws")
    set_id = store.save(Corpus.build({"ref": read(SAMPLE / "ref.txt")}, {"UEdin": read(SAMPLE / "UEdin.txt")}), "s")
    return store, set_id, ["--data-dir", str(tmp_path / "ws")]


def _one_sentence(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    assert out == "" and err.startswith("mtlens: error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("at", ["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00"])
def test_a_time_outside_the_years_is_a_sentence(saved, capsys, at):
    store, set_id, ws = saved
    err = _one_sentence(capsys, ["add", "--set", set_id, str(SAMPLE / "Online-W.txt"), "--at", at, *ws])
    assert "falls outside the years 1 to 9999 in UTC" in err
    assert [r.name for r in store.runs(set_id)] == ["UEdin"]


def test_a_name_that_is_not_utf8_is_a_sentence(saved, capsys, tmp_path):
    store, set_id, ws = saved
    bad = "bad\udcffbyte"  # what Python makes of the byte 0xff in an argument (surrogate escape)
    err = _one_sentence(capsys, ["add", "--set", set_id, str(SAMPLE / "Online-W.txt"), "--name", bad, *ws])
    assert "is not valid UTF-8 text" in err and "\udcff" not in err
    # the same byte in a file's name, through a whole process as a shell passes it
    name = tmp_path / "bad\udcffstem.txt"
    name.write_bytes((SAMPLE / "Online-W.txt").read_bytes())
    proc = subprocess.run(
        [sys.executable, "-m", "mtlens", "add", "--set", set_id, str(name), *ws],
        capture_output=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and b"is not valid UTF-8 text" in proc.stderr and proc.stderr.count(b"\n") == 1
    assert [r.name for r in store.runs(set_id)] == ["UEdin"]


def test_a_damaged_job_row_does_not_break_the_set(saved, capsys):
    store, set_id, ws = saved
    with sqlite3.connect(store.path) as con:
        con.execute(
            "INSERT INTO jobs VALUES (?, 'd', 'tiny', 'done', 'x', 1, 0, 'not a time', 'y', 'z', NULL)", (set_id,)
        )
    assert main(["score", "--set", set_id, "--metrics", "bleu", *ws]) == 0
    capsys.readouterr()
    (job,) = store.jobs(set_id)
    assert job["state"] == "failed" and "damaged" in job["message"] and job["updated"] == 0.0


@pytest.mark.parametrize("command", ["gate", "compare", "history"])
def test_a_level_no_test_can_reach_is_a_sentence_about_alpha(saved, capsys, command):
    _, set_id, ws = saved
    argv = {
        "gate": [
            "gate",
            "--ref",
            str(SAMPLE / "ref.txt"),
            "--baseline",
            str(SAMPLE / "UEdin.txt"),
            "--candidate",
            str(SAMPLE / "Online-W.txt"),
            *ws,
        ],
        "compare": [
            "compare",
            "--ref",
            str(SAMPLE / "ref.txt"),
            "--sys",
            str(SAMPLE / "UEdin.txt"),
            str(SAMPLE / "Online-W.txt"),
        ],
        "history": ["history", "--set", set_id, *ws],
    }[command]
    err = _one_sentence(capsys, [*argv, "--alpha", "1e-300"])
    assert "--alpha must be between 0 and 1, at least 1.0e-05" in err and "--n" not in err


@pytest.mark.parametrize(
    "command",
    ["score-short", "score-binary", "add-short", "add-binary", "ratings", "ratings-set", "docs", "scores"],
)
def test_every_command_names_a_file_as_it_was_typed(saved, capsys, tmp_path, command):
    """Issue 51: error messages named some files with their folder and some without (``add`` and ``--ratings``
    gave the file's name alone). Every one names the file as typed."""
    _store, set_id, ws = saved
    sub = tmp_path / "in" / "sub"
    sub.mkdir(parents=True)
    (sub / "short.txt").write_text("a\nb\n", encoding="utf-8")
    (sub / "binary.txt").write_bytes(b"a\xff\n")
    (sub / "bad.tsv").write_text("x\ty\n", encoding="utf-8")
    ref = str(SAMPLE / "ref.txt")
    argv = {
        "score-short": ["score", "--ref", ref, "--sys", str(sub / "short.txt")],
        "score-binary": ["score", "--ref", ref, "--sys", str(sub / "binary.txt")],
        "add-short": ["add", "--set", set_id, str(sub / "short.txt"), *ws],
        "add-binary": ["add", "--set", set_id, str(sub / "binary.txt"), *ws],
        "ratings": ["import", "--ratings", str(sub / "bad.tsv"), *ws],
        "ratings-set": ["import", "--ratings", str(sub / "bad.tsv"), "--set", set_id, *ws],
        "docs": ["score", "--ref", ref, "--sys", ref, "--docs", str(sub / "short.txt")],
        "scores": ["score", "--ref", ref, "--sys", ref, "--scores", str(sub / "bad.tsv")],
    }[command]
    err = _one_sentence(capsys, argv)
    typed = next(a for a in argv if str(sub) in a)
    assert f"'{typed}'" in err, err
