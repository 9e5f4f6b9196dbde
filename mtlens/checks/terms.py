"""Glossaries scored as WMT25's terminology task scores them (issue 60; decisions in docs/checks.md, "Terminology").

- ``term``: the term success rate. A term *counts* on a line when its source form occurs in the source line and
  *succeeds* when its target form occurs in the output (both lower-cased; the output stripped, as WMT25's scorer
  strips it); rate = succeeded / counted over the whole set (a micro average), in percent. A line's terms
  (WMT25's JSONL, one object per line) are found as WMT25 finds them, as substrings; a glossary for every line
  (TSV) is found at word boundaries, so that ``space`` does not count inside ``workspace`` on every line. A term
  occurring twice in one line counts once (as in WMT25). Only the surface match is offered: WMT25 also matches
  lemmas with a model it downloads, and mtlens downloads nothing.
- ``term-consistency``: the same source term rendered the same way across a document (or the set, without
  documents). Without a word aligner a line's rendering is known only when it is the glossary's target form, so a
  term's occurrences in one document (two or more) are *consistent* when the output uses the target form on all
  of them, *inconsistent* when on some but not all (the others render it some other way), and left out when on
  none (it cannot be told whether those renderings agree). Score = occurrences in consistent groups / occurrences
  in decided groups, in percent; a line's statistics are its decided occurrences.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..scores.spans import Span
from .lines import CJK

TERM, TERM_CONSISTENCY = "term", "term-consistency"
TERM_NAMES = (TERM, TERM_CONSISTENCY)
#: the ways a term may be matched (only the surface form: a lemma mode needs a lemmatiser, and none is downloaded)
MATCHES = ("surface",)
#: the terms' MQM category
CATEGORY = "Terminology"
#: words a term of a glossary for every line may have (longer ones are refused)
MAX_TERM_WORDS = 12

_TOKEN = re.compile(rf"{CJK}|\w+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class Glossary:
    """A glossary as read (:func:`mtlens.readers.glossary.read_glossary`).

    Attributes:
        name: its file's name.
        per_line: each line's own terms (source -> target), for a JSONL glossary; None for a TSV one.
        terms: lower-cased source term -> target term, for a TSV glossary applied to every line; empty for JSONL.
        key: the JSONL key its terms were read from (empty for TSV).
        longest: the most tokens a TSV term has.
        prefixes: every TSV term's token prefixes (the lines' n-grams are extended only while they are one).
    """

    name: str
    per_line: tuple[tuple[tuple[str, str], ...], ...] | None = None
    terms: Mapping[str, str] | None = None
    key: str = ""
    longest: int = 0
    prefixes: frozenset[str] = frozenset()

    @property
    def form(self) -> str:
        return "per-line" if self.per_line is not None else "every-line"

    def found(self, source: Sequence[str]) -> list[list[tuple[str, str]]]:
        """Each line's counted terms ``(source term, target term)``: those whose source form occurs in the line,
        each once."""
        if self.per_line is not None:
            return [
                [(k, v) for k, v in terms if k.lower() in s.lower()]
                for s, terms in zip(source, self.per_line, strict=True)
            ]
        table, prefixes = self.terms or {}, self.prefixes
        out = []
        for line in source:
            low = line.lower()
            spans = [m.span() for m in _TOKEN.finditer(low)]
            seen: dict[str, None] = {}
            for i, (start, _) in enumerate(spans):
                for j in range(i, min(i + self.longest, len(spans))):
                    key = low[start : spans[j][1]]
                    if key in table and key not in seen:
                        seen[key] = None
                    if key not in prefixes:
                        break
            out.append([(k, table[k]) for k in seen])
        return out


def tokens(term: str) -> list[tuple[int, int]]:
    """A term's tokens as spans (the word-boundary match's unit): words, marks, CJK characters."""
    return [m.span() for m in _TOKEN.finditer(term.lower())]


@dataclass(frozen=True)
class TermScores:
    """One system's terms, line by line: ``hits`` and ``counted`` per line, the missed terms as omission spans,
    and ``outcomes``: per line, ``(source term, target term, succeeded)``."""

    hits: list[int]
    counted: list[int]
    missed: list[list[Span]]
    outcomes: list[list[tuple[str, str, bool]]]


def success(found: list[list[tuple[str, str]]], outputs: Sequence[str]) -> TermScores:
    """The term success of one system's outputs, given each line's counted terms (:meth:`Glossary.found`)."""
    hits, counted, missed, outcomes = [], [], [], []
    for terms, out in zip(found, outputs, strict=True):
        low = out.strip().lower()
        got = [(k, v, v.lower() in low) for k, v in terms]
        outcomes.append(got)
        hits.append(sum(ok for _, _, ok in got))
        counted.append(len(got))
        missed.append([Span(None, None, "major", CATEGORY, f"{k} -> {v}") for k, v, ok in got if not ok])
    return TermScores(hits, counted, missed, outcomes)


def consistency(scores: TermScores, documents: Sequence[str] | None) -> tuple[list[int], list[int], int]:
    """Per line ``(consistent occurrences, decided occurrences)`` and the number of groups left out (a term used
    nowhere in its document as the glossary writes it): the rule in the module's docstring."""
    n = len(scores.outcomes)
    docs = documents if documents is not None else [""] * n
    groups: dict[tuple[str, str], list[tuple[int, bool]]] = defaultdict(list)
    for i, got in enumerate(scores.outcomes):
        for k, _, ok in got:
            groups[(docs[i], k.lower())].append((i, ok))
    good, decided = [0] * n, [0] * n
    undecided = 0
    for occurrences in groups.values():
        if len(occurrences) < 2:
            continue
        used = sum(ok for _, ok in occurrences)
        if used == 0:
            undecided += 1
            continue
        for i, _ in occurrences:
            decided[i] += 1
            good[i] += used == len(occurrences)
    return good, decided, undecided


def per_term(found: list[list[tuple[str, str]]], by_system: Mapping[str, TermScores]) -> list[dict]:
    """The per-term table: each counted term with its target, how often it counts, and per system how often it
    was missed (the terms missed most first)."""
    rows: dict[tuple[str, str], dict] = {}
    for terms in found:
        for k, v in terms:
            row = rows.setdefault((k, v), {"source": k, "target": v, "counted": 0, "missed": {s: 0 for s in by_system}})
            row["counted"] += 1
    for system, scores in by_system.items():
        for got in scores.outcomes:
            for k, v, ok in got:
                if not ok:
                    rows[(k, v)]["missed"][system] += 1
    return sorted(rows.values(), key=lambda r: (-sum(r["missed"].values()), r["source"]))
