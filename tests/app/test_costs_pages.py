"""Cost and tuned-on runs on the pages (issue 50): Rankings' "tuned on" column, the note naming the scores a
system's tuning inflates, and quality against cost with the Pareto front (a hand check with sacrebleu's chrF);
History's chart and the history JSON's costs and front."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from sacrebleu.metrics import CHRF

from ..conftest import ROOT, SAMPLE


def _mtlens(*args, ws):
    return subprocess.run(
        [sys.executable, "-m", "mtlens", *args, "--data-dir", str(ws)], capture_output=True, text=True, cwd=ROOT,
        env={**os.environ}, timeout=600,
    )  # fmt: skip


def _read(name: str) -> list[str]:
    return (SAMPLE / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n").split("\n")


@pytest.fixture
def priced(tmp_path):
    """A saved set of the sample's source and reference, and three runs with their costs: 'cheap' (UEdin's
    output, US$ 1), 'better' (a third of UEdin's lines replaced by the reference, US$ 5, tuned on chrF) and
    'online' (Online-W's output, US$ 6)."""
    ws, folder = tmp_path / "ws", tmp_path / "set"
    folder.mkdir()
    ref, base = _read("ref"), _read("UEdin")
    better = [r if i % 3 == 0 else b for i, (b, r) in enumerate(zip(base, ref, strict=True))]
    for name, lines in (("ref", ref), ("src", _read("src")), ("first", base)):
        (folder / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    set_id = _mtlens("import", str(folder), "--name", "priced", "-l", "en-de", ws=ws).stdout.strip()
    outputs = {"cheap": base, "better": better, "online": _read("Online-W")}
    for name, lines, extra in (
        ("cheap", base, ["--cost", "1", "--seconds-per-segment", "0.5"]),
        ("better", better, ["--cost", "5", "--tuned-on", "chrf", "--seconds-per-segment", "2"]),
        ("online", outputs["online"], ["--cost", "6", "--seconds-per-segment", "0.4"]),
    ):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out = _mtlens("add", "--set", set_id, str(path), "--name", name, *extra, ws=ws)
        assert out.returncode == 0, out.stderr
    chrf = {n: CHRF().corpus_score(lines, [ref]).score for n, lines in outputs.items()}
    return ws, set_id, chrf


def _front(chrf: dict, cost: dict) -> list[str]:
    """The Pareto front by hand: a run is on it unless another is at least as good and as cheap, better in one."""
    return sorted(
        (n for n in cost if not any(chrf[m] >= chrf[n] and cost[m] <= cost[n] and (chrf[m] > chrf[n] or cost[m] < cost[n])
                                    for m in cost if m != n)),
        key=cost.get,
    )  # fmt: skip


def test_rankings_marks_tuned_scores_and_draws_quality_against_cost(priced, monkeypatch):
    from streamlit.testing.v1 import AppTest

    ws, set_id, chrf = priced
    monkeypatch.setenv("MTLENS_DATA_DIR", str(ws))
    at = AppTest.from_file(str(ROOT / "pages" / "1_Rankings.py"), default_timeout=180)
    at.query_params["set"] = set_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (ranking,) = [t.value for t in at.dataframe if "rank" in t.value.columns and "system" in t.value.columns]
    ranking = getattr(ranking, "data", ranking)  # the Styler's frame
    tuned = dict(zip(ranking["system"], ranking["tuned on"], strict=True))
    assert tuned["better"] == "surface" and tuned["cheap"] == "" and tuned["first"] == ""
    notes = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "better was tuned on surface: its bleu, bleu-c, chrf, chrf++" in notes
    assert "Metric families: surface: bleu, bleu-c, chrf, chrf++, ter, nist, tbleu." in notes
    at.selectbox(key="rank_cost_metric").set_value("chrf").run()
    (points,) = [t.value for t in at.dataframe if "on the front" in t.value.columns]
    points = getattr(points, "data", points)
    cost = {"cheap": 1.0, "better": 5.0, "online": 6.0}
    got = {
        r["system"]: (r["chrf"], r["cost (US$ for this test set)"], r["on the front"])
        for r in points.to_dict("records")
    }
    front = _front(chrf, cost)
    assert got == {n: (pytest.approx(chrf[n], abs=1e-9), cost[n], n in front) for n in cost}
    assert "online" not in front and front == ["cheap", "better"]  # Online-W: dearer and worse than 'better'
    at.radio(key="rank_pareto_axis").set_value("latency (s per segment)").run()
    (points,) = [t.value for t in at.dataframe if "on the front" in t.value.columns]
    points = getattr(points, "data", points)
    latency = {"cheap": 0.5, "better": 2.0, "online": 0.4}
    front = _front(chrf, latency)
    assert {r["system"]: r["on the front"] for r in points.to_dict("records")} == {n: n in front for n in latency}


def test_history_json_and_page_carry_costs_and_the_front(priced, monkeypatch):
    from streamlit.testing.v1 import AppTest

    ws, set_id, chrf = priced
    out = _mtlens("history", "--set", set_id, "--metrics", "chrf", "--format", "json", ws=ws)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    cost = {r["name"]: r["cost"]["usd"] for r in doc["runs"]}
    assert cost == {"first": None, "cheap": 1.0, "better": 5.0, "online": 6.0}
    assert doc["pareto_front"] == {"chrf": _front(chrf, {n: c for n, c in cost.items() if c is not None})}
    monkeypatch.setenv("MTLENS_DATA_DIR", str(ws))
    at = AppTest.from_file(str(ROOT / "pages" / "10_History.py"), default_timeout=180)
    at.query_params["set"] = set_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(s.value == "Quality against cost" for s in at.subheader)
    (points,) = [t.value for t in at.dataframe if "on the front" in t.value.columns]
    points = getattr(points, "data", points)
    assert sorted(points["system"]) == ["better", "cheap", "online"]
