"""Issue 18, tried as a hostile visitor would: hostile bundles and files, damaged stores, access control,
exports that a spreadsheet or a browser would run. Every case is one sentence, never a traceback, and
nothing saved is lost. (The server's address, Host check and two browsers: tests/app/test_security_app.py.)"""

from __future__ import annotations

import gzip
import json
import os
import re
import sqlite3
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest
import tomllib
from sacrebleu.metrics import BLEU as SacreBLEU

from mtlens import Corpus
from mtlens.core.access import OPERATOR, Visitor, browser_visitor, host_allowed, is_loopback
from mtlens.core.errors import InputError
from mtlens.core.options import DEFAULTS
from mtlens.exports.html import build_html_report
from mtlens.exports.tables import csv_cell, frame_to_csv, to_csv
from mtlens.readers.scores import read_score_files, read_scores
from mtlens.runtime.scoring import score, score_saved
from mtlens.service.bundles import export_bundle, import_bundle, read_bundle
from mtlens.storage.store import BALLAST_NAME, FILE_NAME, Store

from .conftest import ROOT, SAMPLE, fill, pair_files, remount_read_only, tmpfs
from .memory import run_with_peak

A = Visitor("browser:" + "a" * 32, "A")
B = Visitor("browser:" + "b" * 32, "B")


@pytest.fixture
def corpus():
    return Corpus.build(
        {"ref": ["a b c", "d e"]}, {"S1": ["a b c", "d x"], "S2": ["a c", "d e"]}, language_pair="en-de"
    )


def _bundle(**doc) -> bytes:
    base = {
        "format": "mtlens-set",
        "version": 1,
        "name": "n",
        "references": {"ref": ["a b", "c"]},
        "systems": {"A": ["a b", "d"]},
    }
    base.update(doc)
    return gzip.compress(json.dumps(base).encode())


def _run(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "mtlens", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )


# --------------------------------------------------------------------------- server configuration
def test_the_streamlit_config_listens_on_loopback_and_hides_error_details():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["address"] == "127.0.0.1"
    assert cfg["client"]["showErrorDetails"] == "none"


def test_the_streamlit_config_watches_no_files_and_shows_no_deploy_button():
    """Streamlit's file watcher is off (it watched .venv and flooded the log) and the toolbar is a viewer's
    (no Deploy button); both names are options this Streamlit knows, with the values it allows."""
    from streamlit import config

    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    known = config.get_config_options()
    assert cfg["server"]["fileWatcherType"] == "none" and "server.fileWatcherType" in known
    assert cfg["client"]["toolbarMode"] == "viewer" and "client.toolbarMode" in known
    assert '"none"' in known["server.fileWatcherType"].description
    assert '"viewer"' in known["client.toolbarMode"].description


def test_host_check_and_loopback_names():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("") and not is_loopback("192.0.2.1")
    for ok in ("localhost:8501", "127.0.0.1:8501", "[::1]:8501", "127.0.0.2", "LOCALHOST"):
        assert host_allowed(ok, "127.0.0.1"), ok
    bad_hosts = ("evil.example:8501", "evil.example", "localhost.evil.example:8501", "", None, "[::1")
    bad_hosts += ("localhost:8731@evil.example", "localhost@evil.example", "127.0.0.1:80/evil", "localhost:x")
    for bad in bad_hosts:  # issue 38, item 10: "localhost:8731@evil.example" was allowed
        assert not host_allowed(bad, "127.0.0.1"), bad
    assert host_allowed("evil.example", "0.0.0.0")  # a server on the network leaves it to its proxy


@pytest.mark.parametrize("port", ["-1", "70000", "0", "http"])
def test_dashboard_port_out_of_range_is_a_sentence(port):
    r = _run("dashboard", "--port", port)
    assert r.returncode == 2 and "the port must be a number from 1 to 65535" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(
    ("var", "value", "said"),
    [
        ("MTLENS_MAX_STORE_MB", "abc", "is not a number"),
        ("MTLENS_MAX_STORE_MB", "nan", "is not a number"),
        ("MTLENS_MAX_STORE_MB", "inf", "is not a number"),
        ("MTLENS_MAX_STORE_MB", "-5", "is not a number"),
        ("MTLENS_DATA_DIR", "~nouser-mtlens/x", "names a home folder that does not exist"),
    ],
)
def test_bad_settings_are_sentences(var, value, said):
    r = _run("list", env=dict(os.environ, **{var: value}))
    assert r.returncode == 2 and said in r.stderr and "Traceback" not in r.stderr and "internal error" not in r.stderr


def test_reading_a_device_that_never_ends_stops_at_the_file_limit():
    r = _run(
        "score", "--ref", str(SAMPLE / "ref.txt"), "--sys", "/dev/zero", env=dict(os.environ, MTLENS_MAX_FILE_MB="1")
    )
    assert r.returncode == 2 and "larger than 1 MB, the limit for one file (MTLENS_MAX_FILE_MB)" in r.stderr


