"""What a delta means to humans (Kocmi et al. 2024, "Navigating the Metrics Maze"), and the compare
command's ``human_agreement`` contract."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from mtlens.analysis.agreement import fit_for, human_agreement

from ..conftest import ROOT, SAMPLE


def test_a_bleu_delta_of_one_point_is_the_published_accuracy():
    # the paper's tool (mt-thresholds README, "accuracy is 63.989%" for `mt-thresholds bleu 1.00`)
    assert human_agreement("bleu", 1.0) == pytest.approx(0.63989, abs=5e-6)
    assert human_agreement("bleu", -1.0) == human_agreement("bleu", 1.0)  # the size of the difference


def test_chrf_needs_the_published_delta_for_the_same_accuracy():
    # the same README: "ChrF needs 0.710 difference for the same accuracy as BLEU" (1 point, 63.989%)
    assert human_agreement("chrf", 0.710) == pytest.approx(0.63989, abs=5e-4)


def test_comet_models_use_the_papers_100_point_scale_and_its_name_normalisation():
    # by hand from the published fit of COMET-22 (a = 96.2237..., b = 2.8359...): one point on the
    # paper's 0-100 scale is 0.01 on COMET's own 0-1 scale
    a, b = 96.22374133884283, 2.8359194570556636
    want = a / (1 + math.exp(-b * 1.0)) / 100
    assert human_agreement("comet:wmt22-comet-da", 0.01) == pytest.approx(want, rel=1e-12)
    assert fit_for("comet:wmt22-cometkiwi-da") == ("cometkiwi22", 100.0)
    assert fit_for("comet:xcomet-xl") == ("xcometxl", 100.0)


@pytest.mark.parametrize("metric", ["ter", "nist", "chrf++", "bleu-c", "tbleu", "comet", "comet:tiny", "mqm"])
def test_metrics_without_a_published_fit_say_so(metric):
    assert human_agreement(metric, 1.0) is None


def test_compare_json_gives_every_pair_its_human_agreement():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mtlens",
            "compare",
            "--ref",
            str(SAMPLE / "ref.txt"),
            "--sys",
            *[str(SAMPLE / f"{s}.txt") for s in ("UEdin", "HuaweiTSC", "Online-W")],
            "--metrics",
            "bleu,ter",
            "--n",
            "100",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    pairs = json.loads(out)["pairs"]
    assert len(pairs) == 6
    for p in pairs:
        if p["metric"] == "bleu":
            assert p["human_agreement"] == pytest.approx(human_agreement("bleu", abs(p["delta"])), rel=1e-12)
            assert 0.4 < p["human_agreement"] < 0.89
        else:
            assert p["human_agreement"] is None


def test_identical_outputs_get_no_agreement_and_no_detectable_delta(capsys, tmp_path):
    """Issue 51: two identical outputs showed "humans agree 0.442" (the fit's value at a delta of 0) and
    "min. detectable 0.00" (a standard error of 0); both are absent: there is no difference to judge."""
    from mtlens.analysis.power import min_detectable_delta
    from mtlens.cli import main

    assert human_agreement("bleu", 0.0) is None and human_agreement("bleu", 0.5) is not None
    assert math.isnan(min_detectable_delta(0.0, 0.05)) and min_detectable_delta(1.0, 0.05) > 0
    copy = tmp_path / "Copy.txt"
    copy.write_bytes((SAMPLE / "UEdin.txt").read_bytes())
    argv = ["compare", "--ref", str(SAMPLE / "ref.txt"), "--sys", str(SAMPLE / "UEdin.txt"), str(copy)]
    code = main([*argv, "--n", "200", "--format", "json", "--metrics", "bleu"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (pair,) = json.loads(out)["pairs"]
    assert pair["delta"] == 0 and pair["human_agreement"] is None and pair["min_detectable_delta"] is None
