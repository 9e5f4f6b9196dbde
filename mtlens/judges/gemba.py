"""GEMBA's prompts and answers (Kocmi & Federmann 2023; GEMBA-MQM, and GEMBA-ESA as in WMT24), as Microsoft's code
builds and reads them (issue 48; docs/decisions.md, "LLM judges").

- **Prompts**: GEMBA's own templates (``gemba.json``, its data under CC BY-SA 4.0, unchanged): GEMBA-MQM's system
  message and three few-shot turns (en-de, en-cs, zh-en), then the segment; GEMBA-ESA's error-span turns, then a
  0-100 score given those spans. Language names come from the set's codes.
- **GEMBA-MQM answers** are read as GEMBA's ``parse_mqm_answer(..., normalize=False)`` reads them: lines under a
  ``Critical:`` / ``Major:`` / ``Minor:`` header, ``no-error`` lines skipped, a ``non-translation`` line counted as
  critical, the first 5 errors weighted 25 / 5 / 1 (critical first, then major, then minor), the sum capped at 25
  and negated. Each error also keeps its category and the text it quotes (``category/sub - "span"``).
- **Unparsed**: an answer with error lines but no severity header, which GEMBA scores as perfect without a word, is
  marked unparsed here: the judge is asked again at a higher temperature (GEMBA's own retry), a bounded number of
  times, and an answer still unparsed is counted and shown, never scored as perfect.
- **GEMBA-ESA's score** is read as GEMBA's ``validate_number``: the answer's only number, ``['n']`` or ``n/100``,
  within 0-100; anything else is unparsed.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError
from ..scores.spans import Span, place_quote

#: the version of the prompts and parsing: part of every cached answer's key (a change asks again)
VERSION = "gemba-0.1.3"
#: GEMBA's own language names for the codes it knows, and ISO names for the others (English names)
LANGUAGES = {
    "en": "English", "de": "German", "cs": "Czech", "zh": "Chinese", "ja": "Japanese", "ru": "Russian",
    "uk": "Ukrainian", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese", "pl": "Polish",
    "nl": "Dutch", "hr": "Croatian", "is": "Icelandic", "he": "Hebrew", "ko": "Korean", "ar": "Arabic",
    "hi": "Hindi", "tr": "Turkish", "sv": "Swedish", "et": "Estonian", "lt": "Lithuanian", "lv": "Latvian",
    "ro": "Romanian", "fi": "Finnish", "hu": "Hungarian", "sk": "Slovak", "sl": "Slovenian", "sr": "Serbian",
    "bn": "Bengali", "mr": "Marathi", "vi": "Vietnamese", "id": "Indonesian", "th": "Thai", "el": "Greek",
    "bg": "Bulgarian", "da": "Danish", "no": "Norwegian", "ka": "Georgian", "kk": "Kazakh", "ps": "Pashto",
}  # fmt: skip
SEVERITY_HEADERS = {"critical:": "critical", "major:": "major", "minor:": "minor"}
WEIGHTS = {"critical": 25, "major": 5, "minor": 1}
_CATEGORY_SPAN = re.compile(r'^\s*(?P<category>[^"]+?)\s*-\s*"(?P<span>.*)"\s*$', re.DOTALL)


@functools.cache
def templates() -> dict:
    return json.loads((Path(__file__).with_name("gemba.json")).read_text(encoding="utf-8"))


def language_name(code: str | None) -> str:
    """A language's English name as GEMBA's prompts write it (the code itself when unknown)."""
    if not code or code == "und":
        raise InputError("an LLM judge needs the set's language pair (give it with -l SRC-TGT)")
    return LANGUAGES.get(code.lower(), code)


def _apply(template, data: dict) -> list[dict]:
    """GEMBA's ``apply_template`` for a list of turns: each turn's content formatted with ``data``."""
    out = []
    for turn in template:
        t = copy.copy(turn)
        t["content"] = t["content"].format(**data)
        out.append(t)
    return out


def mqm_messages(source_lang: str, target_lang: str, source: str, target: str) -> list[dict]:
    """GEMBA-MQM's chat messages for one segment."""
    data = {"source_lang": source_lang, "target_lang": target_lang, "source_seg": source, "target_seg": target}
    return _apply(templates()["gemba-mqm"]["messages"], data)


def esa_span_messages(source_lang: str, target_lang: str, source: str, target: str) -> list[dict]:
    """GEMBA-ESA's first request: the error spans of one segment."""
    data = {"source_lang": source_lang, "target_lang": target_lang, "source_seg": source, "target_seg": target}
    return _apply(templates()["gemba-esa"]["messages"], data)


def esa_score_messages(source_lang: str, target_lang: str, source: str, target: str, spans: str) -> list[dict]:
    """GEMBA-ESA's second request: a 0-100 score given the spans (one user turn, as GEMBA sends a string)."""
    data = {
        "source_lang": source_lang,
        "target_lang": target_lang,
        "source_seg": source,
        "target_seg": target,
        "error_spans": spans,
    }
    return [{"role": "user", "content": templates()["gemba-esa"]["ranking"].format(**data)}]


