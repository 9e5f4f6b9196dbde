"""TER's faster tokenizer (mtlens.core.tokenizers.TokenizerTercom) against sacrebleu 2.6.0's ``TercomTokenizer``.

The golden values are sacrebleu's outputs, computed here by its uncached tokenizer on the same lines, for every
option set: every line of the bundled excerpts, every line of ../shared/data (marked shared), random text built
from the rules' characters (entities, newlines, possessives, digits next to periods, CJK, kana, Asian
punctuation) and any Unicode text.
"""

from __future__ import annotations

import functools
import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sacrebleu.tokenizers import tokenizer_ter
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from mtlens.core.tokenizers import _TERCOM_2_6_0, TokenizerTercom, tercom_tokenizer
from mtlens.metrics.ter import TER

from ..conftest import SAMPLE, SHARED, TESTDATA
from .test_tokenizers import CJK, RULES, SETTINGS, _lines, assert_same, uncached

#: (normalized, no_punct, asian_support, case_sensitive): all 16
OPTION_SETS = list(itertools.product([False, True], repeat=4))


def sacrebleu_tercom(options, line: str) -> str:
    """sacrebleu's tercom, computed (its cache never answers)."""
    return uncached(TercomTokenizer(*options), line)


def _assert_same(options, lines) -> int:
    tok = TokenizerTercom(*options)
    assert tok.proven
    return assert_same(tok, lines, theirs=functools.partial(sacrebleu_tercom, options))


def test_ter_tokenizes_with_it_and_shares_one_per_option_set():
    m = TER(normalized=True, asian_support=True)
    assert isinstance(m._tok, TokenizerTercom) and m._tok.proven
    assert tercom_tokenizer(True, False, True, False) is m._tok
    assert m._tok.signature() == "tercom"


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_identical_on_the_bundled_excerpts(options):
    assert _assert_same(options, [*_lines(SAMPLE), *_lines(TESTDATA)]) > 1000


@pytest.mark.shared
@pytest.mark.parametrize("options", [(True, False, True, False), (True, False, False, False)], ids=str)
def test_identical_on_all_shared_data(options):
    # mtlens's two defaults that tokenize (docs/decisions.md: a Chinese or Japanese target gets normalized +
    # asian_support; "normalized" on its own is sacrebleu's --ter-normalized): every text file of ../shared/data
    assert _assert_same(options, _lines(SHARED)) > 100_000


@pytest.mark.shared
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_identical_on_the_cjk_shared_data_for_every_option_set(options):
    folders = ("en-zh", "zh-en", "en-ja", "ja-en")
    assert _assert_same(options, [line for f in folders for line in _lines(SHARED / "wmt" / f)]) > 40_000


KANA = st.sampled_from(
    [
        "あ",
        "ゟ",
        "ア",
        "ヿ",
        "ㇰ",
        "ㇿ",
        "・",
        "ｰ",
        "〈",
        "】",
        "〔",
        "〟",
        "．",
        "＂",
        "（",
        "㐀",
        "䶿",
        "鿿",
        "⺀",
        "㇀",
    ]
)
TEXT = st.lists(st.one_of(RULES, CJK, KANA, st.sampled_from(["'s", "'s ", "'S", "McDonald's"])), max_size=40)


@SETTINGS
@given(st.sampled_from(OPTION_SETS), TEXT.map("".join))
def test_identical_on_text_built_from_the_rules(options, line):
    tok = tercom_tokenizer(*options)
    assert uncached(tok, line) == sacrebleu_tercom(options, line)


@SETTINGS
@given(st.sampled_from(OPTION_SETS), st.text(st.characters(exclude_categories=("Cs",)), max_size=60))
def test_identical_on_any_unicode(options, line):
    tok = tercom_tokenizer(*options)
    assert uncached(tok, line) == sacrebleu_tercom(options, line)


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_identical_where_the_order_of_the_rules_matters(options):
    lines = ["John's.", "it's", "'s", "a.b,c", "1.5,2", "3-4", "x-\ny", "&amp;quot;", "中.5", "あいう", "アイウ。",
             "ＡＢ（中）", "  ", "", "\n", "\u3000中\u3000", "IT'S 中國's"]  # fmt: skip
    assert _assert_same(options, lines) == len(lines)


def test_a_changed_sacrebleu_rule_falls_back_to_sacrebleus_tokenizer(monkeypatch):
    monkeypatch.setattr(tokenizer_ter.TercomTokenizer, "ASIAN_PUNCT", r"([\u3001\u3002])")
    t = TokenizerTercom(True, False, True, False)
    assert not t.proven
    assert uncached(t, "中「文」") == t._sacrebleu("中「文」") == "中 「 文 」"
    monkeypatch.undo()

    def changed(sent):  # a pattern of the Western rules changed: its constants differ
        return sent.replace("&quot;", '"')

    monkeypatch.setattr(tokenizer_ter, "_normalize_general_and_western", changed)
    assert not TokenizerTercom(True, False, False, False).proven


def test_the_punctuation_class_is_13as_first_substitutions():
    # tercom's Western punctuation class is done with 13a's list of padded characters: the same set, every code point
    pattern = re.compile(_TERCOM_2_6_0["_normalize_general_and_western"][0][12])
    matched = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and pattern.fullmatch(chr(c))]
    assert sorted(matched) == sorted(tercom_tokenizer(True)._13a.padded) and len(matched) == 29
