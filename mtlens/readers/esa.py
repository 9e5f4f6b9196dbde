"""Human ESA ratings (Error Span Annotation, Kocmi et al. 2024; WMT24's and WMT25's human evaluation): a 0-100 score
per segment and the error spans a rater marked, minor or major.

Three formats are read (docs/decisions.md, "ESA ratings"):

- **Appraise's CSV as WMT publishes it** (no header, 12 columns): ``user_id, system, line_id, item_type,
  source_lang, target_lang, score, doc_id, (unused), error_spans, start_time, end_time``; ``line_id`` is the 0-based
  line of the texts, ``error_spans`` JSON ``[{"start_i", "end_i", "severity", ...}]``.
- **WMT's JSONL**: one object per line with ``langs, line_id, src, tgt, doc_id, domain, esa_spans, esa_score,
  system, annotator``.
- **Pearmut's output JSONL** (``data/annotations/<campaign>.jsonl``): one object per submitted document,
  ``{"item": [...], "annotation": [{system: {"score", "error_spans": [...]}}, ...], "user_id", "actions"}``; an item
  of a campaign mtlens made names its line (``item_id`` ``mtlens-line:<line from 1>``, older ones ``mtlens:<line
  from 0>``: :mod:`mtlens.exports.campaign`), the
  others are left out with a count. The language pair is the set's.

What is done with the rows, as the publisher does it:

- rows of another language pair than the set's are left out, with a count;
- quality-control and set-up rows are set aside, not scored: attention checks (``item_type`` ``BAD`` or a
  ``doc_id`` ending in ``#bad``: a deliberately damaged translation), repeated items (``#dup``), filler items
  (``#incomplete``) and tutorials (``tutorial`` in the system or document); the attention checks and the
  repeated items are what :func:`mtlens.readers.esa_set.rater_quality` reads;
- a rater who rated an item several times: the rating with the latest ``end_time`` is kept;
- several raters of one segment: their scores are averaged (:func:`mtlens.readers.esa_set.segment_scores`);
- a span's ``end_i`` is inclusive (the marked text is ``line[start_i:end_i + 1]``); spans are kept as ``[start,
  end)``; ``"start_i": "missing"`` is an omission (no place in the text); a span past its line's end is clipped,
  with a count.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.errors import InputError
from ..core.limits import load_json
from ..scores.spans import Span
from .lines import decode_lines

#: ISO 639-3 codes Appraise writes, as the two-letter codes of a set's language pair
LANG3 = {
    "ara": "ar", "ben": "bn", "ces": "cs", "deu": "de", "eng": "en", "spa": "es", "est": "et", "fra": "fr",
    "heb": "he", "hin": "hi", "hrv": "hr", "isl": "is", "ita": "it", "jpn": "ja", "kor": "ko", "lit": "lt",
    "mar": "mr", "nld": "nl", "pol": "pl", "por": "pt", "ron": "ro", "rus": "ru", "srp": "sr", "swe": "sv",
    "tur": "tr", "ukr": "uk", "vie": "vi", "zho": "zh", "bho": "bho", "mas": "mas", "chv": "cv", "arz": "ar",
}  # fmt: skip
#: the severities ESA marks (``undecided``: Appraise's until the rater chooses, a few rows of WMT24 keep it;
#: ``neutral``: Pearmut's span without a severity)
SEVERITIES = ("minor", "major", "undecided", "neutral")
#: the reference rated as a system (WMT's name for it)
REFERENCE_SYSTEMS = ("refA", "refB")
#: the most rows an ESA file may hold
MAX_ROWS = 2_000_000


@dataclass(frozen=True)
class ESARating:
    """One rater's rating of one item (a system's line, 0-based)."""

    rater: str
    system: str
    line: int
    score: float
    spans: tuple[Span, ...]
    doc: str
    end_time: float
    row: int
    kind: str = "rating"  # rating, attention, duplicate, incomplete, tutorial


@dataclass(frozen=True)
class ESARatings:
    """An ESA file read for one language pair.

    Attributes:
        name: the file's name.
        pair: the language pair the ratings are of (``en-ja``).
        ratings: the ratings scored: the latest of each rater and item, quality-control rows set aside.
        controls: the attention checks, repeated and filler items and tutorials (latest of each rater and item).
        left_out: why rows were not read, with counts (other language pairs, earlier ratings of an item).
        notes: what was done with the file, in sentences.
    """

    name: str
    pair: str
    ratings: tuple[ESARating, ...]
    controls: tuple[ESARating, ...] = ()
    left_out: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def problems(self) -> tuple[str, ...]:  # what an annotation file's reader reports, as MQM's does
        return self.notes

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.system for r in self.ratings))


def is_esa(data: bytes, name: str) -> bool:
    """Whether a file is ESA ratings (Appraise's CSV or WMT's JSONL) rather than an MQM TSV."""
    head = bytes(data[:65536]).removeprefix(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"{"):
        first = head.split(b"\n", 1)[0]
        return b'"esa_score"' in first or b'"esa_spans"' in first or _is_pearmut(first)
    line = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    try:
        row = next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return False
    return len(row) == 12 and row[3] in ("TGT", "BAD", "REF", "CHK") and row[2].strip().lstrip("-").isdigit()


#: the prefix of the id of every item of a campaign mtlens exports (:mod:`mtlens.exports.campaign`):
#: ``mtlens-line:<line>``, the line numbered from 1 as every output of mtlens numbers it (issue 58, D5), so that its
#: annotations come back to the set's line
ITEM_PREFIX = "mtlens-line:"
#: the items of campaigns exported before: ``mtlens:<0-based line>``, still read back
OLD_ITEM_PREFIX = "mtlens:"


def item_id(line: int) -> str:
    """The item id of the set's line ``line`` (0-based inside mtlens): ``mtlens-line:`` and the line from 1."""
    return f"{ITEM_PREFIX}{line + 1}"


