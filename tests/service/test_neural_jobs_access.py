"""Who may start and cancel a set's neural jobs (issue 38, item 4): asked in the service, for every face.

In owners mode a link reader of another visitor's set may watch its job but neither start nor cancel
it; the owner, an administrator and the operator (the command line, visitor ``None``) may.
"""

from __future__ import annotations

import pytest

from mtlens import Corpus
from mtlens.core.access import Visitor
from mtlens.core.errors import InputError
from mtlens.service import jobs, rights
from mtlens.storage.store import Store

OWNER = Visitor("browser:" + "a" * 32, "A")
READER = Visitor("browser:" + "b" * 32, "B")
ADMIN = Visitor("browser:" + "c" * 32, "C", admin=True)
DIGEST = "f" * 64


@pytest.fixture
def running(tmp_path):
    """A set of OWNER with a running job (a row as a job process leaves it; alive: a live pid)."""
    st = Store(tmp_path)
    c = Corpus.build({"ref": ["a b c", "d e"]}, {"S1": ["a b c", "d x"]}, language_pair="en-de")
    set_id = st.save(c, "owned", owner=OWNER.id)
    claimed, _ = st.claim_job(set_id, DIGEST, "tiny", lambda job: True)
    assert claimed
    st.update_job(set_id, DIGEST, state="running")
    return st, set_id


def test_a_link_reader_cannot_cancel_the_owners_job(running):
    st, set_id = running
    assert not rights.may_run_jobs(st, set_id, READER)
    with pytest.raises(InputError, match="only the owner of this set can cancel its neural jobs"):
        jobs.cancel_job(st, set_id, DIGEST, READER)
    assert st.job(set_id, DIGEST)["state"] == "running"


def test_a_link_reader_cannot_start_a_job_on_the_owners_set(running):
    st, set_id = running
    with pytest.raises(InputError, match="only the owner of this set can start its neural jobs"):
        jobs.start_job(st, set_id, "tiny", READER)
    assert [j["model"] for j in st.jobs(set_id)] == ["tiny"]


@pytest.mark.parametrize("who", [OWNER, ADMIN, None], ids=["owner", "administrator", "operator"])
def test_the_owner_an_administrator_and_the_operator_may_cancel(running, who):
    st, set_id = running
    assert rights.may_run_jobs(st, set_id, who)
    jobs.cancel_job(st, set_id, DIGEST, who)
    assert st.job(set_id, DIGEST)["state"] == "cancelling"
