"""Runs and history in the service (mtlens/service/runs.py, mtlens/storage/runs.py): who may add, what is
scored again (nothing already scored), steps within families, damaged rows, a set deleted with its runs."""

from __future__ import annotations

import sqlite3

import pytest

from mtlens.core.access import Visitor
from mtlens.core.corpus import Corpus
from mtlens.core.errors import InputError
from mtlens.runtime import scoring
from mtlens.service import runs as service_runs
from mtlens.storage.store import Store

from ..conftest import SAMPLE, read


def _set(store: Store, owner: str | None = None) -> str:
    refs = {"ref": read(SAMPLE / "ref.txt")}
    systems = {s: read(SAMPLE / f"{s}.txt") for s in ("UEdin", "Online-W")}
    return store.save(Corpus.build(refs, systems), "runs", owner=owner)


def _bytes(name: str, swap: bool = False) -> bytes:
    lines = read(SAMPLE / f"{name}.txt")
    if swap:
        lines = [lines[(i + 7) % len(lines)] if i % 5 == 0 else x for i, x in enumerate(lines)]
    return ("\n".join(lines) + "\n").encode()


def test_adding_a_run_scores_only_the_new_run(tmp_path, monkeypatch):
    store = Store(tmp_path)
    set_id = _set(store)
    first = service_runs.history(store, set_id)  # scores and stores the two systems
    assert set(first.scores["bleu"]) == {"UEdin", "Online-W"}
    seen = []
    real = scoring.statistics_many

    def counting(metrics, refs, hyps, *args, **kwargs):
        seen.append((tuple(m.name for m in metrics), len(hyps)))
        return real(metrics, refs, hyps, *args, **kwargs)

    monkeypatch.setattr(scoring, "statistics_many", counting)
    service_runs.add_run(store, set_id, _bytes("HuaweiTSC"), "HuaweiTSC.txt", family="f", at="2030-01-01")
    again = service_runs.history(store, set_id)
    assert seen == [(("bleu", "chrf"), 1)]  # one system, the new one, once for both metrics
    assert again.scores["bleu"]["UEdin"] == first.scores["bleu"]["UEdin"]
    seen.clear()
    service_runs.history(store, set_id)
    assert seen == []  # everything stored


def test_only_who_may_change_a_set_adds_runs(tmp_path):
    store = Store(tmp_path)
    set_id = _set(store, owner="browser:owner")
    reader = Visitor("browser:reader", "reader")
    with pytest.raises(InputError, match="only the owner of this set can add runs"):
        service_runs.add_run(store, set_id, _bytes("HuaweiTSC"), "H.txt", visitor=reader)
    run = service_runs.add_run(store, set_id, _bytes("HuaweiTSC"), "H.txt", visitor=Visitor("browser:owner", "owner"))
    assert run.name == "H" and run.family is None
    with pytest.raises(InputError, match="bundled sample is read-only"):
        service_runs.add_run(store, "sample", _bytes("HuaweiTSC"), "H.txt")


def test_steps_are_within_a_family_in_time_order_with_holm_over_the_steps(tmp_path):
    store = Store(tmp_path)
    set_id = _set(store)
    add = service_runs.add_run
    add(store, set_id, _bytes("HuaweiTSC"), "a.txt", name="m-1", family="m", at="2026-01-01")
    add(store, set_id, _bytes("HuaweiTSC", swap=True), "b.txt", name="m-2", family="m", at="2026-01-02")
    add(store, set_id, _bytes("VolcTrans-GLAT"), "c.txt", name="m-3", family="m", at="2026-01-03")
    add(store, set_id, _bytes("VolcTrans-GLAT"), "d.txt", name="other-1", family="other", at="2026-01-02T12:00")
    h = service_runs.history(store, set_id)
    assert [r.name for r in h.runs] == ["m-1", "m-2", "other-1", "m-3", "UEdin", "Online-W"]  # the set was saved today
    steps = h.steps["bleu"]
    assert set(steps) == {"m-2", "m-3"}  # runs without a family and first runs have none
    assert steps["m-2"].previous == "m-1" and steps["m-3"].previous == "m-2"
    assert steps["m-2"].delta < 0 and steps["m-2"].significant
    from mtlens.analysis.significance import holm

    raw = [steps["m-2"].p, steps["m-3"].p]
    assert [steps["m-2"].p_holm, steps["m-3"].p_holm] == pytest.approx(list(holm(raw)))
    fam = service_runs.history(store, set_id, family="m", baseline="UEdin")
    assert [r.name for r in fam.runs] == ["m-1", "m-2", "m-3"]
    doc = service_runs.history_to_dict(fam)
    m1 = doc["runs"][0]
    assert m1["delta_to_baseline"]["bleu"] == pytest.approx(fam.scores["bleu"]["m-1"] - fam.scores["bleu"]["UEdin"])
    low, high = m1["ci95"]["bleu"]
    assert low < m1["scores"]["bleu"] < high
    # issue 51, D6: the band is a line, with no marker at every corner (plotly's default below 20 points)
    from mtlens.exports.history import history_figure

    fig = history_figure(service_runs.history_to_dict(h), "bleu")
    bands = [t for t in fig.data if t.fill == "toself"]
    assert bands and all(t.mode == "lines" for t in bands)