def line_of(value) -> int | None:
    """The set's line (0-based inside mtlens) an item id names; None for an item mtlens did not make.

    >>> line_of("mtlens-line:13"), line_of("mtlens:12"), line_of("other:3"), line_of(None), line_of("mtlens-line:0")
    (12, 12, None, None, None)
    """
    text = str(value or "")
    for prefix, first in ((ITEM_PREFIX, 1), (OLD_ITEM_PREFIX, 0)):
        if text.startswith(prefix):
            digits = text[len(prefix) :]
            if not digits.isascii() or not digits.isdigit() or len(digits) > 12:
                return None  # 5,000 digits were an internal error (issue 58, G7): no line of a set has such a number
            line = int(digits) - first
            return line if line >= 0 else None
    return None


def _is_pearmut(first_line: bytes) -> bool:
    return b'"annotation"' in first_line and b'"item"' in first_line


def _pair(src: str, tgt: str) -> str:
    s, t = src.strip().lower(), tgt.strip().lower()
    return f"{LANG3.get(s, s)}-{LANG3.get(t, t)}"


def _kind(item_type: str, system: str, doc: str) -> str:
    if "tutorial" in system.lower() or "tutorial" in doc.lower():
        return "tutorial"
    if item_type == "BAD" or doc.endswith("#bad"):
        return "attention"
    if doc.endswith("#dup"):
        return "duplicate"
    if doc.endswith("#incomplete"):
        return "incomplete"
    return "rating"


def _spans(value, where: str) -> list[tuple]:
    """The raw spans of a row: ``(start_i, end_i, severity, category)`` with ``"missing"`` kept."""
    if value in (None, "", "[]"):
        return []
    spans = load_json(value.encode("utf-8"), where, where) if isinstance(value, str) else value
    if not isinstance(spans, list):
        raise InputError(f"{where}: its error spans are not a list")
    out = []
    for s in spans:
        if not isinstance(s, dict) or "start_i" not in s or "end_i" not in s:
            raise InputError(f"{where}: an error span without start_i and end_i")
        sev = str(s.get("severity") or "neutral").lower()
        if sev not in SEVERITIES:
            raise InputError(f"{where}: an error span's severity is '{sev[:20]}', not {', '.join(SEVERITIES)}")
        cat = s.get("category", s.get("error_type"))
        start, end = _offset(s["start_i"], where), _offset(s["end_i"], where)
        out.append((start, end, sev, None if cat is None else str(cat)[:100]))
    return out


def _offset(value, where: str):
    """A span's ``start_i`` or ``end_i``: a whole number (``"missing"``, an omission, kept as it is), else one
    sentence (issue 58, G7: text, a list and Infinity were internal errors)."""
    if value is None or value == "missing":
        return value
    digits = value.strip().lstrip("-") if isinstance(value, str) else None
    if digits and digits.isascii() and digits.isdigit():
        value = int(value) if len(value) < 16 else 10**12  # a number written as text, as int() read it before
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: an error span's start_i or end_i is '{str(value)[:20]}', not a whole number")
    return value if abs(value) < 10**12 else (10**12 if value > 0 else -(10**12))


