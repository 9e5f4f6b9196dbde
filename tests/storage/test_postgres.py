"""The store on a real PostgreSQL server (started on loopback by the ``pg_server`` fixture) beside SQLite:
the command line from separate processes gives the same results on both, a workspace moves between them
whole, a job is claimed once across processes, and faults (foreign or newer database, unreachable server,
a restart mid-session) are sentences that lose nothing acknowledged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from mtlens import Corpus
from mtlens.core.errors import InputError
from mtlens.metrics import options_key
from mtlens.storage import postgres
from mtlens.storage.schema import MIGRATIONS, SCHEMA_VERSION, TABLES
from mtlens.storage.store import Store

from ..conftest import ROOT, SAMPLE, Backend, pair_files
from ..ports import free_port


def mtlens(*args, env):
    return subprocess.run([sys.executable, "-m", "mtlens", *args], capture_output=True, text=True, cwd=ROOT, env=env)


def test_translate_keeps_quoted_text_and_doubles_percent_signs():
    assert postgres.translate("SELECT a FROM t WHERE b = ? AND c = '?' AND d LIKE 'x%'") == (
        "SELECT a FROM t WHERE b = %s AND c = '?' AND d LIKE 'x%%'"
    )
    assert postgres.translate("SELECT 5 % 2, ?") == "SELECT 5 %% 2, %s"
    assert postgres.redact("postgresql://u:secret@h:5/db") == "postgresql://u:***@h:5/db"
    assert postgres.redact("postgresql://u@h/db") == "postgresql://u@h/db"


def test_every_table_the_migrations_create_is_copied():
    created = {
        stmt.split("CREATE TABLE", 1)[1].split("(", 1)[0].strip()
        for v in range(1, SCHEMA_VERSION + 1)
        for stmt in MIGRATIONS[v]
        if "CREATE TABLE" in stmt
    }
    assert created == set(TABLES)


def test_the_command_line_from_separate_processes_gives_the_same_results_on_both(pg_server, tmp_path):
    """import, list, score --set, delete, each its own process, on a SQLite folder and on PostgreSQL."""
    results = {}
    for name in ("sqlite", "postgresql"):
        backend = Backend(name, tmp_path / name, pg_server if name == "postgresql" else None)
        env = backend.env()
        made = mtlens("import", str(SAMPLE), "--name", "sample copy", "--project", "WMT21", env=env)
        assert made.returncode == 0, made.stderr
        sid = made.stdout.strip()
        listed = json.loads(mtlens("list", "--format", "json", env=env).stdout)
        assert [r["id"] for r in listed] == [sid]
        scored = mtlens("score", "--set", sid, "--metrics", "bleu,chrf,ter", "--format", "json", env=env)
        assert scored.returncode == 0, scored.stderr
        again = mtlens("score", "--set", sid, "--metrics", "bleu,chrf,ter", "--format", "json", env=env)
        assert again.stdout == scored.stdout and again.stderr == ""  # the second time from stored statistics
        gone = mtlens("delete", sid, env=env)
        assert gone.returncode == 0 and mtlens("list", "--format", "json", env=env).stdout.strip() == "[]"
        rows = [{k: v for k, v in r.items() if k not in ("id", "created")} for r in listed]
        results[name] = (rows, json.loads(scored.stdout))
        if name == "postgresql":
            assert backend.rows("SELECT count(*) FROM stats") == [(0,)]  # the delete reached the server
            backend.close()
    assert results["sqlite"] == results["postgresql"]
    refs, systems = pair_files(SAMPLE)
    doc = results["postgresql"][1]  # {"systems": [{"name", "scores": {metric: score}, ...}]}
    bleu = {s["name"]: s["scores"]["bleu"] for s in doc["systems"]}
    assert set(bleu) == set(systems)
    for system, hyp in systems.items():
        assert bleu[system] == pytest.approx(SacreBLEU().corpus_score(hyp, refs).score, abs=1e-9)


def _dump(store: Store) -> dict[str, list[tuple]]:
    """Every row of every table (rowid left out), sorted: what a copy must keep."""
    out = {}
    with store._db() as con:
        for table in TABLES:
            cur = con.execute(f"SELECT * FROM {table}")
            keep = [k for k, c in enumerate(cur.description) if c[0] != "rowid"]
            out[table] = sorted(
                (tuple(bytes(r[k]) if isinstance(r[k], memoryview) else r[k] for k in keep) for r in cur.fetchall()),
                key=repr,
            )
    return out


def test_store_copy_moves_a_whole_workspace_both_ways(pg_server, tmp_path):
    from mtlens.core.access import Visitor
    from mtlens.storage.store import Pin

    refs, systems = pair_files(SAMPLE)
    st = Store(tmp_path / "from")
    corpus = Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems, language_pair="en-de")
    sid = st.save(corpus, "moved", human=[("h.tsv", b"system\tmetric\tscore\nUEdin\tDA\t1\n")], owner="browser:x")
    st.add_scores(sid, "s.tsv", b"\x00\xffbinary")
    st.put_stats(sid, "bleu", options_key("bleu"), {"UEdin": np.arange(20, dtype=np.int64).reshape(2, 10)})
    st.pin(sid, Pin(4, ("UEdin",), "bleu", "b"), Visitor("browser:x", "x"))
    st.pin(sid, Pin(2, ("UEdin",), "chrf", "a"), Visitor("browser:x", "x"))
    st.grant("P", "browser:x")
    st.put_neural("d" * 64, [("seg1", 0.5, None), ("seg2", -1.25, '[{"start": 0}]')])
    st.claim_job(sid, "d" * 64, "tiny", lambda job: False)
    st.add_run(sid, "run-2", list(systems["UEdin"]), family="m", at="2026-11-01T00:00:00+00:00", meta={"k": "v"})
    st.put_model(
        {
            "name": "tiny",
            "path": "/m",
            "digest": "d" * 64,
            "kind": "comet",
            "inputs": "src,mt,ref",
            "size": 1,
            "mtime": 1.5,
        }
    )
    st.put_judge(
        {"name": "j", "url": "http://127.0.0.1:9/v1", "model": "m", "protocol": "gemba-mqm", "key_env": "K",
         "samples": 1, "concurrency": 4, "price_in": 2.5, "price_out": None}
    )  # fmt: skip
    st.put_judge_answers([("k" * 64, "Critical:\nno-error", "stop", 120, 7, 0.0)])
    assert all(_dump(st).values())  # every table has rows to copy
    url = pg_server.database()
    try:
        copied = mtlens("store", "copy", str(tmp_path / "from"), url, env=dict(os.environ))
        assert copied.returncode == 0, copied.stderr
        assert "1 sets" in copied.stdout and "2 pins" in copied.stdout
        on_pg = Store(url=url)
        assert _dump(on_pg) == _dump(st)
        assert [p.line for p in on_pg.pins(sid)] == [4, 2]  # pinned order kept
        got = on_pg.get_stats(sid, "bleu", options_key("bleu"))
        np.testing.assert_array_equal(got["UEdin"], np.arange(20).reshape(2, 10))
        assert not on_pg.notes  # the checksums hold on the other engine
        assert on_pg.load(sid).scores == (("s.tsv", b"\x00\xffbinary"),)
        back = mtlens("store", "copy", url, str(tmp_path / "back"), env=dict(os.environ))
        assert back.returncode == 0, back.stderr
        assert _dump(Store(tmp_path / "back")) == _dump(st)
        again = mtlens("store", "copy", str(tmp_path / "from"), url, env=dict(os.environ))
        assert again.returncode == 2 and "not empty" in again.stderr and "Traceback" not in again.stderr
        assert _dump(on_pg) == _dump(st)  # nothing overwritten
        none = mtlens("store", "copy", str(tmp_path / "nothing"), str(tmp_path / "x"), env=dict(os.environ))
        assert none.returncode == 2 and "holds nothing" in none.stderr
    finally:
        postgres.close_idle()
        pg_server.drop(url)


def test_a_job_is_claimed_once_across_processes(backend):
    """Eight processes claim the same job at the same moment: exactly one owns it."""
    st = backend.store()
    sid = st.save(Corpus.build({"r": ["a"]}, {"A": ["a"]}), "jobs")
    start = time.time() + 3
    code = (
        "import sys, time; from mtlens.storage.store import Store\n"
        "st = Store(); st.list()\n"
        f"time.sleep(max(0, {start} - time.time()))\n"
        f"claimed, job = st.claim_job('{sid}', 'digest', 'tiny', lambda job: True)\n"
        "print(int(claimed))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=backend.env(), stdout=subprocess.PIPE, text=True)
        for _ in range(8)
    ]
    outs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(outs) == ["0"] * 7 + ["1"]
    assert st.job(sid, "digest")["state"] == "queued"
    claimed, _ = st.claim_job(sid, "digest", "tiny", lambda job: False)  # a dead job is taken over
    assert claimed


def test_concurrent_adds_of_runs_are_one_sentence_each_and_take_distinct_positions(backend, tmp_path):
    """Issue 51: eight processes adding the same run name at once: one adds it, the seven others are told the name
    is taken in mtlens's sentence (two were the driver's raw text); eight adding distinct names take eight distinct
    positions, one after another (16 systems had 12 positions)."""
    st = backend.store()
    sid = st.save(Corpus.build({"r": ["a", "b"]}, {"A": ["a", "b"]}), "runs")
    run = tmp_path / "run.txt"
    run.write_text("a\nb\n")
    for same in (True, False):
        start = time.time() + 3
        code = (
            "import sys, time; from mtlens.core.errors import InputError; from mtlens.storage.store import Store\n"
            "from mtlens.service.runs import add_run\n"
            "st = Store(); st.list()\n"
            f"time.sleep(max(0, {start} - time.time()))\n"
            "try:\n"
            f"    add_run(st, '{sid}', b'a\\nb\\n', 'run.txt', name=sys.argv[1])\n"
            "    print('added')\n"
            "except InputError as err:\n"
            "    print(err)\n"
        )
        names = ["same"] * 8 if same else [f"run-{k}" for k in range(8)]
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code, name], cwd=ROOT, env=backend.env(), stdout=subprocess.PIPE, text=True
            )
            for name in names
        ]
        outs = sorted(p.communicate(timeout=120)[0].strip() for p in procs)
        assert all(p.returncode == 0 for p in procs)
        if same:
            assert outs == ["added"] + ["set 'runs' already has a system named 'same'"] * 7
        else:
            assert outs == ["added"] * 8
    with st._db() as con:
        positions = sorted(
            r[0] for r in con.execute("SELECT position FROM streams WHERE set_id = ? AND kind = 'sys'", (sid,))
        )
    assert positions == list(range(10))  # A, same and the eight runs
    assert len(st.load(sid).corpus.systems) == 10


def test_models_and_the_neural_cache_on_both_backends(backend):
    st = backend.store()
    row = {"name": "m", "path": "/x", "digest": "a" * 64, "kind": "comet", "inputs": "src,mt,ref", "size": 5 * 2**31}
    st.put_model({**row, "mtime": 1764133200.123456})
    st.put_model({**row, "path": "/y", "mtime": 1764133200.123456})  # registered again: replaced
    (m,) = st.models()
    assert m["path"] == "/y" and m["size"] == 5 * 2**31 and m["mtime"] == 1764133200.123456  # 8-byte numbers
    st.put_neural("a" * 64, [("k1", 0.1, None), ("k2", 0.2, "[]")])
    st.put_neural("a" * 64, [("k2", 0.3, None)])
    assert st.get_neural("a" * 64, ["k1", "k2", "k3"]) == {"k1": (0.1, None), "k2": (0.3, None)}
    st.remove_model("m")
    with pytest.raises(InputError, match="no model is registered as 'm'"):
        st.remove_model("m")


def test_a_foreign_or_newer_database_is_refused_with_a_sentence(pg_server):
    import psycopg

    foreign, newer = pg_server.database(), pg_server.database()
    try:
        with psycopg.connect(foreign, autocommit=True) as con:
            con.execute("CREATE TABLE invoices (id INTEGER)")
        with pytest.raises(InputError, match="not an mtlens workspace"):
            Store(url=foreign).save(Corpus.build({"r": ["a"]}, {"A": ["a"]}), "x")
        with psycopg.connect(foreign, autocommit=True) as con:
            assert (
                con.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").fetchone()[
                    0
                ]
                == 1
            )
        Store(url=newer).save(Corpus.build({"r": ["a"]}, {"A": ["a"]}), "x")
        with psycopg.connect(newer, autocommit=True) as con:
            con.execute("UPDATE mtlens_schema SET version = %s", (SCHEMA_VERSION + 1,))
        postgres.close_idle()
        with pytest.raises(InputError, match="written by a newer mtlens"):
            Store(url=newer).list()
    finally:
        postgres.close_idle()
        pg_server.drop(foreign)
        pg_server.drop(newer)


def test_an_unreachable_server_is_one_sentence_at_start_and_in_every_command(tmp_path):
    port = free_port()  # a port nobody listens on
    url = f"postgresql://mtlens:secret@127.0.0.1:{port}/db"
    env = {**os.environ, "MTLENS_STORE": url}
    for args in (("list",), ("dashboard", "--port", "8999"), ("import", str(SAMPLE))):
        t0 = time.monotonic()
        proc = mtlens(*args, env=env)
        assert proc.returncode == 2, (args, proc.stderr)
        assert (
            proc.stderr.startswith("mtlens: error: cannot reach the workspace database")
            and "Traceback" not in proc.stderr
        )
        assert "secret" not in proc.stderr and "mtlens:***@" in proc.stderr
        assert time.monotonic() - t0 < 60  # never a hang (the connect timeout is 5 s)
        assert proc.stderr.count("\n") == 1


def test_a_server_that_goes_away_loses_nothing_acknowledged(pg_server):
    url = pg_server.database()
    try:
        st = Store(url=url)
        kept = st.save(Corpus.build({"r": ["a b"]}, {"A": ["a b"]}), "before")
        st.list()  # an idle connection stays in this process's pool
        pg_server.stop(remove=False)
        with pytest.raises(InputError, match="cannot reach the workspace database|could not be"):
            st.save(Corpus.build({"r": ["c"]}, {"B": ["c"]}), "while away")
        pg_server.restart()
        assert [s.name for s in st.list()] == ["before"]  # the broken connection replaced, nothing half-saved
        assert st.load(kept).corpus.systems["A"] == ("a b",)
        after = st.save(Corpus.build({"r": ["c"]}, {"B": ["c"]}), "after")
        assert {s.id for s in st.list()} == {kept, after}
    finally:
        postgres.close_idle()
        pg_server.drop(url)


def test_a_backup_with_pg_dump_restores_every_set(pg_server, tmp_path):
    """docs/deploy.md's backup step as written: ``pg_dump -Fc`` of the store, ``pg_restore`` into an empty
    database; the restored store holds the same rows and opens the same sets."""
    from ..pgserver import binary

    url, restored = pg_server.database(), pg_server.database()
    try:
        st = Store(url=url)
        sid = st.save(Corpus.build({"r": ["a b", "c"]}, {"A": ["a b", "d"]}), "backed up")
        st.put_stats(sid, "bleu", options_key("bleu"), {"A": np.ones((2, 10), dtype=np.int64)})
        dump = tmp_path / "mtlens.dump"
        subprocess.run([binary("pg_dump"), "-Fc", "-f", str(dump), url], check=True, capture_output=True)
        subprocess.run([binary("pg_restore"), "--no-owner", "-d", restored, str(dump)], check=True, capture_output=True)
        back = Store(url=restored)
        assert _dump(back) == _dump(st)
        assert back.load(sid).corpus.systems["A"] == ("a b", "d") and not back.notes
    finally:
        postgres.close_idle()
        pg_server.drop(url)
        pg_server.drop(restored)
