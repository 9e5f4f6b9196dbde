"""Outputs on which a neural metric misleads, flagged before anyone reads its score (Zouhar et al. 2024,
"Pitfalls and Outlooks in Using COMET"): COMET can score an empty translation, a translation in the wrong
language or a copy of the source well above zero, and it knows nothing of a language its encoder was not
trained on. Decisions (docs/decisions.md, "COMET pitfalls"):

- **empty**: the line is empty after stripping white space;
- **copy of the source**: the stripped line equals the stripped source line (needs the source);
- **wrong language**: the line is surely in another language than the expected one, by the one rule of
  :mod:`mtlens.checks.language` (py3langid, lines of :data:`MIN_CHARS`+ characters, at least
  :data:`MIN_PROBABILITY` sure, close variants alike). Empty lines and copies of the source are counted as
  such, not again here;
- the **expected language** is the set's target language when the pair is known, else the language
  py3langid finds most often in the reference (at least half of its lines); without either the
  wrong-language check is skipped and a note says so;
- **languages outside the encoder**: COMET's released models (wmt22-comet-da, CometKiwi, xCOMET) are
  built on XLM-R or its relatives, trained on the 100 languages of :data:`ENCODER_LANGUAGES`; a pair
  with a language outside that list is flagged for the whole set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..checks.language import MIN_CHARS, MIN_PROBABILITY, identify, identify_many, other_language
from ..scores.sources import MODEL, SLIDE, source_of
from .families import COMET, family_of

#: reference lines read to find the expected language when the pair is not known
REFERENCE_SAMPLE = 300

#: XLM-R's 100 training corpora (Conneau et al. 2020, table 6): 93 languages, the romanized and script variants
#: (bn_rom, hi_rom, my_zaw, ta_rom, te_rom, ur_rom, zh-Hant) folded into their language; ISO 639-1 codes
ENCODER_LANGUAGES = frozenset(
    [
        "af",
        "am",
        "ar",
        "as",
        "az",
        "be",
        "bg",
        "bn",
        "br",
        "bs",
        "ca",
        "cs",
        "cy",
        "da",
        "de",
        "el",
        "en",
        "eo",
        "es",
        "et",
        "eu",
        "fa",
        "fi",
        "fr",
        "fy",
        "ga",
        "gd",
        "gl",
        "gu",
        "ha",
        "he",
        "hi",
        "hr",
        "hu",
        "hy",
        "id",
        "is",
        "it",
        "ja",
        "jv",
        "ka",
        "kk",
        "km",
        "kn",
        "ko",
        "ku",
        "ky",
        "la",
        "lo",
        "lt",
        "lv",
        "mg",
        "mk",
        "ml",
        "mn",
        "mr",
        "ms",
        "my",
        "ne",
        "nl",
        "no",
        "om",
        "or",
        "pa",
        "pl",
        "ps",
        "pt",
        "ro",
        "ru",
        "sa",
        "sd",
        "si",
        "sk",
        "sl",
        "so",
        "sq",
        "sr",
        "su",
        "sv",
        "sw",
        "ta",
        "te",
        "th",
        "tl",
        "tr",
        "ug",
        "uk",
        "ur",
        "uz",
        "vi",
        "xh",
        "yi",
        "zh",
    ]
)
#: names a note may use for the kinds of pitfall
KINDS = {"empty": "empty", "copied": "copies of the source", "wrong_language": "in another language"}


#: imported metrics a neural model computed (comet-score's JSON, MetricX, BLEURT); with a registered
#: checkpoint's ``comet:NAME``, the metrics whose pitfalls are flagged
NEURAL_IMPORTED = ("comet", "xcomet", "cometkiwi", "metricx", "bleurt")


def neural_names(names) -> list[str]:
    """The neural metrics among ``names``.

    >>> neural_names(["bleu", "comet:tiny", "comet", "metricx-24", "chrf", "metricx-qe:tiny"])
    ['comet:tiny', 'comet', 'metricx-24', 'metricx-qe:tiny']
    """
    return [n for n in names if source_of(n).kind in (MODEL, SLIDE) or n.split("-")[0].split("_")[0] in NEURAL_IMPORTED]


@dataclass(frozen=True)
class SystemPitfalls:
    """One system's flagged lines (0-based indices) of each kind."""

    system: str
    empty: tuple[int, ...]
    copied: tuple[int, ...]
    wrong_language: tuple[int, ...]
    #: line -> the language found there, for the wrong-language lines
    found: Mapping[int, str]

    def count(self, kind: str) -> int:
        return len(getattr(self, kind))

    @property
    def total(self) -> int:
        return sum(self.count(k) for k in KINDS)