def _rows_appraise(data: bytes, name: str):
    text = "\n".join(decode_lines(data, name))
    for k, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row:
            continue
        if len(row) != 12:
            raise InputError(
                f"line {k} of '{name}' has {len(row)} fields; Appraise's ESA CSV has 12: user_id, system, line_id, "
                "item_type, source_lang, target_lang, score, doc_id, (unused), error_spans, start_time, end_time"
            )
        yield k, {
            "rater": row[0], "system": row[1], "line": row[2], "item_type": row[3], "pair": _pair(row[4], row[5]),
            "score": row[6], "doc": row[7], "spans": row[9], "end_time": row[11] or row[10],
        }  # fmt: skip


def _rows_jsonl(data: bytes, name: str):
    for k, line in enumerate(decode_lines(data, name), start=1):
        if not line.strip():
            continue
        obj = load_json(line.encode("utf-8"), name, f"line {k} of '{name}'")
        if not isinstance(obj, dict):
            raise InputError(f"line {k} of '{name}' is not a JSON object")
        langs = str(obj.get("langs") or "")
        src, _, tgt = langs.partition("-")
        yield k, {
            "rater": str(obj.get("annotator") or ""), "system": str(obj.get("system") or ""),
            "line": obj.get("line_id"), "item_type": str(obj.get("item_type") or "TGT"), "pair": _pair(src, tgt),
            "score": obj.get("esa_score"), "doc": str(obj.get("doc_id") or ""), "spans": obj.get("esa_spans"),
            "end_time": obj.get("end_time", k),
        }  # fmt: skip


def _rows_pearmut(data: bytes, name: str, pair: str, skipped: Counter):
    """Pearmut's log: every (item, system) annotation of a submitted document, at the time of its last action."""
    for k, line in enumerate(decode_lines(data, name), start=1):
        if not line.strip():
            continue
        entry = load_json(line.encode("utf-8"), name, f"line {k} of '{name}'")
        if not isinstance(entry, dict) or not isinstance(entry.get("item"), list):
            continue  # a reset marker or a form: not a rating
        annotations = entry.get("annotation")
        if not isinstance(annotations, list):
            continue
        times = [a.get("time") for a in entry.get("actions") or [] if isinstance(a, dict)]
        times = [t for t in times if isinstance(t, int | float)]
        for item, ann in zip(entry["item"], annotations, strict=False):
            at = line_of(item.get("item_id")) if isinstance(item, dict) else None
            if at is None or not isinstance(ann, dict):
                skipped["items of a campaign mtlens did not make"] += 1
                continue
            for system, a in ann.items():
                if not isinstance(a, dict) or a.get("score") is None:
                    continue
                yield k, {
                    "rater": str(entry.get("user_id") or ""), "system": str(system), "line": at,
                    "item_type": "TGT", "pair": pair, "score": a.get("score"), "doc": "",
                    "spans": a.get("error_spans") or [], "end_time": max(times) if times else k,
                }  # fmt: skip


