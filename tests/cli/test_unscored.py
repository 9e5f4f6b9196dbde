"""A metric a system has no scores for is never tested (issue 58, D1): a human metric without ratings of two new runs
decided the gate (``esa ... 0.001 ... better`` with both scores NaN, and a candidate tuned on COMET passed on that
"held-out" metric) and was "significant" in ``compare`` for every pair.

On the real WMT24 en-ja excerpt (tests/data/esa: three rated systems) with two runs added that nobody rated:
- the gate over ``comet,esa`` (COMET-family scores imported, the candidate tuned on COMET) gives the same verdict as
  over ``comet`` alone (unconfirmed, exit 1), with ``esa`` in the table as not tested, no p-value, and one sentence;
- Holm's family is the tests made: the p (Holm) of ``comet`` is the same with or without ``esa``;
- ``compare`` tests no pair with an unrated run, and its clusters hold only the rated systems;
- the gate over ``esa`` alone is bad input (exit 2, one sentence): nothing can be tested.
"""

from __future__ import annotations

import json
import math
import subprocess
import xml.etree.ElementTree as ET

import numpy as np

from mtlens.analysis.significance import compare, holm
from mtlens.cli import main
from mtlens.core.corpus import Corpus
from mtlens.runtime.scoring import score
from mtlens.storage.store import Store

from ..conftest import ROOT

DATA = ROOT / "tests" / "data" / "esa"


def _run(capsys, *argv, ws) -> subprocess.CompletedProcess:
    code = main([*argv, "--data-dir", str(ws)])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, out, err)


def _set_with_unrated_runs(tmp_path, capsys):
    """The excerpt set with its ESA ratings, and two runs nobody rated: release-1 (IKUN-C's text) and step-42000 (half
    of its lines from ONLINE-B), tagged as tuned on COMET; COMET-family scores for every system in a TSV, the
    candidate's 0.03 above the baseline's on every line."""
    ws = tmp_path / "ws"
    assert _run(capsys, "import", str(DATA / "en-ja"), "--docs", str(DATA / "en-ja" / "en-ja.docs"), "-l", "en-ja",
                "--name", "esa", ws=ws).returncode == 0  # fmt: skip
    set_id = Store(ws).list()[0].id
    assert (
        _run(capsys, "import", "--ratings", str(DATA / "esa_en-ja.excerpt.csv"), "--set", set_id, ws=ws).returncode == 0
    )
    base = (DATA / "en-ja" / "IKUN-C.txt").read_text(encoding="utf-8").splitlines()
    other = (DATA / "en-ja" / "ONLINE-B.txt").read_text(encoding="utf-8").splitlines()
    (tmp_path / "release-1.txt").write_text("\n".join(base) + "\n", encoding="utf-8")
    mixed = [b if i % 2 else o for i, (b, o) in enumerate(zip(base, other, strict=True))]
    (tmp_path / "step-42000.txt").write_text("\n".join(mixed) + "\n", encoding="utf-8")
    assert _run(capsys, "add", str(tmp_path / "release-1.txt"), "--set", set_id, ws=ws).returncode == 0
    assert _run(capsys, "add", str(tmp_path / "step-42000.txt"), "--set", set_id, "--tuned-on", "comet",
                ws=ws).returncode == 0  # fmt: skip
    rng = np.random.default_rng(3)
    drawn = rng.normal(0.80, 0.05, len(base))
    rows = ["system\tline\tcomet"]
    for system in ("Claude-3.5", "IKUN-C", "ONLINE-B", "release-1", "step-42000"):
        lift = 0.03 if system == "step-42000" else 0.0
        rows += [f"{system}\t{i + 1}\t{float(v) + lift!r}" for i, v in enumerate(drawn)]
    scores = tmp_path / "comet.tsv"
    scores.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return ws, set_id, scores


