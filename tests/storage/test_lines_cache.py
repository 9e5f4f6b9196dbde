"""The lines of saved streams are read once per process and shared by every later reader (mtlens/storage/lines_cache.py):
the same text as the store holds, never another set's, another store's or a deleted set's."""

from __future__ import annotations

import datetime as real_dt
import types

import pytest

from mtlens import Corpus
from mtlens.core.errors import InputError
from mtlens.storage import lines_cache
from mtlens.storage import sets as sets_module
from mtlens.storage.store import Store

from ..conftest import SAMPLE, pair_files


@pytest.fixture(autouse=True)
def _empty():
    lines_cache.clear()
    yield
    lines_cache.clear()


@pytest.fixture
def corpus():
    refs, systems = pair_files(SAMPLE)
    return Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems, source=refs[1][::-1], language_pair="en-de")


def _no_json(monkeypatch):
    """Reading a stream's JSON now fails: a load that succeeds took every line from what was kept."""

    def refuse(_text):
        raise AssertionError("a stream was parsed again")

    monkeypatch.setattr(lines_cache, "json", types.SimpleNamespace(loads=refuse))


def _streams(corpus: Corpus) -> dict:
    return {
        **{("ref", n): v for n, v in corpus.references.items()},
        **{("sys", n): v for n, v in corpus.systems.items()},
        ("src", ""): corpus.source,
    }


def test_a_set_read_twice_shares_its_lines_and_parses_them_once(backend, corpus, monkeypatch):
    set_id = backend.store().save(corpus, "one")
    first = backend.store().load(set_id).corpus  # a new Store each time, as each page and request makes
    assert _streams(first) == _streams(corpus)
    _no_json(monkeypatch)
    again = backend.store().load(set_id).corpus
    assert _streams(again) == _streams(corpus)
    assert all(again_lines is _streams(first)[k] for k, again_lines in _streams(again).items())


def test_a_system_added_later_is_read_and_the_others_stay_shared(backend, corpus):
    st = backend.store()
    set_id = st.save(corpus, "one")
    before = st.load(set_id).corpus
    new = [f"new {k}" for k in range(corpus.n_lines)]
    st.add_systems(set_id, {"Added": new})
    after = st.load(set_id).corpus
    assert after.systems["Added"] == tuple(new)
    assert all(after.systems[s] is before.systems[s] for s in before.systems)


def test_two_stores_with_a_set_of_one_id_each_read_their_own_text(tmp_path, corpus):
    """The same id in two stores (the bundled sample's is in every workspace): each store's text, never the other's,
    even with text of the same length."""
    other = Corpus.build(
        {n: [x[::-1] for x in v] for n, v in corpus.references.items()},
        {n: [x[::-1] for x in v] for n, v in corpus.systems.items()},
        source=[x[::-1] for x in corpus.source],
    )
    a, b = Store(tmp_path / "a"), Store(tmp_path / "b")
    a.save(corpus, "one", set_id="x" * 32)
    b.save(other, "one", set_id="x" * 32)
    assert _streams(a.load("x" * 32).corpus) == _streams(corpus)
    assert _streams(b.load("x" * 32).corpus) == _streams(other)
    assert _streams(a.load("x" * 32).corpus) == _streams(corpus)


def test_a_set_deleted_and_saved_again_under_its_id_in_the_same_second_is_read_anew(tmp_path, corpus, monkeypatch):
    """Deleting forgets the set's lines: the new text (of the same length, saved in the same second, so with the same
    creation time) is read, not the deleted one."""
    moment = real_dt.datetime(2026, 11, 29, 2, 0, 0, tzinfo=real_dt.timezone.utc)
    frozen = types.SimpleNamespace(
        datetime=types.SimpleNamespace(now=lambda tz=None: moment), timezone=real_dt.timezone
    )
    monkeypatch.setattr(sets_module, "dt", frozen)
    st = Store(tmp_path)
    set_id = st.save(corpus, "one")
    assert st.load(set_id).corpus.systems == corpus.systems
    other = {n: [x[::-1] for x in v] for n, v in corpus.systems.items()}  # the same length as stored JSON
    assert other != {n: list(v) for n, v in corpus.systems.items()}
    st.delete(set_id)
    st.save(Corpus.build(dict(corpus.references), other, source=corpus.source), "one", set_id=set_id)
    assert {n: list(v) for n, v in st.load(set_id).corpus.systems.items()} == other


def test_at_most_max_chars_are_kept_the_least_recently_read_leaving_first(monkeypatch):
    monkeypatch.setattr(lines_cache, "MAX_CHARS", 30)
    lines_cache.put(("s", "a"), ("abcd", "efgh"))  # 8 characters and 2 line ends: 10
    lines_cache.put(("s", "b"), ("abcdefgh",) * 1)  # 9
    assert lines_cache.get(("s", "a")) == ("abcd", "efgh")  # read: now the most recent
    lines_cache.put(("s", "c"), ("x" * 10,))  # 11: 30 in all, still within
    lines_cache.put(("s", "d"), ("y",))  # 2 more: the least recently read ("b") leaves
    assert lines_cache.get(("s", "b")) is None
    assert lines_cache.get(("s", "a")) is not None and lines_cache.get(("s", "c")) is not None
    lines_cache.put(("s", "huge"), ("z" * 40,))  # longer than the whole bound: not kept, nothing else leaves
    assert lines_cache.get(("s", "huge")) is None and lines_cache.get(("s", "d")) == ("y",)


def test_a_damaged_stream_is_still_a_sentence(tmp_path, corpus):
    import sqlite3

    st = Store(tmp_path)
    set_id = st.save(corpus, "one")
    con = sqlite3.connect(tmp_path / "mtlens.sqlite3")
    con.execute("UPDATE streams SET lines = ? WHERE set_id = ? AND kind = 'sys'", ('["a", ', set_id))
    con.commit()
    con.close()
    with pytest.raises(InputError, match="damaged"):
        st.load(set_id)
