"""Issue 18 in the pages (AppTest): owners and links on a shared server, hostile bundles, the error id a
visitor sees instead of a traceback, sets that share a name, hostile link parameters."""

from __future__ import annotations

import gzip

import pytest
from streamlit.testing.v1 import AppTest

from mtlens import Corpus
from mtlens.core.errors import InputError

from ..conftest import ROOT, SAMPLE, tmpfs
from .conftest import errors, no_errors, plain


def _session(page: str = "app.py", **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / page), default_timeout=60)
    at.query_params.update(params)
    at.run()
    no_errors(at)
    return at


def _upload_set(at: AppTest) -> str:
    at.file_uploader(key="up_refs").set_value([("ref.txt", (SAMPLE / "ref.txt").read_bytes(), "text/plain")])
    at.file_uploader(key="up_systems").set_value(
        [
            ("UEdin.txt", (SAMPLE / "UEdin.txt").read_bytes(), "text/plain"),
            ("Online-W.txt", (SAMPLE / "Online-W.txt").read_bytes(), "text/plain"),
        ]
    )
    at.run()
    no_errors(at)
    return at.query_params["set"]


def test_on_a_shared_server_a_link_reads_but_never_changes_and_lists_stay_private(monkeypatch):
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_ACCESS", "owners")
    a = _session()
    sid = _upload_set(a)
    owner = state.store().load(sid).info.owner
    assert owner and owner.startswith("browser:")
    assert a.text_input(key=f"ws_name_{sid}").value  # A may rename
    names_a = list(a.dataframe[-1].value["name"])
    assert len(names_a) == 1

    b = _session(set=sid)  # another browser with A's link
    assert b.query_params["set"] == sid
    assert not [w for w in b.text_input if w.key == f"ws_name_{sid}"]
    assert any("shared with you by its link" in plain(c.value) for c in b.caption)
    assert not [w for w in b.file_uploader if w.key == f"ws_add_{sid}"]
    assert not [w for w in b.button if w.key == "ws_delete"]
    assert any("visitor id `browser:" in c.value for c in b.caption)
    assert "No saved sets yet" in " ".join(c.value for c in b.caption)  # A's set is not in B's list
    b.switch_page("pages/1_Rankings.py").run()
    no_errors(b)
    assert set(b.dataframe[0].value["system"]) == {"UEdin", "Online-W"}  # B reads A's numbers
    b.switch_page("pages/7_Overview.py").run()
    no_errors(b)
    assert any("No saved sets yet" in i.value for i in b.info)
    assert state.store().load(sid).info.owner == owner


def test_a_bundle_bomb_upload_is_one_sentence(app, monkeypatch):
    monkeypatch.setenv("MTLENS_MAX_BUNDLE_MB", "4")
    bomb = gzip.compress(b'{"format": "mtlens-set", "version": 1, "x": "' + b" " * (16 * 2**20) + b'"}', 9)
    app.file_uploader(key="ws_import").set_value([("bomb.mtlens.json.gz", bomb, "application/gzip")][0]).run()
    no_errors(app)
    assert any("unpacks to more than" in e and "MTLENS_MAX_BUNDLE_MB" in e for e in errors(app))


def test_a_bug_shows_an_error_id_never_a_traceback(monkeypatch, caplog):
    from mtlens.ui import cached

    def broken(*args, **kwargs):
        raise RuntimeError("secret path /srv/mtlens/internal.py line 3")

    monkeypatch.delenv("MTLENS_RAISE_ERRORS")
    monkeypatch.setattr(cached, "metric_result", broken)
    at = AppTest.from_file(str(ROOT / "pages" / "1_Rankings.py"), default_timeout=60)
    with caplog.at_level("ERROR", logger="mtlens.dashboard"):
        at.run()
    assert not at.exception
    shown = " ".join(errors(at))
    assert "error id" in shown and "secret path" not in shown and "Traceback" not in shown
    error_id = shown.split("error id ")[1][:8]
    assert any(error_id in r.getMessage() and r.exc_info for r in caplog.records)  # the log has the details


def test_overview_keeps_sets_that_share_a_name_apart(app):
    from mtlens import Corpus
    from mtlens.ui import state

    from ..conftest import pair_files

    refs, systems = pair_files(SAMPLE)
    store = state.store()
    one = store.save(Corpus.build({"ref": refs[0]}, {"UEdin": systems["UEdin"]}), "dup", project="D")
    two = store.save(Corpus.build({"ref": refs[1]}, {"UEdin": systems["Online-W"]}), "dup", project="D")
    app.switch_page("pages/7_Overview.py").run()
    app.selectbox(key="ov_project").set_value("D").run()
    no_errors(app)
    wide = app.dataframe[0].value
    assert sorted(wide.columns) == sorted([f"dup ({one[:8]})", f"dup ({two[:8]})"])
    long = app.dataframe[1].value
    by_id = dict(zip(long["set id"], long["bleu"], strict=True))
    assert by_id[one] != by_id[two]  # each column holds its own set's number
    assert wide.loc["UEdin", f"dup ({one[:8]})"].startswith(f"{by_id[one]:.1f}")  # BLEU's one decimal


