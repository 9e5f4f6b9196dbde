"""GEMBA's prompts and answer parsing against Microsoft's own code (issue 48): the PyPI package gemba 0.1.3 holds
GEMBA's prompts unchanged and ``parse_mqm_answer``; it is installed without its dependencies (its ``eval`` extra
pulls the look-alike mt-metrics-eval), and its two modules are loaded from their files with stand-ins for the
debugger and colour modules they import but these functions never call (ipdb, termcolor)."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtlens.judges import gemba


def _oracle_module(name: str):
    spec = importlib.util.find_spec("gemba")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("gemba 0.1.3 is not installed (scripts/test.sh installs it with --no-deps)")
    for stub in ("ipdb", "termcolor"):
        if stub not in sys.modules:
            m = types.ModuleType(stub)
            m.colored = lambda text, *a, **k: text  # termcolor's one function, for prompt.py
            sys.modules[stub] = m
    path = Path(next(iter(spec.submodule_search_locations))) / f"{name}.py"
    module_spec = importlib.util.spec_from_file_location(f"gemba_oracle_{name}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


MQM = _oracle_module("gemba_mqm_utils")
ESA = _oracle_module("gemba_esa")
PROMPT = _oracle_module("prompt")


def test_the_three_few_shot_answers_score_as_gemba_says():
    shots = MQM.few_shots
    assert [gemba.parse_mqm(shots[k]["answer"]).score for k in ("ende", "encs", "zhen")] == [-12, -11, -25]
    for k in ("ende", "encs", "zhen"):
        assert gemba.parse_mqm(shots[k]["answer"]).score == MQM.parse_mqm_answer(shots[k]["answer"], normalize=False)


@pytest.mark.parametrize("pair", [("English", "German"), ("Chinese", "English"), ("English", "Japanese")])
def test_the_prompts_are_gembas(pair):
    data = {"source_lang": pair[0], "target_lang": pair[1], "source_seg": "A {b} c.", "target_seg": "x ``` y"}
    assert gemba.mqm_messages(*pair, data["source_seg"], data["target_seg"]) == MQM.apply_template(
        MQM.TEMPLATE_GEMBA_MQM, data
    )
    assert gemba.esa_span_messages(*pair, data["source_seg"], data["target_seg"]) == MQM.apply_template(
        ESA.TEMPLATE_GEMBA_ESA_ERROR_SPANS, data
    )
    spans = 'Major:\naccuracy/omission - "c"'
    ranking = MQM.apply_template(ESA.TEMPLATE_GEMBA_ESA_RANKING, {**data, "error_spans": spans})
    assert gemba.esa_score_messages(*pair, data["source_seg"], data["target_seg"], spans) == [
        {"role": "user", "content": ranking}
    ]


LINES = st.one_of(
    st.sampled_from(["Critical:", "Major:", "Minor:", "critical:", "MAJOR:", "no-error", "No error", "", "  "]),
    st.builds(
        lambda c, s: f'{c} - "{s}"',
        st.sampled_from(["accuracy/mistranslation", "fluency/grammar", "non-translation", "style/awkward", "other"]),
        st.text(alphabet=st.characters(blacklist_characters='\n"'), max_size=12),
    ),
    st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=30),  # junk
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINES, max_size=14))
def test_any_answer_scores_as_gembas_parse(lines):
    answer = "\n".join(lines)
    assert gemba.parse_mqm(answer).score == MQM.parse_mqm_answer(answer, normalize=False)


def test_an_answer_gemba_would_call_perfect_without_a_header_is_unparsed():
    answer = 'accuracy/mistranslation - "involvement"\nfluency/grammar - "wäre"'
    assert MQM.parse_mqm_answer(answer, normalize=False) == 0  # GEMBA: perfect, silently
    got = gemba.parse_mqm(answer)
    assert not got.parsed and got.score == 0
    assert gemba.parse_mqm("Critical:\nno-error\nMajor:\nno-error\nMinor:\nno-error").parsed  # a real "no error"


@pytest.mark.parametrize("answer", ["87", "Score: 87", "['87']", "87/100", "87 or 88", "101", "none", "0"])
def test_esa_scores_are_read_as_gembas_validate_number(answer):
    assert gemba.parse_number(answer) == PROMPT.validate_number(answer)


def test_errors_keep_their_category_and_quoted_text_and_are_placed_in_the_line():
    line = "Ich entschuldige mich, dies mit dir involvement."
    answer = 'Major:\naccuracy/mistranslation - "involvement"\nMinor:\nfluency/register - "dir"\nstyle/awkward - "gone"'
    got = gemba.parse_mqm(answer)
    assert [(e.severity, e.category, e.text) for e in got.errors] == [
        ("major", "accuracy/mistranslation", "involvement"),
        ("minor", "fluency/register", "dir"),
        ("minor", "style/awkward", "gone"),
    ]
    placed, unplaced = gemba.place(got.errors, line)
    assert [(line[a:b], e.severity) for a, b, e in placed] == [("involvement", "major"), ("dir", "minor")]
    assert unplaced == 1


def test_a_category_with_a_hyphen_keeps_its_quoted_text():
    """GEMBA's own few-shot and prompt name ``non-translation`` (a hyphen in the category): the text it quotes is
    still its span (a category read up to the first hyphen lost it, and the error was never placed)."""
    answer = 'Critical:\nnon-translation - "Hund"\nMajor:\nterminology/inconsistent use of terminology - "a-b"'
    got = gemba.parse_mqm(answer)
    assert [(e.severity, e.category, e.text) for e in got.errors] == [
        ("critical", "non-translation", "Hund"),
        ("major", "terminology/inconsistent use of terminology", "a-b"),
    ]
    placed, unplaced = gemba.place(got.errors, "Der Hund a-b")
    assert [(a, b) for a, b, _ in placed] == [(4, 8), (9, 12)] and unplaced == 0
