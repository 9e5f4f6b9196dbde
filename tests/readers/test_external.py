"""Imported metric scores (COMET, xCOMET, MetricX, mt-metrics-eval, TSV): every reader on real-format files
built over the bundled WMT21 excerpt, bad files as sentences, and significance on imported scores checked
against scipy's paired permutation test."""

from __future__ import annotations

import json
import statistics

import numpy as np
import pytest
from scipy import stats as sps

from mtlens import Corpus
from mtlens.analysis.significance import compare
from mtlens.cli import main
from mtlens.core.errors import InputError
from mtlens.readers.scores import read_score_files, read_scores
from mtlens.runtime.scoring import result_for

from ..conftest import SAMPLE, pair_files

SYSTEMS = ["VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin"]


@pytest.fixture(scope="module")
def corpus():
    refs, systems = pair_files(SAMPLE)
    return Corpus.build({"ref": refs[0], "ref2": refs[1]}, {s: systems[s] for s in SYSTEMS})


def _fake_scores(corpus, k):
    rng = np.random.default_rng(k)
    base = 0.80 - 0.006 * k
    return [round(float(x), 6) for x in np.clip(rng.normal(base, 0.08, corpus.n_lines), 0, 1)]


def _comet_json(corpus, with_errors=False):
    doc = {}
    for k, s in enumerate(SYSTEMS):
        segs = []
        for i, (mt, score) in enumerate(zip(corpus.systems[s], _fake_scores(corpus, k), strict=True)):
            seg = {"src": "…", "mt": mt, "ref": corpus.references["ref"][i], "COMET": score}
            if with_errors and i == 0:
                word = mt.split()[1]
                start = mt.index(word)
                seg["errors"] = [
                    {"text": word, "confidence": 0.9, "severity": "major", "start": start, "end": start + len(word)},
                    # shifted by one, as COMET issue #179 reports for leading whitespace: repaired
                    {
                        "text": mt.split()[2],
                        "confidence": 0.4,
                        "severity": "minor",
                        "start": mt.index(mt.split()[2]) + 1,
                        "end": mt.index(mt.split()[2]) + 1 + len(mt.split()[2]),
                    },
                ]
            segs.append(seg)
        doc[f"/outputs/{s}.txt"] = segs
    return json.dumps(doc).encode()


def test_comet_json_means_are_exact(corpus):
    (imp,) = read_scores(_comet_json(corpus), "comet.json", corpus)
    assert imp.name == "comet" and imp.higher_is_better
    res = result_for(corpus, imp)
    for k, s in enumerate(SYSTEMS):
        assert res.scores[s] == pytest.approx(statistics.fmean(_fake_scores(corpus, k)), abs=1e-15)
        np.testing.assert_array_equal(res.sentence_scores(s), _fake_scores(corpus, k))
    assert "metric:comet|file:comet.json" in res.signature


def test_xcomet_spans_are_kept_and_repaired(corpus):
    (imp,) = read_scores(_comet_json(corpus, with_errors=True), "xcomet.json", corpus)
    assert imp.name == "xcomet"
    spans = imp.spans["UEdin"][0]
    line = corpus.systems["UEdin"][0]
    assert [line[s.start : s.end] for s in spans] == [line.split()[1], line.split()[2]]  # offsets match the text
    assert [s.severity for s in spans] == ["major", "minor"]
    assert any("repaired" in n for n in imp.notes)


def test_ar_p_values_on_imported_scores_agree_with_scipy(corpus):
    """Approximate randomisation on a mean score is a paired sign-flip permutation test of the mean
    difference: scipy.stats.permutation_test (permutation_type='samples') is an independent implementation."""
    (imp,) = read_scores(_comet_json(corpus), "comet.json", corpus)
    res = result_for(corpus, imp)
    cmp = compare(res, "ar", n=20000, seed=1)
    assert sum(0.02 < p.p_value < 0.9 for p in cmp.pairs) >= 3  # not only trivial p-values
    for a, b in (("Online-W", "HuaweiTSC"), ("VolcTrans-GLAT", "Online-W"), ("VolcTrans-GLAT", "UEdin")):
        pair = next(p for p in cmp.pairs if {p.a, p.b} == {a, b})
        x, y = res.sentence_scores(a), res.sentence_scores(b)
        theirs = sps.permutation_test(
            (x, y),
            lambda u, v: np.mean(u) - np.mean(v),
            permutation_type="samples",
            n_resamples=20000,
            random_state=2,
            alternative="two-sided",
        ).pvalue
        assert pair.p_value == pytest.approx(theirs, abs=0.015), (a, b)