def digest(messages: list[dict]) -> str:
    """The prompt's digest (a cached answer's key holds it)."""
    return hashlib.sha256(json.dumps(messages, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class MQMAnswer:
    """A GEMBA-MQM answer read: the score GEMBA gives it (0 to -25), the errors named, and whether it could be read
    (an answer with error lines but no severity header could not; GEMBA would score it 0, as perfect)."""

    score: float
    errors: tuple[Span, ...]  # without places (the judge quotes: :func:`place`)
    parsed: bool


def _error(severity: str, line: str) -> Span:
    """One error a judge named: its severity, category (``accuracy/mistranslation``) and the text it quotes (empty
    when it quotes none), not yet placed."""
    m = _CATEGORY_SPAN.match(line)
    if m:
        return Span(None, None, severity, m.group("category").strip(), m.group("span"))
    return Span(None, None, severity, line.strip())


def parse_mqm(answer: str | None) -> MQMAnswer:
    """Read a GEMBA-MQM answer as GEMBA's ``parse_mqm_answer(answer, normalize=False)`` does (its JSON branch, for
    ``{"improved translation": ...}`` answers, included), with each error's category and quoted text, and whether
    the answer could be read at all."""
    if answer is None:
        return MQMAnswer(0.0, (), False)
    text = str(answer)
    errors: dict[str, list[str]] = {"critical": [], "major": [], "minor": []}
    parsed = True
    if text.startswith('{"improved translation"'):
        try:
            doc = json.loads(text)
            found = doc.get("errors", {}) if isinstance(doc, dict) else {}
        except ValueError:
            found = _broken_json_errors(text)
            parsed = bool(found)
        for level in ("critical", "major", "minor"):
            for e in found.get(level, []) if isinstance(found, dict) else []:
                errors[level].append(json.dumps(e, ensure_ascii=False) if not isinstance(e, str) else e)
    else:
        level = None
        headerless = 0
        # GEMBA reads the lowercased answer; the quoted text is kept as the judge wrote it (to find it in the line)
        for original in text.split("\n"):
            line = original.lower().strip()
            if "no-error" in line or "no error" in line or line == "":
                continue
            if line in SEVERITY_HEADERS:
                level = SEVERITY_HEADERS[line]
                continue
            if level is None:
                headerless += 1  # GEMBA skips it (and so scores the answer as perfect when all lines are such)
                continue
            errors["critical" if "non-translation" in line else level].append(original.strip())
        if headerless and not any(errors.values()):
            parsed = False
    score, counted, out = 0, 0, []
    for level in ("critical", "major", "minor"):
        for line in errors[level]:
            if counted < 5:
                score += WEIGHTS[level]
                counted += 1
            out.append(_error(level, line))
    return MQMAnswer(0.0 - min(score, 25), tuple(out), parsed)


def _broken_json_errors(x: str) -> dict[str, list]:
    """GEMBA's ``parse_broken_json``: the errors of an ``{"improved translation": ...}`` answer that is not JSON."""
    errors: dict[str, list] = {}
    if '"errors": ' not in x or "improved translation" not in x:
        return errors
    parts = x.split('", "errors": ')
    if len(parts) != 2:
        return errors
    tail = parts[1][:-1]
    try:
        found = json.loads(tail)
        return found if isinstance(found, dict) else {}
    except ValueError:
        last = None
        for word in re.findall(r"\b\w+\b", tail.lower()):
            if word in ("critical", "major", "minor"):
                last = word
            elif last is not None and word == "class":
                errors.setdefault(last, []).append({"class": "other"})
    return errors


def parse_number(answer: str | None, low: int = 0, high: int = 100) -> int | None:
    """GEMBA's ``validate_number``: the answer's only number, or ``['n']``, or ``n/high``; None outside
    ``low..high`` or when there is no single number."""
    if answer is None:
        return None
    numbers = re.findall(r"\d+", answer)
    value = None
    if len(numbers) == 1:
        value = _digits(numbers[0])
    elif re.match(r"^\[['\"][0-9]*['\"]\]$", answer) is not None:
        value = _digits(answer[2:-2])
    elif re.match(rf"^[0-9]*/{high}$", answer) is not None:
        value = _digits(answer.split("/")[0])
    if value is None or not low <= value <= high:
        return None
    return value


def _digits(text: str) -> int | None:
    """A run of ASCII digits as GEMBA's ``int()`` reads it; None where ``int()`` would fail (``['']``: no digits)
    or the number is far beyond any score (5,000 digits: Python refuses to convert them; issue 58, G6)."""
    if not text:
        return None
    text = text.lstrip("0") or "0"
    return int(text) if len(text) <= 9 else 10**9  # any number this long is outside a score's range


def place(errors, line: str) -> tuple[list[tuple[int, int, Span]], int]:
    """Each error's quoted text placed in the translation as character offsets ``[start, end)`` (the one rule,
    :func:`mtlens.scores.spans.place_quote`: its first occurrence not taken by an earlier error of the answer, else its
    first); an error that quotes nothing or text not in the line is kept and counted as unplaced."""
    placed, unplaced, taken = [], 0, set()
    for e in errors:
        start = place_quote(e.text, line, taken=taken)
        if start is None:
            unplaced += 1
            continue
        placed.append((start, start + len(e.text), e))
    return placed, unplaced
