"""An LLM judge end to end against a real OpenAI-compatible server mtlens did not write (issue 48): Hugging Face's
``transformers serve``, in its own environment (.venv-serve), started on loopback by the test, serving a tiny model
built offline (tests/judges/build_tiny_judge.py) whose greedy answer to any prompt is one fixed GEMBA-MQM answer.

Through the command line on a saved set: every segment's score is GEMBA's own parse of what the server answered
(the oracle, GEMBA's ``parse_mqm_answer``), its errors placed where they quote the line; a line repeated in a system
is asked once and a second run asks nothing (the server's own access log counts the requests); the key goes to the
server and appears in no file of the store and no output."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys

import pytest

from mtlens.core.corpus import Corpus
from mtlens.judges.compute import judge_scores
from mtlens.judges.registry import get_judge
from mtlens.storage.store import Store

from ..conftest import ROOT, SAMPLE
from ..ports import free_port
from .test_gemba import MQM, PROMPT

ANSWER = 'Critical:\nno-error\nMajor:\naccuracy/mistranslation - "die"\nMinor:\nfluency/grammar - "der"\n'
KEY = "sk-serve-Kq2-never-shown"
N = 12


def _mtlens(*args, ws, env):
    return subprocess.run(
        [sys.executable, "-m", "mtlens", *args, "--data-dir", str(ws)], capture_output=True, text=True, cwd=ROOT,
        env=env, timeout=600,
    )  # fmt: skip


@contextlib.contextmanager
def _serving(serve_python, tmp, answer: str):
    """``(base URL, model folder, access log)`` of ``transformers serve`` on a free loopback port, serving a tiny
    model whose greedy answer is ``answer``."""
    from ..app.test_browser import wait_until_healthy

    (tmp / "answer.txt").write_text(answer, encoding="utf-8")
    model = tmp / "tiny-judge"
    built = subprocess.run(
        [serve_python, str(ROOT / "tests" / "judges" / "build_tiny_judge.py"), str(model), str(tmp / "answer.txt")],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    port = free_port()
    log = tmp / "serve.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HOME": str(tmp / "hf")}
    serve = str(ROOT / ".venv-serve" / "bin" / "transformers")
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [serve, "serve", "--host", "127.0.0.1", "--port", str(port), str(model)],
            stdout=out, stderr=subprocess.STDOUT, env=env,
        )  # fmt: skip
    try:
        wait_until_healthy(f"http://127.0.0.1:{port}", proc, log, path="/health", what="transformers serve")
        yield f"http://127.0.0.1:{port}/v1", str(model), log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def served(serve_python, tmp_path_factory):
    with _serving(serve_python, tmp_path_factory.mktemp("serve"), ANSWER) as found:
        yield found


def _requests(log) -> int:
    return log.read_text(errors="replace").count('"POST /v1/chat/completions HTTP/1.1" 200')


def test_a_judge_against_transformers_serve(served, tmp_path):
    url, model, log = served
    ws = tmp_path / "ws"
    read = lambda n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]  # noqa: E731
    uedin, online = read("UEdin"), read("Online-W")
    online[3] = uedin[3]  # the same source and translation in two systems: asked once
    corpus = Corpus.build(
        {"ref": read("ref")}, {"UEdin": uedin, "Online-W": online}, read("src"), language_pair="en-de"
    )
    set_id = Store(ws).save(corpus, "served")
    env = {**os.environ, "MTLENS_TEST_SERVE_KEY": KEY}
    added = _mtlens("judges", "add", "tiny", "--url", url, "--model", model, "--protocol", "gemba-mqm",
                    "--api-key-env", "MTLENS_TEST_SERVE_KEY", "--concurrency", "2", ws=ws, env=env)  # fmt: skip
    assert added.returncode == 0, added.stderr
    before = _requests(log)
    args = ("score", "--set", set_id, "--metrics", "judge:tiny", "--format", "json", "--sentence-level")
    first = _mtlens(*args, ws=ws, env=env)
    assert first.returncode == 0, first.stderr + log.read_text()[-3000:]
    asked = _requests(log) - before
    second = _mtlens(*args, ws=ws, env=env)
    assert second.returncode == 0, second.stderr
    assert _requests(log) - before == asked  # a second run asks nothing
    distinct = {(corpus.source[i], line) for s in corpus.system_names for i, line in enumerate(corpus.systems[s])}
    assert asked == len(distinct) == N * 2 - 1  # one request per distinct segment: the shared one asked once
    expected = MQM.parse_mqm_answer(ANSWER, normalize=False)  # GEMBA's own reading of the server's answer
    assert expected == -6
    doc = {s["name"]: s for s in json.loads(first.stdout)["systems"]}
    for name in corpus.system_names:
        assert doc[name]["sentences"]["judge:tiny"] == [expected] * N
    metric, _ = judge_scores(Store(ws), get_judge(Store(ws), "tiny"), corpus, cached_only=True)
    for name in corpus.system_names:  # errors placed where they quote the line; an error quoting nothing stays out
        for i, line in enumerate(corpus.systems[name]):
            want = [(line.find(q), line.find(q) + len(q), sev) for q, sev in (("die", "major"), ("der", "minor"))
                    if q in line]  # fmt: skip
            got = [(e.start, e.end, e.severity) for e in metric.spans[name][i]]
            assert got == want, (name, i, line)
        assert metric.categories[name] == {("accuracy/mistranslation", "major"): N, ("fluency/grammar", "minor"): N}
    for out in (added, first, second):
        assert KEY not in out.stdout and KEY not in out.stderr
    for path in ws.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


#: GEMBA-ESA's two requests get the same answer: as error spans, one major error quoting "72"; as a score, its one
#: number
ESA_ANSWER = 'Major:\naccuracy/mistranslation - "72"\nMinor:\nno-error\n'


def test_a_gemba_esa_judge_against_transformers_serve(serve_python, tmp_path):
    """GEMBA-ESA end to end (issue 61): two requests per distinct segment (the spans, then the score given them), the
    score GEMBA's own ``validate_number`` of what the server answered, the spans placed where they quote the line."""
    ws = tmp_path / "ws"
    read = lambda n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]  # noqa: E731
    uedin = read("UEdin")
    uedin[5] = uedin[5] + " (72)"  # one line holds the quoted text: its span is placed there
    corpus = Corpus.build({"ref": read("ref")}, {"UEdin": uedin}, read("src"), language_pair="en-de")
    set_id = Store(ws).save(corpus, "served-esa")
    with _serving(serve_python, tmp_path, ESA_ANSWER) as (url, model, log):
        env = dict(os.environ)
        added = _mtlens("judges", "add", "tiny-esa", "--url", url, "--model", model, "--protocol", "gemba-esa",
                        "--concurrency", "2", ws=ws, env=env)  # fmt: skip
        assert added.returncode == 0, added.stderr
        args = ("score", "--set", set_id, "--metrics", "judge:tiny-esa", "--format", "json", "--sentence-level")
        first = _mtlens(*args, ws=ws, env=env)
        assert first.returncode == 0, first.stderr + log.read_text()[-3000:]
        assert _requests(log) == 2 * N  # the spans, then the score, for each distinct segment
    expected = PROMPT.validate_number(ESA_ANSWER)  # GEMBA's own reading of the server's answer as a score
    assert expected == 72
    doc = json.loads(first.stdout)
    assert doc["systems"][0]["sentences"]["judge:tiny-esa"] == [expected] * N
    assert "protocol:gemba-esa" in doc["signatures"]["judge:tiny-esa"]
    metric, _ = judge_scores(Store(ws), get_judge(Store(ws), "tiny-esa"), corpus, cached_only=True)
    placed = {i: [(e.start, e.end, e.severity) for e in spans] for i, spans in enumerate(metric.spans["UEdin"])}
    line = uedin[5]
    assert placed[5] == [(line.find("72"), line.find("72") + 2, "major")]
    assert all(placed[i] == [] for i in placed if "72" not in uedin[i])