def test_a_damaged_run_row_reads_as_no_metadata_and_runs_go_with_their_set(tmp_path):
    store = Store(tmp_path)
    set_id = _set(store)
    service_runs.add_run(store, set_id, _bytes("HuaweiTSC"), "H.txt", family="f", meta={"k": "v"})
    con = sqlite3.connect(store.path)
    con.execute("UPDATE runs SET meta = '[1, 2' WHERE system = 'H'")
    con.commit()
    run = next(r for r in store.runs(set_id) if r.name == "H")
    assert run.meta == {} and run.family == "f"
    store.delete(set_id)
    assert con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0
    con.close()


@pytest.mark.parametrize(
    ("meta", "said"),
    [
        ({str(i): "x" for i in range(51)}, "at most 50 metadata entries"),
        ({"k" * 65: "x"}, "must have 1 to 64 characters"),
        ({"k": "x" * 501}, "longer than 500 characters"),
    ],
)
def test_metadata_is_bounded(tmp_path, meta, said):
    store = Store(tmp_path)
    set_id = _set(store)
    with pytest.raises(InputError, match=said):
        service_runs.add_run(store, set_id, _bytes("HuaweiTSC"), "H.txt", meta=meta)
    assert [r.name for r in store.runs(set_id)] == ["UEdin", "Online-W"]


def test_times_are_read_as_iso_8601_in_utc():
    assert service_runs.parse_at("2026-11-26") == "2026-11-26T00:00:00+00:00"
    assert service_runs.parse_at("2026-11-26T10:30:00+02:00") == "2026-11-26T08:30:00+00:00"
    assert service_runs.parse_at("2026-11-26T10:30:00Z") == "2026-11-26T10:30:00+00:00"
    assert service_runs.parse_at(" ") is None


def test_a_bundle_carries_the_runs_and_adds_its_new_runs_to_a_set(tmp_path):
    from mtlens.service.bundles import add_bundle_runs, export_bundle, import_bundle

    a = Store(tmp_path / "a")
    set_id = _set(a)
    service_runs.add_run(
        a, set_id, _bytes("HuaweiTSC"), "H.txt", name="m-1", family="m", at="2026-01-01", meta={"step": "1"}
    )
    b = Store(tmp_path / "b")
    copy = import_bundle(b, export_bundle(a, set_id))
    assert next((r.name, r.family, r.at, r.meta) for r in b.runs(copy)) == (
        "m-1",
        "m",
        "2026-01-01T00:00:00+00:00",
        {"step": "1"},
    )
    # a new run made in workspace a reaches the copy in b by a bundle: only the systems b lacks are added
    service_runs.add_run(a, set_id, _bytes("VolcTrans-GLAT"), "V.txt", name="m-2", family="m", at="2026-01-02")
    assert add_bundle_runs(b, copy, export_bundle(a, set_id)) == ["m-2"]
    assert [r.name for r in b.runs(copy) if r.family == "m"] == ["m-1", "m-2"]
    with pytest.raises(InputError, match="no system this set does not have"):
        add_bundle_runs(b, copy, export_bundle(a, set_id))
    other = b.save(Corpus.build({"ref": read(SAMPLE / "ref2.txt")}, {"X": read(SAMPLE / "UEdin.txt")}), "other")
    with pytest.raises(InputError, match="references are not this set's"):
        add_bundle_runs(b, other, export_bundle(a, set_id))
    with pytest.raises(InputError, match="only the owner"):
        owned = b.save(
            Corpus.build({"ref": read(SAMPLE / "ref.txt")}, {"X": read(SAMPLE / "UEdin.txt")}), "o", owner="browser:x"
        )
        add_bundle_runs(b, owned, export_bundle(a, set_id), visitor=Visitor("browser:y", "y"))


