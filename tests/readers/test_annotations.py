"""MQM annotations (issue 21): the reader, MQM scores from ratings equal to the publisher's own
per-segment averages, bad annotations reported by line, and the command-line contract."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from mtlens.core.errors import InputError
from mtlens.readers.mqm import mqm_scores, parse_weights, read_mqm_tsv, segment_score, strip_spans

from ..conftest import ROOT, SHARED, TESTDATA

#: the averages name the rated human translations ref-A / ref-B where the ratings say ref / refB
ALIAS = {"ref": "ref-A", "refB": "ref-B"}


def _gold(path):
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        system, value, seg = line.split()
        out[(system, seg)] = None if value == "None" else float(value)
    return out


def _check_against_publisher(tsv, avg):
    ann = read_mqm_tsv(tsv.read_bytes(), tsv.name)
    gold = _gold(avg)
    checked = 0
    for system, values in mqm_scores(ann).items():
        for seg, value in zip(ann.seg_ids, values, strict=True):
            want = gold[(ALIAS.get(system, system), seg)]
            assert (value is None) == (want is None), (system, seg)
            if value is not None:
                assert value == pytest.approx(want, abs=1e-6), (system, seg)
                checked += 1
    return ann, checked


@pytest.mark.parametrize("pair", ["ende", "zhen"])
def test_mqm_equals_the_publishers_averages_on_the_bundled_excerpt(pair):
    folder = TESTDATA / "mqm"
    ann, checked = _check_against_publisher(
        folder / f"mqm_ted_{pair}.excerpt.tsv", folder / f"mqm_ted_{pair}.excerpt.avg_seg_scores.tsv"
    )
    assert len(ann.seg_ids) == 12 and checked == 12 * len(ann.systems)


@pytest.mark.shared
@pytest.mark.parametrize(("pair", "systems"), [("ende", 14), ("zhen", 15)])
def test_mqm_equals_the_publishers_averages_for_every_system_and_segment(pair, systems):
    folder = SHARED / "mqm-ted"
    ann, checked = _check_against_publisher(
        folder / f"mqm_ted_{pair}.tsv", folder / f"mqm_ted_{pair}.avg_seg_scores.tsv"
    )
    assert len(ann.systems) == systems and len(ann.seg_ids) == 529 and checked == systems * 529


def test_spans_are_character_offsets_into_the_text_without_tags():
    text, spans, problem = strip_spans("Ich möchte <v>euch</v> alle bitten")
    assert text == "Ich möchte euch alle bitten" and text[spans[0][0] : spans[0][1]] == "euch" and problem is None
    text, spans, _ = strip_spans("我们<v>必须</v>考虑")
    assert text[spans[0][0] : spans[0][1]] == "必须"
    assert strip_spans("a <v>b")[2] == "a <v> without its </v>"
    assert strip_spans("a </v>b")[2] == "a </v> without its <v>"


HEAD = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"


def _tsv(*rows) -> bytes:
    return (HEAD + "".join("\t".join(r) + "\n" for r in rows)).encode()


def test_scores_by_hand_and_editable_weights():
    data = _tsv(
        ("A", "d", "1", "1", "r1", "src", "x <v>y</v> z", "Accuracy/Mistranslation", "Major", ""),
        ("A", "d", "1", "1", "r1", "src", "x y <v>z</v>", "Fluency/Punctuation", "Minor", ""),
        ("A", "d", "1", "1", "r2", "src", "x y z", "No-error", "No-error", ""),
        ("A", "d", "1", "2", "r1", "src2", "<v>q</v>", "Non-translation!", "Major", ""),
    )
    ann = read_mqm_tsv(data, "t.tsv")
    # segment 1: r1 5 + 0.1, r2 0 -> -(5.1 + 0) / 2; segment 2: non-translation 25, one rater
    assert mqm_scores(ann) == {"A": [pytest.approx(-2.55), -25.0]}
    heavy = parse_weights('{"major": 10, "minor:fluency/punctuation": 1}')
    assert segment_score(ann.segments[("A", "1")], heavy) == pytest.approx(-(10 + 1) / 2)
    for bad in ('{"major": -1}', '{"major": "x"}', "[1]", "{"):
        with pytest.raises(InputError):
            parse_weights(bad)


def test_bad_annotations_are_reported_by_line_never_dropped():
    data = _tsv(
        ("A", "d", "1", "1", "r1", "s", "a <v>b <v>c</v></v>", "Style/Awkward", "Minor", ""),
        ("A", "d", "1", "1", "r1", "s", "a <v>b c", "Style/Awkward", "Major", ""),
        ("A", "d", "1", "1", "r2", "s", "a b c", "Accuracy/Omission", "Catastrophic", ""),
        ("A", "d", "1", "1", "r2", "s", "a b c", "Accuracy/Omission", "Catastrophic", ""),
        ("A", "d", "1", "1", "r3", "s", "a b C <v>d</v>", "Fluency/Spelling", "Minor", ""),
    )
    ann = read_mqm_tsv(data, "bad.tsv")
    text = "\n".join(ann.problems)
    assert "line 2: nested <v> tags" in text and "line 3: a <v> without its </v>" in text
    assert "line 4: unknown severity 'Catastrophic'" in text and "line 5: the same error as an earlier row" in text
    assert "line 6: rater r3 saw another hypothesis" in text
    seg = ann.segments[("A", "1")]
    assert len(seg.errors) == 5 and seg.raters == ("r1", "r2", "r3")  # every row kept
    assert all(e.start is None for e in seg.errors[:2])  # unreadable tags: no span, still counted
    with pytest.raises(InputError, match="has 3 fields"):
        read_mqm_tsv(b"a\tb\tc\n", "x.tsv")


def _run(*args):
    return subprocess.run([sys.executable, "-m", "mtlens", *args], capture_output=True, text=True, cwd=ROOT)


def test_command_line_contract(tmp_path):
    tsv = TESTDATA / "mqm" / "mqm_ted_zhen.excerpt.tsv"
    r = _run("import", "--ratings", str(tsv), "--name", "TED zh-en", "--data-dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    sid = r.stdout.strip()
    assert len(sid) == 32 and "no reference" in r.stderr
    r = _run(
        "score", "--set", sid, "--metrics", "mqm", "--sentence-level", "--format", "json", "--data-dir", str(tmp_path)
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    gold = _gold(TESTDATA / "mqm" / "mqm_ted_zhen.excerpt.avg_seg_scores.tsv")
    ann = read_mqm_tsv(tsv.read_bytes(), tsv.name)
    for row in doc["systems"]:
        sentences = row["sentences"]["mqm"]
        want = [gold[(ALIAS.get(row["name"], row["name"]), seg)] for seg in ann.seg_ids]
        assert sentences == pytest.approx(want, abs=1e-6)
        assert row["scores"]["mqm"] == pytest.approx(sum(want) / len(want), abs=1e-9)  # the mean of its segments
    r = _run("score", "--set", sid, "--metrics", "bleu", "--data-dir", str(tmp_path))
    assert r.returncode == 2 and "needs a reference translation" in r.stderr
    r = _run("score", "--set", sid, "--data-dir", str(tmp_path), "--mqm-weights", '{"major": 25}', "--format", "json")
    assert r.returncode == 0 and "mqm" in json.loads(r.stdout)["signatures"]  # defaults: the set's own metrics


def test_unrated_segments_are_null_and_left_out_of_the_mean(tmp_path):
    data = _tsv(
        ("A", "d", "1", "1", "r1", "s1", "<v>a</v>", "Style/Awkward", "Minor", ""),
        ("A", "d", "1", "2", "r1", "s2", "b", "No-error", "No-error", ""),
        ("B", "d", "1", "1", "r1", "s1", "c", "No-error", "No-error", ""),
    )
    f = tmp_path / "r.tsv"
    f.write_bytes(data)
    sid = _run("import", "--ratings", str(f), "--data-dir", str(tmp_path)).stdout.strip()
    r = _run(
        "score", "--set", sid, "--metrics", "mqm", "--sentence-level", "--format", "json", "--data-dir", str(tmp_path)
    )
    rows = {row["name"]: row for row in json.loads(r.stdout)["systems"]}
    assert rows["A"]["sentences"]["mqm"] == [-1.0, 0.0] and rows["A"]["scores"]["mqm"] == -0.5
    assert rows["B"]["sentences"]["mqm"] == [0.0, None] and rows["B"]["scores"]["mqm"] == 0.0


def test_an_annotated_set_survives_a_bundle_round_trip(tmp_path):
    from mtlens.service.bundles import export_bundle, import_bundle
    from mtlens.service.evaluation import evaluate_annotations, open_saved, save
    from mtlens.storage.store import Store

    tsv = TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv"
    st = Store(tmp_path)
    sid = save(st, evaluate_annotations(tsv.read_bytes(), tsv.name), "ted").set_id
    other = Store(tmp_path / "other")
    back = open_saved(other, import_bundle(other, export_bundle(st, sid)))
    assert back.annotations == ((tsv.name, tsv.read_bytes()),) and not back.corpus.references
    assert back.corpus.systems == open_saved(st, sid).corpus.systems


def test_summaries_by_hand():
    from types import SimpleNamespace

    from mtlens.analysis.mqm_summary import disagreements, document_scores, error_counts, rater_agreement, span_overlap

    data = _tsv(
        ("A", "d1", "1", "1", "r1", "s", "x <v>yy</v> z", "Accuracy/Mistranslation", "Major", ""),
        ("A", "d1", "1", "1", "r2", "s", "x <v>yy</v> z", "Accuracy/Mistranslation", "Minor", ""),
        ("A", "d1", "1", "2", "r1", "s", "q", "No-error", "No-error", ""),
        ("A", "d1", "1", "2", "r2", "s", "q", "No-error", "No-error", ""),
        ("A", "d2", "2", "3", "r1", "s", "<v>w</v>", "Fluency/Grammar", "Minor", ""),
        ("A", "d2", "2", "3", "r2", "s", "<v>w</v>", "Fluency/Grammar", "Minor", ""),
    )
    ann = read_mqm_tsv(data, "t.tsv")
    counts = {(r["category"], r["severity"]): r for r in error_counts(ann)}
    # 6 ratings of A (3 segments x 2 raters): 1 major mistranslation -> 100 * 1 / 6
    assert counts[("Accuracy/Mistranslation", "Major")]["per 100 segments"] == pytest.approx(100 / 6)
    assert counts[("Fluency/Grammar", "Minor")]["errors"] == 2
    docs = {r["document"]: r for r in document_scores(ann)}
    # d1: segment 1 -(5 + 1) / 2 = -3, segment 2 0 -> mean -1.5; d2: -(1 + 1) / 2 = -1
    assert docs["d1"]["mqm"] == pytest.approx(-1.5) and docs["d2"]["mqm"] == pytest.approx(-1.0)
    (pair,) = rater_agreement(ann)
    # r1: -5, 0, -1; r2: -1, 0, -1 -> same score on 2 of 3
    assert pair["shared ratings"] == 3 and pair["same score"] == pytest.approx(2 / 3)
    assert pair["pearson"] == pytest.approx(np.corrcoef([-5, 0, -1], [-1, 0, -1])[0, 1])
    worst = disagreements(ann, "A", [3.0, 1.0, 2.0])  # the metric likes line 1 best, MQM likes it least
    assert worst[0]["line"] == 1 and worst[0]["disagreement"] == pytest.approx(1.0)
    sp = SimpleNamespace
    # gold chars: line 1 {2, 3}, line 3 {0}; predicted: line 1 {3, 4}, line 3 {0}: tp 2, fp 1, fn 1
    got = span_overlap(ann, {"A": [[sp(start=3, end=5)], [], [sp(start=0, end=1)]]})
    assert (got["precision"], got["recall"], got["f1"]) == pytest.approx((2 / 3, 2 / 3, 2 / 3))


def test_annotations_added_to_a_set_must_annotate_its_hypotheses(tmp_path):
    from mtlens import Corpus
    from mtlens.service.evaluation import add_annotations, open_saved
    from mtlens.storage.store import Store

    tsv = TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv"
    ann = read_mqm_tsv(tsv.read_bytes(), tsv.name)
    systems = {s: ann.hypotheses(s) for s in ann.systems}
    refs = {"ref": [f"reference {k}" for k in range(len(ann.seg_ids))]}
    st = Store(tmp_path)
    good = st.save(Corpus.build(refs, systems), "with refs")
    add_annotations(st, good, tsv.name, tsv.read_bytes())
    ev = open_saved(st, good)
    assert ev.annotations and ev.corpus.references  # lexical metrics and MQM side by side
    changed = dict(systems)
    changed["Nemo"] = [*systems["Nemo"][:3], "something else", *systems["Nemo"][4:]]
    bad = st.save(Corpus.build(refs, changed), "other text")
    with pytest.raises(InputError, match="system 'Nemo' has another text than the set on line\\(s\\) 4"):
        add_annotations(st, bad, tsv.name, tsv.read_bytes())
    assert not open_saved(st, bad).annotations  # nothing saved
    r = _run("import", "--ratings", str(tsv), "--set", good, "--data-dir", str(tmp_path))
    assert r.returncode == 2 and "already has annotations named" in r.stderr


def test_mt_metrics_eval_seg_rating_files_annotate_a_set(tmp_path):
    """The format mt-metrics-eval writes (ratings.WriteRatingFile): SYSTEM, the Rating as JSON, RATER."""
    from mtlens import Corpus
    from mtlens.service.evaluation import add_annotations, annotation_metrics, open_saved
    from mtlens.storage.store import Store

    corpus = Corpus.build({"ref": ["a b c", "d e", "f"]}, {"A": ["a x c", "d e", "g"], "B": ["a b c", "d", "f"]})
    err = lambda s, e, cat, sev, src=False: {  # noqa: E731
        "start": s,
        "end": e,
        "category": cat,
        "severity": sev,
        "score": None,
        "is_source_error": src,
    }
    rows = [
        ("A", {"errors": [err(2, 3, "accuracy/mistranslation", "major")]}, "r1"),
        ("A", {"errors": []}, "r1"),
        (
            "A",
            {"errors": [err(0, 1, "fluency/punctuation", "minor"), err(0, 3, "accuracy/omission", "major", True)]},
            "r2",
        ),
        ("B", None, None),
        ("B", {"errors": [err(0, 1, "fluency/grammar", "minor")]}, "r2"),
        ("B", {"errors": []}, "r2"),
    ]
    text = "".join(f"{s}\tNone\n" if r is None else f"{s}\t{json.dumps(r)}\t{who}\n" for s, r, who in rows)
    st = Store(tmp_path)
    sid = st.save(corpus, "mtme")
    ann = add_annotations(st, sid, "en-de.mqm.seg.rating", text.encode())
    seg = ann.segments[("A", "1")]
    assert corpus.systems["A"][0][seg.errors[0].start : seg.errors[0].end] == "x"
    assert ann.segments[("A", "3")].errors[1].start is None  # a source error keeps no span on the hypothesis
    (mqm,) = annotation_metrics(corpus, open_saved(st, sid).annotations)
    # by hand: A -5, 0, -(0.1 + 5); B unrated, -1, 0
    assert list(mqm.scores["A"]) == pytest.approx([-5.0, 0.0, -5.1])
    assert np.isnan(mqm.scores["B"][0]) and list(mqm.scores["B"][1:]) == [-1.0, 0.0]
    bad = text.replace('"start": 2, "end": 3', '"start": 2, "end": 30')
    sid2 = st.save(corpus, "mtme2")
    assert any("outside the hypothesis" in p for p in add_annotations(st, sid2, "x.seg.rating", bad.encode()).problems)
    with pytest.raises(InputError, match="rates 2 segments of system 'B'; the set has 3"):
        add_annotations(st, sid2, "short.seg.rating", text.rsplit("B\t", 1)[0].encode())


def test_a_file_read_again_is_not_parsed_again_and_the_collector_comes_back():
    """Issue 62: the upload's check, the set, the page's MQM metric and the Annotations page each read the same file
    (a 400,000-row file took seconds each time); the same bytes under the same name are parsed once, another file or
    another name is parsed anew. The garbage collector is off while a file is parsed and back as it was after,
    also when the file is refused and when two threads read at once."""
    import gc
    import threading

    from mtlens.readers import mqm
    from mtlens.readers.lines import collector_paused

    data = (TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv").read_bytes()
    parses = []
    real = mqm._read_mqm_tsv

    def counted(*a):
        parses.append(gc.isenabled())
        return real(*a)

    mqm._READ.clear()
    try:
        mqm._read_mqm_tsv = counted
        first = read_mqm_tsv(data, "a.tsv")
        assert read_mqm_tsv(bytes(data), "a.tsv") is first  # equal bytes, another object: not parsed again
        assert parses == [False] and gc.isenabled()
        other = read_mqm_tsv(data, "b.tsv")  # the name is part of every sentence about the file
        assert other is not first and other.segments == first.segments
        changed = read_mqm_tsv(data.replace(b"\tMajor\t", b"\tMinor\t", 1), "a.tsv")
        assert changed is not first and len(parses) == 3
        with pytest.raises(InputError):
            read_mqm_tsv(b"a\tb\n", "bad.tsv")
        assert gc.isenabled()
    finally:
        mqm._read_mqm_tsv = real
        mqm._READ.clear()

    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off before: left off
    finally:
        gc.enable()
    inside, leave = threading.Event(), threading.Event()

    def hold():
        with collector_paused():
            inside.set()
            leave.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    inside.wait(10)
    with collector_paused():
        pass
    assert not gc.isenabled()  # the other reader is still at work
    leave.set()
    t.join()
    assert gc.isenabled()
