"""Human ratings a visitor gives the server, bounded before they are parsed, and raters' quality in linear work
(issue 58, G1 and G2).

- G1: a visitor's 27 MB Appraise ESA file (500,000 rows, 83,334 raters) was not drawn on the Annotations page after
  180 s: raters' quality scanned every row once per rater. It is one pass now (here: its numbers against pandas, on
  an item a hundred raters rated, where the others' mean comes from the item's sum), and a visitor's ratings beyond
  ``MTLENS_MAX_VISITOR_RATINGS`` rows are refused in one sentence before anything is parsed.
- G2: a 200,001-row MQM file made into a set in owners mode took the server past 3.5 GB; the same bound applies to
  MQM files, on every path (a set from annotations, annotations added to a set, an upload's side files).
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pandas as pd
import pytest

from mtlens.analysis.raters import rater_quality
from mtlens.core.access import Visitor
from mtlens.core.errors import InputError
from mtlens.readers.esa import read_esa
from mtlens.service.evaluation import add_annotations, evaluate_annotations
from mtlens.storage.store import Store

from .test_esa import _corpus, _csv

VISITOR = Visitor("browser:" + "c" * 32, "this browser")


def _rows(n: int) -> bytes:
    return _csv([{"rater": f"r{k}", "system": "A", "line": k % 4, "score": k % 101} for k in range(n)])


def test_a_visitors_ratings_beyond_the_bound_are_refused_before_they_are_parsed(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLENS_MAX_VISITOR_RATINGS", "50")
    store = Store(tmp_path)
    set_id = store.save(_corpus(), "rated", owner=VISITOR.id)
    parsed = []
    monkeypatch.setattr("mtlens.readers.esa.read_esa", lambda *a, **k: parsed.append(1))
    with pytest.raises(InputError, match=r"'big.csv': 60 rows; a visitor may give a set at most 50 rows"):
        add_annotations(store, set_id, "big.csv", _rows(60), VISITOR)
    assert parsed == [] and not store.load(set_id).annotations
    monkeypatch.undo()
    monkeypatch.setenv("MTLENS_MAX_VISITOR_RATINGS", "50")
    add_annotations(store, set_id, "small.csv", _rows(30), VISITOR)  # within the bound
    with pytest.raises(InputError, match=r"the set holds 30 already"):  # the set's files count together
        add_annotations(store, set_id, "more.csv", _rows(30), VISITOR)
    add_annotations(store, set_id, "more.csv", _rows(30), None)  # the operator is not bound
    assert [n for n, _ in store.load(set_id).annotations] == ["small.csv", "more.csv"]


def test_a_visitors_mqm_file_beyond_the_bound_makes_no_set(monkeypatch):
    monkeypatch.setenv("MTLENS_MAX_VISITOR_RATINGS", "50")
    head = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    body = "".join(f"S{k}\td\t1\t{k}\tr\tsrc {k}\thyp {k}\tAccuracy\tMajor\n" for k in range(200))
    with pytest.raises(InputError, match="a visitor may give a set at most 50 rows"):
        evaluate_annotations((head + body).encode(), "mqm.tsv", "en-de", VISITOR)
    assert evaluate_annotations((head + body[:500]).encode(), "mqm.tsv", "en-de", VISITOR).corpus.systems


def test_raters_quality_is_one_pass_and_equals_pandas():
    """A hundred raters on one item (the others' mean from the item's sum), thirty on others (summed as they are),
    and attention checks: every rater's agreement r with the mean of the others, against pandas."""
    rng = np.random.default_rng(5)
    rows = []
    for k in range(100):
        rows.append({"rater": f"r{k}", "system": "A", "line": 0, "score": int(rng.integers(0, 101))})
        for line in (1, 2, 3):
            for system in ("A", "B"):
                if k < 30 or (line == 1 and system == "B"):
                    rows.append({"rater": f"r{k}", "system": system, "line": line, "score": int(rng.integers(0, 101))})
    rows.append({"rater": "r0", "system": "B", "line": 0, "score": 1, "doc": "d1#bad", "type": "BAD"})
    esa = read_esa(_csv(rows), "x.csv", _corpus())
    got = {q["rater"]: q for q in rater_quality(esa)}
    df = pd.DataFrame([{"rater": r.rater, "item": (r.system, r.line), "score": r.score} for r in esa.ratings])
    for rater, q in got.items():
        mine = df[df.rater == rater].set_index("item").score
        others = df[(df.rater != rater) & df["item"].isin(mine.index)].groupby("item").score.mean()
        shared = mine[mine.index.isin(others.index)]
        assert q["shared_items"] == len(shared) and q["items"] == len(mine)
        if q["agreement_r"] is not None:
            r = np.corrcoef(shared.to_numpy(float), others[shared.index].to_numpy(float))[0, 1]
            assert q["agreement_r"] == pytest.approx(r, abs=1e-12)
    assert got["r0"]["items"] == 7 and got["r99"]["shared_items"] == 2


def test_a_single_line_json_file_is_counted_by_its_objects(monkeypatch):
    from mtlens.core.limits import rating_rows

    data = json.dumps([{"rater": "r", "score": k} for k in range(70)]).encode()
    assert rating_rows(data) == 70 and rating_rows(b"a\nb") == 2 and rating_rows(b"") == 0
    buf = io.StringIO()
    csv.writer(buf).writerows([["x"]] * 3)
    assert rating_rows(buf.getvalue().encode()) == 3


