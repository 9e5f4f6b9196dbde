"""One presentation rule (mtlens.exports.numbers): every human-read export shows a metric's scores with the
same decimals, and sacrebleu's own printed scores anchor the rule for the metrics it has."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mtlens.core.corpus import Corpus
from mtlens.exports import numbers, tables
from mtlens.exports.html import build_html_report
from mtlens.metrics import REGISTRY
from mtlens.runtime.scoring import score
from mtlens.service import rankings

from ..conftest import SAMPLE


@pytest.fixture(scope="module")
def scored(sample):
    refs, systems = sample
    corpus = Corpus.build({f"ref{k}": r for k, r in enumerate(refs)}, systems)
    return corpus, score(corpus, list(REGISTRY))


def test_sacrebleus_command_line_prints_bleu_chrf_and_ter_with_the_decimals_of_the_rule():
    """sacrebleu's command line (its default --width) prints each score with the rule's decimals."""
    out = subprocess.run(
        [
            str(Path(sys.executable).with_name("sacrebleu")),
            str(SAMPLE / "ref.txt"),
            "-i",
            str(SAMPLE / "UEdin.txt"),
            "-m",
            "bleu",
            "chrf",
            "ter",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    printed = {d["name"].lower(): d["score"] for d in json.loads(out)}
    assert set(printed) == {"bleu", "chrf2", "ter"}
    for name, key in [("bleu", "bleu"), ("chrf", "chrf2"), ("ter", "ter")]:
        text = json.dumps(printed[key])
        assert numbers.decimals(name) == len(text.partition(".")[2]), (name, text)


@pytest.mark.parametrize("metric", list(REGISTRY))
def test_every_export_shows_a_metrics_scores_with_the_same_decimals(scored, metric):
    corpus, results = scored
    res = {metric: results[metric]}
    d = numbers.decimals(metric, res[metric].scores.values())
    expected = {s: f"{v:.{d}f}" for s, v in res[metric].scores.items()}
    html = build_html_report(corpus, res)
    latex = tables.to_latex(res)
    text = tables.to_table(res)
    quick = rankings.to_html(
        rankings.Rankings("s", "s", corpus.n_lines, len(systems := corpus.system_names), 2, "en-de", res, metric, None),
        "/",
    )
    for system in systems:
        cell = expected[system]
        assert f"<td>{cell}</td>" in html, (metric, system, cell)
        assert re.search(rf"(?<![\d.]){re.escape(cell)}(?![\d])", latex), (metric, system, cell)
        assert re.search(rf"(?<![\d.]){re.escape(cell)}(?![\d])", text), (metric, system, cell)
        assert f">{cell}<" in quick, (metric, system, cell)


def test_the_html_report_says_lower_is_better_only_when_such_a_metric_is_in_it(scored):
    corpus, results = scored
    without = build_html_report(corpus, {m: results[m] for m in ("bleu", "chrf")})
    with_ter = build_html_report(corpus, {m: results[m] for m in ("bleu", "ter")})
    assert "lower is better" not in without.lower()
    assert "Lower is better for TER." in with_ter
    assert rankings.clusters_note(["bleu"]).endswith("p < 0.05).")
    assert rankings.clusters_note(["bleu", "ter"]).endswith("Lower is better for TER.")


def test_an_absent_number_reads_a_dash():
    assert [numbers.shown(v, 2) for v in (None, float("nan"), float("inf"), 1.005, -0.5)] == [
        "-",
        "-",
        "-",
        "1.00",
        "-0.50",
    ]


def test_a_text_column_with_gaps_is_not_a_number_column():
    """A column of names with a missing value (NaN once pandas has it) got a number format and the page
    failed with "Unknown format code 'f' for object of type 'str'"."""
    import pandas as pd

    from mtlens.exports.numbers import column_decimals

    df = pd.DataFrame({"p": [0.01234, None], "name": ["x", None], "bleu": [None, 3.0], "empty": [None, None]})
    assert column_decimals(df) == {"p": 3, "bleu": 1}
