"""LLM judges through the command line against a loopback endpoint (issue 48): every request's messages are
GEMBA-MQM's for its segment (GEMBA's own template, the oracle), temperature 0; every segment's score is GEMBA's own
parse of the answer; a 429 is retried; a line repeated in a system is asked once; a second run asks nothing; the
key is sent in the Authorization header and appears in no file of the store and in no output. Then the client's
error paths (5xx, timeouts, truncation, junk, huge bodies, redirects) against the stub."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest

from mtlens.core.corpus import Corpus
from mtlens.core.errors import InputError
from mtlens.exports.tables import USAGE
from mtlens.judges import client as judge_client
from mtlens.storage.store import Store

from ..conftest import ROOT, SAMPLE
from .stub import Stub, answer_for
from .test_gemba import MQM

KEY = "sk-test-Zq9vX3-never-shown"
N = 30


def _mtlens(*args, ws, env):
    return subprocess.run(
        [sys.executable, "-m", "mtlens", *args, "--data-dir", str(ws)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )


def _set(ws) -> tuple[str, Corpus]:
    read = lambda n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]  # noqa: E731
    repeated = read("Online-W")
    repeated[5] = repeated[4]  # a line repeated in a system: asked once
    corpus = Corpus.build(
        {"ref": read("ref")}, {"UEdin": read("UEdin"), "Online-W": repeated}, read("src"), language_pair="en-de"
    )
    return Store(ws).save(corpus, "judged"), corpus


def test_a_judge_through_the_command_line(tmp_path):
    ws = tmp_path / "ws"
    set_id, corpus = _set(ws)
    env = {**os.environ, "MTLENS_TEST_JUDGE_KEY": KEY}
    with Stub() as stub:
        stub.plan = ["429"]  # the first request is refused once
        added = _mtlens("judges", "add", "tiny", "--url", stub.url, "--model", "stub-model", "--protocol", "gemba-mqm",
                        "--api-key-env", "MTLENS_TEST_JUDGE_KEY", "--concurrency", "4", ws=ws, env=env)  # fmt: skip
        assert added.returncode == 0, added.stderr
        first = _mtlens(
            "score", "--set", set_id, "--metrics", "judge:tiny", "--format", "json", "--sentence-level", ws=ws, env=env
        )
        assert first.returncode == 0, first.stderr
        asked = list(stub.requests)
        second = _mtlens(
            "score", "--set", set_id, "--metrics", "judge:tiny", "--format", "json", "--sentence-level", ws=ws, env=env
        )
        assert second.returncode == 0, second.stderr
        table = _mtlens("score", "--set", set_id, "--metrics", "bleu,judge:tiny", "--format", "csv", ws=ws, env=env)
        assert table.returncode == 0, table.stderr
        assert len(stub.requests) == len(asked)  # a second run asks nothing
    distinct = {(corpus.source[i], line) for s in corpus.system_names for i, line in enumerate(corpus.systems[s])}
    assert len(asked) == len(distinct) + 1  # one request per distinct segment, and the 429 retried
    assert stub.peak <= 4
    for r in asked:
        body = r["body"]
        assert body["temperature"] == 0 and body["model"] == "stub-model" and r["path"] == "/v1/chat/completions"
        assert r["headers"]["Authorization"] == f"Bearer {KEY}"
    seen = {json.dumps(r["body"]["messages"], sort_keys=True) for r in asked}
    for src, tgt in distinct:  # every request is GEMBA-MQM's template for its segment (GEMBA's own code)
        data = {"source_lang": "English", "target_lang": "German", "source_seg": src, "target_seg": tgt}
        assert json.dumps(MQM.apply_template(MQM.TEMPLATE_GEMBA_MQM, data), sort_keys=True) in seen
    doc = json.loads(first.stdout)
    assert json.loads(second.stdout)["systems"] == doc["systems"]
    sentences = {s["name"]: s for s in doc["systems"]}
    for name in corpus.system_names:
        got = sentences[name]["sentences"]["judge:tiny"] if "sentences" in sentences[name] else None
        assert got is not None, sentences[name].keys()
        for i, line in enumerate(corpus.systems[name]):
            data = {
                "source_lang": "English",
                "target_lang": "German",
                "source_seg": corpus.source[i],
                "target_seg": line,
            }
            expected = MQM.parse_mqm_answer(
                answer_for(MQM.apply_template(MQM.TEMPLATE_GEMBA_MQM, data)), normalize=False
            )
            assert got[i] == expected, (name, i)
        assert sentences[name]["scores"]["judge:tiny"] == pytest.approx(sum(got) / len(got), abs=1e-9)
    # tokens behind each system's scores (the stub charges 100 and 10 per answer), in the JSON and the CSV
    for name in corpus.system_names:
        details = sentences[name]["details"]["judge:tiny"]
        assert (details["prompt_tokens"], details["completion_tokens"], details["cost_usd"]) == (100 * N, 10 * N, None)
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert list(rows[0])[2:] == ["bleu", "judge:tiny", "judge:tiny signature", *(f"judge:tiny {u}" for u in USAGE)]
    assert {(r["system"], r["judge:tiny prompt_tokens"], r["judge:tiny cost_usd"]) for r in rows} == {
        (n, str(100 * N), "") for n in corpus.system_names
    }
    # the key: in the Authorization header only; in no file of the store, no output
    for out in (added, first, second, table):
        assert KEY not in out.stdout and KEY not in out.stderr
    for path in ws.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


@pytest.fixture
def fast_client():
    c = judge_client.new_client(timeout=1.0)
    yield c
    c.close()


MESSAGES = [{"role": "user", "content": "English source:\n```a```\nGerman translation:\n```b c```\n"}]


def test_the_client_retries_what_is_worth_retrying_and_says_the_rest(fast_client, monkeypatch):
    endpoint = lambda s: judge_client.Endpoint(s.url, "m")  # noqa: E731
    waits = []
    with Stub() as s:
        s.plan = ["500", "429", "slow"]  # a server error, a refusal, a timeout (1 s client): then the answer
        reply = judge_client.chat(fast_client, endpoint(s), MESSAGES, sleep=waits.append)
        assert reply.attempts == 4 and reply.finish == "stop" and len(waits) == 3
        assert waits[1] == 0.0  # the 429's Retry-After: 0
        s.plan = ["length"]  # truncated: asked again once with twice the tokens
        reply = judge_client.chat(fast_client, endpoint(s), MESSAGES, sleep=waits.append)
        assert [r["body"]["max_tokens"] for r in s.requests[-2:]] == [500, 1000] and reply.finish == "stop"
        for step, said in [
            ("junk", "not a chat completion"),
            ("huge", "more than 1,024 KB"),
            ("redirect", "redirected"),
        ]:
            s.plan = [step]
            with pytest.raises(InputError, match=said):
                judge_client.chat(fast_client, endpoint(s), MESSAGES, sleep=waits.append)
        s.plan = ["500"] * judge_client.ATTEMPTS
        with pytest.raises(InputError, match=f"refused {judge_client.ATTEMPTS} times"):
            judge_client.chat(fast_client, endpoint(s), MESSAGES, sleep=waits.append)
    monkeypatch.delenv("NOT_SET_KEY_VAR", raising=False)
    with pytest.raises(InputError, match=r"read from \$NOT_SET_KEY_VAR, which is not set"):
        judge_client.chat(fast_client, judge_client.Endpoint("http://127.0.0.1:9/v1", "m", "NOT_SET_KEY_VAR"), MESSAGES)
    with pytest.raises(InputError, match="did not answer"):  # nothing listens on port 9
        judge_client.chat(
            fast_client, judge_client.Endpoint("http://127.0.0.1:9/v1", "m"), MESSAGES, sleep=waits.append
        )


def test_an_unparsed_answer_is_asked_again_warmer_and_then_counted(tmp_path):
    from mtlens.judges.compute import REASKS, Judge, judge_scores

    corpus = Corpus.build(
        {"ref": ["a"] * 2}, {"A": ["Das ist gut", "Das ist gut"]}, ["This is good"] * 2, language_pair="en-de"
    )
    store = Store(tmp_path)
    with Stub(answer=lambda m: 'accuracy/mistranslation - "gut"') as s:  # no severity header: GEMBA says perfect
        judge = Judge("j", s.url, "m", "gemba-mqm", concurrency=2)
        scores, tally = judge_scores(store, judge, corpus)
        temps = [r["body"]["temperature"] for r in s.requests]
    assert temps == [round(0.1 * k, 2) for k in range(REASKS + 1)]  # one segment (repeated), asked warmer each time
    assert tally.unparsed == 1 and all(v != v for v in scores.scores["A"])  # NaN: no score, never "perfect"


def test_the_home_page_lists_the_judges_and_only_the_operator_registers_one(tmp_path, monkeypatch):
    """The judges panel: the operator (local mode) registers a judge with the form; the judge is stored as the
    command line's would be; a shared server's visitor sees the judge (its endpoint's host only) and no form."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.text_input(key="judge_name").set_value("Mine")
    at.text_input(key="judge_url").set_value("http://u:pw@127.0.0.1:8000/v1")  # a password in the address: refused
    at.text_input(key="judge_model").set_value("m")
    at.text_input(key="judge_key_env").set_value("JUDGE_KEY")
    at.button(key="FormSubmitter:judge_add-Register judge").click().run()
    assert any("api\\-key\\-env" in e.value or "api-key-env" in e.value for e in at.error), [e.value for e in at.error]
    assert Store(tmp_path).judges() == []  # nothing stored: the store never holds the password
    at.text_input(key="judge_url").set_value("http://127.0.0.1:8000/v1")
    at.number_input(key="judge_samples").set_value(3)
    at.number_input(key="judge_price_in").set_value(2.5)
    at.button(key="FormSubmitter:judge_add-Register judge").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Registered judge" in s.value and "mine" in s.value for s in at.success), [e.value for e in at.error]
    (judge,) = Store(tmp_path).judges()
    assert judge["name"] == "mine" and judge["key_env"] == "JUDGE_KEY"
    assert (judge["samples"], judge["price_in"], judge["price_out"]) == (3, 2.5, None)
    monkeypatch.setenv("MTLENS_ACCESS", "owners")
    visitor = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not visitor.exception
    tables = [t.value for t in visitor.dataframe if "metric" in t.value.columns and "protocol" in t.value.columns]
    assert tables and list(tables[0]["endpoint"]) == ["127.0.0.1"]
    assert not [w for w in visitor.text_input if w.key == "judge_url"]


def test_tokens_and_cost_are_said_per_system_and_in_all(tmp_path):
    """The stub charges 100 prompt and 10 completion tokens per answer. Two systems, one shared line: the total
    counts each answer once, each system its share (the shared answer split between the two: issue 58, D13, the
    systems' costs summed to more than the total); at US$ 2 / 8 per million tokens."""
    from mtlens.judges.compute import Judge, judge_scores

    corpus = Corpus.build({"ref": ["r"] * 2}, {"A": ["Das ist gut", "Ein Haus"], "B": ["Das ist gut", "Zwei"]},
                          ["This is good", "A house"], language_pair="en-de")  # fmt: skip
    with Stub() as s:
        scores, _ = judge_scores(
            Store(tmp_path), Judge("j", s.url, "m", "gemba-mqm", price_in=2.0, price_out=8.0), corpus
        )
    notes = "\n".join(scores.notes)
    # 3 answers: 300 x 2 + 30 x 8 = 840 per million
    assert "re-asks included: 300 prompt and 30 completion tokens, US$ 0.0008 at the judge's prices" in notes
    # each system: its own answer and half the shared one, 150 and 15 tokens: 150 x 2 + 15 x 8 = 420 per million
    assert "j: A: 150 prompt and 15 completion tokens, US$ 0.0004" in notes
    assert "j: B: 150 prompt and 15 completion tokens, US$ 0.0004" in notes
    assert scores.usage["A"]["cost_usd"] + scores.usage["B"]["cost_usd"] == pytest.approx(840e-6)


@pytest.mark.parametrize(
    "url",
    ["http://u:pw@127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1?api_key=sk-SECRET", "https://key@api.example.com/v1"],
)
def test_a_url_that_would_carry_a_secret_is_refused_and_nothing_is_stored(tmp_path, url):
    env = {**os.environ}
    out = _mtlens("judges", "add", "j", "--url", url, "--model", "m", "--protocol", "gemba-mqm", ws=tmp_path, env=env)
    assert out.returncode == 2 and "--api-key-env" in out.stderr
    assert "pw" not in out.stderr and "SECRET" not in out.stderr and "key@" not in out.stderr
    assert Store(tmp_path).judges() == []


def test_a_judge_job_from_the_command_line_its_status_and_the_gate(tmp_path):
    """``judges run`` is the set's job with its progress said; ``judges status`` shows how it ended and what it
    cost; the gate compares two systems by ``judge:NAME`` from the cached answers, asking nothing."""
    ws = tmp_path / "ws"
    set_id, corpus = _set(ws)
    env = {**os.environ}
    with Stub() as stub:
        added = _mtlens("judges", "add", "tiny", "--url", stub.url, "--model", "m", "--protocol", "gemba-mqm",
                        "--price-in", "1", "--price-out", "1", ws=ws, env=env)  # fmt: skip
        assert added.returncode == 0, added.stderr
        run = _mtlens("judges", "run", "tiny", "--set", set_id, ws=ws, env=env)
        assert run.returncode == 0, run.stderr
        asked = len(stub.requests)
        status = _mtlens("judges", "status", "--set", set_id, ws=ws, env=env)
        gate = _mtlens("gate", "--set", set_id, "--baseline", "UEdin", "--candidate", "Online-W", "--metrics",
                       "judge:tiny", "--format", "json", ws=ws, env=env)  # fmt: skip
        assert len(stub.requests) == asked  # the gate read the cached answers
    total = N * len(corpus.system_names)
    assert f"judge:tiny: {total:,}/{total:,} segments" in run.stderr  # the progress, said as it goes
    assert run.stdout.startswith(f"judge:tiny\tdone\t{total:,}/{total:,} segments\tjudge:tiny: {asked:,} requests")
    (line,) = status.stdout.splitlines()
    assert line.startswith("judge:tiny\tdone") and f"{110 * asked / 1e6:.4f}" in line  # this run's cost
    assert gate.returncode in (0, 1), gate.stderr
    (row,) = [m for m in json.loads(gate.stdout)["metrics"] if m["family"] != "checks"]  # the checks run too
    expected = {}
    for name in ("UEdin", "Online-W"):  # each system's score: the mean of GEMBA's own parse of its answers
        parsed = [
            MQM.parse_mqm_answer(answer_for(MQM.apply_template(MQM.TEMPLATE_GEMBA_MQM, {
                "source_lang": "English", "target_lang": "German", "source_seg": corpus.source[i], "target_seg": line,
            })), normalize=False)
            for i, line in enumerate(corpus.systems[name])
        ]  # fmt: skip
        expected[name] = sum(parsed) / len(parsed)
    assert row["metric"] == "judge:tiny" and row["higher_is_better"] is True
    assert row["baseline"] == pytest.approx(expected["UEdin"], abs=1e-9)
    assert row["candidate"] == pytest.approx(expected["Online-W"], abs=1e-9)


def test_re_asked_answers_are_in_the_cost(tmp_path):
    """Issue 58, D13: the answers asked again (an unparsed answer, asked warmer) were missing from the cost. One
    segment answered with junk twice, then read: 3 answers x 100 prompt tokens behind its score."""
    from mtlens.judges.compute import Judge, judge_scores

    corpus = Corpus.build({"ref": ["r"]}, {"A": ["Das ist gut"]}, ["This is good"], language_pair="en-de")
    asked = []

    def answer(messages):
        asked.append(1)
        return "no idea" if len(asked) <= 2 else answer_for(messages)

    with Stub(answer=answer) as s:
        judge = Judge("j", s.url, "m", "gemba-mqm", price_in=1.0)
        scores, tally = judge_scores(Store(tmp_path), judge, corpus)
        again, _ = judge_scores(Store(tmp_path), judge, corpus)  # read again from the cache: the same cost
    assert len(asked) == 3 and tally.prompt_tokens == 300
    assert scores.usage["A"]["prompt_tokens"] == 300 and scores.usage["A"]["cost_usd"] == pytest.approx(300e-6)
    assert again.usage["A"]["prompt_tokens"] == 300
