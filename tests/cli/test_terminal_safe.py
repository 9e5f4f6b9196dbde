"""What a file or a flag puts in the command line's output cannot act in a terminal or a CI log (issue 58, G10):
rater names (``ratings``), document ids and domains (``score --by document``) with ESC, BEL and OSC sequences were
printed raw. Every character that would act is written as a ``\\uXXXX`` escape, which JSON reads back as itself.
On the real WMT24 en-ja excerpt (tests/data/esa), its raters and documents renamed with escapes."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess

from mtlens.cli import main
from mtlens.core.names import terminal_safe
from mtlens.storage.store import Store

from ..conftest import ROOT

DATA = ROOT / "tests" / "data" / "esa"
EVIL = "\x1b[31m\x1b]0;pwned\x07\u202e"
ACTS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")


def _run(capsys, *argv, ws) -> subprocess.CompletedProcess:
    code = main([*argv, "--data-dir", str(ws)])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, out, err)


def test_names_from_files_are_escaped_when_printed(tmp_path, capsys):
    rows = list(csv.reader(io.StringIO((DATA / "esa_en-ja.excerpt.csv").read_text(encoding="utf-8"))))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([[r[0] + EVIL, *r[1:]] for r in rows])
    ratings = tmp_path / "evil.csv"
    ratings.write_text(buf.getvalue(), encoding="utf-8")
    docs = tmp_path / "evil.docs"
    lines = (DATA / "en-ja" / "en-ja.docs").read_text(encoding="utf-8").splitlines()
    docs.write_text("".join(f"{d}{EVIL}\t{doc}{EVIL}\n" for d, doc in (x.split("\t") for x in lines)), encoding="utf-8")
    ws = tmp_path / "ws"
    assert _run(capsys, "import", str(DATA / "en-ja"), "--docs", str(docs), "-l", "en-ja", ws=ws).returncode == 0
    set_id = Store(ws).list()[0].id
    assert _run(capsys, "import", "--ratings", str(ratings), "--set", set_id, ws=ws).returncode == 0
    for argv in (
        ("ratings", "--set", set_id),
        ("score", "--set", set_id, "--by", "document", "--metrics", "chrf"),
        ("score", "--set", set_id, "--by", "domain", "--metrics", "chrf"),
    ):
        got = _run(capsys, *argv, ws=ws)
        assert got.returncode == 0, got.stderr
        assert not ACTS.search(got.stdout + got.stderr), argv
        assert "\\u001b[31m" in got.stdout  # shown, escaped
    doc = json.loads(_run(capsys, "ratings", "--set", set_id, "--format", "json", ws=ws).stdout)
    assert all(q["rater"].endswith(EVIL) for q in doc["raters"])  # JSON reads the escapes back as the names


def test_the_escape_is_what_json_reads_back():
    text = json.dumps({"a": "x\u0085\u202e\x1b\U000f0001", "b": "tab\tand\nbreak"}, ensure_ascii=False)
    safe = terminal_safe(text)
    assert not ACTS.search(safe) and json.loads(safe) == json.loads(text)
    assert terminal_safe("plain\ttext\n") == "plain\ttext\n"


def test_a_campaign_id_follows_the_name_rule(tmp_path, capsys):
    """Issue 58, G9: ``campaign --id`` wrote ``../../etc/evil``, terminal escapes and a 10 KB id into the Pearmut
    campaign (Pearmut keeps a campaign under its id) and printed the escapes."""
    ws = tmp_path / "ws"
    assert _run(capsys, "import", str(DATA / "en-ja"), "-l", "en-ja", ws=ws).returncode == 0
    set_id = Store(ws).list()[0].id
    common = ("campaign", "--set", set_id, "--systems", "IKUN-C,ONLINE-B")
    for bad in ("../../etc/evil", "x\x1b[2J", "a" * 10_000, ".hidden", "a/b"):
        got = _run(capsys, *common, "--id", bad, ws=ws)
        assert got.returncode == 2 and got.stdout == "" and not ACTS.search(got.stderr), bad
        assert got.stderr.startswith("mtlens: error: the campaign")
    ok = _run(capsys, *common, "--id", "wmt25-en-ja_v2", ws=ws)
    assert ok.returncode == 0 and json.loads(ok.stdout)["campaign_id"] == "wmt25-en-ja_v2"


def test_every_format_character_of_this_python_is_escaped():
    """The pattern scans the blocks that hold format characters (core.names.FORMAT_BLOCKS), not every plane: every Cf
    character Python's Unicode database knows lies in them, and is escaped."""
    import sys
    import unicodedata

    from mtlens.core.names import FORMAT_BLOCKS

    formats = [c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    assert formats and all(any(c in r for r in FORMAT_BLOCKS) for c in formats)
    assert all("\\u" in terminal_safe(chr(c)) for c in formats)
