"""The command line contract: options, JSON shape, formats, and errors as one sentence with exit 2."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF

from mtlens.cli import main

from ..conftest import ROOT, SAMPLE, read

REFS = [str(SAMPLE / "ref.txt"), str(SAMPLE / "ref2.txt")]
SYSTEMS = [str(SAMPLE / f"{n}.txt") for n in ("VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin")]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def ref_args():
    return [x for r in REFS for x in ("--ref", r)]


def test_json_contract_and_values_equal_sacrebleu(capsys):
    code, out, err = run(
        capsys, "score", *ref_args(), "--sys", *SYSTEMS, "--metrics", "bleu,bleu-c,chrf,chrf++", "--format", "json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc) == {"signatures", "systems", "language_pair", "reference_notes"}
    assert doc["reference_notes"] == []  # the real reference: nothing to say of it
    assert doc["language_pair"] is None  # German target: nothing detected that changes a default
    assert set(doc["signatures"]) == {"bleu", "bleu-c", "chrf", "chrf++"}
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")]
    assert [s["name"] for s in doc["systems"]] == ["VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin"]
    for entry in doc["systems"]:
        hyp = read(SAMPLE / f"{entry['name']}.txt")
        sb = SacreBLEU().corpus_score(hyp, refs)
        assert entry["scores"]["bleu"] == pytest.approx(sb.score, abs=1e-9)
        det = entry["details"]["bleu"]
        assert set(det) >= {"precisions", "bp", "sys_len", "ref_len", "counts", "totals"}
        assert det["counts"] == sb.counts and det["precisions"] == pytest.approx(sb.precisions, abs=1e-9)
        assert entry["scores"]["chrf"] == pytest.approx(SacreCHRF().corpus_score(hyp, refs).score, abs=1e-9)
        c18 = SacreBLEU(tokenize="char", max_ngram_order=18).corpus_score(hyp, refs)
        assert entry["scores"]["bleu-c"] == pytest.approx(c18.score, abs=1e-9)
        assert len(entry["details"]["bleu-c"]["precisions"]) == 18
        assert "sentences" not in entry


def test_sentence_level_json(capsys):
    code, out, _ = run(
        capsys,
        "score",
        *ref_args(),
        "--sys",
        SYSTEMS[0],
        "--metrics",
        "bleu,chrf",
        "--sentence-level",
        "--format",
        "json",
    )
    assert code == 0
    entry = json.loads(out)["systems"][0]
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")]
    hyp = read(SAMPLE / "VolcTrans-GLAT.txt")
    assert len(entry["sentences"]["bleu"]) == len(hyp) == 200
    sb = SacreBLEU(effective_order=True)
    for i in (0, 57, 199):
        assert entry["sentences"]["bleu"][i] == pytest.approx(sb.sentence_score(hyp[i], [r[i] for r in refs]).score)


def test_options_reach_the_metric(capsys):
    code, out, _ = run(
        capsys,
        "score",
        *ref_args(),
        "--sys",
        SYSTEMS[0],
        "--metrics",
        "bleu,bleu-c",
        "--tokenize",
        "intl",
        "--lowercase",
        "--smooth-method",
        "floor",
        "--smooth-value",
        "0.2",
        "--char-order",
        "6",
        "--char-keep-spaces",
        "--format",
        "json",
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["signatures"]["bleu"].startswith("nrefs:2|case:lc|eff:no|tok:intl|smooth:floor[0.20]|version:")
    assert "order:6|space:yes" in doc["signatures"]["bleu-c"]
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")]
    want = SacreBLEU(tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2).corpus_score(
        read(SAMPLE / "VolcTrans-GLAT.txt"), refs
    )
    assert doc["systems"][0]["scores"]["bleu"] == pytest.approx(want.score, abs=1e-9)


def test_csv_latex_and_table(capsys):
    code, out, _ = run(capsys, "score", *ref_args(), "--sys", *SYSTEMS, "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["rank", "system", "bleu", "chrf"] and len(rows) == 4
    assert len(rows[0]["bleu"]) > 10  # full precision, not rounded
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")]
    sacre = {p.rsplit("/", 1)[1][:-4]: SacreBLEU().corpus_score(read(Path(p)), refs).score for p in SYSTEMS}
    assert [r["system"] for r in rows] == sorted(sacre, key=lambda s: -sacre[s])  # ranked by the first metric
    assert [r["rank"] for r in rows] == ["1", "2", "3", "4"]
    code, out, _ = run(capsys, "score", *ref_args(), "--sys", *SYSTEMS, "--format", "latex")
    assert code == 0 and r"\begin{tabular}" in out and r"\textbf{" in out and "nrefs:2" in out
    assert "VolcTrans-GLAT" in out
    code, out, _ = run(capsys, "score", *ref_args(), "--sys", *SYSTEMS)
    assert code == 0 and "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp" in out


def test_data_file_tsv(capsys, tmp_path):
    refs = read(SAMPLE / "ref.txt")
    hyp = read(SAMPLE / "UEdin.txt")
    tsv = tmp_path / "all.tsv"
    tsv.write_text("ref\tUEdin\n" + "".join(f"{r}\t{h}\n" for r, h in zip(refs, hyp, strict=True)), encoding="utf-8")
    code, out, err = run(capsys, "score", "--data", str(tsv), "--format", "json")
    assert code == 0, err
    want = SacreBLEU().corpus_score(hyp, [refs]).score
    assert json.loads(out)["systems"][0]["scores"]["bleu"] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--sys", SYSTEMS[0]], "give at least one --ref"),
        (["--ref", REFS[0]], "give at least one --sys"),
        (["--ref", REFS[0], "--sys", "/nonexistent/B.txt"], "does not exist"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--metrics", "bleu,meteor"], "unknown metric 'meteor'"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--char-order", "0"], "--char-order must be between 1 and 100"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--char-order", "100000"], "--char-order must be between 1 and 100"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--char-order", "1000000000"], "--char-order must be between"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--smooth-value", "inf"], "--smooth-value must be above 0"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--smooth-value", "nan"], "--smooth-value must be above 0"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--smooth-value", "-1"], "--smooth-value must be above 0"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--tbleu-epsilon", "2"], "--tbleu-epsilon must be between 0 and 1"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--max-ngram-order", "0"], "--max-ngram-order must be between"),
        (["--data", "x.tsv", "--src", "/nonexistent/src.txt"], "--data holds references, systems and source"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--tokenize", "moses"], "invalid choice"),
        (["--ref", REFS[0], "--sys", SYSTEMS[0], "--smooth-value", "abc"], "invalid float value"),
    ],
)
def test_errors_are_one_sentence_exit_2(capsys, args, needle):
    try:
        code = main(["score", *args])
    except SystemExit as e:  # argparse's own checks exit directly, also with status 2
        code = e.code
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_mismatched_lines_through_the_real_command(tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("only one line\n", encoding="utf-8")
    bad = tmp_path / "latin.txt"
    bad.write_bytes("Größe\n".encode("latin-1"))
    for sysfile, needle in [(short, "short.txt' has 1 lines, the reference"), (bad, "is not valid UTF-8: line 1")]:
        p = subprocess.run(
            [sys.executable, "-m", "mtlens", "score", "--ref", REFS[0], "--sys", str(sysfile)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert p.returncode == 2
        assert needle in p.stderr
        assert "Traceback" not in p.stderr and p.stdout == ""


def test_compare_json_contract(capsys):
    code, out, err = run(
        capsys,
        "compare",
        *ref_args(),
        "--sys",
        *SYSTEMS,
        "--metrics",
        "bleu,chrf",
        "--test",
        "ar",
        "--n",
        "500",
        "--seed",
        "0",
        "--format",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc) >= {"signature", "systems", "pairs", "clusters"}
    assert "test:ar|n:500|seed:0" in doc["signature"]
    assert len(doc["pairs"]) == 12  # 6 pairs x 2 metrics
    pair = doc["pairs"][0]
    assert set(pair) == {
        "a",
        "b",
        "metric",
        "delta",
        "p_value",
        "p_holm",
        "significant",
        "human_agreement",
        "min_detectable_delta",
    }
    for metric in ("bleu", "chrf"):  # Holm's step-down by hand, per metric, over its 6 pairs
        rows = [p for p in doc["pairs"] if p["metric"] == metric]
        order = sorted(range(len(rows)), key=lambda i: rows[i]["p_value"])
        running, by_hand = 0.0, {}
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (len(rows) - rank) * rows[i]["p_value"]))
            by_hand[i] = running
        assert [r["p_holm"] for r in rows] == pytest.approx([by_hand[i] for i in range(len(rows))], abs=1e-15)
    s = doc["systems"][0]["scores"]["bleu"]
    assert set(s) >= {"score", "mean", "ci"} and s["ci"] > 0
    flat = sorted(n for cl in doc["clusters"]["chrf"] for n in cl)
    assert flat == sorted(["VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin"])


def test_compare_baseline_csv_latex_and_errors(capsys):
    code, out, _ = run(
        capsys, "compare", *ref_args(), "--sys", *SYSTEMS, "--baseline", "UEdin", "--n", "200", "--format", "csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 6 and {r["b"] for r in rows} == {"UEdin"}
    # issue 51, D3: the CSV has every column the Significance page shows, the same numbers as the JSON
    code, js, _ = run(
        capsys, "compare", *ref_args(), "--sys", *SYSTEMS, "--baseline", "UEdin", "--n", "200", "--format", "json"
    )
    pairs = {(p["a"], p["metric"]): p for p in json.loads(js)["pairs"]}
    for r in rows:
        p = pairs[(r["a"], r["metric"])]
        assert float(r["min_detectable_delta"]) == pytest.approx(p["min_detectable_delta"], abs=1e-12)
        assert (r["human_agreement"] == "") == (p["human_agreement"] is None)
        if r["human_agreement"]:
            assert float(r["human_agreement"]) == pytest.approx(p["human_agreement"], abs=1e-12)
    code, out, _ = run(capsys, "compare", *ref_args(), "--sys", *SYSTEMS, "--n", "200", "--format", "latex")
    assert code == 0 and r"\pm" in out
    code, _, err = run(capsys, "compare", *ref_args(), "--sys", *SYSTEMS, "--baseline", "nope")
    assert code == 2 and "baseline 'nope' is not one of the systems" in err
    code, _, err = run(capsys, "compare", *ref_args(), "--sys", SYSTEMS[0])
    assert code == 2 and "at least two systems" in err


def test_analyze_json_contract(capsys):
    code, out, err = run(
        capsys,
        "analyze",
        *ref_args(),
        "--sys",
        *SYSTEMS,
        "--char-orders",
        "10,18",
        "--human",
        str(SAMPLE / "human.tsv"),
        "--metrics",
        "bleu,chrf",
        "--format",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    rows = doc["words_vs_chars"]["UEdin"]
    assert [r["char_order"] for r in rows] == [10, 18] and set(rows[0]) == {
        "char_order",
        "pearson",
        "kappa",
        "analogical",
    }
    assert set(doc["best"]) == {*SYSTEMS.__class__(s.rsplit("/", 1)[-1][:-4] for s in SYSTEMS), "all"}
    assert [r["rank_w"] for r in doc["ranking"]] == [1, 2, 3, 4]
    hc = doc["human_correlation"]
    assert {"metric", "level", "human", "pearson", "spearman", "kendall", "n"} <= set(hc[0])
    assert {r["human"] for r in hc} == {"DA_z", "DA_raw", "MQM"}
    assert any("ref, ref2" in n for n in doc["notes"])
    code, _, err = run(capsys, "analyze", *ref_args(), "--sys", SYSTEMS[0], "--char-orders", "x")
    assert code == 2 and "character orders" in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["compare", "--seed", "-1"], "--seed must be between 0 and 2**63 - 1, not -1"),
        (["compare", "--n", "1000000000"], "--n must be between 1 and 100,000"),
        (["compare", "--n", "0"], "--n must be between 1 and 100,000"),
        (["compare", "--alpha", "1.5"], "--alpha must be between 0 and 1"),
        (["analyze", "--ranking-char-order", "0"], "--ranking-char-order must be between 1 and 100, not 0"),
        (["analyze", "--ranking-char-order", "-1"], "--ranking-char-order must be between 1 and 100, not -1"),
        (["analyze", "--char-orders", "1-1000000000"], "character orders"),
        (["analyze", "--word-order", "1"], "--word-order must be between 2 and 10"),
        (["analyze", "--seed", "-5"], "--seed must be between 0"),
        (["analyze", "--pair", "UEdin", "nobody"], "--pair: 'nobody' is not one of the systems"),
        (["analyze", "--freq-corpus", REFS[0]], "--freq-corpus goes with --pair"),
        (["report", "-o", "/tmp/x.html", "--seed", "-1"], "--seed must be between 0"),
    ],
)
def test_numeric_options_are_bounded_and_named(capsys, argv, needle):
    code, _, err = run(capsys, argv[0], *ref_args(), "--sys", *SYSTEMS, *argv[1:])
    assert code == 2, err
    assert needle in err
    assert "internal error" not in err and "Traceback" not in err


def test_every_option_has_a_flag_that_reaches_the_metric():
    """One source of truth: every Options field is a CLI flag, and the flag's value arrives in Options."""
    from mtlens.cli import build_parser, options_from_args
    from mtlens.core.options import SPECS

    parser = build_parser()
    flags = {a.dest: a for a in parser._subparsers._group_actions[0].choices["score"]._actions}
    assert set(SPECS) <= set(flags)
    args = parser.parse_args(
        ["score", "--smooth-method", "floor", "--smooth-value", "0.2", "--chrf-eps-smoothing", "--ter-single-pass"]
    )
    o = options_from_args(args)
    assert (o.smooth_value, o.chrf_eps_smoothing, o.ter_single_pass) == (0.2, True, True)