def test_a_named_pipe_without_a_writer_is_a_sentence_not_a_wait(tmp_path):
    """``score --sys FIFO`` waited forever for a writer (issue 38, item 10); a pipe that is written to (as
    bash's ``<(zcat sys.gz)``) is read whole."""
    fifo = tmp_path / "sys.fifo"
    os.mkfifo(fifo)
    r = subprocess.run(
        [sys.executable, "-m", "mtlens", "score", "--ref", str(SAMPLE / "ref.txt"), "--sys", str(fifo)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert r.returncode == 2 and "is a named pipe that nothing writes to" in r.stderr, r.stderr
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mtlens",
            "score",
            "--ref",
            str(SAMPLE / "ref.txt"),
            "--sys",
            str(fifo),
            "--metrics",
            "bleu",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    with open(fifo, "wb") as w:  # waits until the command opened the pipe, then writes the system
        w.write((SAMPLE / "UEdin.txt").read_bytes())
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    want = (
        SacreBLEU()
        .corpus_score(
            (SAMPLE / "UEdin.txt").read_text(encoding="utf-8").splitlines(),
            [(SAMPLE / "ref.txt").read_text(encoding="utf-8").splitlines()],
        )
        .score
    )
    assert f"{want:.1f}" in out


# --------------------------------------------------------------------------- long lines
def _long_line_files(tmp_path, hyp_line: str, ref_line: str):
    (tmp_path / "r.txt").write_text(ref_line + "\nshort line\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text(hyp_line + "\nshort line\n", encoding="utf-8")
    return ["score", "--ref", str(tmp_path / "r.txt"), "--sys", str(tmp_path / "h.txt"), "--format", "json"]


def test_a_19000_word_line_is_refused_by_ter_in_one_sentence_with_bounded_memory(tmp_path):
    """Issue 38: one 19,000-word line (under the 100,000-character line limit) took TER's process tree to
    5.5 GB. TER now refuses line pairs past MTLENS_MAX_TER_WORD_PAIRS before computing anything; the
    whole process tree stays under 1 GB; the other metrics score the line."""
    rng = np.random.default_rng(3)
    ref = " ".join(f"w{k}" for k in rng.integers(0, 500, 19_000))
    hyp = " ".join(f"w{k}" for k in rng.integers(0, 500, 19_000))
    assert len(hyp) < 100_000
    args = _long_line_files(tmp_path, hyp, ref)
    r, peak = run_with_peak([sys.executable, "-m", "mtlens", *args, "--metrics", "ter"], cwd=ROOT)
    assert r.returncode == 2, r.stderr
    assert "TER aligns lines of up to 9,000,000 hypothesis x reference word pairs" in r.stderr
    assert "line 1 of 'h' has 19,000 x 19,000 words" in r.stderr and "MTLENS_MAX_TER_WORD_PAIRS" in r.stderr
    assert "Traceback" not in r.stderr
    assert peak < 1024, f"{peak:.0f} MB"
    r, peak = run_with_peak([sys.executable, "-m", "mtlens", *args, "--metrics", "bleu,chrf++,bleu-c,nist"], cwd=ROOT)
    assert r.returncode == 0 and peak < 1024, (r.stderr, peak)


def test_a_long_line_identical_to_its_reference_is_ter_zero_without_tables(tmp_path):
    """A line equal to its reference has no edits: TER 0 however long, no alignment tables (under 1 GB;
    aligned, 19,000 words would take 5.8 GB)."""
    line = " ".join(f"w{k % 499}" for k in range(19_000))
    args = _long_line_files(tmp_path, line, line)
    r, peak = run_with_peak([sys.executable, "-m", "mtlens", *args, "--metrics", "ter"], cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["systems"][0]["scores"]["ter"] == 0.0
    assert peak < 1024, f"{peak:.0f} MB"


def test_the_ter_bound_is_a_setting_and_sacrebleu_agrees_below_it(monkeypatch):
    """At 30 x 40 word pairs a limit of 1,200 scores the line (sacrebleu's number), 1,199 refuses it."""
    from sacrebleu.metrics import TER as SacreTER

    ref = " ".join(f"r{k % 7}" for k in range(40))
    hyp = " ".join(f"r{k % 5}" for k in range(30))
    c = Corpus.build({"ref": [ref]}, {"A": [hyp]})
    monkeypatch.setenv("MTLENS_MAX_TER_WORD_PAIRS", "1200")
    assert score(c, "ter")["ter"].scores["A"] == pytest.approx(SacreTER().corpus_score([hyp], [[ref]]).score, abs=1e-9)
    monkeypatch.setenv("MTLENS_MAX_TER_WORD_PAIRS", "1199")
    with pytest.raises(InputError, match="line 1 of 'A' has 30 x 40 words"):
        score(c, "ter")


def test_tbleu_refuses_comparing_words_past_its_bound_in_one_sentence(tmp_path):
    """Two different 99,000-character words of one line took tBLEU 50 s (its affix distance grows with
    the square of a word's length): refused before any work; a long word with no similar word to
    compare (the affix distance is then 1 without computing it) is scored."""
    rng = np.random.default_rng(5)
    a = "".join(rng.choice(list("abcdef"), 99_000))
    b = "".join(rng.choice(list("abcdef"), 99_000))
    args = _long_line_files(tmp_path, a, b)
    r, peak = run_with_peak([sys.executable, "-m", "mtlens", *args, "--metrics", "tbleu"], cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "tolerant BLEU compares words of up to 1,000 characters" in r.stderr, r.stderr
    assert "line 1 of 'h' has a 99,000-character word" in r.stderr and peak < 1024
    args = _long_line_files(tmp_path, a + " x", "x y")
    r = _run(*args, "--metrics", "tbleu")
    assert r.returncode == 0, r.stderr


# --------------------------------------------------------------------------- bundles
def _gzip_of_repeats(head: bytes, chunk: bytes, n: int) -> bytes:
    """The gzip file of ``head + chunk * n``, made without compressing ``chunk`` n times: after a full
    flush deflate forgets what came before, so every repeat of ``chunk`` compresses to the same bytes
    (compressing 8 GB at level 9 took 50 CPU-seconds)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = deflate.compress(head) + deflate.flush(zlib.Z_FULL_FLUSH)
    one = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    assert deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH) == one  # the same bytes each time
    crc = zlib.crc32(head)
    for _ in range(n):
        crc = zlib.crc32(chunk, crc)
    size = len(head) + n * len(chunk)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # gzip, deflate, no name, no time
    return header + start + one * n + deflate.flush() + struct.pack("<II", crc, size & 0xFFFFFFFF)


def test_a_bundle_bomb_is_refused_in_one_sentence_with_bounded_memory(tmp_path):
    """8 MB of gzip that unpacks to about 8 GB: refused at the limit; the process stays far under 1 GB."""
    bomb = tmp_path / "bomb.mtlens.json.gz"
    head, chunk, n = b'{"format": "mtlens-set", "version": 1, "references": {"r": ["', b" " * 2**24, 512
    bomb.write_bytes(_gzip_of_repeats(head, chunk, n))
    assert bomb.stat().st_size < 12 * 2**20
    with gzip.open(bomb) as f:  # a valid gzip file of exactly that text (read far enough to see it)
        assert f.read(len(head) + 100) == head + b" " * 100
    # the peak of this process's own memory (VmHWM): ru_maxrss would include the parent's peak, which
    # Linux carries across exec
    code = (
        "import sys\n"
        "from mtlens.cli import main\n"
        "rc = main(['import', sys.argv[1], '--data-dir', sys.argv[2]])\n"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
        "print('RSS', hwm)\n"
        "sys.exit(rc)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(bomb), str(tmp_path / "ws")], capture_output=True, text=True, cwd=ROOT
    )
    assert r.returncode == 2, r.stderr
    assert "unpacks to more than" in r.stderr and "MTLENS_MAX_BUNDLE_MB" in r.stderr
    rss_kb = int(r.stdout.split("RSS")[1])
    assert rss_kb < 1024 * 1024, f"{rss_kb / 1024:.0f} MB resident while refusing a bomb"
    assert Store(tmp_path / "ws").list() == []


def _peak_of_import(bundle, tmp_path, env=None):
    """``mtlens import`` of ``bundle`` in a fresh process: its return code, stderr and the peak resident
    memory of its whole process tree (MB)."""
    r, peak = run_with_peak(
        [sys.executable, "-m", "mtlens", "import", str(bundle), "--data-dir", str(tmp_path / "ws")], cwd=ROOT, env=env
    )
    return r.returncode, r.stderr, peak


@pytest.mark.parametrize(
    ("part", "item"),
    [(b'"x": [', b"{},"), (b'"x": [', b"[],"), (b'"x": [', b"0.5,"), (b'"references": {"r": ["a"]}, "y": [', b"1,")],
    ids=["empty-objects-under-an-extra-key", "empty-lists", "floats", "small-integers"],
)
def test_a_bundle_of_millions_of_tiny_json_values_is_refused_with_bounded_memory(tmp_path, part, item):
    """A few hundred KB of gzip whose JSON holds 30 million tiny values (parsed, 2-6 GB of Python
    objects; issue 38): refused by counting values before parsing, the process stays under 1 GB,
    nothing is saved."""
    bomb = tmp_path / "values.mtlens.json.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        f.write(b'{"format": "mtlens-set", "version": 1, "systems": {"A": ["a"]}, ' + part)
        for _ in range(30):
            f.write(item * 1_000_000)
        f.write(item.rstrip(b",") + b"]}")
    assert bomb.stat().st_size < 2**20
    rc, err, peak_mb = _peak_of_import(bomb, tmp_path)
    assert rc == 2 and "more than 6,000,000 JSON values" in err and "MTLENS_MAX_JSON_VALUES" in err, err
    assert peak_mb < 1024, f"{peak_mb:.0f} MB resident while refusing"
    assert Store(tmp_path / "ws").list() == []


def test_the_json_value_limit_is_a_setting_and_counts_no_commas_inside_text(tmp_path, monkeypatch):
    """Commas, colons and brackets inside lines are text, not values: a bundle of 3 lines full of them
    passes a limit of 40 values; 50 lines do not."""
    monkeypatch.setenv("MTLENS_MAX_JSON_VALUES", "40")
    line = "a, b: [c] {d}, " * 1000
    st = Store(tmp_path)
    import_bundle(st, _bundle(references={"ref": [line] * 3}, systems={"A": [line] * 3}))
    with pytest.raises(InputError, match="more than 40 JSON values"):
        import_bundle(st, _bundle(references={"ref": ["x"] * 50}, systems={"A": ["y"] * 50}))
    assert len(st.list()) == 1


def test_a_bundle_with_a_part_bundles_do_not_have_is_refused(tmp_path):
    st = Store(tmp_path)
    with pytest.raises(InputError, match="a part that bundles do not have \\('extra'\\)"):
        import_bundle(st, _bundle(extra=[{}] * 10))
    assert st.list() == []


def test_a_valid_bundle_of_spaces_is_refused_not_a_memory_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLENS_MAX_BUNDLE_MB", "16")
    data = _bundle(references={"r": [" " * (20 * 2**20)]}, systems={"A": ["x"]})
    assert len(data) < 3 * 2**20
    with pytest.raises(InputError, match="unpacks to more than"):
        import_bundle(Store(tmp_path), data)


@pytest.mark.parametrize(
    ("doc", "said"),
    [
        ({"references": {"ref": []}, "systems": {"A": []}}, "has no lines"),
        ({"references": {"ref": ["\ud800 x"]}, "systems": {"A": ["y"]}}, "lone surrogate"),
        ({"language_pair": 5}, "language pair is not text"),
        ({"language_pair": "<b>en</b>-de"}, "is not of the form 'en-zh'"),
        ({"version": 99}, "written by a newer mtlens"),
        ({"version": "1"}, "version is missing"),
        ({"scores": [["comet.json", b"{not json".hex()]]}, "is not valid JSON"),
        ({"scores": [["s.tsv", b"system\tline\tm\nA\t1\t0.5\n".hex()]]}, "no m score for line"),
        ({"human": [["h.tsv", b"nonsense".hex()]]}, "h.tsv"),
        ({"references": {"ref": ["a\nb", "c"]}}, "line breaks"),
        ({"references": {"ref": ["a", "b"]}, "systems": {"A": ["a"]}}, "has 1 lines"),
        ({"references": {"ref": ["x" * 100_001, "c"]}}, "mtlens scores lines of up to 100,000"),
        ({"systems": {"": ["a b", "d"]}}, "name is empty"),
        ({"human": [["h.tsv", "zz"]]}, "is not hex"),
        ({"references": "abc"}, "needs references and systems"),
    ],
)
def test_a_bundle_saves_nothing_an_upload_would_refuse(tmp_path, doc, said):
    st = Store(tmp_path)
    with pytest.raises(InputError, match=said):
        import_bundle(st, _bundle(**doc))
    assert st.list() == []


def test_deeply_nested_bundle_is_a_sentence(tmp_path):
    deep = gzip.compress(b'{"format": "mtlens-set", "version": 1, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    with pytest.raises(InputError, match="nests its JSON more than 32 levels"):
        read_bundle(deep)


def test_bundle_round_trip_keeps_everything(tmp_path):
    refs, systems = pair_files(SAMPLE)
    c = Corpus.build({"ref": refs[0]}, systems, language_pair="en-de")
    st = Store(tmp_path)
    sid = st.save(c, "x", human=[("human.tsv", (SAMPLE / "human.tsv").read_bytes())], project="P")
    b = read_bundle(export_bundle(st, sid))
    assert b.corpus.systems == c.systems and b.corpus.language_pair == "en-de" and b.project == "P"
    new = import_bundle(st, export_bundle(st, sid), owner=A.id)
    assert st.load(new).info.owner == A.id and st.load(new).info.project is None  # a visitor's copy joins no project


# --------------------------------------------------------------------------- damaged statistics
def test_a_flipped_byte_in_stored_statistics_is_never_shown_as_a_score(tmp_path):
    refs, systems = pair_files(SAMPLE)
    c = Corpus.build({"ref": refs[0]}, systems, language_pair="en-de")
    st = Store(tmp_path)
    sid = st.save(c, "x")
    first = _run("score", "--set", sid, "--metrics", "bleu", "--format", "json", "--data-dir", str(tmp_path))
    assert first.returncode == 0, first.stderr
    want = {s: SacreBLEU().corpus_score(systems[s], [refs[0]]).score for s in systems}
    got = {row["name"]: row["scores"]["bleu"] for row in json.loads(first.stdout)["systems"]}
    assert all(abs(got[s] - want[s]) < 1e-9 for s in want)
    con = sqlite3.connect(tmp_path / FILE_NAME)
    system, blob = con.execute("SELECT system, data FROM stats LIMIT 1").fetchone()
    blob = bytearray(blob)
    blob[0:8] = (273482).to_bytes(8, "little")  # what the reviewer wrote
    con.execute("UPDATE stats SET data = ? WHERE system = ?", (bytes(blob), system))
    con.commit()
    con.close()
    again = _run("score", "--set", sid, "--metrics", "bleu", "--format", "json", "--data-dir", str(tmp_path))
    assert again.returncode == 0, again.stderr
    got = {row["name"]: row["scores"]["bleu"] for row in json.loads(again.stdout)["systems"]}
    assert all(abs(got[s] - want[s]) < 1e-9 for s in want)  # recomputed from the stored text
    assert f"the stored bleu statistics of '{system}' were damaged" in again.stderr
    third = _run("score", "--set", sid, "--metrics", "bleu", "--data-dir", str(tmp_path))
    assert "damaged" not in third.stderr  # reported once: the recomputed statistics replaced the damaged ones


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE stats SET shape = '[3, 2]'",
        "UPDATE stats SET shape = 'not json'",
        "UPDATE stats SET data = substr(data, 1, 8)",
        "UPDATE stats SET dtype = 'object'",
        "UPDATE stats SET system = 'S2' WHERE system = 'S1'",
        "UPDATE stats SET checksum = ''",
    ],
)
def test_damaged_statistics_of_any_kind_are_recomputed(tmp_path, corpus, damage):
    st = Store(tmp_path)
    sid = st.save(corpus, "x")
    want = score(corpus, ["bleu"])["bleu"].scores
    score_saved(st, sid, corpus, "bleu", DEFAULTS)
    con = sqlite3.connect(tmp_path / FILE_NAME)
    if "system = 'S2'" in damage:
        con.execute("DELETE FROM stats WHERE system = 'S2'")
    con.execute(damage)
    con.commit()
    con.close()
    fresh = Store(tmp_path)
    got = score_saved(fresh, sid, corpus, "bleu", DEFAULTS).scores
    assert got == pytest.approx(want, abs=1e-12)
    assert fresh.notes and "were damaged" in fresh.notes[0]


def test_statistics_of_a_version_1_store_are_dropped_on_upgrade(tmp_path, corpus):
    """A real version-1 file (the schema mtlens 0.1 wrote): its sets open, its statistics (which had no
    checksum and cannot be trusted) are dropped and recomputed."""
    from mtlens.storage.store import APP_ID, MIGRATIONS

    con = sqlite3.connect(tmp_path / FILE_NAME)
    for stmt in MIGRATIONS[1]:
        con.execute(stmt)
    con.execute(f"PRAGMA application_id = {APP_ID}")
    con.execute("PRAGMA user_version = 1")
    con.execute("INSERT INTO sets VALUES ('s1', 'old', 'en-de', NULL, '2025-01-01', 2)")
    for kind, name, lines in (("ref", "ref", corpus.references["ref"]), ("sys", "S1", corpus.systems["S1"])):
        con.execute("INSERT INTO streams VALUES ('s1', ?, ?, 0, ?)", (kind, name, json.dumps(list(lines))))
    blob = np.full((2, 10), 7, dtype=np.int64)
    con.execute("INSERT INTO stats VALUES ('s1', 'bleu', '[]', 'S1', 'int64', '[2, 10]', ?)", (blob.tobytes(),))
    con.commit()
    con.close()
    st = Store(tmp_path)
    assert st.get_stats("s1", "bleu", ()) == {}
    saved = st.load("s1")
    assert saved.corpus.systems["S1"] == corpus.systems["S1"] and saved.info.owner is None
    assert [s.id for s in st.list()] == ["s1"]


# --------------------------------------------------------------------------- the store's file system
@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a read-only file system needs root (CI runs as root)")
def test_a_store_on_a_read_only_file_system_can_be_listed_and_opened(tmp_path, corpus):
    with tmpfs(tmp_path / "ro") as mnt:
        st = Store(mnt)
        sid = st.save(corpus, "kept")
        remount_read_only(mnt)
        ro = Store(mnt)
        assert [s.id for s in ro.list()] == [sid]
        assert ro.load(sid).corpus.systems == corpus.systems
        with pytest.raises(InputError, match="read-only"):
            ro.save(corpus, "more")
        r = _run("list", "--data-dir", str(mnt))
        assert r.returncode == 0 and sid in r.stdout


def test_size_accounting_survives_a_vanishing_wal_file(tmp_path, corpus, monkeypatch):
    """A WAL file removed by another process's checkpoint between glob and stat is not an error."""
    st = Store(tmp_path)
    st.save(corpus, "x")
    real_glob = type(tmp_path).glob

    def glob(self, pattern):
        yield from real_glob(self, pattern)
        yield self / (FILE_NAME + "-wal-gone")

    monkeypatch.setattr(type(tmp_path), "glob", glob)
    st.save(corpus, "y")
    assert len(st.list()) == 2


def test_delete_works_on_a_full_disk(tmp_path, corpus):
    """A tmpfs just large enough: once it is full, a delete still frees space (the ballast file goes first)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root (CI runs as root)")
    with tmpfs(tmp_path / "small", 6) as mnt:
        st = Store(mnt)
        big = Corpus.build({"r": [f"line {i} " + "x" * 200 for i in range(2000)]}, {"A": ["a"] * 2000})
        sid = st.save(big, "first")
        st._keep_ballast()
        assert (mnt / BALLAST_NAME).exists()
        with pytest.raises(InputError, match="disk is full|No space"):
            for k in range(20):
                st.save(big, f"more {k}")
        fill(mnt)
        st.delete(sid)
        assert sid not in [s.id for s in st.list()]


@pytest.mark.parametrize("ballast", [True, False], ids=["with-ballast", "without-ballast"])
def test_on_a_full_disk_reading_and_deleting_always_work(tmp_path, ballast):
    """Issue 38, item 5: on a full disk without a ballast file ``delete`` said "database or disk is full";
    with one, "disk I/O error", and then ``list`` could not open the store (SQLite could not create its
    write-ahead log and shared-memory files). Now reading opens the file without them, and a delete
    frees the ballast first, else deletes in the file itself: every command works until the last set
    is gone."""
    with tmpfs(tmp_path / "full") as mnt:
        st = Store(mnt)
        big = Corpus.build({"r": [f"line {i} " + "x" * 200 for i in range(1000)]}, {"A": ["a"] * 1000})
        first, second = st.save(big, "first"), st.save(big, "second")
        assert (mnt / BALLAST_NAME).exists()  # made with the first save
        if not ballast:
            (mnt / BALLAST_NAME).unlink()
        fill(mnt)
        for sid, left in ((first, ["second"]), (second, [])):
            r = _run("list", "--data-dir", str(mnt))
            assert r.returncode == 0 and sid in r.stdout, r.stderr
            r = _run("delete", sid, "--data-dir", str(mnt))
            assert r.returncode == 0, r.stderr
            assert [s.name for s in Store(mnt).list()] == left


# --------------------------------------------------------------------------- access control
def test_damaged_pin_rows_are_left_out_and_the_report_is_written(tmp_path):
    """Issue 38, item 7: pin rows damaged in the store (systems not JSON, not a list, a line that is text,
    negative or past the set, a metric that is not text) made ``report --set`` end in JSONDecodeError, TypeError or
    ValueError. They are left out; the good pin is on its slide."""
    from mtlens.storage.pins import Pin

    refs, systems = pair_files(SAMPLE)
    st = Store(tmp_path)
    sid = st.save(Corpus.build({"ref": refs[0]}, systems, language_pair="en-de"), "pins")
    st.pin(sid, Pin(2, ("UEdin",), "bleu", "kept note"))
    with sqlite3.connect(tmp_path / FILE_NAME) as con:
        for line, syss, metric in [
            (3, "{not json", "bleu"),
            (4, '{"a": 1}', "bleu"),
            (5, "[1, 2]", "bleu"),
            ("x", '["UEdin"]', "bleu"),
            (-1, '["UEdin"]', "bleu"),
            (10**6, '["UEdin"]', "bleu"),
            (6, '["UEdin"]', b"bleu"),  # a blob, not text
            (7, "[" * 5000 + "]" * 5000, "bleu"),
        ]:
            con.execute(
                "INSERT INTO pins (set_id, line, systems, metric, note, created) VALUES (?, ?, ?, ?, '', 0)",
                (sid, line, syss, metric),
            )
    assert [p.line for p in st.pins(sid)] == [2]
    out = tmp_path / "r.html"
    r = _run("report", "--set", sid, "--data-dir", str(tmp_path), "-o", str(out), "--n", "100")
    assert r.returncode == 0, r.stderr
    assert "kept note" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("weights", "said"),
    [
        ('{"major": ' + "9" * 400 + "}", "must be a number from 0 to 1,000,000, not 999999"),
        ('{"major": 1e308}', "must be a number from 0 to 1,000,000, not 1e+308"),
        ('{"major": -1}', "not -1"),
        ('{"major": "5"}', "not 5"),
        ('{"major": ' + "9" * 5000 + "}", "is not valid JSON"),
    ],
)
def test_hostile_mqm_weights_are_one_sentence(weights, said):
    """A 400-digit weight was an OverflowError; 1e308 gave every system a null score with a numpy warning."""
    from mtlens.readers.mqm import parse_weights

    with pytest.raises(InputError, match=re.escape(said)):
        parse_weights(weights)


@pytest.mark.parametrize("kind", ["loop", "unreadable", "long name"])
def test_a_checkpoint_path_that_cannot_be_followed_is_one_sentence(tmp_path, kind):
    """``models add`` on a symbolic link loop ended in RuntimeError (issue 38, item 7)."""
    from mtlens.neural.models import checkpoint_file

    if kind == "loop":
        (tmp_path / "a").symlink_to(tmp_path / "b")
        (tmp_path / "b").symlink_to(tmp_path / "a")
        path = tmp_path / "a"
    elif kind == "unreadable":
        path = tmp_path / "model.ckpt"
        path.write_bytes(b"x")
        path.chmod(0)
        if os.access(path, os.R_OK):  # root reads everything: nothing to refuse
            path = tmp_path / "missing" / "model.ckpt"
    else:
        path = tmp_path / ("x" * 5000)
    with pytest.raises(InputError, match="is not a readable COMET checkpoint"):
        checkpoint_file(path)


def test_owners_change_their_sets_and_a_link_only_reads(tmp_path, corpus):
    st = Store(tmp_path)
    a1 = st.save(corpus, "A's first", owner=A.id)
    a2 = st.save(corpus, "A's second", owner=A.id)
    b1 = st.save(corpus, "B's", owner=B.id)
    assert {s.id for s in st.list(visitor=A)} == {a1, a2}
    assert {s.id for s in st.list(visitor=B)} == {b1}
    assert {s.id for s in st.list(visitor=OPERATOR)} == {a1, a2, b1} == {s.id for s in st.list()}
    assert st.load(a1).corpus.systems == corpus.systems  # reading by id (the link) is open
    for action in (
        lambda: st.rename(a1, "mine now", B),
        lambda: st.delete(a1, B),
        lambda: st.set_project(a1, "P", B),
        lambda: st.add_systems(a1, {"S3": ["a", "b"]}, B),
        lambda: st.add_scores(a1, "m.tsv", b"", B),
    ):
        with pytest.raises(InputError, match="only the owner of this set can change or delete it"):
            action()
    assert st.load(a1).info.name == "A's first" and len(st.list()) == 3
    st.rename(a1, "renamed by A", A)
    st.delete(a2, A)
    st.delete(b1)  # the operator (CLI) administers everything
    assert [s.name for s in st.list()] == ["renamed by A"]


def test_projects_share_sets_with_their_members_only(tmp_path, corpus):
    st = Store(tmp_path)
    a1 = st.save(corpus, "A's", owner=A.id)
    with pytest.raises(InputError, match="you are not a member of project 'WMT'"):
        st.set_project(a1, "WMT", A)  # a visitor cannot push sets into other people's lists
    st.grant("WMT", A.id)
    st.grant("WMT", B.id)
    st.set_project(a1, "WMT", A)
    assert [s.id for s in st.list(visitor=B)] == [a1]
    assert not st.may_change(a1, B)  # members read, owners change
    st.revoke("WMT", B.id)
    assert st.list(visitor=B) == []
    with pytest.raises(InputError, match="not a visitor id"):
        st.grant("WMT", "someone")


def test_access_command(tmp_path):
    r = _run("access", "grant", "WMT 21", A.id, "--data-dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    r = _run("access", "list", "--data-dir", str(tmp_path))
    assert f"WMT 21\t{A.id}" in r.stdout
    r = _run("access", "revoke", "WMT 21", B.id, "--data-dir", str(tmp_path))
    assert r.returncode == 2 and "is not a member" in r.stderr


def test_a_visitor_cannot_fill_the_store(tmp_path, corpus, monkeypatch):
    monkeypatch.setenv("MTLENS_MAX_OWNER_MB", "0.001")
    st = Store(tmp_path)
    st.save(corpus, "first", owner=A.id)
    with pytest.raises(InputError, match="over the limit of 0 MB for one visitor"):
        st.save(Corpus.build({"r": ["x" * 2000]}, {"S": ["y"]}), "second", owner=A.id)
    st.save(corpus, "B's own", owner=B.id)  # the limit is per visitor
    st.save(Corpus.build({"r": ["x" * 2000]}, {"S": ["y"]}), "the operator's")  # and not the operator's


def test_browser_keys_are_kept_only_as_digests():
    key = "0123456789abcdef" * 2
    v = browser_visitor(key)
    assert key not in v.id and v.id == browser_visitor(key).id and v.id != browser_visitor("f" * 32).id
    for bad in ("", "x" * 32, "0" * 31, "<script>"):
        with pytest.raises(InputError):
            browser_visitor(bad)


# --------------------------------------------------------------------------- imported metric files
def test_duplicate_rows_and_stems_in_metric_files_are_refused(corpus):
    tsv = b"system\tline\tm\nS1\t1\t0.1\nS1\t2\t0.2\nS2\t1\t0.3\nS2\t2\t0.4\nS1\t2\t0.9\n"
    with pytest.raises(InputError, match=r"line 6 of 'x.tsv' scores system 'S1' line 2 a second time"):
        read_scores(tsv, "x.tsv", corpus)
    doc = {f"{d}/S1.txt": [{"COMET": 0.1}, {"COMET": 0.2}] for d in ("d1", "d2")} | {
        "S2.txt": [{"COMET": 0.1}, {"COMET": 0.2}]
    }
    with pytest.raises(InputError, match="the paths 'd1/S1.txt' and 'd2/S1.txt' both name system 'S1'"):
        read_scores(json.dumps(doc).encode(), "c.json", corpus)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b'{"S1.txt": [{"COMET": 1' + b"0" * 400 + b'}, {"COMET": 0.2}]}', "not a finite number"),
        (b'{"S1.txt": [{"COMET": 1e400}, {"COMET": 0.2}]}', "not a finite number"),
        (b'{"S1.txt": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nests its JSON more than 32 levels"),
        (b'{"S1.txt": [{"COMET": 0.1, "errors": 5}, {"COMET": 0.2}]}', "'errors' is not a list of spans"),
        (b"\xff\xfe\x00garbage", "not UTF-8|not valid JSON"),
    ],
)
def test_hostile_comet_json_is_one_sentence(corpus, data, said):
    with pytest.raises(InputError, match=said):
        read_scores(data, "c.json", corpus)


def test_xcomet_spans_outside_the_text_are_noted_not_kept(corpus):
    seg = {"COMET": 0.5, "mt": "a b c"}
    doc = {
        "S1.txt": [
            seg
            | {
                "errors": [
                    {"text": "b", "start": 2, "end": 3, "severity": "minor", "confidence": 0.5},
                    {"text": "zz", "start": -5, "end": -1, "severity": "major", "confidence": 0.5},
                    {"text": "q", "start": 1e400, "end": 2, "severity": "major", "confidence": 0.5},
                    {"text": "", "start": 40, "end": 90, "severity": "major", "confidence": 0.5},
                ]
            },
            {"COMET": 0.2},
        ],
        "S2.txt": [{"COMET": 0.1}, {"COMET": 0.2}],
    }
    (s,) = read_scores(json.dumps(doc).encode(), "x.json", corpus)
    kept = s.spans["S1"][0]
    assert [(e.start, e.end, e.text) for e in kept] == [(2, 3, "b")]
    assert all(0 <= e.start <= e.end <= len(corpus.systems["S1"][0]) for e in kept)
    assert any("3 xCOMET span(s) could not be placed" in n and "'S1' line 1" in n for n in s.notes)


def test_metricx_jsonl_with_deep_nesting_is_a_sentence(corpus):
    data = b'{"prediction": 1}\n' + b"[" * 50 + b"]" * 50 + b"\n"
    with pytest.raises(InputError, match="line 2 of 'S1.jsonl' nests its JSON"):
        read_score_files([("S1.jsonl", data)], corpus)


# --------------------------------------------------------------------------- exports
def test_csv_cells_never_run_as_formulas(corpus):
    c = Corpus.build(
        {"ref": ["a b c", "d e"]},
        {'=HYPERLINK("http://x")': ["a b c", "d x"], "@SUM(A1)": ["a c", "d e"], "-2": ["a", "d"]},
    )
    text = to_csv(score(c, ["bleu"]))
    rows = text.splitlines()
    assert rows[0] == "rank,system,bleu"
    firsts = sorted(r.split(",", 1)[1].rsplit(",", 1)[0] for r in rows[1:])
    assert firsts == sorted(['"\'=HYPERLINK(""http://x"")"', "'@SUM(A1)", "-2"])
    assert csv_cell("\tcmd") == "'\tcmd" and csv_cell("\rcmd") == "'\rcmd" and csv_cell("+1") == "+1"
    pd = pytest.importorskip("pandas")
    out = frame_to_csv(pd.DataFrame({"system": ["=1+1", "ok"], "delta": [-0.5, None]}))
    assert out.splitlines() == ["system,delta", "'=1+1,-0.5", "ok,"]


def test_the_html_report_never_makes_a_name_a_live_link():
    evil = "<a href='https://evil.example'>click</a>"
    c = Corpus.build({"ref": ["a b c", "d e"]}, {evil: ["a b c", "d x"], "B": ["a c", "d e"]})
    html = build_html_report(c, score(c, ["bleu"]), {})
    assert "href='https://evil.example'" not in html and 'href=\\"https://evil.example' not in html
    assert "&lt;a href=" in html or "\\u0026lt;a href=" in html  # escaped as text in the chart's data too


def test_peak_memory_reading_is_real():
    """The bounded-memory assertion above reads VmHWM (kB): a child that allocates 300 MB reports it."""
    code = (
        "b = bytearray(300 * 2**20); b[::4096] = b'\\1' * len(b[::4096])\n"
        "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 300 * 1024 <= int(out.stdout) < 600 * 1024


def test_a_stored_set_without_lines_is_a_sentence_not_a_crash(tmp_path, corpus):
    """A set an older mtlens saved from a zero-line bundle: opening it says so (pages show the sentence)."""
    st = Store(tmp_path)
    sid = st.save(corpus, "fine")
    con = sqlite3.connect(tmp_path / FILE_NAME)
    con.execute("INSERT INTO sets (id, name, created, n_lines) VALUES ('e' || hex(randomblob(15)), 'empty', 'x', 0)")
    con.commit()
    (empty,) = [r[0] for r in con.execute("SELECT id FROM sets WHERE name = 'empty'")]
    con.close()
    with pytest.raises(InputError, match="has no lines"):
        st.load(empty)
    r = _run("score", "--set", empty, "--data-dir", str(tmp_path))
    assert r.returncode == 2 and "has no lines" in r.stderr
    assert st.load(sid).corpus.systems == corpus.systems


# --------------------------------------------------------------------------- the evaluation service
def test_a_reopened_set_keeps_its_detected_language_and_its_data_notes(tmp_path):
    """Two bugs of issue 19: a detected language came back as declared, and data notes were lost."""
    from mtlens.readers.testset import corpus_from_bytes
    from mtlens.service.evaluation import evaluate, open_saved, save

    ref = "北京欢迎你。\n我们 &amp; 你们\n今天天气很好。\n".encode()
    hyp = "北京欢迎您。\n我们和你们\n今天天气好。\n".encode()
    ev = evaluate(corpus_from_bytes([("ref.txt", ref)], [("A.txt", hyp)]))
    assert ev.language.how == "detected" and ev.language.target == "zh"
    assert any("HTML entit" in w for w in ev.corpus.warnings)
    st = Store(tmp_path)
    sid = save(st, ev, "zh").set_id
    back = open_saved(st, sid)
    assert back.language.how == "detected" and back.language.target == "zh"
    assert back.corpus.language_pair == ev.corpus.language_pair == "und-zh"
    assert back.corpus.warnings == ev.corpus.warnings
    r = _run("score", "--set", sid, "--metrics", "bleu", "--data-dir", str(tmp_path))
    assert "detected" in r.stderr and "(declared)" not in r.stderr  # the CLI says what the upload said
    assert "HTML entit" in r.stdout  # and the notes on the data
    declared = evaluate(corpus_from_bytes([("ref.txt", ref)], [("A.txt", hyp)]), "en-zh")
    assert open_saved(st, save(st, declared, "zh2").set_id).language.how == "declared"