@pytest.mark.parametrize(
    ("runs", "said"),
    [
        ([{"system": "nope", "at": "2026-01-01"}], "a run names a system the bundle does not have"),
        ([{"system": "UEdin", "at": "soon"}], "is not an ISO-8601 time"),
        ([{"system": "UEdin", "at": "2026-01-01", "meta": {"k": "x" * 600}}], "longer than 500"),
        ([{"system": "UEdin", "at": "2026-01-01", "extra": 1}], "a run is not an object"),
        ("runs", "runs are not a list"),
    ],
)
def test_bad_run_facts_in_a_bundle_are_one_sentence(tmp_path, runs, said):
    import gzip
    import json

    from mtlens.service.bundles import export_bundle, import_bundle

    a = Store(tmp_path / "a")
    doc = json.loads(gzip.decompress(export_bundle(a, _set(a))))
    doc["runs"] = runs
    with pytest.raises(InputError, match=said):
        import_bundle(Store(tmp_path / "b"), gzip.compress(json.dumps(doc).encode()))
    assert Store(tmp_path / "b").list() == []


def test_a_version_1_bundle_is_still_read(tmp_path):
    import gzip
    import json

    from mtlens.service.bundles import export_bundle, import_bundle

    a = Store(tmp_path / "a")
    doc = json.loads(gzip.decompress(export_bundle(a, _set(a))))
    del doc["runs"]
    doc["version"] = 1
    b = Store(tmp_path / "b")
    sid = import_bundle(b, gzip.compress(json.dumps(doc).encode()))
    assert [r.family for r in b.runs(sid)] == [None, None]


def test_a_view_tests_the_steps_of_its_runs_only(tmp_path):
    """Issue 51: a history of 520 runs tested 519 steps with 20,759 resamples (71 s, 3.3 GB on the page). A view
    shows at most VIEW_RUNS runs; the steps of those runs are tested (each against its previous run, even one
    older than the view), Holm's correction is over them alone, and the resamples are those the policy gives
    for that many steps."""
    from mtlens.analysis.policy import default_resamples
    from mtlens.analysis.significance import holm

    store = Store(tmp_path)
    set_id = _set(store)
    for k in range(8):
        data = _bytes(("HuaweiTSC", "VolcTrans-GLAT")[k % 2], swap=k % 3 == 0)
        service_runs.add_run(store, set_id, data, f"{k}.txt", name=f"m-{k}", family="m", at=f"2026-01-0{k + 1}")
    whole = service_runs.history(store, set_id, family="m")
    view = service_runs.history(store, set_id, family="m", last=3, skip=2)
    assert [r.name for r in view.runs] == ["m-3", "m-4", "m-5"]
    steps = view.steps["bleu"]
    assert list(steps) == ["m-3", "m-4", "m-5"] and steps["m-3"].previous == "m-2"  # m-2 is older than the view
    for name, s in steps.items():  # the same deltas as the whole history's (score differences)
        assert s.delta == pytest.approx(whole.steps["bleu"][name].delta, abs=1e-12)
    assert [s.p_holm for s in steps.values()] == pytest.approx(list(holm([s.p for s in steps.values()])))
    assert view.n == default_resamples(3, 200) and whole.n == default_resamples(7, 200)
    assert any("runs 4 to 6 of 8 shown" in n for n in view.notes)
    assert service_runs.windows(store, set_id, "m", size=3) == [
        (0, "runs 6 to 8 of 8 (the newest)"),
        (3, "runs 3 to 5 of 8"),
        (6, "runs 1 to 2 of 8"),
    ]
    assert service_runs.windows(store, set_id, "m", size=8) == [(0, "all runs")]
    with pytest.raises(InputError, match="--last must be at least 1"):
        service_runs.history(store, set_id, last=0)


def test_an_automatic_set_name_counts_the_runs_added(tmp_path):
    """Issue 58: an auto-named set kept "8 systems" in its name after runs were added; a name a user gave stays."""
    from mtlens.core.corpus import Corpus
    from mtlens.storage.store import Store

    store = Store(tmp_path)
    lines = [f"line {i}" for i in range(40)]
    named = {}
    for name in ("2 systems, en-de, 40 lines", "2 systems, en-de, 40 lines (2)", "my runs"):
        set_id = store.save(Corpus.build({"r": lines}, {"A": lines, "B": lines}, language_pair="en-de"), name)
        store.add_systems(set_id, {"C": lines})
        named[name] = store.load(set_id).info.name
    assert named == {
        "2 systems, en-de, 40 lines": "3 systems, en-de, 40 lines",
        "2 systems, en-de, 40 lines (2)": "3 systems, en-de, 40 lines (2)",
        "my runs": "my runs",
    }