def test_a_human_metric_without_ratings_never_decides_the_gate(tmp_path, capsys):
    ws, set_id, scores = _set_with_unrated_runs(tmp_path, capsys)
    gate = ("gate", "--set", set_id, "--baseline", "release-1", "--candidate", "step-42000", "--scores", str(scores))
    alone = _run(capsys, *gate, "--metrics", "comet", "--format", "json", ws=ws)
    both = _run(capsys, *gate, "--metrics", "comet,esa", "--format", "json", ws=ws)
    assert alone.returncode == both.returncode == 1, both.stderr
    a, b = json.loads(alone.stdout), json.loads(both.stdout)
    assert a["verdict"] == b["verdict"] == "unconfirmed"
    quality = [m for m in b["metrics"] if m["family"] != "checks"]  # the set has a source: the checks run too
    comet_a, (comet_b, esa) = a["metrics"][0], quality
    assert comet_a["p_holm"] == comet_b["p_holm"] and comet_b["improvement"] and comet_b["tested"]
    assert esa["tested"] is False and esa["p"] is None and esa["p_holm"] is None and esa["baseline"] is None
    assert not esa["improvement"] and not esa["regression"]
    assert any(n.startswith("esa has no ratings of release-1, step-42000: not tested") for n in b["notes"])
    held = next(n for n in b["notes"] if n.startswith("the candidate was tuned on comet"))
    assert "esa was not tested" in held
    text = _run(capsys, *gate, "--metrics", "comet,esa", ws=ws)
    assert text.returncode == 1 and "not tested (no ratings)" in text.stdout and "nan" not in text.stdout.lower()
    assert "corrected over the 10 metrics tested of 11" in text.stdout  # comet and the nine checks; esa untested
    junit = _run(capsys, *gate, "--metrics", "comet,esa", "--format", "junit", ws=ws)
    suite = ET.fromstring(junit.stdout).find("testsuite")
    case = next(c for c in suite.iter("testcase") if c.get("name") == "esa")
    assert case.find("skipped") is not None and suite.get("skipped") == "1"
    # nothing left to test: bad input, one sentence
    none = _run(capsys, *gate, "--metrics", "esa", ws=ws)
    assert none.returncode == 2 and "none of the gate's metrics can be tested" in none.stderr
    assert "Traceback" not in none.stderr


def test_compare_tests_no_pair_without_scores(tmp_path, capsys):
    ws, set_id, _ = _set_with_unrated_runs(tmp_path, capsys)
    got = _run(capsys, "compare", "--set", set_id, "--metrics", "esa", "--format", "json", ws=ws)
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    tested = {frozenset((p["a"], p["b"])) for p in doc["pairs"]}
    assert tested == {
        frozenset(x) for x in (("ONLINE-B", "Claude-3.5"), ("ONLINE-B", "IKUN-C"), ("Claude-3.5", "IKUN-C"))
    }
    assert all(math.isfinite(p["p_value"]) for p in doc["pairs"])
    assert sorted(x for c in doc["clusters"]["esa"] for x in c) == ["Claude-3.5", "IKUN-C", "ONLINE-B"]
    assert any("no ratings of release-1, step-42000: not tested" in n for n in doc["notes"]["esa"])
    text = _run(capsys, "compare", "--set", set_id, "--metrics", "esa", ws=ws).stdout
    assert "release-1" in text and "nan" not in text.lower() and "(no ratings: not tested)" in text


def test_holm_leaves_untested_p_values_out_of_the_family():
    # the family is the tests made: two tests, so the smaller p is doubled and the larger kept (Holm's step-down)
    got = holm([0.01, float("nan"), 0.03])
    assert got[0] == 0.02 and math.isnan(got[1]) and got[2] == 0.03
    assert math.isnan(holm([float("nan")])[0])


def test_a_system_without_scores_is_in_no_pair_and_no_cluster():
    lines = [f"a{i} b c d" for i in range(30)]
    corpus = Corpus.build({"r": lines}, {"A": lines, "B": [x.replace("b", "x") for x in lines], "C": lines})
    result = score(corpus, "bleu", tokenize="none")["bleu"]
    result.scores["C"] = float("nan")  # what a metric imported without C's scores holds
    for test in ("bootstrap", "ar"):
        cmp = compare(result, test=test, n=200)
        assert [(p.a, p.b) for p in cmp.pairs] == [("A", "B")] and cmp.ranking[-1] == "C"
        assert all("C" not in cl for cl in cmp.clusters)
        assert any(n.startswith("bleu has no scores of C") for n in cmp.notes)
        assert compare(result, test=test, n=200, baseline="C").pairs == []