@pytest.mark.parametrize("line", ["²", "٣", "-1", "1e9", "<b>1</b>"])
def test_hostile_link_parameters_are_ignored(line):
    default = _session("pages/2_Sentences.py", set="sample").number_input(key="sent_line_input").value
    at = _session("pages/2_Sentences.py", set="sample", line=line, a="<script>", metric="x' OR 1=1")
    assert at.number_input(key="sent_line_input").value == default


def test_in_owners_mode_a_link_reader_sees_the_owners_job_but_no_cancel_button(monkeypatch):
    """Issue 38, item 4: the owner's running COMET job is shown to a link reader without a Cancel button
    (the service refuses a forged cancel: tests/service/test_neural_jobs_access.py); the owner has one."""
    from mtlens.neural import environment
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_ACCESS", "owners")
    monkeypatch.setattr(environment, "available", lambda: True)  # the panel's rights do not depend on the extra
    a = _session()
    sid = _upload_set(a)
    store = state.store()
    store.claim_job(sid, "e" * 64, "tiny", lambda job: True)
    store.update_job(sid, "e" * 64, state="running", total=100, done=10)

    def cancel_buttons(at):
        return [b for b in at.button if (b.key or "").startswith("job_cancel_")]

    a.switch_page("pages/1_Rankings.py").run()
    no_errors(a)
    assert len(cancel_buttons(a)) == 1  # the owner may cancel
    b = _session(set=sid)
    b.switch_page("pages/1_Rankings.py").run()
    no_errors(b)
    assert any("comet:tiny: scoring 10 / 100" in plain(p.proto.text) for p in b.get("progress"))
    assert cancel_buttons(b) == []
    assert store.job(sid, "e" * 64)["state"] == "running"


def test_on_a_shared_server_store_sentences_do_not_say_where_the_store_lies(monkeypatch, tmp_path):
    """Issue 38, item 8: a read-only workspace's sentence on upload named the store's path to every
    visitor. In owners mode the sentence says "the workspace store"; the operator's command line and the
    local dashboard keep the path (they need it to act). A read-only file system (tmpfs remounted ro),
    since file modes do not stop root."""
    from mtlens.storage.store import Store

    with tmpfs(tmp_path / "ro", read_only=True) as data:
        monkeypatch.setenv("MTLENS_DATA_DIR", str(data))
        monkeypatch.setenv("MTLENS_ACCESS", "owners")
        at = _session()
        at.file_uploader(key="up_refs").set_value([("ref.txt", (SAMPLE / "ref.txt").read_bytes(), "text/plain")])
        at.file_uploader(key="up_systems").set_value([("UEdin.txt", (SAMPLE / "UEdin.txt").read_bytes(), "text/plain")])
        at.run()
        said = " ".join([*errors(at), *(plain(w.value) for w in at.warning), *(plain(c.value) for c in at.caption)])
        said += " ".join(plain(i.value) for i in at.info)
        assert "read-only" in said, said
        assert str(data) not in said
        with pytest.raises(InputError) as err:
            Store(data).save(Corpus.build({"ref": ["a"]}, {"A": ["a"]}), "x")
        assert str(data) in str(err.value)  # the operator's store names its file


@pytest.mark.parametrize("access", ["owners", "local"])
def test_checkpoint_paths_are_shown_to_the_operator_only(monkeypatch, tmp_path, access):
    """Issue 38, item 8: the Neural models table showed every visitor in owners mode where the server's
    checkpoints lie. A visitor sees metric, kind and digest; the operator (local mode) also the path."""
    from mtlens.neural import environment
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLENS_ACCESS", access)
    monkeypatch.setattr(environment, "available", lambda: True)
    secret = "/srv/private/checkpoints/wmt22-comet-da/model.ckpt"
    state.store().put_model(
        {
            "name": "da",
            "path": secret,
            "digest": "d" * 64,
            "kind": "estimator",
            "inputs": "src,mt,ref",
            "size": 1,
            "mtime": 0.0,
        }
    )
    at = _session()
    tables = [d.value for d in at.dataframe if "digest" in d.value.columns]
    assert len(tables) == 1 and list(tables[0]["metric"]) == ["comet:da"]
    shown_text = tables[0].to_string() + " ".join(plain(c.value) for c in at.caption)
    assert (secret in shown_text) == (access == "local")


def test_on_a_shared_server_a_link_reader_with_new_options_stores_nothing(monkeypatch, tmp_path):
    """Issue 38, item 2, on the pages: a link reader who changes options sees their numbers, and the
    store keeps only the statistics of the set's own options; the owner's option changes are kept."""
    import sqlite3

    def rows():
        with sqlite3.connect(tmp_path / "mtlens.sqlite3") as con:
            return con.execute("SELECT count(*) FROM stats").fetchone()[0]

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLENS_ACCESS", "owners")
    a = _session()
    sid = _upload_set(a)
    a.switch_page("pages/1_Rankings.py").run()
    no_errors(a)
    before = rows()
    for n in (3, 5):
        b = _session("pages/1_Rankings.py", set=sid, metrics="bleu-c", opt_char_order=str(n))
        assert "bleu-c" in b.dataframe[0].value.columns
    assert rows() == before
    _session("pages/1_Rankings.py", set=sid, metrics="bleu-c", opt_char_order="5")  # a reader again
    assert rows() == before
    a.slider(key="w_char_order").set_value(7).run()  # the owner changes an option: kept
    no_errors(a)
    assert rows() > before
