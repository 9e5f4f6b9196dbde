"""The target language of a test set: declared (``-l en-zh``, WMT XML attributes) or detected from the
references' Unicode scripts, and the option defaults that follow from it.

sacrebleu's ``-l SRC-TGT`` picks the word BLEU tokenizer by target: ``zh`` -> ``zh``, ``ja`` ->
``ja-mecab``, ``ko`` -> ``ko-mecab``, anything else ``13a``; an explicit ``--tokenize`` wins. mtlens
does the same, and without a declared pair it detects the target script by counting the letters of
each Unicode script in the references (Han, Hiragana/Katakana, Hangul, Thai, Lao, Khmer, Myanmar,
Latin, Cyrillic, ...). Decisions (docs/decisions.md, "Language"):

- a Chinese or Japanese target also gets TER with ``normalized`` and ``asian_support`` (tercom's CJK
  handling, which splits ideographs and kana), since whitespace-split TER makes a whole unsegmented
  sentence one word; the signature says ``norm:yes|asian:yes``. Korean is space-delimited: TER keeps
  sacrebleu's defaults.
- NIST, tBLEU, the n-gram highlights, the buckets and the words-vs-characters study use the word
  BLEU tokenizer, so they follow the language too.
- Thai, Lao, Khmer and Myanmar have no word delimiters and no sacrebleu tokenizer: word BLEU is
  reported with a warning that only chrF and character BLEU are meaningful there.

Example:
    >>> detect_target(["这是一个测试。", "今天天气很好。"]).target
    'zh'
    >>> detect_target(["これはテストです。"]).target
    'ja'
    >>> detect_target(["Das ist ein Test."]).target is None
    True
    >>> language_defaults("ja")["tokenize"]
    'ja-mecab'
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import InputError
from .options import DEFAULTS

#: target language -> word BLEU tokenizer (sacrebleu's defaults for ``-l``); any other target: the default
TOKENIZER_BY_TARGET = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
#: the rule above in words, for the command line's and the pages' help
TOKENIZER_RULE = ", ".join(f"{t} -> {k}" for t, k in TOKENIZER_BY_TARGET.items()) + f", else {DEFAULTS.tokenize}"


def tokenizer_for(target: str | None) -> str:
    """The word BLEU tokenizer of a target language, as sacrebleu's ``-l`` picks it (the one place of the rule).

    >>> tokenizer_for("zh"), tokenizer_for("ko"), tokenizer_for("de"), tokenizer_for(None)
    ('zh', 'ko-mecab', '13a', '13a')
    """
    return TOKENIZER_BY_TARGET.get(target or "", DEFAULTS.tokenize)


#: targets whose TER gets tercom's CJK handling
CJK_TER = ("zh", "ja")
#: scripts without word delimiters and without a sacrebleu tokenizer
UNSEGMENTED_NO_TOKENIZER = {"th": "Thai", "lo": "Lao", "km": "Khmer", "my": "Myanmar"}
#: characters of the references read for detection
SAMPLE_CHARS = 200_000
#: share of letters a script needs to decide the language
MIN_SHARE = 0.3

_SCRIPTS = {
    "Han": r"\p{Han}",
    "Hiragana": r"\p{Hiragana}",
    "Katakana": r"\p{Katakana}",
    "Hangul": r"\p{Hangul}",
    "Thai": r"\p{Thai}",
    "Lao": r"\p{Lao}",
    "Khmer": r"\p{Khmer}",
    "Myanmar": r"\p{Myanmar}",
    "Latin": r"\p{Latin}",
    "Cyrillic": r"\p{Cyrillic}",
    "Greek": r"\p{Greek}",
    "Arabic": r"\p{Arabic}",
    "Hebrew": r"\p{Hebrew}",
    "Devanagari": r"\p{Devanagari}",
}
_SCRIPT_LANG = {"Hangul": "ko", "Han": "zh", "Thai": "th", "Lao": "lo", "Khmer": "km", "Myanmar": "my"}
_PAIR = re.compile(r"^([A-Za-z]{2,3})(?:[_-][A-Za-z]{2,4})?-([A-Za-z]{2,3})(?:[_-][A-Za-z]{2,4})?$")


@dataclass(frozen=True)
class Language:
    """What is known of a test set's languages.

    Attributes:
        pair: ``SRC-TGT`` as declared, or None.
        target: the target language code (``zh``, ``ja``, ``de``, ...), or None when only the
            script is known (a space-delimited script: nothing language-specific applies).
        script: the references' main script (``Han``, ``Japanese``, ``Latin``, ...; ``none``
            without letters).
        how: ``declared`` or ``detected``.
        share: the main script's share of the references' letters (detected) or None.
        read_from: what the script was read from: ``the references``, or ``the translations`` for a set
            without references (made from annotations).
    """

    pair: str | None
    target: str | None
    script: str
    how: str
    share: float | None = None
    read_from: str = "the references"

    @property
    def tokenizer(self) -> str:
        return tokenizer_for(self.target)

    @property
    def segmented(self) -> bool:
        """Whether its words are cut by a tokenizer of their own (Chinese, Japanese, Korean), not by spaces."""
        return (self.target or "") in TOKENIZER_BY_TARGET

    @property
    def without_spaces(self) -> bool:
        """Whether the target is written without spaces between words (Chinese, Japanese, Thai, ...): a count
        of space-separated tokens is then a count of phrases, not of words."""
        return (self.target or "") in (*CJK_TER, *UNSEGMENTED_NO_TOKENIZER)

    def describe(self, tokenizer: str | None = None) -> str:
        """One sentence for a caption or stderr: what was declared or detected, and what it chose;
        ``tokenizer``: the word BLEU tokenizer in use, when the user chose another than the language's."""
        if self.how == "declared":
            what = f"language pair {self.pair} (declared)"
        elif self.script == "none":
            what = f"no letters in {self.read_from} (numbers or punctuation only), so no language was detected"
        elif self.target:
            what = f"target language {self.target} detected ({self.script} script, {self.share:.0%} of letters)"
        else:
            what = f"{self.script} script detected in {self.read_from} ({self.share:.0%} of letters)"
        chosen = f"word BLEU tokenizer {self.tokenizer}"
        if tokenizer and tokenizer != self.tokenizer:
            chosen = f"word BLEU tokenizer {tokenizer} (chosen; the language's default: {self.tokenizer})"
        if self.target in CJK_TER:
            chosen += ", TER with tercom's normalisation and CJK handling"
        return f"{what}; {chosen}"

    def warnings(self) -> list[str]:
        name = UNSEGMENTED_NO_TOKENIZER.get(self.target or "")
        if name:
            return [
                f"{name} is written without spaces between words and sacrebleu has no {name} tokenizer: "
                "word BLEU, TER, NIST and tBLEU count whole phrases as words and are not meaningful here; "
                "use chrF or character BLEU"
            ]
        return []


