"""The checks in the release gate (issue 60): a candidate better on BLEU and chrF that drops placeholders on a
tenth of its lines is a regression, the same candidate with them kept passes; McNemar's exact test by hand; the
limits; one JUnit case per check; the failing lines in Markdown."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from mtlens.analysis.check_gate import mcnemar, parse_limits
from mtlens.core.errors import InputError

from ..conftest import ROOT, SAMPLE


def _files(tmp_path, drop_every: int | None):
    """The sample's source and reference with a placeholder on every line; UEdin (the baseline) keeps it, VolcTrans
    (better on BLEU and chrF) keeps it, or drops it on every ``drop_every``-th line."""
    read = lambda name: (SAMPLE / name).read_text(encoding="utf-8").splitlines()  # noqa: E731
    put = lambda name, lines: (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")  # noqa: E731
    put("src.txt", [x + " {0}" for x in read("src.txt")])
    put("ref.txt", [x + " {0}" for x in read("ref.txt")])
    put("base.txt", [x + " {0}" for x in read("UEdin.txt")])
    cand = read("VolcTrans-GLAT.txt")
    put("cand.txt", [x if drop_every and (i + 1) % drop_every == 0 else x + " {0}" for i, x in enumerate(cand)])
    return [f"--src={tmp_path / 'src.txt'}", f"--ref={tmp_path / 'ref.txt'}", f"--baseline={tmp_path / 'base.txt'}",
            f"--candidate={tmp_path / 'cand.txt'}", "-l", "en-de", "--data-dir", str(tmp_path / "ws")]  # fmt: skip


def _gate(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mtlens", "gate", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )


def test_a_candidate_dropping_placeholders_on_a_tenth_of_its_lines_does_not_pass(tmp_path):
    dropped = _gate(*_files(tmp_path, 10), "--format", "json")
    assert dropped.returncode == 1, dropped.stderr
    doc = json.loads(dropped.stdout)
    by = {m["metric"]: m for m in doc["metrics"]}
    assert by["bleu"]["delta"] > 0 and by["chrf"]["delta"] > 0  # better on both
    assert by["check:placeholders"]["candidate"] == 10.0 and by["check:placeholders"]["regression"]
    assert by["check:placeholders"]["test"] == "mcnemar-exact"
    assert [m for m, g in by.items() if g["regression"]] == ["check:placeholders"]  # the check named, nothing else
    assert any(n.startswith("check:placeholders: the candidate fails on 10.00%") for n in doc["notes"])
    assert len(by["check:placeholders"]["failing_lines"]) == 10 and by["check:placeholders"]["failing_lines"][0] == {
        "line": 10,
        "failed": "{0}",
    }
    kept = _gate(*_files(tmp_path, None), "--format", "json")
    assert kept.returncode == 0, kept.stdout
    assert json.loads(kept.stdout)["verdict"] == "pass"


def test_the_junit_report_has_a_case_per_check_and_markdown_lists_the_lines(tmp_path):
    junit = _gate(*_files(tmp_path, 10), "--format", "junit")
    cases = {c.get("name"): c for c in ET.fromstring(junit.stdout).iter("testcase")}
    from mtlens.checks import check_names

    assert set(check_names()) <= set(cases)
    assert cases["check:placeholders"].find("failure") is not None
    assert cases["check:numbers"].find("failure") is None  # the placeholder's digit is not a number of the text
    md = _gate(*_files(tmp_path, 10), "--format", "markdown").stdout
    assert "**check:placeholders**: the candidate's first failing lines" in md and "- line 10: `{0}`" in md


def test_a_limit_makes_a_regression_of_what_is_not_significant(tmp_path):
    # one line in 200 dropped: McNemar's p is 1 (b=1, c=0), but no line may fail
    args = _files(tmp_path, 200)
    assert _gate(*args).returncode == 0
    limited = _gate(*args, "--max-check-failures", "placeholders=0,numbers=5", "--format", "json")
    assert limited.returncode == 1
    doc = json.loads(limited.stdout)
    g = next(m for m in doc["metrics"] if m["metric"] == "check:placeholders")
    assert (g["limit"], g["over_limit"], g["p"]) == (0.0, True, 1.0)
    assert "check:placeholders: 0.50% of the candidate's lines fail, above the most allowed (0%)" in doc["notes"]


@pytest.mark.parametrize(
    "a,b,p",
    [
        # b = 5 lines fail only for A, c = 0: p = 2 * 0.5**5
        ([1, 1, 1, 1, 1, 0, 1], [0, 0, 0, 0, 0, 0, 1], 0.0625),
        # b = 3, c = 1: p = 2 * P(X <= 1), X ~ Bin(4, 1/2) = 2 * (1 + 4) / 16
        ([1, 1, 1, 0, 0], [0, 0, 0, 1, 0], 0.625),
        # b = c = 2: min(1, 2 * P(X <= 2), X ~ Bin(4, 1/2)) = min(1, 2 * 11/16) = 1
        ([1, 1, 0, 0], [0, 0, 1, 1], 1.0),
        ([0, 0, 1], [0, 0, 1], 1.0),  # no discordant line
    ],
)
def test_mcnemars_exact_test_by_hand(a, b, p):
    assert mcnemar(np.array(a), np.array(b))[0] == pytest.approx(p, abs=1e-15)


@pytest.mark.parametrize(
    "text,says",
    [
        ("placeholder=0", "CHECK=PERCENT"),
        ("numbers", "CHECK=PERCENT"),
        ("numbers=-1", "between 0 and 100"),
        ("numbers=x", "not 'x'"),
    ],
)
def test_a_bad_limit_is_one_sentence(tmp_path, text, says):
    with pytest.raises(InputError, match=says):
        parse_limits(text, None)
    got = _gate(*_files(tmp_path, None), "--max-check-failures", text)
    assert got.returncode == 2 and says.split()[0] in got.stderr and "Traceback" not in got.stderr


def test_the_term_success_limit(tmp_path):
    args = _files(tmp_path, None)
    (tmp_path / "g.tsv").write_text("police\tPolizei\nofficers\tBeamte\nprotesters\tDemonstranten\n", encoding="utf-8")
    doc = json.loads(_gate(*args, "--terms", str(tmp_path / "g.tsv"), "--format", "json").stdout)
    term = next(m for m in doc["metrics"] if m["metric"] == "term")
    assert 0 < term["candidate"] < 100  # VolcTrans renders 24 of the 25 counted terms so
    over = _gate(*args, "--terms", str(tmp_path / "g.tsv"), "--min-term-success", "100", "--format", "json")
    assert over.returncode == 1
    assert any(n.startswith("term: the candidate's term success rate") for n in json.loads(over.stdout)["notes"])
    under = _gate(*args, "--terms", str(tmp_path / "g.tsv"), "--min-term-success", str(term["candidate"] - 1))
    assert under.returncode == 0
    without = _gate(*args, "--min-term-success", "50")
    assert without.returncode == 2 and "glossary" in without.stderr


def test_compare_tests_a_check_with_mcnemar_and_holm_over_its_pairs(tmp_path):
    args = _files(tmp_path, 10)
    files = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in args if a.startswith("--") and "=" in a}
    (tmp_path / "kept.txt").write_text((tmp_path / "base.txt").read_text(encoding="utf-8"), encoding="utf-8")
    got = subprocess.run(
        [sys.executable, "-m", "mtlens", "compare", "--src", files["--src"], "--ref", files["--ref"], "--sys",
         files["--baseline"], files["--candidate"], str(tmp_path / "kept.txt"), "-l", "en-de", "--metrics",
         "bleu,check:placeholders", "--format", "json", "--data-dir", str(tmp_path / "ws")],
        capture_output=True, text=True, cwd=ROOT, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    doc = json.loads(got.stdout)
    assert doc["tests"]["check:placeholders"].startswith("test:mcnemar-exact|ci:bootstrap|")
    assert doc["tests"]["bleu"].startswith("test:bootstrap|")
    pairs = {(p["a"], p["b"]): p for p in doc["pairs"] if p["metric"] == "check:placeholders"}
    # the candidate fails on 20 of 200 lines where the other two pass: b + c = 20, min = 0, p = 2 * 0.5**20; the
    # baseline and its copy never differ: p = 1. Holm over the 3 pairs, step-down and monotone: 3p, max(3p, 2p), 1
    p = 2 * 0.5**20
    by = {frozenset(k): v for k, v in pairs.items()}
    assert by[frozenset(("base", "cand"))]["p_value"] == pytest.approx(p, rel=1e-12)
    assert by[frozenset(("kept", "cand"))]["p_value"] == pytest.approx(p, rel=1e-12)
    assert by[frozenset(("base", "kept"))]["p_value"] == 1.0
    assert sorted(v["p_holm"] for v in by.values()) == pytest.approx([3 * p, 3 * p, 1.0], rel=1e-12)
