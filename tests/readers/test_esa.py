"""Human ESA ratings (issue 52): Appraise's CSV and WMT's JSONL read as the publisher reads them, each rule on a
hand-made file, then a real excerpt of WMT24 en-ja (tests/data/esa) and, when ../shared/data is present, both
whole waves, against the publisher's procedure re-done here with pandas (an independent implementation)."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys

import pandas as pd
import pytest

from mtlens.analysis.raters import rater_quality
from mtlens.cli import main
from mtlens.core.corpus import Corpus
from mtlens.core.errors import InputError
from mtlens.readers.esa import is_esa, read_esa
from mtlens.readers.esa_set import esa_metric
from mtlens.storage.store import Store

from ..conftest import ROOT, SHARED

DATA = ROOT / "tests" / "data" / "esa"
COLS = ["user_id", "system", "line_id", "item_type", "src", "tgt", "score", "doc_id", "unused", "error_spans",
        "start_time", "end_time"]  # fmt: skip


def _csv(rows) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for r in rows:
        spans = json.dumps(r.get("spans", []))
        w.writerow([r["rater"], r["system"], r["line"], r.get("type", "TGT"), r.get("src", "eng"), r.get("tgt", "jpn"),
                    r["score"], r.get("doc", "d1"), "False", spans, r.get("t", 1.0), r.get("t", 1.0)])  # fmt: skip
    return buf.getvalue().encode()


def _corpus(domains=None) -> Corpus:
    c = Corpus.build(
        {"ref": ["r0", "r1", "r2", "r3"]},
        {"A": ["aaaa", "bbbb", "cccc", "dddd"], "B": ["xx", "yy", "zz", "ww"]},
        language_pair="en-ja",
    )
    return c.with_documents(["d1", "d1", "d2", "d2"], domains) if domains else c


def test_each_of_the_publishers_rules_on_a_hand_made_file():
    rows = [
        {
            "rater": "r1",
            "system": "A",
            "line": 0,
            "score": 80,
            "spans": [{"start_i": 1, "end_i": 2, "severity": "minor"}],
        },
        {"rater": "r2", "system": "A", "line": 0, "score": 60},  # two raters: their mean, 70
        {"rater": "r1", "system": "A", "line": 1, "score": 10, "t": 1.0},
        {"rater": "r1", "system": "A", "line": 1, "score": 50, "t": 2.0},  # the latest of r1's two ratings
        {
            "rater": "r1",
            "system": "B",
            "line": 0,
            "score": 40,
            "spans": [
                {"start_i": "missing", "end_i": "missing", "severity": "major"},  # an omission
                {"start_i": 1, "end_i": 5, "severity": "major"},
            ],
        },  # past the end of 'xx': clipped
        {"rater": "r1", "system": "A", "line": 2, "score": 5, "type": "BAD", "doc": "d2#bad"},  # an attention check
        {"rater": "r1", "system": "A", "line": 2, "score": 90},  # its original
        {"rater": "r1", "system": "A", "line": 3, "score": 70, "doc": "d2#dup"},  # a repeated item
        {"rater": "r1", "system": "A", "line": 3, "score": 75, "doc": "d2"},
        {"rater": "r1", "system": "A", "line": 1, "score": 0, "doc": "d1#incomplete"},  # a filler
        {"rater": "r1", "system": "ende-tutorial1", "line": 1000001, "score": 0, "doc": "ende-tutorial1"},
        {"rater": "r1", "system": "refA", "line": 0, "score": 99},  # the reference, rated as a system: kept
        {"rater": "z1", "system": "A", "line": 0, "score": 1, "src": "eng", "tgt": "zho"},  # another pair
    ]
    data = _csv(rows)
    assert is_esa(data, "x.csv") and not is_esa(b"system\tdoc\tdoc_id\n", "x.tsv")
    esa = read_esa(data, "x.csv", _corpus())
    assert esa.pair == "en-ja" and esa.left_out == {
        "other language pairs": 1,
        "earlier ratings of an item by the same rater": 1,
    }
    kinds = sorted(c.kind for c in esa.controls)
    assert kinds == ["attention", "duplicate", "incomplete", "tutorial"]
    assert any("1 spans past their line's end were clipped" in n for n in esa.notes)
    b0 = next(r for r in esa.ratings if r.system == "B")
    assert b0.spans[0].omission and b0.spans[1].start == 1 and b0.spans[1].end == 2  # clipped to 'xx'
    a0 = next(r for r in esa.ratings if r.system == "A" and r.rater == "r1" and r.line == 0)
    assert (a0.spans[0].start, a0.spans[0].end) == (1, 3)  # end_i inclusive: 'aa' of 'aaaa'
    m = esa_metric([esa], _corpus(["news", "news", "social", "social"]))
    assert m.scores["A"][:4].tolist() == [70.0, 50.0, 90.0, 75.0] and math.isnan(m.scores["B"][1])
    assert m.spans["A"][0][0].text == "aa" and m.spans["B"][0][0].text == "x"
    # the publisher's system score: news (70 + 50) / 2 = 60, social (90 + 75) / 2 = 82.5, their mean 71.25
    from mtlens.readers.scores import ImportedMetric

    metric = ImportedMetric(m)
    assert float(metric.score_from_totals(metric.stats_for("A").sum(axis=0))) == pytest.approx(71.25, abs=1e-12)
    plain = ImportedMetric(esa_metric([esa], _corpus(["news", "news", "social", "social"]), "segments"))
    assert float(plain.score_from_totals(plain.stats_for("A").sum(axis=0))) == pytest.approx(71.25, abs=1e-12)
    q = {x["rater"]: x for x in rater_quality(esa)}
    assert q["r1"]["attention_checks"] == 1 and q["r1"]["passed"] == 1 and q["r1"]["pass_rate"] == 1.0
    assert q["r1"]["repeated_items"] == 1 and q["r1"]["repeat_mean_abs_difference"] == 5.0


def test_the_jsonl_format_reads_as_the_csv_does():
    rows = [
        {"langs": "en-ja", "line_id": 0, "src": "s", "tgt": "aaaa", "doc_id": "d1", "domain": "news",
         "esa_spans": [{"start_i": 0, "end_i": 1, "severity": "minor"}], "esa_score": 80, "system": "A",
         "annotator": "r1"},
        {"langs": "en-ja", "line_id": 1, "src": "s", "tgt": "bbbb", "doc_id": "d1", "domain": "news",
         "esa_spans": [], "esa_score": 40, "system": "A", "annotator": "r1"},
    ]  # fmt: skip
    data = ("\n".join(json.dumps(r) for r in rows) + "\n").encode()
    assert is_esa(data, "x.jsonl")
    esa = read_esa(data, "x.jsonl", _corpus())
    assert [(r.system, r.line, r.score) for r in esa.ratings] == [("A", 0, 80.0), ("A", 1, 40.0)]
    assert (esa.ratings[0].spans[0].start, esa.ratings[0].spans[0].end) == (0, 2)


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        ([{"rater": "r", "system": "C", "line": 0, "score": 50}], "rates none of the set's systems \\(it rates C\\)"),
        ([{"rater": "r", "system": "A", "line": 9, "score": 50}], "line_id 9 is not a line of the set"),
        ([{"rater": "r", "system": "A", "line": 0, "score": 150}], "score 150 is not between 0 and 100"),
        (
            [
                {
                    "rater": "r",
                    "system": "A",
                    "line": 0,
                    "score": 5,
                    "spans": [{"start_i": 0, "end_i": 1, "severity": "x"}],
                }
            ],
            "severity is 'x'",
        ),
        ([{"rater": "r", "system": "A", "line": 0, "score": 5, "src": "eng", "tgt": "zho"}], "has no rating of en-ja"),
    ],
)
def test_bad_rows_are_one_sentence(rows, said):
    with pytest.raises(InputError, match=said):
        read_esa(_csv(rows), "x.csv", _corpus())


def _real_excerpt_set(tmp_path):
    ws = tmp_path / "ws"
    code = main(["import", str(DATA / "en-ja"), "--docs", str(DATA / "en-ja" / "en-ja.docs"), "-l", "en-ja",
                 "--data-dir", str(ws), "--name", "esa"])  # fmt: skip
    assert code == 0
    set_id = Store(ws).list()[0].id
    assert (
        main(["import", "--ratings", str(DATA / "esa_en-ja.excerpt.csv"), "--set", set_id, "--data-dir", str(ws)]) == 0
    )
    return ws, set_id


def _publisher(csv_paths, docs_path, pair=("eng", "jpn")) -> tuple[pd.DataFrame, pd.Series]:
    """The publisher's procedure, with pandas: the pair's rows; attention checks, fillers, repeats and tutorials
    out; each rater's latest rating of an item; raters averaged; a system's score the mean of its per-domain
    means. Returns (segment scores, system scores)."""
    df = pd.concat([pd.read_csv(p, header=None, names=COLS) for p in csv_paths], ignore_index=True)
    df = df[(df.src == pair[0]) & (df.tgt == pair[1]) & (df.item_type == "TGT")]
    df = df[~df.doc_id.str.endswith(("#bad", "#dup", "#incomplete")) & ~df.doc_id.str.contains("tutorial")]
    df = df[~df.system.str.contains("tutorial")]
    df = df.sort_values("end_time", kind="stable").groupby(["user_id", "system", "line_id"]).tail(1)
    seg = df.groupby(["system", "line_id"]).score.mean().reset_index()
    domains = pd.read_csv(docs_path, sep="\t", header=None, names=["domain", "doc"]).domain
    seg["domain"] = seg.line_id.map(domains)
    system = seg.groupby(["system", "domain"]).score.mean().groupby("system").mean()
    return seg, system


def _check_against_the_publisher(ws, set_id, csv_paths, docs_path, capsys):
    assert main(["ratings", "--set", set_id, "--segments", "--format", "json", "--data-dir", str(ws)]) == 0
    doc = json.loads(capsys.readouterr().out)
    seg, system = _publisher(csv_paths, docs_path)
    got = {r["system"]: r["score"] for r in doc["systems"]}
    assert set(got) == set(system.index)
    for s, v in system.items():
        assert got[s] == pytest.approx(v, abs=1e-9), s
    mine = pd.DataFrame(doc["segments"]).groupby(["system", "line"]).score.mean()
    for r in seg.itertuples():  # the output numbers lines from 1, the publisher's line_id from 0
        assert mine[(r.system, r.line_id + 1)] == pytest.approx(r.score, abs=1e-9)
    # spans: the line's characters start_i..end_i inclusive, omissions kept as omissions
    store = Store(ws)
    corpus = store.load(set_id).corpus
    texts = {**corpus.systems, "refA": next(iter(corpus.references.values()))}
    raw = pd.concat([pd.read_csv(p, header=None, names=COLS) for p in csv_paths], ignore_index=True)
    omissions = placed = 0
    for s in doc["segments"]:
        for sp in s["spans"]:
            if sp.get("omission"):
                omissions += 1
                continue
            placed += 1
            assert sp["text"] == texts[s["system"]][s["line"] - 1][sp["start"] : sp["end"]]
    kept = {(s["rater"], s["system"], s["line"] - 1) for s in doc["segments"]}
    raw_spans = [
        (r.user_id, r.system, r.line_id, sp)
        for r in raw.itertuples()
        if (r.user_id, r.system, r.line_id) in kept
        and r.item_type == "TGT"
        and not str(r.doc_id).endswith(("#bad", "#dup", "#incomplete"))
        for sp in json.loads(r.error_spans)
    ]
    return doc, omissions, placed, raw_spans, texts


def test_a_real_excerpt_of_wmt24_en_ja_equals_the_publishers_procedure(tmp_path, capsys):
    ws, set_id = _real_excerpt_set(tmp_path)
    capsys.readouterr()
    doc, omissions, placed, raw, texts = _check_against_the_publisher(
        ws, set_id, [DATA / "esa_en-ja.excerpt.csv"], DATA / "en-ja" / "en-ja.docs", capsys
    )
    assert placed > 0 and any("other language pairs" in n for n in doc["notes"])
    for rater, system, line, sp in raw:  # every raw span: inclusive end, as the README says
        if sp["start_i"] != "missing" and sp["end_i"] < len(texts[system][line]):
            assert texts[system][line][sp["start_i"] : sp["end_i"] + 1] in {
                s["text"] for x in doc["segments"] if (x["rater"], x["system"], x["line"] - 1) == (rater, system, line)
                for s in x["spans"] if not s.get("omission")
            }  # fmt: skip
    assert omissions == sum(1 for *_, sp in raw if sp["start_i"] == "missing")
    # the esa metric on every face: the CLI's score of the set equals the same system scores
    assert main(["score", "--set", set_id, "--metrics", "esa", "--format", "json", "--data-dir", str(ws)]) == 0
    scored = {s["name"]: s["scores"]["esa"] for s in json.loads(capsys.readouterr().out)["systems"]}
    for r in doc["systems"]:
        if not r["reference"]:
            assert scored[r["system"]] == pytest.approx(r["score"], abs=1e-9)


def _pass_rates(csv_paths, pair=("eng", "jpn")) -> dict[str, float]:
    """Attention checks with pandas: a rater's damaged copy (BAD) against the same rater's original of the item
    (its latest TGT rating), passed when scored lower."""
    df = pd.concat([pd.read_csv(p, header=None, names=COLS) for p in csv_paths], ignore_index=True)
    df = df[(df.src == pair[0]) & (df.tgt == pair[1])]
    df["dup"] = df.doc_id.str.endswith("#dup")
    df = df.sort_values("end_time", kind="stable").groupby(["user_id", "system", "line_id", "item_type", "dup"]).tail(1)
    orig = df[(df.item_type == "TGT") & ~df.doc_id.str.contains("#")].set_index(["user_id", "system", "line_id"]).score
    bad = df[df.item_type == "BAD"]
    out = {}
    for rater, rows in bad.groupby("user_id"):
        pairs = [(r.score, orig.get((rater, r.system, r.line_id))) for r in rows.itertuples()]
        pairs = [(b, o) for b, o in pairs if o is not None]
        if pairs:
            out[rater] = sum(b < o for b, o in pairs) / len(pairs)
    return out


@pytest.mark.shared
def test_both_en_ja_waves_equal_the_publishers_procedure_and_the_raters_pass_rates(tmp_path, capsys):
    folder = SHARED / "wmt24-esa"
    texts = tmp_path / "en-ja"
    texts.mkdir()
    (texts / "ref.txt").write_bytes((folder / "en-ja.refA.txt").read_bytes())
    (texts / "src.txt").write_bytes((folder / "en-ja.src.txt").read_bytes())
    for p in (folder / "system-outputs" / "en-ja").glob("*.txt"):
        (texts / p.name).write_bytes(p.read_bytes())
    ws = tmp_path / "ws"
    assert main(["import", str(texts), "--docs", str(folder / "en-ja.docs"), "-l", "en-ja", "--data-dir", str(ws)]) == 0
    set_id = Store(ws).list()[0].id
    waves = [folder / f"esa_generalMT2024_wave{w}.csv" for w in (2, 3)]
    for w in waves:
        assert main(["import", "--ratings", str(w), "--set", set_id, "--data-dir", str(ws)]) == 0
    capsys.readouterr()
    doc, omissions, _placed, raw, _ = _check_against_the_publisher(ws, set_id, waves, folder / "en-ja.docs", capsys)
    assert {r["segments"] for r in doc["systems"]} == {634} and len(doc["systems"]) == 13  # 12 systems and refA
    assert omissions == sum(1 for *_, sp in raw if sp["start_i"] == "missing") > 0
    rates = {q["rater"]: q["pass_rate"] for q in doc["raters"] if q["pass_rate"] is not None}
    assert rates == pytest.approx(_pass_rates(waves), abs=1e-12)
    # the command line's JSON, from a separate process (the acceptance's way)
    proc = subprocess.run(
        [sys.executable, "-m", "mtlens", "ratings", "--set", set_id, "--format", "json", "--data-dir", str(ws)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0 and json.loads(proc.stdout)["raters"][0]["pass_rate"] is not None


def test_the_annotations_page_shows_the_esa_scores_and_raters_and_a_rater_can_be_left_out(
    tmp_path, monkeypatch, capsys
):
    """Issue 52: the raters' quality on a page (their attention-check pass rate as the command line gives it), and
    a rater left out: the systems' scores follow (as the command line's --exclude-rater gives them)."""
    from streamlit.testing.v1 import AppTest

    ws, set_id = _real_excerpt_set(tmp_path)
    capsys.readouterr()
    monkeypatch.setenv("MTLENS_DATA_DIR", str(ws))
    at = AppTest.from_file(str(ROOT / "pages" / "8_Annotations.py"), default_timeout=120)
    at.query_params["set"] = set_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    systems, raters = (t.value for t in list(at.dataframe)[:2])
    assert main(["ratings", "--set", set_id, "--format", "json", "--data-dir", str(ws)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(systems["ESA"]) == pytest.approx([r["score"] for r in doc["systems"]], abs=1e-9)
    assert list(raters["pass rate"].fillna(-1)) == pytest.approx(
        [-1 if q["pass_rate"] is None else q["pass_rate"] for q in doc["raters"]]
    )
    assert main(["ratings", "--set", set_id, "--segments", "--format", "json", "--data-dir", str(ws)]) == 0
    out = next(x["rater"] for x in json.loads(capsys.readouterr().out)["segments"] if x["system"] != "refA")
    at.multiselect(key="esa_exclude").set_value([out]).run()
    assert not at.exception
    assert main(["ratings", "--set", set_id, "--exclude-rater", out, "--format", "json", "--data-dir", str(ws)]) == 0
    without = json.loads(capsys.readouterr().out)
    shown = next(iter(at.dataframe)).value
    assert list(shown["ESA"]) == pytest.approx([r["score"] for r in without["systems"]], abs=1e-9)
    assert [r["score"] for r in without["systems"]] != [r["score"] for r in doc["systems"]]
    # kept with the set: the esa metric of every face follows (here the command line's score of the set)
    assert main(["score", "--set", set_id, "--metrics", "esa", "--format", "json", "--data-dir", str(ws)]) == 0
    before = {x["name"]: x["scores"]["esa"] for x in json.loads(capsys.readouterr().out)["systems"]}
    at.button(key="esa_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert main(["score", "--set", set_id, "--metrics", "esa", "--format", "json", "--data-dir", str(ws)]) == 0
    after = {x["name"]: x["scores"]["esa"] for x in json.loads(capsys.readouterr().out)["systems"]}
    want = {r["system"]: r["score"] for r in without["systems"] if not r["reference"]}
    assert after == pytest.approx(want, abs=1e-9) and after != before
    assert main(["ratings", "--set", set_id, "--format", "json", "--data-dir", str(ws)]) == 0
    assert json.loads(capsys.readouterr().out)["left_out_by_the_set"] == [out]
    assert main(["ratings", "--set", set_id, "--save", "--format", "json", "--data-dir", str(ws)]) == 0  # all back
    assert json.loads(capsys.readouterr().out)["left_out_by_the_set"] == []


def test_esa_is_the_human_side_of_the_meta_evaluation(tmp_path, capsys):
    """Issue 52: ESA feeds the meta-evaluation like MQM and DA: a metric's system-level Pearson r against ESA equals
    scipy's on the metric's scores (sacrebleu's chrF) and the publisher's ESA system scores (pandas, above)."""
    from sacrebleu.metrics import CHRF
    from scipy.stats import pearsonr

    ws, set_id = _real_excerpt_set(tmp_path)
    capsys.readouterr()
    assert main(["analyze", "--set", set_id, "--format", "json", "--data-dir", str(ws)]) == 0
    doc = json.loads(capsys.readouterr().out)
    row = next(
        r for r in doc["human_correlation"] if r["metric"] == "chrf" and r["level"] == "system" and r["human"] == "ESA"
    )
    _, system = _publisher([DATA / "esa_en-ja.excerpt.csv"], DATA / "en-ja" / "en-ja.docs")
    system = system.drop("refA")
    refs = (DATA / "en-ja" / "ref.txt").read_text(encoding="utf-8").split("\n")[:-1]
    chrf = {
        s: CHRF().corpus_score((DATA / "en-ja" / f"{s}.txt").read_text(encoding="utf-8").split("\n")[:-1], [refs]).score
        for s in system.index
    }
    expected = pearsonr([chrf[s] for s in system.index], list(system.values))[0]
    assert row["n"] == len(system) and row["pearson"] == pytest.approx(expected, abs=1e-9)
    # esa is ESA itself: never a row against it (issue 58, D6: r = 1.000, ranked first among metrics)
    assert not [r for r in doc["human_correlation"] if r["metric"] == "esa" and r["human"] == "ESA"]


def test_esa_ratings_alone_say_what_they_need(tmp_path, capsys):
    assert main(["import", "--ratings", str(DATA / "esa_en-ja.excerpt.csv"), "--data-dir", str(tmp_path)]) == 2
    assert "holds ESA ratings: they rate the lines of a test set" in capsys.readouterr().err


def test_a_rater_left_out_leaves_the_human_side_of_the_meta_evaluation_too(tmp_path, capsys):
    """The set's left-out raters leave ESA as a human score (human correlation, the meta-evaluation) as they leave
    the esa metric: both give the same system scores, without that rater's ratings."""
    from mtlens.service.ratings import esa_human_scores, leave_out
    from mtlens.service.sets import open_set

    ws, set_id = _real_excerpt_set(tmp_path)
    capsys.readouterr()
    assert main(["ratings", "--set", set_id, "--segments", "--format", "json", "--data-dir", str(ws)]) == 0
    out = next(x["rater"] for x in json.loads(capsys.readouterr().out)["segments"] if x["system"] != "refA")
    store = Store(ws)
    before = esa_human_scores(open_set(store, set_id)).system["ESA"]
    leave_out(store, set_id, [out])
    after = esa_human_scores(open_set(store, set_id)).system["ESA"]
    assert main(["score", "--set", set_id, "--metrics", "esa", "--format", "json", "--data-dir", str(ws)]) == 0
    metric = {x["name"]: x["scores"]["esa"] for x in json.loads(capsys.readouterr().out)["systems"]}
    assert after == pytest.approx(metric, abs=1e-9) and after != before
