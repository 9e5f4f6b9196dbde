"""A command's ``-o`` file is written safely (issue 51): never through a symbolic link (in the CI recipe a pull
request could commit ``mtlens-gate.xml -> ~/.ssh/authorized_keys``), never over one of its inputs, atomically."""

from __future__ import annotations

import os
import stat

import pytest

from mtlens.cli import main

from ..conftest import SAMPLE

REFS = ["--ref", str(SAMPLE / "ref.txt")]


def _gate(tmp_path, output, *extra):
    return main(
        [
            "gate",
            *REFS,
            "--baseline",
            str(SAMPLE / "UEdin.txt"),
            "--candidate",
            str(SAMPLE / "Online-W.txt"),
            "--metrics",
            "chrf",
            "--format",
            "junit",
            "-o",
            str(output),
            "--data-dir",
            str(tmp_path / "ws"),
            *extra,
        ]
    )


@pytest.mark.parametrize("dangling", [False, True], ids=["link", "dangling link"])
def test_a_link_is_refused_and_its_target_untouched(tmp_path, capsys, dangling):
    secret = tmp_path / "authorized_keys"
    if not dangling:
        secret.write_text("ssh-ed25519 AAAA the runner's key\n", encoding="utf-8")
    link = tmp_path / "mtlens-gate.xml"
    link.symlink_to(secret)
    code = _gate(tmp_path, link)
    _, err = capsys.readouterr()
    assert code == 2 and "is a symbolic link" in err and err.count("\n") == 1
    if dangling:
        assert not secret.exists()  # a dangling link's target is not created
    else:
        assert secret.read_text(encoding="utf-8") == "ssh-ed25519 AAAA the runner's key\n"
    assert link.is_symlink()


def test_an_input_is_never_overwritten(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_bytes((SAMPLE / "ref.txt").read_bytes())
    before = ref.read_bytes()
    code = main(["report", "--ref", str(ref), "--sys", str(SAMPLE / "UEdin.txt"), "-o", str(ref), "--metrics", "bleu"])
    _, err = capsys.readouterr()
    assert code == 2 and "is one of the command's inputs" in err
    assert ref.read_bytes() == before


def test_the_file_is_written_whole_with_ordinary_permissions(tmp_path, capsys):
    out = tmp_path / "gate.xml"
    out.write_text("an older report", encoding="utf-8")
    code = _gate(tmp_path, out)
    capsys.readouterr()
    assert code in (0, 1)
    assert out.read_text(encoding="utf-8").startswith("<?xml")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []  # no temporary file left


def test_a_gate_that_cannot_run_says_why_in_its_ci_reports(tmp_path, capsys):
    """Issue 51: on bad input the job summary (Markdown) was empty and no JUnit was written; both now name the
    reason (exit 2, the sentence on stderr as ever)."""
    import xml.etree.ElementTree as ET

    short = tmp_path / "short.txt"
    short.write_text("a\nb\n", encoding="utf-8")
    argv = [
        "gate",
        *REFS,
        "--baseline",
        str(SAMPLE / "UEdin.txt"),
        "--candidate",
        str(short),
        "--data-dir",
        str(tmp_path),
    ]
    assert main([*argv, "--format", "markdown"]) == 2
    out, err = capsys.readouterr()
    assert "has 2 lines" in err and err.count("\n") == 1
    assert out.startswith("### :warning: mtlens gate: **could not run**") and "has 2 lines" in out
    report = tmp_path / "gate.xml"
    assert main([*argv, "--format", "junit", "-o", str(report)]) == 2
    capsys.readouterr()
    suite = ET.fromstring(report.read_text(encoding="utf-8").split("\n", 1)[1])
    error = suite.find("testsuite/testcase/error")
    assert suite.get("errors") == "1" and "has 2 lines" in error.get("message")
    assert main([*argv, "--format", "json"]) == 2  # JSON's readers take the status and stderr: nothing printed
    assert capsys.readouterr().out == ""
