"""Issue 61: M-Prometheus as a judge. Its answers are read as prometheus-eval's own parser reads them, and its system
turn is Prometheus-2's absolute grading, both checked against prometheus-eval 0.1.20's modules (installed without
its dependencies by scripts/test.sh; ``parser.py`` and ``prompts.py`` loaded from their files); its user turn is the
model card's MT prompt, filled as the card says. End to end against a loopback endpoint: one request per distinct
segment, the score the ``[RESULT]``, the signature naming the protocol."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtlens.cli.main import main
from mtlens.core.corpus import Corpus
from mtlens.judges import prometheus
from mtlens.storage.store import Store

from ..conftest import SAMPLE
from .stub import Stub


def _oracle(name: str):
    spec = importlib.util.find_spec("prometheus_eval")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("prometheus-eval 0.1.20 is not installed (scripts/test.sh installs it with --no-deps)")
    path = Path(next(iter(spec.submodule_search_locations))) / f"{name}.py"
    module_spec = importlib.util.spec_from_file_location(f"prometheus_oracle_{name}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


PARSER, PROMPTS = _oracle("parser"), _oracle("prompts")


def _theirs(answer: str):
    _, score = PARSER.parse_output(answer, mode="absolute")
    return score


@pytest.mark.parametrize(
    "answer",
    [
        "Feedback: Accurate and fluent. [RESULT] 4",
        "Feedback: fine [RESULT] (5)",
        "Feedback: poor. [RESULT] 6",
        "Feedback: meh. Score: 3/5",
        "Feedback: meh. score of 2 out of 5",
        "Feedback: [RESULT] 4 but then more text",
        "Feedback: nothing",
        "[SCORE] 1\n",
        "Result: [2]",
        "[RESULT] 0",
        "[RESULT] 0003",
        "",
    ],
)
def test_answers_are_read_as_prometheus_eval_reads_them(answer):
    assert prometheus.parse(answer) == _theirs(answer)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab :[]()/5RESULTScore ofu0123456789\n")), max_size=40),
)
def test_any_answer_is_read_as_prometheus_eval_reads_it(answer):
    assert prometheus.parse(answer) == _theirs(answer)


def test_the_prompt_is_prometheus_2s_system_turn_and_the_model_cards_mt_prompt():
    msgs = prometheus.messages("English", "German", prometheus.keyed("A cat.", "Eine Katze."), "Ein Hund.")
    assert msgs[0] == {"role": "system", "content": PROMPTS.ABS_SYSTEM_PROMPT}
    user = msgs[1]["content"]
    assert "###The instruction to evaluate:\nTranslate the following text from English to German: A cat.\n" in user
    assert "###Response to evaluate:\nEin Hund.\n" in user and "###Reference Answer (Score 5):\nEine Katze.\n" in user
    assert "###Score Rubrics: [Accuracy, Fluency, Style]\nScore 1: " in user and user.endswith("###Feedback:\n")
    # the task description is Prometheus-2's, but for the card's own wording of the output format
    card = PROMPTS.ABSOLUTE_PROMPT.split("###The instruction")[0].replace(
        "###Task Description:\n", "###Task Description: "
    )
    card = card.replace('"(write a feedback', '"Feedback: (write a feedback').replace(".\n", ". \n").replace(
        '5)"\n', '5)" \n'
    )  # fmt: skip
    assert user.startswith(card.replace("explanations. \n", "explanations.\n"))


N = 6


def test_an_m_prometheus_judge_through_the_command_line(tmp_path, capsys):
    read = lambda n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]  # noqa: E731
    corpus = Corpus.build({"ref": read("ref")}, {"A": read("UEdin")}, read("src"), language_pair="en-de")
    ws = tmp_path / "ws"
    set_id = Store(ws).save(corpus, "mp")
    with Stub(
        answer=lambda m: f"Feedback: {len(m[-1]['content']) % 7} notes. [RESULT] {1 + len(m[-1]['content']) % 5}"
    ) as s:
        args = ["judges", "add", "mp", "--url", s.url, "--model", "m", "--protocol", "m-prometheus"]
        assert main([*args, "--data-dir", str(ws)]) == 0
        capsys.readouterr()
        assert main(["score", "--set", set_id, "--metrics", "judge:mp", "--format", "json", "--sentence-level",
                     "--data-dir", str(ws)]) == 0  # fmt: skip
        doc = json.loads(capsys.readouterr().out)
        assert len(s.requests) == N
        want = []
        for r in s.requests:  # the endpoint's answer to each request, read by prometheus-eval
            answer = f"Feedback: {len(r['body']['messages'][-1]['content']) % 7} notes. [RESULT] "
            answer += str(1 + len(r["body"]["messages"][-1]["content"]) % 5)
            src = r["body"]["messages"][-1]["content"].split("to German: ", 1)[1].split("\n", 1)[0]
            want.append((corpus.source.index(src), float(_theirs(answer))))
    got = doc["systems"][0]["sentences"]["judge:mp"]
    assert [got[i] for i, _ in sorted(want)] == [v for _, v in sorted(want)]
    assert "protocol:m-prometheus|version:m-prometheus-mt-da-1|" in doc["signatures"]["judge:mp"]
    # a set without a reference: one sentence
    bare_corpus = Corpus.build({}, {"A": read("UEdin")}, read("src"), language_pair="en-de", allow_no_reference=True)
    bare = Store(ws).save(bare_corpus, "bare")
    assert main(["score", "--set", bare, "--metrics", "judge:mp", "--data-dir", str(ws)]) == 2
    assert "m-prometheus reads a reference" in capsys.readouterr().err
