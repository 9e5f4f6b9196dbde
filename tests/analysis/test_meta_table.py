"""Issue 61: the WMT25 measures on hand-made cases (each computed by hand in its docstring or by scipy), and the
human ceiling: a second rater measured against the first on the items both rated."""

from __future__ import annotations

import json
import math
from itertools import permutations

import numpy as np
import pytest
from scipy.stats import pearsonr

from mtlens.analysis.wmt25 import criticality_f1, pdp, span_prf
from mtlens.cli.main import main
from mtlens.readers.mqm import GOOGLE_WEIGHTS, error_weight, read_mqm_tsv
from mtlens.scores.spans import Span
from mtlens.storage.store import Store

from ..conftest import TESTDATA


def test_span_f1_gives_half_credit_for_the_right_place_with_the_wrong_severity():
    """A 10-character line. Human: major [0, 4), minor [6, 8). Metric: major [2, 4), major [6, 8), minor [8, 10),
    plus an omission and an undecided span (left out) and a span past the line's end (cut at it).
    Full credit: characters 2, 3 (major in both) = 2. Half credit: 6, 7 (minor against major) = 2 x 0.5 = 1.
    Human characters 4 + 2 = 6, metric's 2 + 2 + 2 = 6: precision = recall = F1 = 3 / 6 = 0.5."""
    gold = [[Span(0, 4, "major"), Span(6, 8, "minor")]]
    pred = [[Span(2, 4, "Major"), Span(6, 8, "critical"), Span(8, 14, "minor"), Span(None, None, "major"),
             Span(0, 10, "undecided")]]  # fmt: skip
    assert span_prf(gold, pred, [10]) == (0.5, 0.5, 0.5)
    # nothing marked by either: 1, as WMT25 defines an empty side
    assert span_prf([[]], [[]], [5]) == (1.0, 1.0, 1.0)
    # the metric marks nothing where the humans marked: precision 1 (nothing claimed), recall 0, F1 0
    assert span_prf(gold, [[]], [10]) == (1.0, 0.0, 0.0)


def test_criticality_f1_takes_the_best_cut_in_the_better_order():
    """Human: items 0 and 2 below 10 (critical). Metric lowest first: 0, 2, 4, 6, 5, 3, 1; cuts at k = 1 and 6:
    k = 1 finds 1 of 2: F1 = 2 x 1 / (1 + 2) = 2/3; k = 6 finds both: 2 x 2 / (6 + 2) = 0.5. Highest first: k = 1
    finds none, k = 6 finds one: 2 / 8. Best: 2/3."""
    metric = np.array([0.1, 0.9, 0.2, 0.8, 0.3, 0.7, 0.5])
    human = np.array([5, 90, 8, 95, 50, 60, 70])
    assert criticality_f1(metric, human) == pytest.approx(2 / 3, abs=1e-15)
    assert criticality_f1(-metric, human) == pytest.approx(2 / 3, abs=1e-15)  # the order does not matter
    assert math.isnan(criticality_f1(metric, human + 10))  # no critical item: undefined


def test_pdp_is_the_pearson_of_every_ordered_pair_of_differences():
    rng = np.random.default_rng(7)
    h = rng.integers(0, 100, size=(4, 9)).astype(float)
    m = h + rng.normal(0, 30, size=h.shape)
    h[1, 3] = h[2, 5] = np.nan  # unrated
    dh, dm = [], []
    for j in range(h.shape[1]):
        for a, b in permutations(range(4), 2):
            if not (np.isnan(h[a, j]) or np.isnan(h[b, j])):
                dh.append(h[a, j] - h[b, j])
                dm.append(m[a, j] - m[b, j])
    assert pdp(m, h)[0] == pytest.approx(pearsonr(dh, dm)[0], abs=1e-12)
    assert pdp(m, h)[1] == len(dh) // 2


def _two_raters(tmp_path):
    """The MQM excerpt with a second rater on every item: the same errors at the same places, Major and Minor
    swapped."""
    rows = (TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv").read_text(encoding="utf-8").split("\n")
    out = [rows[0]]
    swap = {"Major": "Minor", "Minor": "Major"}
    for line in rows[1:]:
        if not line.strip():
            continue
        f = line.split("\t")
        out.append(line)
        out.append("\t".join([*f[:4], "second", *f[5:8], swap.get(f[8], f[8]), *f[9:]]))
    path = tmp_path / "two_raters.tsv"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def test_a_second_rater_is_the_human_ceiling(tmp_path, capsys):
    path = _two_raters(tmp_path)
    ws = tmp_path / "ws"
    assert main(["import", "--ratings", str(path), "--data-dir", str(ws)]) == 0
    set_id = Store(ws).list()[0].id
    capsys.readouterr()
    assert main(["analyze", "--set", set_id, "--format", "json", "--data-dir", str(ws)]) == 0
    rows = json.loads(capsys.readouterr().out)["meta_evaluation"]
    ceiling = next(r for r in rows if r["role"] == "human ceiling")
    assert ceiling["metric"] == "human:MQM (second of 2 raters)" and ceiling["human"] == "MQM"
    # every error at the same place in the other severity: half credit on every character (Neutral and no-error
    # rows count for neither)
    assert (ceiling["span_precision"], ceiling["span_recall"], ceiling["span_f1"]) == (0.5, 0.5, 0.5)
    # PDP against scipy on each rater's own MQM score of each item
    ann = read_mqm_tsv(path.read_bytes(), path.name)
    score = {}
    for (system, seg_id), seg in ann.segments.items():
        for rater in seg.raters:  # the item's own rater, then "second"
            score[(rater == "second", system, seg_id)] = -sum(
                error_weight(e, GOOGLE_WEIGHTS) for e in seg.errors if e.by == rater
            )
    dh, dm = [], []
    for seg_id in ann.seg_ids:
        for a, b in permutations(ann.systems, 2):
            if (False, a, seg_id) in score and (False, b, seg_id) in score:
                dh.append(score[(False, a, seg_id)] - score[(False, b, seg_id)])
                dm.append(score[(True, a, seg_id)] - score[(True, b, seg_id)])
    assert ceiling["pdp"] == pytest.approx(pearsonr(dh, dm)[0], abs=1e-12)
    assert ceiling["items"] == sum(1 for k in score if not k[0])
    # beside it, the sentinel's row; the MQM score itself is never a row
    assert any(r["role"] == "sentinel" for r in rows) and not any(r["metric"].startswith("mqm") for r in rows)