def parse_pair(text: str) -> tuple[str, str]:
    """``"en-zh"`` -> ``("en", "zh")``; region subtags are allowed (``zh_TW``), codes are lowercased.

    Raises:
        InputError: not of the form SRC-TGT.
    """
    m = _PAIR.match(str(text).strip())
    if not m:
        raise InputError(f"-l/--language-pair must look like 'en-zh' (source-target language codes), not '{text}'")
    return m.group(1).lower(), m.group(2).lower()


def known_pair(text: str | None) -> tuple[str | None, str | None]:
    """A set's language pair as the checks read it: ``(source, target)``, each None where it is unknown (no pair, or
    ``und``: only the script of that side was seen)."""
    if not text:
        return None, None
    source, target = parse_pair(text)
    return (None if source == "und" else source), (None if target == "und" else target)


def script_counts(lines: Sequence[str], max_chars: int = SAMPLE_CHARS) -> dict[str, int]:
    """Letters of each script in the first ``max_chars`` characters of ``lines``."""
    text, size = [], 0
    for line in lines:
        text.append(line)
        size += len(line)
        if size >= max_chars:
            break
    return dict(_counts("\n".join(text)[:max_chars]))


@functools.lru_cache(maxsize=16)
def _counts(sample: str) -> tuple[tuple[str, int], ...]:
    """:func:`script_counts` of one sample, kept for the next reader of the same text: the dashboard's server opens a
    saved set again for every session and quick view that shows it, and each opening decides its language anew
    (at most 16 samples of at most :data:`SAMPLE_CHARS` characters are kept)."""
    import regex

    # each distinct character is classified once (the same counts as one findall per script)
    chars = Counter(sample)
    out = dict.fromkeys(_SCRIPTS, 0)
    for name, pattern in _SCRIPTS.items():
        match = regex.compile(pattern).match
        out[name] = sum(n for ch, n in chars.items() if match(ch))
    return tuple(out.items())


def detect_target(lines: Sequence[str]) -> Language:
    """The target language from the script of ``lines`` (never raises; see the module docstring)."""
    counts = script_counts(lines)
    letters = sum(counts.values())
    if letters == 0:
        return Language(None, None, "none", "detected")
    kana = counts["Hiragana"] + counts["Katakana"]
    cjk = counts["Han"] + kana
    if kana and cjk >= MIN_SHARE * letters and kana >= 0.1 * cjk:
        return Language(None, "ja", "Japanese", "detected", cjk / letters)
    main = max(counts, key=lambda k: counts[k])
    share = counts[main] / letters
    for script, code in _SCRIPT_LANG.items():
        if counts[script] >= MIN_SHARE * letters:
            return Language(None, code, script, "detected", counts[script] / letters)
    return Language(None, None, main, "detected", share)


def resolve(pair: str | None, references: Sequence[Sequence[str]]) -> Language:
    """The declared pair when given (its target decides), else the detected target."""
    if pair:
        src, tgt = parse_pair(pair)
        detected = detect_target(references[0]) if references else None
        script = detected.script if detected is not None else "unknown"
        return Language(f"{src}-{tgt}", tgt, script, "declared", None)
    return detect_target(references[0] if references else [])


def language_defaults(target: str | None) -> dict:
    """The values of every language-dependent option for a target (explicit choices go on top)."""
    cjk = target in CJK_TER
    return {
        "tokenize": tokenizer_for(target),
        "ter_normalized": cjk,
        "ter_asian_support": cjk,
    }


def with_language(corpus, declared: str | None = None):
    """``(corpus with its language pair, Language)``: the declared pair (argument, else the file's own),
    else the detected target as ``und-TGT``; a space-delimited script leaves the pair unset."""
    # a set made from annotations has no reference: its first system's text tells the target language
    lang = resolve(declared or corpus.language_pair, corpus.reference_streams() or corpus.system_streams()[:1])
    if not corpus.reference_streams():
        lang = dataclasses.replace(lang, read_from="the translations")
    pair = lang.pair or (f"und-{lang.target}" if lang.target else None)
    return corpus.with_language(pair), lang
