"""Who may change a saved set: one rule (mtlens.service.sets.may_change) for both faces and every action
(issue 47: it was written four times, and the operator could start neural jobs where ``may_change`` said no).
The table below is the rule as docs/decisions.md states it, written out case by case."""

from __future__ import annotations

import pytest

from mtlens.core.access import OPERATOR, Visitor
from mtlens.core.corpus import Corpus
from mtlens.core.errors import InputError
from mtlens.service import rights, runs
from mtlens.service.sets import may_change, require_change
from mtlens.storage.store import SAMPLE_ID, Store

OWNER = Visitor("browser:owner", "owner")
STRANGER = Visitor("browser:stranger", "stranger")
ADMIN = Visitor("user:admin", "admin", admin=True)

# (set, visitor) -> (may edit, may score)
RULE = {
    ("own", None): (True, True),  # the operator at the command line
    ("own", OPERATOR): (True, True),
    ("own", ADMIN): (True, True),
    ("own", OWNER): (True, True),
    ("own", STRANGER): (False, False),
    ("sample", None): (False, True),  # read-only texts; its neural scores are computed by who may change any set
    ("sample", ADMIN): (False, True),
    ("sample", OWNER): (False, False),
    ("missing", None): (False, False),
    ("missing", OWNER): (False, False),
    ("none", None): (False, False),
}


@pytest.fixture
def ids(tmp_path):
    store = Store(tmp_path)
    own = store.save(Corpus.build({"r": ["a b"] * 3}, {"s": ["a b"] * 3}), "x", owner=OWNER.id)
    return store, {"own": own, "sample": SAMPLE_ID, "missing": "0" * 32, "none": None}


@pytest.mark.parametrize(("which", "visitor"), list(RULE), ids=[f"{s}-{v.id if v else 'cli'}" for s, v in RULE])
def test_one_rule_for_every_action(ids, which, visitor):
    store, by_name = ids
    set_id = by_name[which]
    edit, score = RULE[(which, visitor)]
    assert may_change(store, set_id, visitor, "edit") is edit
    assert may_change(store, set_id, visitor, "score") is score
    if set_id is not None and which != "sample":  # the neural jobs' check is the same rule
        assert rights.may_run_jobs(store, set_id, visitor) is score


def test_refusals_are_one_sentence_naming_the_reason(ids):
    store, by_name = ids
    with pytest.raises(InputError, match="^the bundled sample is read-only; save your own set to add runs to it$"):
        require_change(store, SAMPLE_ID, None, "add runs to it")
    with pytest.raises(InputError, match="^only the owner of this set can rename it; upload your own copy"):
        require_change(store, by_name["own"], STRANGER, "rename it")
    require_change(store, by_name["own"], OWNER, "rename it")  # allowed: nothing raised


def test_systems_and_runs_are_named_by_one_rule(ids):
    """The home page's "add systems" and the command line's ``add`` name what they add the same way: the file's
    stem with white space folded, cut to 200 characters; stems that collide are told apart by their folders."""
    store, by_name = ids
    set_id = by_name["own"]
    data = b"a b\n" * 3
    names = runs.add_systems(store, set_id, [("x/  two   words .txt", data), ("y/B.txt", data)], OWNER)
    assert names == ["two words", "B"]
    run = runs.add_run(store, set_id, data, "z/  two   words  2.txt", visitor=OWNER)
    assert run.name == "two words 2"
    long = "w" * 300 + ".txt"
    assert runs.add_systems(store, set_id, [(long, data)], OWNER) == ["w" * 200]
    with pytest.raises(InputError, match="already has a system named 'B'"):
        runs.add_systems(store, set_id, [("B.txt", data)], OWNER)
    with pytest.raises(InputError, match="only the owner of this set can add systems to it"):
        runs.add_systems(store, set_id, [("C.txt", data)], STRANGER)
    assert set(store.load(set_id).corpus.systems) == {"s", "two words", "B", "two words 2", "w" * 200}


def test_the_faces_workspace_asks_the_one_rule_before_the_store(ids):
    """The faces change sets through ``Workspace`` (issue 47: they called the store straight through): a stranger
    is refused every change with the rule's sentence, the owner may, and score files are read before any is
    saved (a bad one saves none)."""
    from mtlens.service.workspace import Workspace
    from mtlens.storage.store import Pin

    store, by_name = ids
    set_id = by_name["own"]
    stranger, owner = Workspace(store, STRANGER), Workspace(store, OWNER)
    for change in (
        lambda ws: ws.rename(set_id, "new"),
        lambda ws: ws.set_project(set_id, "P"),
        lambda ws: ws.pin(set_id, Pin(1, ("s",), "bleu", "")),
        lambda ws: ws.add_scores(set_id, [("m.seg.score", b"s\t1\ns\t1\ns\t1\n")]),
        lambda ws: ws.delete(set_id),
    ):
        with pytest.raises(InputError, match="^only the owner of this set can "):
            change(stranger)
    with pytest.raises(InputError, match="^only the operator can"):
        stranger.members()
    owner.rename(set_id, "  renamed   set ")
    with pytest.raises(InputError, match="you are not a member of project 'P'"):
        owner.set_project(set_id, " P ")  # a visitor chooses only projects they are a member of
    Workspace(store).grant("P", OWNER.id)
    owner.set_project(set_id, " P ")
    info = {s.id: s for s in Workspace(store).sets()}[set_id]
    assert (info.name, info.project) == ("renamed set", "P")
    good = ("good.tsv", b"system\tline\tscore\ns\t1\t0.5\ns\t2\t0.5\ns\t3\t0.5\n")
    bad = ("bad.tsv", b"system\tline\tscore\ns\t1\t0.5\n")
    with pytest.raises(InputError):
        owner.add_scores(set_id, [good, bad])
    assert store.load(set_id).scores == ()  # nothing saved
    owner.add_scores(set_id, [good])
    assert [n for n, _ in store.load(set_id).scores] == ["good.tsv"]
    owner.delete(set_id)
    assert set_id not in {s.id for s in Workspace(store).sets()}


def test_an_empty_name_is_said_in_the_words_of_its_path(ids):
    """A name with nothing left after white space is folded: each path says what to give (the one rule's
    ``empty`` sentence), a family or a project is simply none."""
    from mtlens.core.names import optional_name
    from mtlens.storage.names import clean_name

    store, by_name = ids
    with pytest.raises(InputError, match="^a run needs a name \\(--name\\)$"):
        runs.add_run(store, by_name["own"], b"a b\n" * 3, "x.txt", name=" \t ", visitor=OWNER)
    with pytest.raises(InputError, match="^a set needs a name$"):
        clean_name("  ")
    assert optional_name(None, "family") is None and optional_name(" \n", "project") is None
    assert optional_name(" a  b ", "project") == "a b"
