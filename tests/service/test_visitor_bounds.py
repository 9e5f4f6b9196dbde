"""Issue 51: what one dashboard visitor can make the server hold is bounded (uploads, bundles, runs added), lower
than the operator's command line, which is not bound by it. The bound's figure is measured in
benchmarks/bench_visitor_memory.py; here the rule on every path, and the sentence."""

from __future__ import annotations

import pytest

from mtlens.core.access import OPERATOR, Visitor
from mtlens.core.corpus import Corpus
from mtlens.core.errors import InputError
from mtlens.core.limits import DEFAULT_MAX_VISITOR_LINES
from mtlens.service import runs as service_runs
from mtlens.service.bundles import add_bundle_runs, export_bundle, import_bundle
from mtlens.service.inputs import check_visitor_corpus
from mtlens.storage.store import Store

from ..conftest import SAMPLE, read

VISITOR = Visitor("browser:" + "a" * 32, "this browser")


def _corpus(n_systems: int = 2, docs: bool = False) -> Corpus:
    refs = {"ref": read(SAMPLE / "ref.txt")}  # 200 lines
    systems = {s: read(SAMPLE / f"{s}.txt") for s in ("UEdin", "Online-W", "HuaweiTSC")[:n_systems]}
    c = Corpus.build(refs, systems)
    return c.with_documents([f"d{k}" for k in range(200)], None) if docs else c


def test_the_default_bound_holds_a_wmt_test_set_and_refuses_the_issues_upload():
    # WMT22 en-de: 2,037 lines, 1 reference and 15 systems; the issue's upload: 3 x 200,000 lines
    assert 2_037 * 16 <= DEFAULT_MAX_VISITOR_LINES < 3 * 200_000


def test_a_visitors_set_is_bounded_and_the_operators_is_not(monkeypatch):
    monkeypatch.setenv("MTLENS_MAX_VISITOR_LINES", "500")
    check_visitor_corpus(_corpus(1), VISITOR)  # 200 x 2 = 400 line texts
    with pytest.raises(InputError) as err:
        check_visitor_corpus(_corpus(2), VISITOR, "the upload")
    assert str(err.value) == (
        "the upload has 200 lines x 3 texts (600 line texts); a set made on the dashboard may hold at most 500 "
        "(MTLENS_MAX_VISITOR_LINES): the operator can import it with python -m mtlens import"
    )
    check_visitor_corpus(_corpus(2), None)  # the command line
    check_visitor_corpus(_corpus(2), OPERATOR)  # local mode, an administrator
    monkeypatch.setenv("MTLENS_MAX_VISITOR_DOCUMENTS", "150")
    monkeypatch.setenv("MTLENS_MAX_VISITOR_LINES", "5000")
    with pytest.raises(InputError, match="has 200 documents; a set made on the dashboard may have at most 150"):
        check_visitor_corpus(_corpus(1, docs=True), VISITOR)


def test_a_visitors_bundle_is_refused_before_it_is_parsed_and_the_operators_is_imported(tmp_path, monkeypatch):
    store = Store(tmp_path)
    systems = {f"{s}-{k}": read(SAMPLE / f"{s}.txt") for s in ("UEdin", "Online-W") for k in range(20)}
    data = export_bundle(store, store.save(Corpus.build({"ref": read(SAMPLE / "ref.txt")}, systems), "big"))
    monkeypatch.setenv("MTLENS_MAX_VISITOR_LINES", "100")
    import mtlens.service.bundles as bundles

    parsed = []
    real = bundles.load_json
    monkeypatch.setattr(bundles, "load_json", lambda *a, **k: parsed.append(1) or real(*a, **k))
    with pytest.raises(InputError, match="the bundle holds more than 100 line texts"):
        import_bundle(store, data, owner=VISITOR.id)
    assert parsed == []  # refused on the count of its strings, not after building 600 lines
    assert len(store.list()) == 1
    import_bundle(store, data)  # the operator
    assert len(store.list()) == 2


def test_runs_a_visitor_adds_stay_within_the_bound(tmp_path, monkeypatch):
    store = Store(tmp_path)
    set_id = store.save(_corpus(1), "mine", owner=VISITOR.id)
    monkeypatch.setenv("MTLENS_MAX_VISITOR_LINES", "600")
    lines = ("\n".join(read(SAMPLE / "HuaweiTSC.txt")) + "\n").encode()
    service_runs.add_run(store, set_id, lines, "r1.txt", visitor=VISITOR)  # 200 x 3 = 600
    with pytest.raises(InputError, match="with the new runs has 200 lines x 4 texts"):
        service_runs.add_run(store, set_id, lines, "r2.txt", visitor=VISITOR)
    assert list(store.load(set_id).corpus.systems) == ["UEdin", "r1"]  # nothing added
    other = Store(tmp_path / "other")
    bundle = export_bundle(
        other,
        other.save(
            Corpus.build(
                {"ref": read(SAMPLE / "ref.txt")},
                {"UEdin": read(SAMPLE / "UEdin.txt"), "VolcTrans-GLAT": read(SAMPLE / "VolcTrans-GLAT.txt")},
            ),
            "b",
        ),
    )
    with pytest.raises(InputError, match="with the new runs has 200 lines x 4 texts"):
        add_bundle_runs(store, set_id, bundle, VISITOR)
    service_runs.add_run(store, set_id, lines, "r3.txt")  # the operator
    assert list(store.load(set_id).corpus.systems) == ["UEdin", "r1", "r3"]


def _mqm(rows) -> bytes:
    head = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"
    return ("\n".join([head, *rows]) + "\n").encode()


def test_annotations_that_would_make_a_huge_grid_are_one_sentence():
    """Issue 51: a 7 MB MQM file whose 200,000 rows each name a new system and segment asked for a set of
    200,000 x 200,000 hypotheses (7 GB before it was stopped). 5,000 such rows ask for 25 million: refused before
    any hypothesis is made, for everyone; a visitor's set from annotations is within the visitors' bound."""
    from mtlens.service.evaluation import evaluate_annotations

    grid = _mqm(f"s{k}\td\t1\t{k}\tr\tsrc\ttgt <v>x</v>\tAccuracy\tMajor" for k in range(5_000))
    with pytest.raises(InputError) as err:
        evaluate_annotations(grid, "grid.tsv")
    assert str(err.value).startswith("'grid.tsv' rates 5,000 systems on 5,000 segments: a set of 25,000,000 hypotheses")
    small = _mqm(f"s{k % 3}\td\t1\t{k // 3}\tr\tsrc\ttgt <v>x</v>\tAccuracy\tMajor" for k in range(300))
    assert evaluate_annotations(small, "small.tsv", visitor=VISITOR).corpus.n_lines == 100  # 100 x 4 = 400


def test_a_visitors_set_from_annotations_is_within_the_visitors_bound(monkeypatch):
    from mtlens.service.evaluation import evaluate_annotations

    monkeypatch.setenv("MTLENS_MAX_VISITOR_LINES", "300")
    small = _mqm(f"s{k % 3}\td\t1\t{k // 3}\tr\tsrc\ttgt <v>x</v>\tAccuracy\tMajor" for k in range(300))
    with pytest.raises(InputError, match="the set of 'small.tsv' has 100 lines x 4 texts"):
        evaluate_annotations(small, "small.tsv", visitor=VISITOR)
    assert evaluate_annotations(small, "small.tsv").corpus.n_lines == 100  # the operator
