"""The gate's cost clause on bad costs, and a verdict that names every failed clause (issue 58, G5, D8 and D14).

Before: ``--candidate-cost nan`` and a negative cost passed the clause (exit 0), a NaN, negative or zero baseline cost
gave "TOO COSTLY +inf%" (exit 1), and a candidate both unconfirmed and too costly was called "unconfirmed" alone.
On the bundled WMT21 en-de sample (UEdin against a copy with a third of its lines replaced by the reference).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mtlens.cli import main

from ..conftest import SAMPLE


def _run(capsys, *argv, ws) -> subprocess.CompletedProcess:
    code = main([*argv, "--data-dir", str(ws)])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, out, err)


@pytest.fixture
def pair(tmp_path) -> tuple[str, ...]:
    ref = (SAMPLE / "ref.txt").read_text(encoding="utf-8").splitlines()
    base = (SAMPLE / "UEdin.txt").read_text(encoding="utf-8").splitlines()
    better = [r if i % 3 == 0 else b for i, (b, r) in enumerate(zip(base, ref, strict=True))]
    cand = Path(tmp_path / "better.txt")
    cand.write_text("\n".join(better) + "\n", encoding="utf-8")
    return ("gate", "--ref", str(SAMPLE / "ref.txt"), "--baseline", str(SAMPLE / "UEdin.txt"), "--candidate",
            str(cand), "--metrics", "chrf")  # fmt: skip


@pytest.mark.parametrize(
    ("baseline", "candidate", "who"),
    [("1", "nan", "candidate"), ("1", "-1", "candidate"), ("nan", "1", "baseline"), ("-1", "1", "baseline"),
     ("inf", "1", "baseline"), ("1", "inf", "candidate")],
)  # fmt: skip
def test_a_cost_that_is_not_a_finite_amount_is_bad_input(pair, tmp_path, capsys, baseline, candidate, who):
    for clause in (("--max-cost-increase", "10"), ()):  # with the clause and without it
        got = _run(capsys, *pair, "--baseline-cost", baseline, "--candidate-cost", candidate, *clause, ws=tmp_path)
        assert got.returncode == 2 and got.stdout == ""
        assert got.stderr.strip() == (
            f"mtlens: error: the {who}'s cost is US dollars, a finite number at least 0, not {float(baseline if who == 'baseline' else candidate)}"
        )


def test_a_free_baseline_is_said_in_words_and_two_failed_clauses_are_both_named(pair, tmp_path, capsys):
    free = _run(capsys, *pair, "--baseline-cost", "0", "--candidate-cost", "1", "--max-cost-increase", "10",
                "--format", "json", ws=tmp_path)  # fmt: skip
    doc = json.loads(free.stdout)  # strict JSON: the infinite increase is null
    assert free.returncode == 1 and doc["verdict"] == "too costly" and doc["cost"]["increase_pct"] is None
    assert any(n.startswith("the baseline costs nothing and the candidate costs US$ 1.0000") for n in doc["notes"])
    assert "inf" not in free.stdout.lower()
    both_free = _run(capsys, *pair, "--baseline-cost", "0", "--candidate-cost", "0", "--max-cost-increase", "10",
                     ws=tmp_path)  # fmt: skip
    assert both_free.returncode == 0 and both_free.stdout.startswith("PASS")
    # tuned on chrF and too costly: both clauses fail, and the verdict names both
    both = _run(capsys, *pair, "--candidate-tuned-on", "chrf", "--baseline-cost", "1", "--candidate-cost", "2",
                "--max-cost-increase", "10", ws=tmp_path)  # fmt: skip
    assert both.returncode == 1 and both.stdout.startswith("UNCONFIRMED AND TOO COSTLY:"), both.stdout
    # tuned on chrF, the note names the held-out families, never "surface metrics such as chrF" (D14)
    note = next(line for line in both.stdout.splitlines() if "none of a held-out family" in line)
    assert "such as chrF" not in note and "(COMET, MetricX, other learned metrics, an LLM judge, human scores)" in note
    md = _run(capsys, *pair, "--candidate-tuned-on", "chrf", "--baseline-cost", "1", "--candidate-cost", "2",
              "--max-cost-increase", "10", "--format", "json", ws=tmp_path)  # fmt: skip
    assert json.loads(md.stdout)["failed"] == ["unconfirmed", "too costly"]
