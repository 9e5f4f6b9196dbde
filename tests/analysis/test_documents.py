"""Documents and domains (issue 35): document-level resampling, scores by group, the smallest detectable delta.

Golden values: a cluster bootstrap written plainly here (documents drawn with the same generator calls, each
resample's lines concatenated, the mean of their scores), the segment-level test itself (one segment per
document must give it bit for bit), sacrebleu 2.6.0 on each domain's lines (full data), and the closed form
of a mean's standard error.
"""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF

from mtlens import Corpus, score
from mtlens.analysis.groups import NO_LABEL, group_scores, labels_for
from mtlens.analysis.significance import compare
from mtlens.core.errors import InputError
from mtlens.readers.scores import ImportedScores
from mtlens.readers.testset import documents_notes, load_corpus, read_documents
from mtlens.runtime.scoring import result_for

from ..conftest import SAMPLE, SHARED, read

SYSTEMS = ("UEdin", "Online-W", "HuaweiTSC")


def _sample():
    return load_corpus([SAMPLE / "ref.txt", SAMPLE / "ref2.txt"], [SAMPLE / f"{s}.txt" for s in SYSTEMS])


@pytest.mark.parametrize("test", ["bootstrap", "ar"])
def test_one_segment_per_document_is_the_segment_level_test_bit_for_bit(test):
    res = score(_sample(), "bleu")["bleu"]
    seg = compare(res, test, n=400, seed=11)
    doc = compare(res, test, n=400, seed=11, documents=[f"d{i}" for i in range(200)])
    assert [(p.a, p.b, p.p_value, p.p_holm) for p in seg.pairs] == [(p.a, p.b, p.p_value, p.p_holm) for p in doc.pairs]
    assert {s: (c.low, c.high, c.mean) for s, c in seg.systems.items()} == {
        s: (c.low, c.high, c.mean) for s, c in doc.systems.items()
    }
    assert doc.resample == "documents" and "resample:documents" in doc.signature
    assert "resample" not in seg.signature


def _mean_result(scores_by_system: dict[str, np.ndarray]):
    n = len(next(iter(scores_by_system.values())))
    corpus = Corpus.build({"ref": ["x"] * n}, {s: ["x"] * n for s in scores_by_system})
    return result_for(corpus, ImportedScores("score", True, scores_by_system, "test"))


def test_document_intervals_equal_a_plain_cluster_bootstrap():
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 12, size=60)  # 60 documents of 1-11 segments
    documents = [f"doc{k}" for k, size in enumerate(sizes) for _ in range(size)]
    effect = np.repeat(rng.normal(0, 0.2, len(sizes)), sizes)  # a document effect: correlated segments
    a = 0.5 + effect + rng.normal(0, 0.05, len(documents))
    b = a + 0.01 + rng.normal(0, 0.05, len(documents))
    res = _mean_result({"A": a, "B": b})
    got = compare(res, "bootstrap", n=500, seed=5, documents=documents)
    # the same draws written plainly: documents with replacement, their segments concatenated, the mean
    draws = np.random.default_rng(5).choice(len(sizes), size=(500, len(sizes)), replace=True)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    for name, x in (("A", a), ("B", b)):
        means = np.array([np.concatenate([x[starts[d] : starts[d + 1]] for d in row]).mean() for row in draws])
        lo, hi = np.percentile(means, [2.5, 97.5])
        assert got.systems[name].low == pytest.approx(lo, abs=1e-12)
        assert got.systems[name].high == pytest.approx(hi, abs=1e-12)
    seg = compare(res, "bootstrap", n=500, seed=5)
    assert got.systems["A"].ci > 1.5 * seg.systems["A"].ci  # correlated segments: a much wider interval
    assert any("times as wide as segment-level" in n for n in got.notes)


def test_a_documents_file_and_what_is_said_about_it(tmp_path):
    docs, domains = read_documents(b"d1\tnews\nd1\tnews\nd2\nd1\tnews\n", "docs.tsv", 4)
    assert docs == ["d1", "d1", "d2", "d1"] and domains == ["news", "news", "", "news"]
    notes = documents_notes(docs, domains)
    assert "1 document(s) have lines that are not next to each other (e.g. 'd1')" in notes[0]
    assert "1 lines have no domain" in notes[1]
    with pytest.raises(InputError, match="has 2 lines; the test set has 4"):
        read_documents(b"a\nb\n", "docs.tsv", 4)
    with pytest.raises(InputError, match="line 2 of the documents file 'docs.tsv' has no document id"):
        read_documents(b"a\n\tnews\n", "docs.tsv", 2)
    assert read_documents(b"a\nb\n", "docs.tsv", 2)[1] is None


