"""One rule for names on every path (issue 51): a file's stem, a run's name, family and metadata, a set's and
a project's name, a bundle's. Names that would act instead of show (ESC, BEL, backspace, the RLO override) are
refused with one sentence that shows them escaped; a name that is merely odd (backticks, markup) is shown as
itself and cannot break a report: JUnit XML parses, a Markdown code span cannot be closed by the name."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest

from mtlens.cli import main
from mtlens.core.names import clean_name
from mtlens.storage.store import Store

from ..conftest import SAMPLE

HOSTILE = ["clear\x1b[2J", "bell\x07", "back\x08space", "rlo\u202etxt.exe", "nul\x00", "zero\u200bwidth"]


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _gate(tmp_path, capsys, baseline, candidate, fmt):
    return _run(
        capsys,
        "gate",
        "--ref",
        str(SAMPLE / "ref.txt"),
        "--baseline",
        str(baseline),
        "--candidate",
        str(candidate),
        "--metrics",
        "chrf",
        "--format",
        fmt,
        "--data-dir",
        str(tmp_path / "ws"),
    )


ON_DISK = [n for n in HOSTILE if "\x00" not in n]  # no file system takes a NUL in a name (the rule: below)


@pytest.mark.parametrize("name", ON_DISK, ids=range(len(ON_DISK)))
def test_a_stem_that_would_act_is_refused_in_one_escaped_sentence(tmp_path, capsys, name):
    hostile = tmp_path / f"{name}.txt"
    shutil.copy(SAMPLE / "UEdin.txt", hostile)
    code, out, err = _gate(tmp_path, capsys, SAMPLE / "Online-W.txt", hostile, "junit")
    assert code == 2 and err.count("\n") == 1
    assert "holds a control or format character" in err
    assert all(ch not in err + out for ch in "\x1b\x07\x08\u202e\u200b")
    # the CI report says why the gate could not run, and parses
    error = ET.fromstring(out.split("\n", 1)[1]).find("testsuite/testcase/error")
    assert "holds a control or format character" in error.get("message")


@pytest.mark.parametrize("name", HOSTILE, ids=range(len(HOSTILE)))
def test_the_rule_refuses_every_one_and_shows_it_escaped(name):
    with pytest.raises(Exception) as caught:
        clean_name(name, "run")
    assert "holds a control or format character" in str(caught.value)
    assert all(ch not in str(caught.value) for ch in "\x1b\x07\x08\u202e\u200b\x00")


def test_odd_but_printable_names_cannot_break_junit_or_markdown(tmp_path, capsys):
    odd = tmp_path / 'x`**bold**`[click](javascript:alert(1)) <a href="y">&amp;.txt'
    shutil.copy(SAMPLE / "UEdin.txt", odd)
    code, out, _ = _gate(tmp_path, capsys, SAMPLE / "Online-W.txt", odd, "junit")
    assert code in (0, 1)
    suite = ET.fromstring(out.split("\n", 1)[1]).find("testsuite")  # parses; the name is the stem, as given
    assert odd.stem in suite.get("name")
    code, out, _ = _gate(tmp_path, capsys, SAMPLE / "Online-W.txt", odd, "markdown")
    line = next(x for x in out.splitlines() if x.startswith("Candidate "))
    # one code span, fenced by more backticks than any run inside the name: the name cannot close it
    assert line.startswith(f"Candidate ``{odd.stem}`` vs baseline `Online-W`")


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--name", "run\x1b[2J"), ("--family", "fam\u202eily"), ("--meta", "commit=ab\x07cd"), ("--meta", "k\x08=v")],
)
def test_runs_refuse_what_a_bundle_refuses(tmp_path, capsys, flag, value):
    from mtlens.core.corpus import Corpus

    store = Store(tmp_path / "ws")
    refs = {"ref": (SAMPLE / "ref.txt").read_text(encoding="utf-8").splitlines()}
    set_id = store.save(
        Corpus.build(refs, {"UEdin": (SAMPLE / "UEdin.txt").read_text(encoding="utf-8").splitlines()}), "s"
    )
    code, out, err = _run(
        capsys, "add", "--set", set_id, str(SAMPLE / "Online-W.txt"), flag, value, "--data-dir", str(tmp_path / "ws")
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and "control or format character" in err
    assert all(ch not in err for ch in "\x1b\x07\x08\u202e")
    assert [r.name for r in store.runs(set_id)] == ["UEdin"]  # nothing saved


def test_names_are_folded_the_same_way_everywhere(tmp_path, capsys):
    from mtlens.core.corpus import Corpus

    store = Store(tmp_path / "ws")
    refs = {"ref": (SAMPLE / "ref.txt").read_text(encoding="utf-8").splitlines()}
    set_id = store.save(
        Corpus.build(refs, {"UEdin": (SAMPLE / "UEdin.txt").read_text(encoding="utf-8").splitlines()}), "s"
    )
    code, _, err = _run(
        capsys,
        "add",
        "--set",
        set_id,
        str(SAMPLE / "Online-W.txt"),
        "--name",
        "  a \t run ",
        "--family",
        " my\tfamily ",
        "--meta",
        "note=two\nlines",
        "--data-dir",
        str(tmp_path / "ws"),
    )
    assert code == 0, err
    run = next(r for r in store.runs(set_id) if r.name != "UEdin")
    assert (run.name, run.family, run.meta) == ("a run", "my family", {"note": "two lines"})