@pytest.mark.parametrize("offset", ["a", [1], float("inf"), {"x": 1}, True])
def test_a_span_offset_that_is_not_a_whole_number_is_one_sentence(offset):
    """Issue 58, G7: span offsets that are text, a list or Infinity were internal errors."""
    rows = [{"rater": "r", "system": "A", "line": 0, "score": 5, "spans": [{"start_i": offset, "end_i": 2}]}]
    data = _csv(rows).replace(b"Infinity", b"Infinity")
    with pytest.raises(InputError, match="start_i or end_i is .* not a whole number"):
        read_esa(data, "x.csv", _corpus())


def test_huge_numbers_in_ratings_are_sentences_or_out_of_place():
    from mtlens.readers.esa import line_of

    big = [{"rater": "r", "system": "A", "line": 0, "score": "1" + "0" * 400}]
    with pytest.raises(InputError, match="not between 0 and 100"):
        read_esa(_csv(big), "x.csv", _corpus())
    assert line_of("mtlens:" + "7" * 5000) is None and line_of("mtlens:12") == 12
    far = [{"rater": "r", "system": "A", "line": 0, "score": 5, "spans": [{"start_i": 10**400, "end_i": 10**401}]}]
    read_esa(_csv(far), "x.csv", _corpus())  # a span far past the line's end: clipped, as the publisher's


def test_a_checkpoint_config_nested_100000_deep_is_one_sentence(tmp_path):
    """Issue 58, G7: ``models add`` of a folder whose config.json nests 100,000 levels was an internal error."""
    import subprocess
    import sys

    from ..conftest import ROOT

    folder = tmp_path / "evil"
    folder.mkdir()
    (folder / "config.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000, encoding="utf-8")
    got = subprocess.run([sys.executable, "-m", "mtlens", "models", "add", "evil", str(folder), "--data-dir",
                          str(tmp_path / "ws")], capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert got.returncode == 2 and got.stderr.startswith("mtlens: error: ") and "internal" not in got.stderr


def test_a_wave_that_also_rates_other_systems_is_imported_for_the_sets_systems(tmp_path, capsys):
    """Issue 58, D4: ``import --ratings`` refused an ESA file that also rated systems the set lacks; the set's systems
    are imported and the rest counted in a note, as other language pairs are. On the real WMT24 en-ja excerpt: a set
    of two of its three systems; their scores are those of the whole set."""
    import shutil

    from mtlens.cli import main

    from .test_esa import DATA

    two = tmp_path / "two"
    two.mkdir()
    for f in ("src.txt", "ref.txt", "IKUN-C.txt", "ONLINE-B.txt"):
        shutil.copy(DATA / "en-ja" / f, two / f)
    scores = {}
    for label, folder in (("two", two), ("three", DATA / "en-ja")):
        ws = tmp_path / f"ws-{label}"
        assert main(["import", str(folder), "--docs", str(DATA / "en-ja" / "en-ja.docs"), "-l", "en-ja",
                     "--data-dir", str(ws)]) == 0  # fmt: skip
        set_id = Store(ws).list()[0].id
        capsys.readouterr()
        assert main(["import", "--ratings", str(DATA / "esa_en-ja.excerpt.csv"), "--set", set_id, "--data-dir",
                     str(ws)]) == 0  # fmt: skip
        err = capsys.readouterr().err
        assert ("ratings of systems the set does not have (Claude-3.5)" in err) == (label == "two"), err
        assert main(["ratings", "--set", set_id, "--format", "json", "--data-dir", str(ws)]) == 0
        scores[label] = {r["system"]: r["score"] for r in json.loads(capsys.readouterr().out)["systems"]}
    assert scores["two"] == {s: v for s, v in scores["three"].items() if s != "Claude-3.5"}


def test_adding_ratings_says_what_they_brought(tmp_path):
    """Issue 58, D12: the home page's "Add the annotations" gave no confirmation; the service's sentence says what
    the file brought (the page shows it after its rerun)."""
    from mtlens.service.evaluation import annotations_said
    from mtlens.service.workspace import Workspace

    from .test_esa import _real_excerpt_set

    ws, set_id = _real_excerpt_set(tmp_path)
    store = Store(ws)
    data = next(d for _, d in store.load(set_id).annotations)
    workspace = Workspace(store, None)
    ann = workspace.add_annotations(set_id, "again.csv", data)
    said = annotations_said(ann)
    raters = len({r.rater for r in ann.ratings})
    assert said.startswith(
        f"Added 'again.csv': {len(ann.ratings)} ESA ratings of 3 systems and 1 reference by {raters} "
    )
    assert "1 row left out: other language pairs" in said and said.endswith(").")


def test_a_wave_imported_twice_counts_its_attention_checks_once(tmp_path, capsys):
    """Issue 58, D15: re-importing a wave under another file name doubled the raters' attention-check counts."""
    import shutil

    from mtlens.cli import main

    from .test_esa import DATA, _real_excerpt_set

    ws, set_id = _real_excerpt_set(tmp_path)
    capsys.readouterr()
    assert main(["ratings", "--set", set_id, "--format", "json", "--data-dir", str(ws)]) == 0
    once = json.loads(capsys.readouterr().out)["raters"]
    again = tmp_path / "the-same-wave.csv"
    shutil.copy(DATA / "esa_en-ja.excerpt.csv", again)
    assert main(["import", "--ratings", str(again), "--set", set_id, "--data-dir", str(ws)]) == 0
    capsys.readouterr()
    assert main(["ratings", "--set", set_id, "--format", "json", "--data-dir", str(ws)]) == 0
    twice = json.loads(capsys.readouterr().out)["raters"]
    assert any(q["attention_checks"] for q in once) and twice == once
