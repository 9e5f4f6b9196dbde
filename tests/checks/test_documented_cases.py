"""Every case of docs/checks.md, both sides of each rule, through the command line: each check's table becomes a
set (its sources, the outputs as system A) scored with that check, and each line's verdict in the
``--sentence-level`` JSON (1 fails, 0 passes) and the system's percent in the text table must be the documented
ones. The verdicts are the documentation's, decided by hand from the rules written there."""

from __future__ import annotations

import json
import re

import pytest

from ..conftest import ROOT

DOC = ROOT / "docs" / "checks.md"
_ROW = re.compile(r"^\| `(.*)` \| `(.*)` \| (pass|fail) \|$")


def documented() -> dict[str, list[tuple[str, str, bool]]]:
    """check name -> its table's (source, output, fails) rows, read from the page."""
    cases: dict[str, list[tuple[str, str, bool]]] = {}
    check = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("### check:"):
            check = line.split(":", 1)[1].strip()
        elif line.startswith("## "):
            check = None
        elif check and (m := _ROW.match(line)):
            cases.setdefault(check, []).append((m.group(1), m.group(2), m.group(3) == "fail"))
    return cases


CASES = documented()


def test_every_check_has_documented_cases_on_both_sides():
    from mtlens.checks import CHECKS

    assert set(CASES) == set(CHECKS)
    for name, rows in CASES.items():
        assert {fails for _, _, fails in rows} == {True, False}, name


@pytest.mark.parametrize("check", sorted(CASES))
def test_documented_verdicts_through_the_command_line(tmp_path, capsys, check):
    from mtlens.cli import main

    rows = CASES[check]
    (tmp_path / "src.txt").write_text("\n".join(s for s, _, _ in rows) + "\n", encoding="utf-8")
    (tmp_path / "A.txt").write_text("\n".join(o for _, o, _ in rows) + "\n", encoding="utf-8")
    base = [
        "score",
        "--src",
        str(tmp_path / "src.txt"),
        "--ref",
        str(tmp_path / "A.txt"),
        "--sys",
        str(tmp_path / "A.txt"),
    ]
    base += ["-l", "en-de", "--metrics", f"check:{check}", "--data-dir", str(tmp_path / "ws")]
    assert main([*base, "--format", "json", "--sentence-level"]) == 0
    system = json.loads(capsys.readouterr().out)["systems"][0]
    got = system["sentences"][f"check:{check}"]
    want = [1.0 if fails else 0.0 for _, _, fails in rows]
    assert got == want, [(s, o) for (s, o, _), g, w in zip(rows, got, want, strict=True) if g != w]
    spans = system.get("spans", {}).get(f"check:{check}", [[]] * len(rows))
    assert [bool(x) for x in spans] == [fails for _, _, fails in rows]  # a failure has its spans, a pass none
    assert main([*base, "--format", "table"]) == 0
    percent = 100 * sum(want) / len(want)
    row = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("A "))
    assert abs(float(row.split()[1]) - percent) < 0.01


def test_checks_runs_what_the_set_can_run_and_says_what_it_left_out(tmp_path, capsys):
    from mtlens.cli import main

    (tmp_path / "A.txt").write_text("Das ist gut.\n\n", encoding="utf-8")
    base = ["score", "--ref", str(tmp_path / "A.txt"), "--sys", str(tmp_path / "A.txt"), "--format", "json"]
    assert main([*base, "--metrics", "checks", "--data-dir", str(tmp_path / "ws")]) == 0
    out, err = capsys.readouterr()
    assert list(json.loads(out)["systems"][0]["scores"]) == ["check:empty"]
    assert "check:numbers, check:placeholders, check:markup, check:urls, check:untranslated, check:repetition, " in err
    assert "need the source: give the set's source (--src); left out of 'checks'" in err
    assert "check:language needs the target language: declare the pair (-l SRC-TGT); left out of 'checks'" in err
    assert main([*base, "--metrics", "check:numbers", "--data-dir", str(tmp_path / "ws")]) == 2
    assert "check:numbers needs the source" in capsys.readouterr().err