def test_groups_sum_the_statistics_of_their_lines():
    corpus = _sample().with_documents([f"d{i // 20}" for i in range(200)], ["news"] * 100 + [""] * 100)
    results = score(corpus, "bleu,chrf")
    groups = group_scores(results, labels_for(corpus, "domain"))
    assert [(g.name, len(g.lines)) for g in groups] == [("news", 100), (NO_LABEL, 100)]
    refs = [read(SAMPLE / "ref.txt"), read(SAMPLE / "ref2.txt")]
    for g in groups:
        lines = list(g.lines)
        sub = [[r[i] for i in lines] for r in refs]
        for s in SYSTEMS:
            hyp = [read(SAMPLE / f"{s}.txt")[i] for i in lines]
            assert g.scores["bleu"][s] == pytest.approx(SacreBLEU().corpus_score(hyp, sub).score, abs=1e-9)
            assert g.scores["chrf"][s] == pytest.approx(SacreCHRF().corpus_score(hyp, sub).score, abs=1e-9)
    assert len(group_scores(results, labels_for(corpus, "document"))) == 10
    with pytest.raises(InputError, match="this test set has no domains"):
        labels_for(_sample(), "domain")


def test_the_smallest_detectable_delta_shrinks_as_lines_are_added():
    rng = np.random.default_rng(3)
    a = rng.uniform(0.3, 0.7, 200)
    b = a + rng.normal(0.0, 0.1, 200)
    mdd = []
    for k in (1, 2, 4, 8):  # the same lines k times: the standard error falls as 1 / sqrt(k)
        res = _mean_result({"A": np.tile(a, k), "B": np.tile(b, k)})
        (pair,) = compare(res, n=1000, seed=1).pairs
        mdd.append(pair.min_detectable_delta)
        closed = np.std(b - a) / np.sqrt(200 * k) * 2.8016  # (z(0.975) + z(0.8)) * the closed-form SE
        assert pair.min_detectable_delta == pytest.approx(closed, rel=0.1)
    assert mdd == sorted(mdd, reverse=True)


@pytest.mark.shared
def test_each_domain_of_the_en_zh_xml_equals_sacrebleu():
    """wmttest2022.en-zh: every system's BLEU (zh tokenizer) and chrF on each domain's lines, both references."""
    from mtlens.service.evaluation import evaluate

    corpus = evaluate(load_corpus(data=SHARED / "wmt22-xml" / "wmttest2022.en-zh.all.xml"), "en-zh").corpus
    assert corpus.document_count == 181 and sorted(set(corpus.domains)) == [
        "conversation",
        "ecommerce",
        "news",
        "social",
    ]
    results = score(corpus, "bleu,chrf", tokenize="zh")
    groups = group_scores(results, labels_for(corpus, "domain"))
    refs = list(corpus.references.values())
    assert len(refs) == 2
    for g in groups:
        lines = list(g.lines)
        sub = [[r[i] for i in lines] for r in refs]
        bleu, chrf = SacreBLEU(tokenize="zh", references=sub), SacreCHRF(references=sub)
        for s, hyp_all in corpus.systems.items():
            hyp = [hyp_all[i] for i in lines]
            assert g.scores["bleu"][s] == pytest.approx(bleu.corpus_score(hyp, None).score, abs=1e-9), (g.name, s)
            assert g.scores["chrf"][s] == pytest.approx(chrf.corpus_score(hyp, None).score, abs=1e-9), (g.name, s)
    # its documents make the intervals wider than segments do
    cmp = compare(results["chrf"], n=1000, seed=1, documents=corpus.documents)
    seg = compare(results["chrf"], n=1000, seed=1)
    widths = [cmp.systems[s].ci / seg.systems[s].ci for s in corpus.systems]
    assert np.median(widths) > 1.2, widths


