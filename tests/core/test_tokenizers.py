"""The faster 13a tokenizer (mtlens.core.tokenizers.Tokenizer13a) against sacrebleu 2.6.0's own.

The golden values are sacrebleu's outputs, computed here by sacrebleu's uncached tokenizer on the
same lines: on every line of the bundled excerpts, of ../shared/data (marked shared), on random
text built to hit every rule (punctuation next to digits, runs of periods and commas, entities,
``<skipped>``, newlines), and on any Unicode text.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a as SacreTokenizer13a
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh as SacreTokenizerZh

from mtlens.core.tokenizers import Tokenizer13a, TokenizerZh, get_tokenizer

from ..conftest import SAMPLE, SHARED, TESTDATA


def uncached(tok, line: str) -> str:
    """``tok(line)`` computed, not answered by the LRU cache on its class's ``__call__`` (ours and sacrebleu's)."""
    return type(tok).__call__.__wrapped__(tok, line)


def sacrebleu_13a(line: str) -> str:
    """sacrebleu's 13a, computed: a new instance each time, so its inner regexp's cache (keyed by it) never answers."""
    return uncached(SacreTokenizer13a(), line)


def sacrebleu_zh(line: str) -> str:
    """sacrebleu's zh, computed: a new instance each time, so its caches (keyed by the instance) never answer."""
    return uncached(SacreTokenizerZh(), line)


@pytest.fixture(scope="module")
def zh():
    t = TokenizerZh()
    assert t.proven
    return t


@pytest.fixture(scope="module")
def tok():
    t = Tokenizer13a()
    assert t.proven
    return t


def test_registry_uses_the_fast_13a_and_zh():
    assert isinstance(get_tokenizer("13a"), Tokenizer13a)
    assert get_tokenizer("13a").signature() == "13a"
    assert isinstance(get_tokenizer("zh"), TokenizerZh)
    assert get_tokenizer("zh").signature() == "zh"


def test_the_padded_characters_are_exactly_those_sacrebleus_pattern_matches(tok):
    first = SacreTokenizer13a()._post_tokenizer._re[0][0]
    matched = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and first.fullmatch(chr(c))]
    assert sorted(matched) == sorted(tok.padded)
    assert tok.padded[0] == " " and len(matched) == 29  # the space first (see the class docstring)


def _lines(folder):
    for path in sorted(folder.rglob("*.txt")):
        yield from path.read_text(encoding="utf-8", errors="replace").split("\n")


def assert_same(tok, lines, theirs=sacrebleu_13a) -> int:
    """Each line tokenized by ``tok`` (computed) equals ``theirs`` (sacrebleu's, computed); how many lines."""
    n = 0
    for line in lines:
        assert uncached(tok, line) == theirs(line), line
        n += 1
    return n


def test_identical_on_the_bundled_excerpts(tok):
    assert assert_same(tok, [*_lines(SAMPLE), *_lines(TESTDATA)]) > 1000


@pytest.mark.shared
def test_identical_on_all_shared_data(tok):
    # every text file of ../shared/data (all WMT pairs and systems, TED, the sample): > 100,000 lines
    assert assert_same(tok, _lines(SHARED)) > 100_000


def test_zh_identical_on_the_bundled_excerpts(zh):
    # every line of the bundled data, Chinese and not (zh tokenises any line)
    assert assert_same(zh, [*_lines(SAMPLE), *_lines(TESTDATA)], sacrebleu_zh) > 1000


@pytest.mark.parametrize(
    "line",
    [" .5", ".5 ", "\t,3", "中 .5", " 中.5", "1-2 中-3", "&amp; 中", "<skipped>中", "  ", "", "中\u3000.5", "a.中,b"],
)
def test_zh_identical_on_the_lines_where_stripping_and_context_matter(zh, line):
    # sacrebleu strips the line before anything: " .5" is one token there, two without the strip
    assert uncached(zh, line) == sacrebleu_zh(line)