def test_analyze_pair_json_contract(capsys):
    code, out, err = run(
        capsys, "analyze", *ref_args(), "--sys", *SYSTEMS, "--pair", "UEdin", "HuaweiTSC", "--format", "json"
    )
    assert code == 0, err
    doc = json.loads(out)
    keys = {"bucket", "lines", "a", "b", "delta", "p_value", "significant"}
    for kind in ("length", "frequency"):
        assert doc["buckets"][kind], kind
        for row in doc["buckets"][kind]:
            assert keys <= set(row)
            if row["lines"] < 30:  # too few lines: no test, never significant
                assert row["p_value"] is None and row["significant"] is False
    assert sum(r["lines"] for r in doc["buckets"]["length"]) == 200
    assert "unseen" not in json.dumps(doc["buckets"]["frequency"])  # no frequency corpus: no unseen bucket
    assert {r["n"] for r in doc["ngrams"]["by_order"]} == {1, 2, 3, 4}
    code, out, err = run(
        capsys, "analyze", *ref_args(), "--sys", *SYSTEMS, "--pair", "UEdin", "HuaweiTSC", "--format", "table"
    )
    assert (code == 0 and "too few lines" in out) or "Holm" in out


def test_analyze_pair_with_frequency_corpus_has_unseen_words(capsys, tmp_path):
    freq = tmp_path / "train.txt"
    freq.write_text("Die Katze sitzt auf der Matte .\n" * 3, encoding="utf-8")
    code, out, err = run(
        capsys,
        "analyze",
        *ref_args(),
        "--sys",
        *SYSTEMS,
        "--pair",
        "UEdin",
        "HuaweiTSC",
        "--freq-corpus",
        str(freq),
        "--format",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    unseen = [r for r in doc["buckets"]["frequency"] if r["bucket"].startswith("0 (not in")]
    assert unseen and unseen[0]["words"] > 1000  # nearly every reference word is absent from that tiny corpus
    assert doc["buckets"]["frequency_source"] == str(freq)


@pytest.mark.slow  # about 40 s of compiling
def test_build_compiles_every_kernel_into_a_fresh_cache(tmp_path):
    """Issue 37, item 6: the README's install command builds the kernels (``mtlens build``), so the first
    page after installing waits for no compiler. Into an empty kernel cache it builds every kernel
    module; a second run finds them built."""
    import os
    import subprocess
    import sys

    from mtlens.runtime.kernels import kernel_modules

    from ..conftest import ROOT

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run(
        [sys.executable, "-m", "mtlens", "build"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=900
    )
    assert r.returncode == 0, r.stderr
    n = len(set(kernel_modules().values()))
    assert f"kernels ready ({n} built ahead of time)" in r.stdout or "numba's, cached" in r.stdout, r.stdout
    if "built ahead of time" in r.stdout:
        assert len(list((tmp_path / "cache" / "mtlens-aot").glob("*.so"))) >= n
    assert "python -m mtlens build" in (ROOT / "README.md").read_text(encoding="utf-8").split("```bash")[1]