@dataclass(frozen=True)
class Pitfalls:
    """The flags of a set: per system, and the set's own (languages, how the language was decided)."""

    systems: tuple[SystemPitfalls, ...]
    n_lines: int
    expected: str | None  # the language translations should be in
    expected_how: str  # "declared", "detected in the reference", or "unknown"
    outside_encoder: tuple[str, ...]  # languages of the pair the encoder was not trained on
    checked_copies: bool  # False without a source

    @property
    def any(self) -> bool:
        return bool(self.outside_encoder) or any(s.total for s in self.systems)

    def notes(self, metrics: Sequence[str] = ()) -> list[str]:
        """One sentence per flagged system and per set-wide flag, naming the neural ``metrics``."""
        which = ", ".join(metrics) or "neural metrics"
        out = []
        for s in self.systems:
            parts = [f"{s.count(k)} {text}" for k, text in KINDS.items() if s.count(k)]
            if parts:
                out.append(
                    f"{which}: system '{s.system}' has {', '.join(parts)} of {self.n_lines} lines; "
                    "a neural metric may score such lines well, read its score with care"
                )
        comets = [m for m in metrics if family_of(m) == COMET] if metrics else []
        if self.outside_encoder and (comets or not metrics):  # XLM-R's languages: COMET's encoder, not MetricX's mT5
            langs = ", ".join(self.outside_encoder)
            out.append(
                f"{', '.join(comets) or which}: {langs} is not among the encoder's 100 training languages (XLM-R); "
                "its scores are unreliable"
            )
        if self.expected is None:
            out.append(f"{which}: no language pair is known, so translations in another language were not looked for")
        return out

    def headline(self, metrics: Sequence[str] = ()) -> str:
        """One paragraph above the counts: the set-wide flags, and how many systems have flagged lines."""
        parts = [n[0].upper() + n[1:] + "." for n in self.notes(metrics) if "system '" not in n]
        flagged = [s.system for s in self.systems if s.total]
        if flagged:
            parts.append(
                f"Before reading {', '.join(metrics) or 'the neural scores'}: {len(flagged)} system(s) have outputs "
                "that are empty, copy the source or are in another language, which a neural metric may score well."
            )
        return " ".join(parts)

    def caption(self) -> str:
        """What the counts are, under their table."""
        lang = f"'{self.expected}' ({self.expected_how})" if self.expected else "the target (unknown: not checked)"
        return (
            f"Lines of {self.n_lines}: empty; equal to the source line{'' if self.checked_copies else ' (no source: not checked)'}; "
            f"identified by py3langid as another language than {lang} with probability >= {MIN_PROBABILITY} "
            f"(lines of {MIN_CHARS}+ characters). Pitfalls of COMET: Zouhar et al. 2024."
        )

    def rows(self) -> list[dict]:
        """One row per flagged system, in the set's order: its counts of each kind (None: not checked, no
        source or no known language), for the tables of the report and the Rankings page."""
        out = []
        for s in self.systems:
            if s.total:
                out.append(
                    {
                        "system": s.system,
                        KINDS["empty"]: s.count("empty"),
                        KINDS["copied"]: s.count("copied") if self.checked_copies else None,
                        KINDS["wrong_language"]: s.count("wrong_language") if self.expected else None,
                    }
                )
        return out

    def to_dict(self) -> dict:
        return {
            "expected_language": self.expected,
            "expected_how": self.expected_how,
            "outside_encoder": list(self.outside_encoder),
            "systems": {
                s.system: {
                    "empty": s.count("empty"),
                    "copied_source": s.count("copied") if self.checked_copies else None,
                    "wrong_language": s.count("wrong_language") if self.expected else None,
                    "lines": {k: [i + 1 for i in getattr(s, k)] for k in KINDS},
                }
                for s in self.systems
            },
        }


def expected_language(target: str | None, references: Sequence[Sequence[str]]) -> tuple[str | None, str]:
    """The language translations should be in, and how it was decided."""
    if target:
        return target.lower(), "declared"
    if references:
        found = Counter()
        seen = 0
        for line in references[0]:
            got = identify(line)
            if got is None:
                continue
            found[got[0]] += 1
            seen += 1
            if seen >= REFERENCE_SAMPLE:
                break
        if found:
            lang, n = found.most_common(1)[0]
            if n * 2 >= seen:
                return lang, "detected in the reference"
    return None, "unknown"


def find(
    systems: Mapping[str, Sequence[str]],
    source: Sequence[str] | None,
    references: Sequence[Sequence[str]],
    pair: tuple[str | None, str | None] = (None, None),
) -> Pitfalls:
    """The pitfalls of every system; ``pair``: the declared (source, target) languages, when known.

    >>> p = find({"A": ["", "Hallo Welt", "This sentence is certainly written in English."]},
    ...          ["x", "Hallo Welt", "Dieser Satz ist ganz sicher auf Deutsch geschrieben."], [], ("en", "de"))
    >>> s = p.systems[0]; (s.empty, s.copied, s.wrong_language, s.found)
    ((0,), (1,), (2,), {2: 'en'})
    """
    expected, how = expected_language(pair[1], references)
    identified = identify_many(line for lines in systems.values() for line in lines) if expected else {}
    out = []
    for name, lines in systems.items():
        empty, copied, wrong, found = [], [], [], {}
        for i, line in enumerate(lines):
            text = line.strip()
            if not text:
                empty.append(i)
                continue
            if source is not None and text == source[i].strip():
                copied.append(i)
                continue
            if expected is None:
                continue
            other = other_language(text, expected, identified)
            if other is not None:
                wrong.append(i)
                found[i] = other
        out.append(SystemPitfalls(name, tuple(empty), tuple(copied), tuple(wrong), found))
    languages = [x.lower() for x in (pair[0], expected) if x]
    outside = tuple(dict.fromkeys(x for x in languages if x not in ENCODER_LANGUAGES))
    n = len(next(iter(systems.values()))) if systems else 0
    return Pitfalls(tuple(out), n, expected, how, outside, source is not None)