@pytest.mark.shared
def test_zh_identical_on_all_chinese_shared_data(zh):
    lines = [line for folder in ("en-zh", "zh-en") for line in _lines(SHARED / "wmt" / folder)]
    assert assert_same(zh, lines, sacrebleu_zh) > 20_000


RULES = st.sampled_from(
    [
        *"0123456789.,-.,-",
        *"!\"#$%&'()*+/:;<=>?@[\\]^_`{|}~",
        *["&quot;", "&amp;", "&lt;", "&gt;", "&amp;lt;"],
        "<skipped>",
        "-\n",
        "\n",
        " ",
        "  ",
        "\t",
        "\u00a0",
        "\u3000",
        "a",
        "Z",
        "é",
        "日",
        "٣",
        "１",
        "…",
        "–",
    ]
)
SETTINGS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(RULES, max_size=40).map("".join))
def test_identical_on_text_built_from_the_rules(tok, line):
    assert uncached(tok, line) == sacrebleu_13a(line)


@SETTINGS
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=60))
def test_identical_on_any_unicode(tok, line):
    assert uncached(tok, line) == sacrebleu_13a(line)


CJK = st.sampled_from(["中", "文", "。", "，", "「", "」", "、", "〇", "ㄅ", "☀", "✂", "㈠", "㌀", "︐", "﹐", "ｱ"])


@SETTINGS
@given(st.lists(st.one_of(RULES, CJK), max_size=40).map("".join))
def test_zh_identical_on_text_built_from_the_rules(zh, line):
    assert uncached(zh, line) == sacrebleu_zh(line)


@SETTINGS
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=60))
def test_zh_identical_on_any_unicode(zh, line):
    assert uncached(zh, line) == sacrebleu_zh(line)


def test_zh_chinese_class_is_exactly_the_characters_sacrebleus_function_names(zh):
    # every code point, surrogates included: sacrebleu's ``_is_chinese_char`` compares strings, and two of its bounds
    # are two characters long ('\u20000' is U+2000 then '0'), which makes U+2001 .. U+2A6D Chinese for it
    named = SacreTokenizerZh._is_chinese_char
    assert zh.chinese is not None
    differ = [c for c in range(0x110000) if bool(zh.chinese.fullmatch(chr(c))) != named(chr(c))]
    assert differ == []
    assert named("\u2001") and not named("\u2000") and named("\u2a6d") and not named("\u2a6e")


def test_zh_asks_sacrebleus_function_when_it_is_not_260s(monkeypatch):
    from sacrebleu.tokenizers import tokenizer_zh

    def other(uchar):  # another definition: digits are "Chinese" too
        return uchar.isdigit()

    monkeypatch.setattr(tokenizer_zh.TokenizerZh, "_is_chinese_char", staticmethod(other))
    z = TokenizerZh()
    assert z.proven and z.chinese is None
    assert uncached(z, "ab12 中") == "ab 1 2 中" == uncached(z._sacrebleu, "ab12 中")


def test_a_changed_sacrebleu_pattern_falls_back_to_sacrebleus_tokenizer(monkeypatch):
    from sacrebleu.tokenizers import tokenizer_re

    original = tokenizer_re.TokenizerRegexp.__init__

    def changed(self):
        original(self)
        self._re[1] = (re.compile(r"([^0-9])([\.,;])"), r"\1 \2 ")

    monkeypatch.setattr(tokenizer_re.TokenizerRegexp, "__init__", changed)
    t = Tokenizer13a()
    assert not t.proven
    assert uncached(t, "a;b 1.5") == "a ; b 1.5" == t._sacrebleu("a;b 1.5")
    z = TokenizerZh()  # its own sacrebleu patterns now differ from the (proven) 13a's
    assert not z.proven
    assert uncached(z, "中a;b 1.5") == "中 a ; b 1.5" == z._sacrebleu("中a;b 1.5")