def test_comet_text_metricx_mme_and_tsv(corpus, tmp_path):
    text = []
    for k, s in enumerate(SYSTEMS):
        vals = _fake_scores(corpus, k)
        text += [f"out/{s}.txt\tSegment {i}\tscore: {v:.4f}" for i, v in enumerate(vals)]
        text.append(f"out/{s}.txt\tscore: {statistics.fmean(vals):.4f}")
    (imp,) = read_scores("\n".join(text).encode(), "comet.txt", corpus)
    assert imp.name == "comet" and imp.scores["UEdin"][5] == pytest.approx(round(_fake_scores(corpus, 3)[5], 4))
    files = []
    for k, s in enumerate(SYSTEMS):
        rows = [
            json.dumps({"source": "…", "hypothesis": h, "prediction": 25 * (1 - v)})
            for h, v in zip(corpus.systems[s], _fake_scores(corpus, k), strict=True)
        ]
        files.append((f"{s}.jsonl", ("\n".join(rows) + "\n").encode()))
    mx = [
        read_scores(d, n, Corpus.build(dict(corpus.references), {n[:-6]: corpus.systems[n[:-6]]}))[0] for n, d in files
    ]
    assert all(m.name == "metricx" and not m.higher_is_better for m in mx)
    mme = "\n".join(f"{s} {v}" for k, s in enumerate(SYSTEMS) for v in _fake_scores(corpus, k))
    (m,) = read_scores(mme.encode(), "BLEURT-20-refA.seg.score", corpus)
    assert m.name == "bleurt-20" and m.scores["Online-W"][0] == _fake_scores(corpus, 1)[0]
    tsv = "system\tline\tCOMET-22\tMetricX-24\n" + "".join(
        f"{s}\t{i + 1}\t{v}\t{25 * (1 - v)}\n"
        for k, s in enumerate(SYSTEMS)
        for i, v in enumerate(_fake_scores(corpus, k))
    )
    got = read_scores(tsv.encode(), "scores.tsv", corpus)
    assert [g.name for g in got] == ["comet-22", "metricx-24"] and [g.higher_is_better for g in got] == [True, False]


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda d: d.pop("/outputs/UEdin.txt"), "has no comet scores for system(s) UEdin"),
        (lambda d: d["/outputs/UEdin.txt"].pop(), "system 'UEdin' has 199 comet scores, the test set has 200 lines"),
        (
            lambda d: d["/outputs/UEdin.txt"][3].update(COMET=float("nan")),
            "system 'UEdin' line 4: the score nan is not a finite number",
        ),
        (lambda d: d["/outputs/UEdin.txt"][7].update(COMET="good"), "system 'UEdin' line 8: 'good' is not a number"),
        (lambda d: d["/outputs/UEdin.txt"][9].update(COMET=None), "system 'UEdin' line 10 has no score"),
    ],
)
def test_bad_comet_files_are_sentences(corpus, mutate, needle):
    doc = json.loads(_comet_json(corpus))
    mutate(doc)
    with pytest.raises(InputError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        read_scores(json.dumps(doc).encode(), "comet.json", corpus)


def test_other_bad_files(corpus):
    with pytest.raises(InputError, match="is not a scores file"):
        read_scores(b"hello\n", "notes.txt", corpus)
    with pytest.raises(InputError, match="is not valid JSON"):
        read_scores(b"{", "c.json", corpus)
    with pytest.raises(InputError, match="has no 'prediction'"):
        read_scores(b'{"x": 1}\n', "m.jsonl", corpus)
    mme = "\n".join(f"{s} None" for s in SYSTEMS for _ in range(200))
    with pytest.raises(InputError, match="line 1 has no score"):
        read_scores(mme.encode(), "X-refA.seg.score", corpus)
    with pytest.raises(InputError, match="two score files give a metric named 'comet'"):
        read_score_files([("a.json", _comet_json(corpus)), ("b.json", _comet_json(corpus))], corpus)


def test_cli_scores_file_is_a_metric_everywhere(corpus, tmp_path, capsys):
    path = tmp_path / "comet.json"
    path.write_bytes(_comet_json(corpus))
    data = [
        "--ref",
        str(SAMPLE / "ref.txt"),
        "--ref",
        str(SAMPLE / "ref2.txt"),
        "--sys",
        *[str(SAMPLE / f"{s}.txt") for s in SYSTEMS],
    ]
    assert main(["score", *data, "--scores", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    first = doc["systems"][0]
    assert set(first["scores"]) == {"bleu", "chrf", "comet"}
    assert main(["score", *data, "--scores", str(path), "--metrics", "comet,ter", "--format", "json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["systems"][0]["scores"]) == {"comet", "ter"}
    assert (
        main(
            [
                "compare",
                *data,
                "--scores",
                str(path),
                "--metrics",
                "comet",
                "--test",
                "ar",
                "--n",
                "500",
                "--format",
                "json",
            ]
        )
        == 0
    )
    cmp = json.loads(capsys.readouterr().out)
    assert len(cmp["pairs"]) == 6 and cmp["clusters"]["comet"]
    assert main(["score", *data, "--scores", str(path), "--metrics", "cometx"]) == 2
    assert "unknown metric 'cometx'; choose from bleu" in capsys.readouterr().err