def test_a_set_made_from_mqm_annotations_keeps_their_documents():
    from mtlens.readers.mqm import corpus_of, read_mqm_tsv

    from ..conftest import TESTDATA

    data = (TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv").read_bytes()
    rows = [r.split("\t") for r in data.decode("utf-8").splitlines()[1:]]
    want = {(r[3].strip(), r[1].strip()) for r in rows}  # (seg_id, doc) as the file says
    ann = read_mqm_tsv(data, "mqm.tsv")
    corpus = corpus_of(ann)
    assert set(zip(ann.seg_ids, corpus.documents, strict=True)) == want


def test_a_domain_tested_on_its_own_is_the_test_of_its_lines_alone():
    from mtlens.analysis.groups import group_clusters, restricted

    corpus = _sample()
    res = score(corpus, "chrf")["chrf"]
    lines = list(range(40, 160))
    alone = Corpus.build(
        {k: [v[i] for i in lines] for k, v in corpus.references.items()},
        {k: [v[i] for i in lines] for k, v in corpus.systems.items()},
    )
    want = compare(score(alone, "chrf")["chrf"], seed=9)
    got = compare(restricted(res, lines), seed=9)
    assert [(p.a, p.b, p.p_value) for p in got.pairs] == [(p.a, p.b, p.p_value) for p in want.pairs]
    assert got.clusters == want.clusters
    corpus = corpus.with_documents([f"d{i}" for i in range(200)], ["x"] * 120 + ["tiny"] * 20 + ["x"] * 60)
    groups = group_scores({"chrf": res}, labels_for(corpus, "domain"))
    clusters = group_clusters(res, groups, 9)
    assert set(clusters["x"].values()) <= {1, 2, 3} and clusters["tiny"] == dict.fromkeys(SYSTEMS)  # 20 lines: no test


def _holm_plain(ps):
    """Holm's step-down adjustment written out (for the slices' golden values)."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out


def test_slices_find_where_b_is_better_and_are_holm_corrected():
    from mtlens.analysis.slices import slices

    refs = [read(SAMPLE / "ref.txt")]
    a = read(SAMPLE / "UEdin.txt")
    # B: A, except where the source has digits (there B is the reference) and a few punctuation-only changes
    src = read(SAMPLE / "src.txt")
    digits = [any(ch.isdigit() for ch in x) for x in src]
    b = [r if d else x for r, d, x in zip(refs[0], digits, a, strict=True)]
    b = [x.rstrip(".") if i % 7 == 0 and not digits[i] and x.endswith(".") else x for i, x in enumerate(b)]
    corpus = Corpus.build({"ref": refs[0]}, {"A": a, "B": b}, src)
    res = score(corpus, "chrf")["chrf"]
    doc = slices(corpus, res, "A", "B", seed=4)
    by_name = {s["slice"]: s for s in doc["slices"]}
    top = doc["slices"][0]
    assert top["slice"] == "source has digits" and top["delta"] > 10 and top["significant"]
    lines = [i for i, d in enumerate(digits) if d]
    sa = SacreCHRF().corpus_score([a[i] for i in lines], [[refs[0][i] for i in lines]]).score
    sb = SacreCHRF().corpus_score([b[i] for i in lines], [[refs[0][i] for i in lines]]).score
    assert (top["a"], top["b"]) == (pytest.approx(sa, abs=1e-9), pytest.approx(sb, abs=1e-9))
    assert by_name["A and B differ only in punctuation or spacing"]["lines"] > 0
    tested = [s for s in doc["slices"] if s["p_value"] is not None]
    want = _holm_plain([s["p_value"] for s in tested])
    assert [s["p_holm"] for s in tested] == pytest.approx(want)
    assert all(s["p_value"] is None for s in doc["slices"][len(tested) :])  # untested slices come last


def test_slices_and_history_resample_documents_and_one_segment_per_document_changes_nothing(tmp_path):
    from mtlens.analysis.slices import slices
    from mtlens.service.runs import add_run, history
    from mtlens.storage.store import Store

    corpus = _sample()
    res = score(corpus, "chrf")["chrf"]
    per_line = corpus.with_documents([f"s{i}" for i in range(200)], ["x"] * 200)
    seg = slices(per_line, res, "UEdin", "Online-W", seed=2)
    one = slices(per_line, res, "UEdin", "Online-W", seed=2, resample="documents")
    assert [(s["slice"], s["p_value"]) for s in seg["slices"]] == [(s["slice"], s["p_value"]) for s in one["slices"]]
    fives = corpus.with_documents([f"d{i // 5}" for i in range(200)], ["x"] * 200)
    five = slices(fives, res, "UEdin", "Online-W", seed=2, resample="documents")
    assert five["resample"] == "documents"
    # a slice is tested over documents only when it has 30 documents or more
    from mtlens.analysis.slices import slice_masks

    docs_of = {
        name: len({fives.documents[i] for i in lines}) for _, name, lines in slice_masks(fives, "UEdin", "Online-W")
    }
    for s in five["slices"]:
        assert (s["p_value"] is not None) == (s["lines"] >= 30 and docs_of[s["slice"]] >= 30), s
    assert any(s["p_value"] is None and s["lines"] >= 30 for s in five["slices"])  # a case that matters
    store = Store(tmp_path)
    sid = store.save(fives, "docs")
    text = ("\n".join(read(SAMPLE / "VolcTrans-GLAT.txt")) + "\n").encode()
    add_run(store, sid, text, "v.txt", name="v1", family="f", at="2026-01-01")
    add_run(
        store,
        sid,
        ("\n".join(read(SAMPLE / "HuaweiTSC.txt")) + "\n").encode(),
        "h.txt",
        name="v2",
        family="f",
        at="2026-01-02",
    )
    h_seg = history(store, sid, family="f", metrics="chrf", seed=3)
    h_doc = history(store, sid, family="f", metrics="chrf", seed=3, resample="documents")
    assert h_doc.resample == "documents" and h_doc.steps["chrf"]["v2"].delta == h_seg.steps["chrf"]["v2"].delta
    assert h_doc.high["chrf"]["v1"] - h_doc.low["chrf"]["v1"] != h_seg.high["chrf"]["v1"] - h_seg.low["chrf"]["v1"]
