"""A judge's endpoint that misbehaves, and a judge's address that cannot be used (issue 58: G3, G6, G8, G10).

- G3: an endpoint that sends a byte every 0.2 s defeated the timeout (it bounded one read, not the answer), and
  ``judges cancel`` left the job "cancelling" for ever; the timeout now bounds the whole answer, and a cancelled job
  ends within seconds.
- G6: an unparseable ``Retry-After``, ``usage`` as a list, text or infinity, deeply nested JSON, an ESA score of
  ``['']`` or 5,000 digits were internal errors; URLs that ``judges add`` accepted and could not use.
- G8: ``judges run`` exited 0 when its job failed or left segments without a score.
- G10: a judge's model with a terminal escape was stored and printed raw.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from mtlens.core.errors import InputError
from mtlens.judges import client as judge_client
from mtlens.judges import gemba
from mtlens.judges.registry import identity
from mtlens.service import jobs, judging
from mtlens.service.workspace import Workspace
from mtlens.storage.store import Store

from ..conftest import ROOT
from .stub import Stub, answer_for
from .test_judge_jobs import _corpus, _wait

MESSAGES = [{"role": "user", "content": "English source:\n```a```\nGerman translation:\n```b c```\n"}]


def _completion(usage) -> bytes:
    doc = {"choices": [{"message": {"content": "Major:\nno-error"}, "finish_reason": "stop"}], "usage": usage}
    return json.dumps(doc).encode()


def test_the_timeout_bounds_the_whole_answer_and_a_stop_ends_a_dripping_request():
    endpoint = lambda s: judge_client.Endpoint(s.url, "m")  # noqa: E731
    with Stub() as s:
        s.plan = ["drip"] * judge_client.ATTEMPTS
        client = judge_client.new_client(timeout=1.0)
        start = time.monotonic()
        with pytest.raises(InputError, match="did not answer"):
            judge_client.chat(client, endpoint(s), MESSAGES, sleep=lambda _: None)
        took = time.monotonic() - start
        # every attempt ended at the 1 s bound (a drip never ends by itself)
        assert judge_client.ATTEMPTS * 1.0 <= took < judge_client.ATTEMPTS * 1.0 + 5, took
        s.plan = ["drip"]
        asked = time.monotonic() + 0.5
        client = judge_client.new_client(timeout=60.0)
        with pytest.raises(judge_client.Stopped):
            judge_client.chat(client, endpoint(s), MESSAGES, should_stop=lambda: time.monotonic() > asked)
        assert time.monotonic() - asked < judge_client.STOP_GRACE + 2.0  # a short grace, not the 60 s timeout


def test_a_cancelled_job_on_a_dripping_endpoint_ends_within_seconds(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MTLENS_JUDGE_TIMEOUT", "300")  # the drip would hold each request for five minutes
    store = Store(tmp_path)
    set_id = store.save(_corpus(), "judged")
    with Stub() as stub:
        stub.plan = ["drip"] * 1000
        judge = Workspace(store).add_judge(judging.Judge("drip", stub.url, "m", "gemba-mqm", concurrency=2))
        digest = identity(judge)
        jobs.start_job(store, set_id, jobs.judge_job("drip"))
        end = time.time() + 60
        while len(stub.requests) < 2 and time.time() < end:  # both requests in flight, dripping
            time.sleep(0.05)
        assert len(stub.requests) >= 2
        asked = time.time()
        jobs.cancel_job(store, set_id, digest)
        job = _wait(store, set_id, digest, lambda j: j["state"] in ("cancelled", "failed", "done"), timeout=30)
        assert job["state"] == "cancelled" and time.time() - asked < 15, (job, time.time() - asked)


@pytest.mark.parametrize(
    ("step", "prompt_tokens"),
    [
        (("raw", 429, b"{}", {"Retry-After": "whenever you like"}), 100),  # then the stub's own answer
        (("raw", 429, b"{}", {"Retry-After": "Mon, 99 Foo 2026 25:61:00 GMT"}), 100),
        (("raw", 200, _completion([1, 2])), 0),
        (("raw", 200, _completion({"prompt_tokens": "many", "completion_tokens": None})), 0),
        (("raw", 200, _completion({"prompt_tokens": 1e999, "completion_tokens": -5})), 0),
        (("raw", 200, _completion({"prompt_tokens": 2.5})), 0),
    ],
)
def test_junk_from_the_endpoint_is_never_an_internal_error(step, prompt_tokens):
    with Stub() as s:
        s.plan = [step]
        reply = judge_client.chat(judge_client.new_client(timeout=5.0), judge_client.Endpoint(s.url, "m"), MESSAGES,
                                  sleep=lambda _: None)  # fmt: skip
    assert reply.prompt_tokens == prompt_tokens and reply.completion_tokens in (0, 10)


def test_an_answer_that_is_not_a_completion_is_one_sentence():
    nested = b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    for body in (nested, b'{"critical": 5}', b"['']"):
        with Stub() as s:
            s.plan = [("raw", 200, body)]
            with pytest.raises(InputError, match="not a chat completion"):
                judge_client.chat(judge_client.new_client(timeout=5.0), judge_client.Endpoint(s.url, "m"), MESSAGES)


@pytest.mark.parametrize("answer", ["['']", "9" * 5000, "[]", "-"])
def test_an_esa_score_gemba_cannot_read_is_unparsed(answer):
    assert gemba.parse_number(answer) is None


def test_an_esa_score_with_leading_zeros_reads_as_gembas_int():
    assert gemba.parse_number("0" * 5000 + "7") == 7 and gemba.parse_number("['42']") == 42


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://127.0.0.1:abc/v1", "cannot be read"),
        ("http://127.0.0.1:8000/v1\r\nX-Evil: 1", "a space or a control character"),
        ("http://[::1/v1", "cannot be read"),
        ("http://" + "a" * 100_000 + ".com/v1", "at most 2,048 characters"),
        ("http://127.0.0.1:70000/v1", "cannot be read"),
    ],
)
def test_a_url_the_judge_could_not_use_is_refused_at_add(tmp_path, url, said):
    store = Store(tmp_path)
    with pytest.raises(InputError, match=said):
        Workspace(store).add_judge(judging.Judge("j", url, "m", "gemba-mqm"))
    assert store.judges() == []


def test_a_model_name_that_would_act_in_a_terminal_is_refused(tmp_path):
    with pytest.raises(InputError, match="control or format character"):
        Workspace(Store(tmp_path)).add_judge(judging.Judge("j", "http://127.0.0.1:8/v1", "m\x1b[2J", "gemba-mqm"))


def _mtlens(*args, ws):
    return subprocess.run([sys.executable, "-m", "mtlens", *args, "--data-dir", str(ws)], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ}, timeout=300)  # fmt: skip


def test_judges_run_exits_1_when_its_job_failed_or_left_segments_without_a_score(tmp_path):
    ws = tmp_path / "ws"
    corpus = _corpus()
    set_id = Store(ws).save(corpus, "judged")
    unreadable = corpus.systems["UEdin"][3]  # the judge answers this segment with junk, every time it is asked
    with Stub(answer=lambda m: "no idea" if unreadable in m[-1]["content"] else answer_for(m)) as stub:
        assert _mtlens("judges", "add", "partly", "--url", stub.url, "--model", "m", "--protocol", "gemba-mqm",
                       ws=ws).returncode == 0  # fmt: skip
        partly = _mtlens("judges", "run", "partly", "--set", set_id, ws=ws)
        stub.plan = ["redirect"] * 10  # a redirect is never followed: the job fails
        assert _mtlens("judges", "add", "moved", "--url", stub.url, "--model", "m2", "--protocol", "gemba-mqm",
                       ws=ws).returncode == 0  # fmt: skip
        failed = _mtlens("judges", "run", "moved", "--set", set_id, ws=ws)
    assert partly.returncode == 1 and "\tdone\t" in partly.stdout and "1 segments have no score" not in partly.stdout
    assert "judge:partly: 1 segment has no score" in partly.stdout, partly.stdout
    assert failed.returncode == 1 and "\tfailed\t" in failed.stdout and "redirected" in failed.stdout
    assert "Traceback" not in partly.stderr + failed.stderr


def test_an_endpoint_that_echoes_the_key_has_it_removed_from_the_answer(tmp_path, monkeypatch):
    """Issue 58: an endpoint that echoed the key back had its answer stored, and the key was shown on Sentences."""
    key = "sk-echo-Zq9vX3-never-stored"
    monkeypatch.setenv("MTLENS_TEST_ECHO_KEY", key)
    with Stub(answer=lambda m: f'Major:\naccuracy/mistranslation - "{key}"') as s:
        reply = judge_client.chat(judge_client.new_client(timeout=5.0),
                                  judge_client.Endpoint(s.url, "m", "MTLENS_TEST_ECHO_KEY"), MESSAGES)  # fmt: skip
        assert s.requests[0]["headers"]["Authorization"] == f"Bearer {key}"
    assert key not in reply.content and '"***"' in reply.content


def test_a_command_stopped_by_sigterm_leaves_its_job_cancelled_not_running(tmp_path):
    """Issue 58, D9: a command-line job stopped by SIGTERM was then reported as running ("started in the dashboard")
    for 30 s, until its heartbeat was stale. SIGTERM is read as Ctrl-C: the job is cancelled, its answers saved, and a
    run right after goes on."""
    import signal

    ws = tmp_path / "ws"
    set_id = Store(ws).save(_corpus(), "judged")
    with Stub(latency=0.3) as stub:
        assert _mtlens("judges", "add", "slow", "--url", stub.url, "--model", "m", "--protocol", "gemba-mqm",
                       "--concurrency", "1", ws=ws).returncode == 0  # fmt: skip
        proc = subprocess.Popen([sys.executable, "-m", "mtlens", "judges", "run", "slow", "--set", set_id,
                                 "--data-dir", str(ws)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)  # fmt: skip
        end = time.time() + 60
        while len(stub.requests) < 3 and time.time() < end:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 143, err
        (job,) = Store(ws).jobs(set_id)
        assert job["state"] == "cancelled", job
        stub.latency = 0.0
        again = _mtlens("judges", "run", "slow", "--set", set_id, ws=ws)
    assert again.returncode == 0 and "\tdone\t" in again.stdout, again.stderr
    # D10: a resumed job says what it already had, then its count, rate and time left as it goes
    assert "segments saved by an earlier run; starting" in again.stderr
    assert " segments/s" in again.stderr and "left" in again.stderr, again.stderr
