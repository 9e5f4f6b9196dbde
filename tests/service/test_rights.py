"""Every right, decided in the service and tested here without a face (issue 59: the service knows who asks).

The table is the rule as mtlens/service/rights.py and docs/decisions.md state it, written out act by act and visitor
by visitor: the operator at the command line (``None``), a dashboard administrator, the set's owner and a stranger who
holds a link. Each refused act is called through the service as a face would call it, and must raise one sentence
before anything changes; each allowed act is either done for real (when it is cheap and starts nothing) or its right
is asked (starting a job would start a process, calling a judge would call a URL).
"""

from __future__ import annotations

import pytest

from mtlens.core.access import Visitor
from mtlens.core.corpus import Corpus
from mtlens.core.errors import InputError
from mtlens.judges.registry import Judge
from mtlens.service import jobs, rights
from mtlens.service.workspace import Workspace
from mtlens.storage.store import Store

OWNER = Visitor("browser:" + "a" * 32, "the set's owner")
STRANGER = Visitor("browser:" + "b" * 32, "a link reader")
ADMIN = Visitor("user:admin", "an administrator", admin=True)
WHO = {"operator": None, "admin": ADMIN, "owner": OWNER, "stranger": STRANGER}
JUDGE = Judge("j", "http://127.0.0.1:9/v1", "m", "gemba-mqm")

#: act -> the visitors who may do it
ALLOWED = {
    "register a model": {"operator", "admin"},
    "remove a model": {"operator", "admin"},
    "register a judge": {"operator", "admin"},
    "remove a judge": {"operator", "admin"},
    "list the projects' members": {"operator", "admin"},
    "grant a project": {"operator", "admin"},
    "start a judge's job": {"operator", "admin"},
    "cancel a judge's job": {"operator", "admin"},
    "start a judge's job as a neural job": {"operator", "admin"},
    "start a model's job": {"operator", "admin", "owner"},
    "cancel a model's job": {"operator", "admin", "owner"},
    "rename the set": {"operator", "admin", "owner"},
}


@pytest.fixture
def room(tmp_path):
    store = Store(tmp_path)
    set_id = store.save(Corpus.build({"r": ["a b c"] * 3}, {"s": ["a b d"] * 3}), "x", owner=OWNER.id)
    Workspace(store).add_judge(JUDGE)  # the operator's judge, for the acts on its jobs
    return store, set_id


def _refused(store, set_id, act: str, visitor) -> None:
    """Do ``act`` through the service as ``visitor``, expecting the refusal."""
    ws = Workspace(store, visitor)
    acts = {
        "register a model": lambda: ws.add_model("m", "/nowhere"),
        "remove a model": lambda: ws.remove_model("m"),
        "register a judge": lambda: ws.add_judge(Judge("k", "http://127.0.0.1:9/v1", "m", "gemba-mqm")),
        "remove a judge": lambda: ws.remove_judge("j"),
        "list the projects' members": ws.members,
        "grant a project": lambda: ws.grant("p", "browser:" + "c" * 32),
        "start a judge's job": lambda: jobs.start_job(store, set_id, jobs.judge_job("j"), visitor),
        "cancel a judge's job": lambda: jobs.cancel_named(store, set_id, "judge:j", visitor),
        "start a judge's job as a neural job": lambda: jobs.start_job(store, set_id, "judge:j", visitor),
        "start a model's job": lambda: jobs.start_job(store, set_id, "m", visitor),
        "cancel a model's job": lambda: jobs.cancel_job(store, set_id, "0" * 64, visitor),
        "rename the set": lambda: ws.rename(set_id, "y"),
    }
    with pytest.raises(InputError, match="^only "):
        acts[act]()


def _may(store, set_id, act: str, visitor) -> bool:
    """The right behind ``act``, asked of the service's rules (nothing started)."""
    if act in ("start a judge's job", "cancel a judge's job", "start a judge's job as a neural job"):
        return rights.may_start(store, set_id, visitor)
    if act in ("start a model's job", "cancel a model's job"):
        return rights.may_run_jobs(store, set_id, visitor)
    if act == "rename the set":
        from mtlens.service.sets import may_change

        return may_change(store, set_id, visitor, "edit")
    return rights.is_operator(visitor)


@pytest.mark.parametrize("act", list(ALLOWED))
@pytest.mark.parametrize("who", list(WHO))
def test_each_right_for_each_visitor(room, act, who):
    store, set_id = room
    visitor = WHO[who]
    allowed = who in ALLOWED[act]
    assert _may(store, set_id, act, visitor) is allowed
    if not allowed:
        judges_before, name_before = store.judges(), store.load(set_id).info.name
        _refused(store, set_id, act, visitor)
        assert store.judges() == judges_before and store.load(set_id).info.name == name_before  # nothing changed


@pytest.mark.parametrize("who", ["operator", "admin"])
def test_the_operator_and_an_administrator_do_the_operators_acts(room, who):
    """The allowed side done for real where it starts nothing: a judge registered and removed, a project granted."""
    store, set_id = room
    ws = Workspace(store, WHO[who])
    ws.add_judge(Judge("k", "http://127.0.0.1:9/v1", "m", "gemba-mqm"))
    assert [j.metric for j in ws.judges()] == ["judge:j", "judge:k"]
    ws.remove_judge("k")
    ws.grant("p", OWNER.id)
    assert ("p", OWNER.id) in ws.members()
    ws.rename(set_id, "renamed")
    assert store.load(set_id).info.name == "renamed"


def test_naming_an_uncomputed_judge_is_a_right_too(room):
    """Scoring with ``judge:NAME`` computes what its cache lacks: a visitor who may not start the judge's job is refused
    before any request (the gate, a history, a campaign name metrics the same way)."""
    from mtlens.service.results import chosen_metrics
    from mtlens.service.sets import open_set

    store, set_id = room
    ev = open_set(store, set_id)
    for visitor in (OWNER, STRANGER):
        with pytest.raises(InputError, match="judge:j has not scored this set yet, and only who may start its job"):
            chosen_metrics(store, ev, "judge:j", "bleu", visitor=visitor)
