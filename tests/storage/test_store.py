"""The workspace store: a real SQLite file, round trips, statistics reuse, and every failure as a sentence
(corrupt or foreign files, newer schema, read-only place, full disk, size limit, killed writers,
concurrent writers)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF

from mtlens import Corpus
from mtlens.core.errors import InputError
from mtlens.core.options import DEFAULTS
from mtlens.metrics import options_key
from mtlens.runtime.scoring import score_saved
from mtlens.service.bundles import export_bundle, import_bundle
from mtlens.storage.store import FILE_NAME, SCHEMA_VERSION, Store

from ..conftest import ROOT, SAMPLE, pair_files


@pytest.fixture
def sample_corpus():
    refs, systems = pair_files(SAMPLE)
    return Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems, language_pair="en-de")


def test_round_trip_list_rename_delete(backend, sample_corpus):
    st = backend.store()
    assert st.list() == []
    if backend.name == "sqlite":
        assert not (backend.tmp_path / "a" / FILE_NAME).exists()  # reading never creates anything
    else:
        assert backend.rows("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'") == [(0,)]
    odd = Corpus.build({"ref": ["a\tb", "", "x\u2028y", "\ud800 lone surrogate"]}, {"A": ["a", "b", "c", "d"]})
    sid = st.save(sample_corpus, "  WMT21   en-de ", human=[("human.tsv", (SAMPLE / "human.tsv").read_bytes())])
    sid2 = st.save(odd, "odd text")
    assert len(sid) == 32 and int(sid, 16) >= 0 and sid != sid2  # 128 random bits
    back = st.load(sid)
    assert back.corpus.references == sample_corpus.references and back.corpus.systems == sample_corpus.systems
    assert back.corpus.language_pair == "en-de" and back.info.name == "WMT21 en-de"
    assert back.human == (("human.tsv", (SAMPLE / "human.tsv").read_bytes()),)
    assert st.load(sid2).corpus.references == odd.references
    rows = {s.id: s for s in st.list()}
    assert rows[sid].systems == list(sample_corpus.system_names) and rows[sid].lines == 200
    st.rename(sid, "renamed")
    assert st.load(sid).info.name == "renamed"
    st.put_stats(sid, "bleu", options_key("bleu"), {"UEdin": np.ones((200, 10), dtype=np.int64)})
    st.delete(sid)
    with pytest.raises(InputError, match=f"no saved set has the id '{sid}'"):
        st.load(sid)
    for table in ("sets", "streams", "files", "stats"):  # delete removes the data, not just the name
        assert backend.rows(
            f"SELECT count(*) FROM {table} WHERE {'id' if table == 'sets' else 'set_id'} = ?", (sid,)
        ) == [(0,)]
    if backend.name == "sqlite":
        assert backend.rows("PRAGMA user_version") == [(SCHEMA_VERSION,)]
        assert backend.rows("PRAGMA journal_mode") == [("wal",)]
    else:
        assert backend.rows("SELECT version FROM mtlens_schema") == [(SCHEMA_VERSION,)]


def test_stats_are_raw_bytes_with_dtype_and_shape(backend, sample_corpus):
    st = backend.store()
    sid = st.save(sample_corpus, "s")
    a = np.arange(30, dtype=np.int64).reshape(10, 3)
    b = np.linspace(0, 1, 22).reshape(11, 2)
    st.put_stats(sid, "ter", (("x", 1),), {"A": a, "B": b})
    got = st.get_stats(sid, "ter", (("x", 1),))
    np.testing.assert_array_equal(got["A"], a)
    np.testing.assert_array_equal(got["B"], b)
    assert got["A"].dtype == np.int64 and got["B"].dtype == np.float64
    assert st.get_stats(sid, "ter", (("x", 2),)) == {}  # another option set is another entry
    assert backend.rows("SELECT dtype, shape, length(data) FROM stats WHERE system = 'A'") == [
        ("int64", "[10, 3]", 240)
    ]


def test_reopening_reuses_statistics_and_an_added_system_is_the_only_one_scored(backend, sample_corpus, monkeypatch):
    from mtlens.metrics.bleu import BLEU

    st = backend.store()
    first = Corpus.build(
        dict(sample_corpus.references),
        {k: sample_corpus.systems[k] for k in ("UEdin", "Online-W")},
        language_pair="en-de",
    )
    sid = st.save(first, "s")
    calls = []
    real = BLEU.block_statistics

    def spy(self, references, hypotheses):
        calls.append(len(hypotheses))
        return real(self, references, hypotheses)

    monkeypatch.setattr(BLEU, "block_statistics", spy)
    r1 = score_saved(st, sid, st.load(sid).corpus, "bleu", DEFAULTS)
    r2 = score_saved(st, sid, st.load(sid).corpus, "bleu", DEFAULTS)
    assert calls == [2]  # the second opening scored nothing
    assert r1.scores == r2.scores
    st.add_systems(sid, {"HuaweiTSC": sample_corpus.systems["HuaweiTSC"]})
    r3 = score_saved(st, sid, st.load(sid).corpus, "bleu", DEFAULTS)
    assert calls == [2, 1]  # only the added system
    refs = [list(sample_corpus.references["ref"]), list(sample_corpus.references["ref2"])]
    for name in ("UEdin", "Online-W", "HuaweiTSC"):
        want = SacreBLEU().corpus_score(list(sample_corpus.systems[name]), refs).score
        assert r3.scores[name] == pytest.approx(want, abs=1e-9)
    assert "lang:en-de" in r3.signature
    with pytest.raises(InputError, match="already has a system named 'UEdin'"):
        st.add_systems(sid, {"UEdin": sample_corpus.systems["UEdin"]})
    with pytest.raises(InputError, match="has 3 lines"):
        st.add_systems(sid, {"short": ["a", "b", "c"]})


def test_bundle_round_trip_and_bad_bundles(backend, sample_corpus):
    st = backend.store()
    sid = st.save(sample_corpus, "to move", human=[("h.tsv", b"system\tmetric\tscore\nUEdin\tDA\t1\n")])
    bundle = export_bundle(st, sid)
    other = backend.store("b")
    new = import_bundle(other, bundle)
    back = other.load(new)
    assert back.corpus.systems == sample_corpus.systems and back.info.name == "to move"
    assert back.human == (("h.tsv", b"system\tmetric\tscore\nUEdin\tDA\t1\n"),) and back.corpus.language_pair == "en-de"
    for bad in (
        b"",
        b"not gzip",
        __import__("gzip").compress(b'{"format": "other"}'),
        __import__("gzip").compress(b"[1]"),
    ):
        with pytest.raises(InputError, match="not an mtlens set bundle"):
            import_bundle(other, bad)


def test_corrupt_foreign_and_newer_files_are_sentences(tmp_path, sample_corpus):
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / FILE_NAME).write_bytes(b"\x00garbage" * 500)
    with pytest.raises(InputError, match="not a database"):
        Store(corrupt).list()
    with pytest.raises(InputError, match="not a database"):
        Store(corrupt).save(sample_corpus, "x")
    assert (corrupt / FILE_NAME).read_bytes() == b"\x00garbage" * 500  # never modified
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    con = sqlite3.connect(foreign / FILE_NAME)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="is not an mtlens workspace"):
        Store(foreign).list()
    newer = tmp_path / "newer"
    st = Store(newer)
    st.save(sample_corpus, "x")
    con = sqlite3.connect(newer / FILE_NAME)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="written by a newer mtlens"):
        st.list()


def test_read_only_place_and_size_limit(tmp_path, sample_corpus):
    with pytest.raises(InputError, match="cannot open the workspace store"):
        Store("/proc/mtlens-cannot-write-here").save(sample_corpus, "x")  # not writable, even for root
    assert Store("/proc/mtlens-cannot-write-here").list() == []  # reading an absent store: nothing saved
    small = Store(tmp_path, max_mb=0.05)
    with pytest.raises(InputError, match=r"the workspace is full: .* over its limit of 0 MB"):
        small.save(sample_corpus, "x")
    assert small.list() == []


def test_a_full_disk_is_a_sentence_and_keeps_what_was_saved(tmp_path, sample_corpus, monkeypatch):
    """SQLITE_FULL for real: the connection may not grow the file past a few pages (as on a full disk)."""
    st = Store(tmp_path)
    kept = st.save(Corpus.build({"r": ["a"]}, {"A": ["a"]}), "small")
    real_connect = sqlite3.connect

    def tiny(*args, **kwargs):
        con = real_connect(*args, **kwargs)
        con.execute("PRAGMA max_page_count = 12")
        return con

    monkeypatch.setattr(sqlite3, "connect", tiny)
    with pytest.raises(InputError, match="disk is full"):
        st.save(sample_corpus, "too big")
    monkeypatch.setattr(sqlite3, "connect", real_connect)
    assert [s.id for s in st.list()] == [kept]
    assert st.load(kept).corpus.systems["A"] == ("a",)


def test_ten_concurrent_writers(backend):
    """Ten threads and ten processes save at once: every set is there, whole."""
    st = backend.store()
    errors = []

    def save(k):
        try:
            st.save(
                Corpus.build({"r": [f"line {i}" for i in range(300)]}, {f"T{k}": [f"hyp {k} {i}" for i in range(300)]}),
                f"thread {k}",
            )
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=save, args=(k,)) for k in range(10)]
    code = (
        "import sys; from mtlens import Corpus; from mtlens.storage.store import Store; k = int(sys.argv[1]); "
        "Store().save(Corpus.build({'r': ['x'] * 300}, {f'P{k}': ['y'] * 300}), f'process {k}')"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(k)], cwd=ROOT, env=backend.env()) for k in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert not errors
    sets = st.list()
    assert sorted(s.name for s in sets) == sorted(
        [f"thread {k}" for k in range(10)] + [f"process {k}" for k in range(10)]
    )
    for s in sets:
        assert s.lines == 300 and len(st.load(s.id).corpus.systems) == 1


def test_a_writer_killed_mid_save_leaves_no_half_written_set(tmp_path):
    """SIGKILL while a large set is being written: what was saved before is intact, nothing half-written
    appears, and the store keeps working."""
    st = Store(tmp_path)
    before = st.save(Corpus.build({"r": ["a b"]}, {"A": ["a b"]}), "saved before")
    code = (
        "import sys; from mtlens import Corpus; from mtlens.storage.store import Store\n"
        "lines = [f'segment {i} ' + 'word ' * 40 for i in range(20000)]\n"
        "c = Corpus.build({'r': lines}, {f'S{k}': lines for k in range(40)})\n"
        "print('writing', flush=True)\n"
        "Store(sys.argv[1]).save(c, 'killed while writing')\n"
        "print('done', flush=True)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout.readline().strip() == "writing"
    kill_while_writing(proc, tmp_path / (FILE_NAME + "-wal"))
    names = [s.name for s in st.list()]
    assert names == ["saved before"]
    assert st.load(before).corpus.systems["A"] == ("a b",)
    after = st.save(Corpus.build({"r": ["c"]}, {"B": ["c"]}), "saved after")
    assert {s.id for s in st.list()} == {before, after}


def test_list_json_contract_through_the_cli(tmp_path, capsys):
    from mtlens.cli import main

    from ..conftest import TESTDATA

    d = str(tmp_path / "ws")
    assert main(["import", str(TESTDATA / "en-cs"), "--name", "excerpt", "--data-dir", d]) == 0
    sid = capsys.readouterr().out.strip()
    assert main(["list", "--format", "json", "--data-dir", d]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert {"id", "name", "language_pair", "systems", "references", "lines", "created"} <= set(row)
    assert row["id"] == sid and row["language_pair"] == "en-cs"  # the folder's name declares the pair
    assert row["systems"] == ["CUNI-DocTransformer", "Online-W"] and row["references"] == ["ref", "ref2"]
    assert row["lines"] == 40  # wc -l tests/data/en-cs/ref.txt
    assert main(["score", "--set", sid, "--data-dir", d, "--metrics", "bleu", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    refs, systems = pair_files(TESTDATA / "en-cs")
    for entry in doc["systems"]:
        assert entry["scores"]["bleu"] == pytest.approx(
            SacreBLEU().corpus_score(systems[entry["name"]], refs).score, abs=1e-9
        )
    assert main(["score", "--set", sid, "--data-dir", d, "--ref", "x.txt"]) == 2
    assert "--set names a saved set; leave out --ref" in capsys.readouterr().err
    assert main(["delete", sid, "--data-dir", d]) == 0
    capsys.readouterr()
    assert main(["score", "--set", sid, "--data-dir", d]) == 2
    assert f"no saved set has the id '{sid}'" in capsys.readouterr().err


def kill_while_writing(proc, wal, timeout: float = 120) -> None:
    """SIGKILL ``proc`` once its write-ahead log holds more than 1 MB (it is inside its transaction),
    and check that it really was killed while writing."""
    deadline = time.time() + timeout
    while time.time() < deadline and not (wal.exists() and wal.stat().st_size > 1_000_000):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert wal.exists(), "the writer was killed before it wrote anything: the test proved nothing"


def test_list_as_text_cuts_nothing_and_keeps_the_columns_aligned(tmp_path, capsys, sample_corpus):
    from mtlens.cli import main

    st = Store(tmp_path)
    long_name = "WMT21 news en-de: every system, second reference, re-run after the tokenizer fix"
    owner = "someone.with.a.long.address@example.org"
    ids = [st.save(sample_corpus, long_name, owner=owner), st.save(sample_corpus, "short")]
    assert main(["list", "--data-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "pair", "systems", "lines", "created", "owner", "name"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) == set(ids)
    assert rows[ids[0]].endswith(long_name) and owner in rows[ids[0]].split()
    assert rows[ids[1]].split()[-2:] == ["operator", "short"]
    starts = {line.index(word) for line, word in ((lines[0], "name"), (rows[ids[0]], "WMT21"), (rows[ids[1]], "short"))}
    assert len(starts) == 1  # the name column starts at the same place on every line


def test_pins_are_kept_with_the_set_in_order_bounded_and_only_by_who_may_change_it(backend, sample_corpus):
    from mtlens.core.access import Visitor
    from mtlens.storage.store import MAX_PINS, Pin

    st = backend.store()
    owner, other = Visitor("alice", "alice"), Visitor("bob", "bob")
    sid = st.save(sample_corpus, "pins", owner=owner.id)
    st.pin(sid, Pin(41, ("UEdin", "HuaweiTSC"), "chrf", "  a  <b>name</b>   mistranslated "), owner)
    st.pin(sid, Pin(3, ("UEdin",), "bleu", ""), owner)
    st.pin(sid, Pin(41, ("UEdin", "HuaweiTSC"), "ter", "shift"), owner)  # the same sentence: updated in place
    assert backend.store().pins(sid) == [
        Pin(41, ("UEdin", "HuaweiTSC"), "ter", "shift"),
        Pin(3, ("UEdin",), "bleu", ""),
    ]
    with pytest.raises(InputError, match="line 201 is not in this set"):
        st.pin(sid, Pin(200, ("UEdin",), "bleu", ""), owner)
    with pytest.raises(InputError):
        st.pin(sid, Pin(5, ("UEdin",), "bleu", ""), other)  # a link reader cannot pin
    with pytest.raises(InputError):
        st.pin("sample", Pin(5, ("UEdin",), "bleu", ""), None)  # the sample is read-only
    for k in range(MAX_PINS - 2):
        st.pin(sid, Pin(100 + k % 100, (f"S{k}",), "bleu", ""), owner)
    with pytest.raises(InputError, match=f"at most {MAX_PINS}"):
        st.pin(sid, Pin(7, ("UEdin",), "bleu", ""), owner)
    st.unpin(sid, 3, ("UEdin",), owner)
    assert len(st.pins(sid)) == MAX_PINS - 1
    st.delete(sid, owner)
    assert backend.rows("SELECT count(*) FROM pins") == [(0,)]  # deleted with the set


def test_several_metrics_of_a_saved_set_are_scored_in_one_engine_job(backend, sample_corpus, monkeypatch):
    """score_saved_many: one statistics_many call for every metric with missing statistics, the same
    results as one metric at a time (whose BLEU equals sacrebleu's), and nothing scored the second time."""
    import mtlens.runtime.scoring as scoring
    from mtlens.runtime.scoring import score_saved_many

    st = backend.store()
    sid = st.save(sample_corpus, "s")
    corpus = st.load(sid).corpus
    jobs = []
    real = scoring.statistics_many

    def spy(metrics, references, hypotheses):
        jobs.append(([m.name for m in metrics], len(hypotheses)))
        return real(metrics, references, hypotheses)

    monkeypatch.setattr(scoring, "statistics_many", spy)
    score_saved(st, sid, corpus, "chrf", DEFAULTS)  # chrF stored already: only BLEU and TER are missing
    jobs.clear()
    many = score_saved_many(st, sid, corpus, ["bleu", "chrf", "ter"], DEFAULTS)
    assert jobs == [(["bleu", "ter"], len(corpus.systems))]
    again = score_saved_many(st, sid, corpus, ["bleu", "chrf", "ter"], DEFAULTS)
    assert len(jobs) == 1  # all stored now
    fresh = backend.store("other")
    sid2 = fresh.save(sample_corpus, "s")
    for name, a, b in zip(["bleu", "chrf", "ter"], many, again, strict=True):
        one = score_saved(fresh, sid2, fresh.load(sid2).corpus, name, DEFAULTS)
        assert a.scores == b.scores == one.scores
        for s in corpus.system_names:
            np.testing.assert_array_equal(a.stats[s], one.stats[s])
    refs = [list(corpus.references[r]) for r in corpus.references]
    for s in corpus.system_names:
        assert many[0].scores[s] == pytest.approx(
            SacreBLEU().corpus_score(list(corpus.systems[s]), refs).score, abs=1e-9
        )


def test_an_option_that_changes_only_the_score_re_scores_nothing(backend, sample_corpus, monkeypatch):
    """BLEU's, character BLEU's and tBLEU's smoothing change the score computed from the statistics, never
    the statistics: once stored, changing them calls the engine no more, and the scores equal sacrebleu's
    with those options. Options that change the statistics (chrF's eps smoothing with several references,
    lowercase) are scored again."""
    import mtlens.runtime.scoring as scoring
    from mtlens.runtime.scoring import score_saved_many

    st = backend.store()
    sid = st.save(sample_corpus, "s")
    corpus = st.load(sid).corpus
    calls = []
    real = scoring.statistics_many

    def spy(metrics, references, hypotheses):
        calls.append([m.name for m in metrics])
        return real(metrics, references, hypotheses)

    monkeypatch.setattr(scoring, "statistics_many", spy)
    names = ["bleu", "bleu-c", "chrf", "chrf++", "tbleu"]
    score_saved_many(st, sid, corpus, names, DEFAULTS)
    assert calls == [names]
    smoothed = DEFAULTS.replace(smooth_method="floor", smooth_value=0.2, chrf_eps_smoothing=True)
    results = dict(zip(names, score_saved_many(st, sid, corpus, names, smoothed), strict=True))
    # BLEU's smoothing reuses the statistics; chrF's eps smoothing chooses each segment's reference among
    # several, so it is a statistics option (tests/metrics/test_score_only.py): chrF and chrF++ are scored again
    assert calls == [names, ["chrf", "chrf++"]]
    refs = [list(corpus.references[r]) for r in corpus.references]
    for s in corpus.system_names:
        hyp = list(corpus.systems[s])
        want_bleu = SacreBLEU(smooth_method="floor", smooth_value=0.2).corpus_score(hyp, refs).score
        want_chrf = CHRF(eps_smoothing=True).corpus_score(hyp, refs).score
        want_chrfpp = CHRF(word_order=2, eps_smoothing=True).corpus_score(hyp, refs).score
        assert results["bleu"].scores[s] == pytest.approx(want_bleu, abs=1e-9)
        assert results["chrf"].scores[s] == pytest.approx(want_chrf, abs=1e-9)
        assert results["chrf++"].scores[s] == pytest.approx(want_chrfpp, abs=1e-9)
    score_saved_many(st, sid, corpus, ["bleu", "chrf"], DEFAULTS.replace(lowercase=True))
    assert calls[-1] == ["bleu", "chrf"]  # lowercase changes the statistics: scored