def read_esa(data: bytes, name: str, corpus=None, pair: str | None = None) -> ESARatings:
    """ESA ratings of one language pair (``pair``, default the ``corpus``'s, else the file's only one), placed on
    the ``corpus``'s lines when given (spans clipped to their line, systems checked)."""
    head = bytes(data[:65536]).removeprefix(b"\xef\xbb\xbf").lstrip()
    jsonl = head.startswith(b"{")
    skipped: Counter = Counter()
    if jsonl and _is_pearmut(head.split(b"\n", 1)[0]):  # Pearmut's: the set's language pair
        own = pair or (corpus.language_pair if corpus is not None and corpus.language_pair else "und-und")
        rows = list(_rows_pearmut(data, name, own, skipped))
        if not rows:
            raise InputError(f"'{name}' holds no annotation of an item of a campaign mtlens made (mtlens campaign)")
    else:
        rows = list(_rows_jsonl(data, name) if jsonl else _rows_appraise(data, name))
    if len(rows) > MAX_ROWS:
        raise InputError(f"'{name}' has {len(rows):,} rows; mtlens reads ESA files of up to {MAX_ROWS:,}")
    pairs = Counter(r["pair"] for _, r in rows)
    if pair is None and corpus is not None and corpus.language_pair and not corpus.language_pair.startswith("und"):
        pair = corpus.language_pair
    if pair is None:
        if len(pairs) != 1:
            raise InputError(
                f"'{name}' rates {len(pairs)} language pairs ({', '.join(sorted(pairs))}); say which (-l SRC-TGT)"
            )
        pair = next(iter(pairs))
    if pair not in pairs:
        raise InputError(f"'{name}' has no rating of {pair}; its language pairs: {', '.join(sorted(pairs))}")
    left_out: dict[str, int] = dict(skipped)
    other = sum(n for p, n in pairs.items() if p != pair)
    if other:
        left_out["other language pairs"] = other
    latest: dict[tuple, ESARating] = {}
    for k, r in rows:
        if r["pair"] != pair:
            continue
        where = f"line {k} of '{name}'"
        try:
            line = int(r["line"])
            score = float(r["score"])
            end_time = float(r["end_time"])
        except (TypeError, ValueError):
            raise InputError(f"{where}: its line_id, score or end_time is not a number") from None
        if not (0 <= score <= 100 and math.isfinite(end_time)):
            raise InputError(f"{where}: its score {score:g} is not between 0 and 100")
        kind = _kind(r["item_type"], r["system"], r["doc"])
        spans = tuple(
            Span(
                None if s in ("missing", None) else int(s),
                None if s in ("missing", None) else (None if e in ("missing", None) else int(e) + 1),
                sev,
                cat or "",
                by=r["rater"],
                row=k,
            )
            for s, e, sev, cat in _spans(r["spans"], where)
        )
        rating = ESARating(r["rater"], r["system"], line, score, spans, r["doc"], end_time, k, kind)
        key = (rating.rater, rating.system, line, kind)
        if key in latest:
            left_out["earlier ratings of an item by the same rater"] = (
                left_out.get("earlier ratings of an item by the same rater", 0) + 1
            )
            if latest[key].end_time > end_time:
                continue
        latest[key] = rating
    ratings = [r for r in latest.values() if r.kind == "rating"]
    controls = [r for r in latest.values() if r.kind != "rating"]
    notes = [f"{_rows(n)} left out: {why}" for why, n in left_out.items()]
    kinds = Counter(r.kind for r in controls)
    if kinds:
        notes.append(
            "set aside, not scored: "
            + ", ".join(f"{n:,} {k}" for k, n in sorted(kinds.items()))
            + " (attention checks and repeated items are read for the raters' quality)"
        )
    if corpus is not None:
        texts = {**corpus.systems, **corpus.references}  # a reference rated as a system is kept under its name
        kept = [r for r in ratings if r.system in texts or r.system in REFERENCE_SYSTEMS]
        if len(kept) < len(ratings):  # issue 58, D4: a wave rates more systems than the set has (as other pairs)
            others, dropped = sorted({r.system for r in ratings} - {r.system for r in kept}), len(ratings) - len(kept)
            left_out["ratings of systems the set does not have"] = dropped
            named = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
            notes.append(f"{_rows(dropped)} left out: ratings of systems the set does not have ({named})")
            if not kept:
                raise InputError(f"'{name}' rates none of the set's systems (it rates {named})")
        ratings, clipped = _placed(kept, corpus, name)
        if clipped:
            notes.append(f"{clipped:,} spans past their line's end were clipped to it")
    if not ratings:
        raise InputError(f"'{name}' holds no rating of {pair} to score (every row is a check, a tutorial or a filler)")
    return ESARatings(name, pair, tuple(ratings), tuple(controls), left_out, tuple(notes))


def _rows(n: int) -> str:
    return f"{n:,} row{'' if n == 1 else 's'}"


def _placed(ratings: Sequence[ESARating], corpus, name: str) -> tuple[list[ESARating], int]:
    """The ratings of the corpus's systems on its lines: lines in range, spans clipped to the rated line."""
    texts = {**corpus.systems, **corpus.references}
    first_ref = next(iter(corpus.references.values()), None)
    out, clipped = [], 0
    for r in ratings:
        lines = texts.get(r.system, first_ref)
        if lines is None or not 0 <= r.line < corpus.n_lines:
            raise InputError(
                f"line {r.row} of '{name}': line_id {r.line} is not a line of the set (0 to {corpus.n_lines - 1})"
            )
        n = len(lines[r.line])
        spans = []
        for s in r.spans:
            if s.start is not None and (s.end is None or s.end > n or s.start > n):
                clipped += 1
                s = dataclasses.replace(s, start=min(s.start, n), end=n)
            spans.append(s)
        out.append(
            r
            if spans == list(r.spans)
            else ESARating(r.rater, r.system, r.line, r.score, tuple(spans), r.doc, r.end_time, r.row, r.kind)
        )
    return out, clipped
