"""Human error annotations (MQM, Freitag et al. 2021, "Experts, Errors, and Context") and MQM scores
from them.

Reads Google's MQM TSV (``system doc doc_id seg_id rater source target category severity [comment]``,
one row per error, the error's span marked inside ``target`` with ``<v>...</v>``; ``No-error`` rows for
segments a rater found no error in). One internal form: per (system, segment) the hypothesis (the
target without tags), the source, the document, and every rater's errors with character offsets into
the hypothesis, category, severity and comment.

MQM score of a segment (the publisher's definition, checked against its own per-segment averages):
each rater's penalty is the sum of the weights of the errors they marked, the segment's score is minus
the mean penalty over the raters who rated it (a rater with a ``No-error`` row counts with penalty 0).
Google's weights (:data:`GOOGLE_WEIGHTS`): Major 5, Minor 1, Minor ``Fluency/Punctuation`` 0.1, any
``Non-translation`` 25, Neutral and No-error 0.

Bad annotations are never dropped or merged silently (docs/decisions.md, "Annotations"): unbalanced or
nested tags, spans beyond the text, unknown severities, duplicate rows, and raters who saw a different
hypothesis for one segment are each reported with the file's line number (:attr:`Annotations.problems`).
A row repeated word for word is counted each time, as the publisher's own averages count it (WMT21 TED
zh-en has 21 such rows; dropping them changes 18 published scores).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.errors import InputError
from ..core.kept import BoundedCache
from ..scores.spans import Span
from .lines import collector_paused, decode_lines

SEVERITIES = ("critical", "major", "minor", "neutral", "no-error")
#: severity -> weight, and (severity, category) -> weight overrides (a category of ``*`` is any severity)
GOOGLE_WEIGHTS: dict = {
    "major": 5.0,
    "minor": 1.0,
    "critical": 10.0,  # not in Google's WMT21 data; the usual MQM weight
    "neutral": 0.0,
    "no-error": 0.0,
    ("minor", "fluency/punctuation"): 0.1,
    ("*", "non-translation"): 25.0,
}
MAX_ROWS = 2_000_000
_TAG = re.compile(r"</?v>")


#: the rows to check a file's annotations list at most (a file with 400,000 bad rows drew a caption
#: each: the page never finished); the rest are counted in one last line
MAX_PROBLEMS = 100


class Problems(list):
    """The first :data:`MAX_PROBLEMS` sentences about a file's rows, and how many more there were."""

    more = 0

    def append(self, sentence: str) -> None:
        if len(self) < MAX_PROBLEMS:
            super().append(sentence)
        else:
            self.more += 1

    def kept(self) -> tuple[str, ...]:
        tail = (f"... and {self.more:,} more rows like these (not listed)",) if self.more else ()
        return (*self, *tail)


@dataclass(frozen=True, slots=True)
class MQMSegment:
    system: str
    seg_id: str
    doc: str
    source: str
    hypothesis: str
    raters: tuple[str, ...]
    errors: tuple[Span, ...]


@dataclass(frozen=True)
class Annotations:
    """Every annotated (system, segment) of one file.

    Attributes:
        name: the file's name.
        segments: ``(system, seg_id)`` -> :class:`MQMSegment`.
        seg_ids: the segment ids in the order they first appear in the file.
        systems: the systems in the order they first appear.
        problems: one sentence per bad row, with its line number.
    """

    name: str
    segments: dict[tuple[str, str], MQMSegment]
    seg_ids: tuple[str, ...]
    systems: tuple[str, ...]
    problems: tuple[str, ...] = field(default=())

    def hypotheses(self, system: str) -> list[str]:
        """The system's hypothesis for every segment id (``""`` where it was not rated)."""
        return [self.segments[(system, s)].hypothesis if (system, s) in self.segments else "" for s in self.seg_ids]

    def sources(self) -> list[str]:
        out = {}
        for (_, seg), v in self.segments.items():
            out.setdefault(seg, v.source)
        return [out.get(s, "") for s in self.seg_ids]

    def documents(self) -> list[str]:
        out = {}
        for (_, seg), v in self.segments.items():
            out.setdefault(seg, v.doc)
        return [out.get(s, "") for s in self.seg_ids]


def strip_spans(target: str) -> tuple[str, list[tuple[int, int]], str | None]:
    """The text without ``<v>`` tags, the marked spans as offsets into it, and what is wrong (None if fine).

    >>> strip_spans("Ich <v>möchte</v> Sie")
    ('Ich möchte Sie', [(4, 10)], None)
    >>> strip_spans("a <v>b <v>c</v></v>")[2]
    'nested <v> tags'
    """
    if "v>" not in target:  # no tag (every tag ends so): most rows
        return target, [], None
    out, spans, start, pos, problem = [], [], None, 0, None
    length = 0
    for m in _TAG.finditer(target):
        piece = target[pos : m.start()]
        out.append(piece)
        length += len(piece)
        pos = m.end()
        if m.group() == "<v>":
            if start is not None:
                problem = problem or "nested <v> tags"
                continue
            start = length
        else:
            if start is None:
                problem = problem or "a </v> without its <v>"
                continue
            spans.append((start, length))
            start = None
    out.append(target[pos:])
    if start is not None:
        problem = problem or "a <v> without its </v>"
    return "".join(out), spans, problem


#: the last two files read, by name and content digest: the upload's check, the set, the page's metric and the
#: Annotations page each read the same file; a 400,000-row file took seconds each time
_READ = BoundedCache(2)


def read_mqm_tsv(data: bytes, name: str) -> Annotations:
    """Google's MQM TSV (header optional; 9 or 10 columns). The same bytes under the same name are read once
    (the last two files are kept, :data:`_READ`): the result is shared, read it and never change it.

    Raises:
        InputError: not such a file (wrong columns), or more rows than :data:`MAX_ROWS`.
    """

    def parse() -> Annotations:
        with collector_paused():
            return _read_mqm_tsv(data, name)

    return _READ.get_or_compute((name, hashlib.blake2b(data, digest_size=20).digest()), parse)


def _read_mqm_tsv(data: bytes, name: str) -> Annotations:
    lines = decode_lines(data, name)
    if len(lines) > MAX_ROWS:
        raise InputError(f"'{name}' has {len(lines):,} rows; mtlens reads annotation files of up to {MAX_ROWS:,}")
    first = 1 if lines and lines[0].lower().startswith("system\tdoc") else 0
    segments: dict[tuple[str, str], dict] = {}
    seg_ids: dict[str, None] = {}
    systems: dict[str, None] = {}
    problems = Problems()
    seen: set[tuple] = set()
    for k, line in enumerate(lines[first:], start=first + 1):
        if not line.strip():
            continue
        f = line.split("\t")
        if len(f) not in (9, 10):
            raise InputError(
                f"line {k} of '{name}' has {len(f)} fields; an MQM TSV has 9 or 10: system, doc, doc_id, seg_id, "
                "rater, source, target, category, severity[, comment]"
            )
        system, doc, _doc_id, seg_id, rater, source, target, category, severity = map(str.strip, f[:9])
        comment = f[9].strip() if len(f) == 10 else ""
        key = (system, seg_id)
        if (key, rater, target, category, severity, comment) in seen:  # counted, as the publisher counts it
            problems.append(
                f"line {k}: the same error as an earlier row (system {system}, segment {seg_id}, {rater}); "
                "counted twice, as the publisher's scores count it"
            )
        seen.add((key, rater, target, category, severity, comment))
        text, spans, problem = strip_spans(target)
        sev = severity.lower()
        if sev not in SEVERITIES:
            problems.append(f"line {k}: unknown severity '{severity}' (counted with weight 0)")
        if problem:
            problems.append(f"line {k}: {problem}; the error is kept without a span")
            spans = []
        seg = segments.get(key)
        if seg is None:
            seg = segments[key] = {"doc": doc, "source": source, "hypothesis": text, "raters": {}, "errors": []}
            seg_ids.setdefault(seg_id)
            systems.setdefault(system)
        elif text != seg["hypothesis"]:
            problems.append(
                f"line {k}: rater {rater} saw another hypothesis for system {system}, segment {seg_id} than the "
                "first row of that segment; their spans are kept on the first row's text where they fit"
            )
        seg["raters"].setdefault(rater)
        if sev == "no-error" or category.lower() == "no-error":
            continue
        if len(spans) > 1:
            problems.append(f"line {k}: {len(spans)} spans in one error row; the first is kept")
        start, end = spans[0] if spans else (None, None)
        if start is not None and end > len(seg["hypothesis"]):
            problems.append(f"line {k}: the span ends beyond the hypothesis; the error is kept without a span")
            start = end = None
        seg["errors"].append(Span(start, end, severity, category, by=rater, comment=comment, row=k))
    if not segments:
        raise InputError(f"'{name}' holds no annotated segment")
    out = {
        key: MQMSegment(key[0], key[1], v["doc"], v["source"], v["hypothesis"], tuple(v["raters"]), tuple(v["errors"]))
        for key, v in segments.items()
    }
    return Annotations(name, out, tuple(seg_ids), tuple(systems), problems.kept())


#: the largest MQM weight accepted (Google's largest is 25): sums of weights over a test set stay finite
MAX_MQM_WEIGHT = 1_000_000


def parse_weights(text: str | Mapping | None) -> dict:
    """Weights from ``--mqm-weights`` (JSON: ``{"major": 5, "minor": 1, "minor:fluency/punctuation": 0.1,
    "*:non-translation": 25}``) on top of :data:`GOOGLE_WEIGHTS`; keys are lowercased.

    >>> parse_weights('{"major": 10}')["major"], parse_weights(None)[("minor", "fluency/punctuation")]
    (10.0, 0.1)
    """
    out = dict(GOOGLE_WEIGHTS)
    if text is None:
        return out
    if isinstance(text, str):
        from ..core.limits import load_json

        given = load_json(text, "--mqm-weights", "--mqm-weights")
    else:
        given = dict(text)
    if not isinstance(given, dict):
        raise InputError('--mqm-weights must be a JSON object such as {"major": 5, "minor": 1}')
    for key, value in given.items():
        try:
            weight = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
        except OverflowError:  # an integer of hundreds of digits
            weight = math.inf
        if not 0 <= weight <= MAX_MQM_WEIGHT:
            raise InputError(
                f"--mqm-weights: the weight of '{str(key)[:60]}' must be a number from 0 to {MAX_MQM_WEIGHT:,}, "
                f"not {str(value)[:30]}{'...' if len(str(value)) > 30 else ''}"
            )
        k = str(key).strip().lower()
        out[tuple(k.split(":", 1)) if ":" in k else k] = weight
    return out


def error_weight(error: Span, weights: Mapping) -> float:
    sev, cat = error.severity.lower(), error.category.lower()
    for key in ((sev, cat), ("*", cat)):
        if key in weights:
            return weights[key]
    for (s, c), w in ((k, v) for k, v in weights.items() if isinstance(k, tuple)):
        if s in (sev, "*") and cat.startswith(c):  # a category family: "non-translation" covers "Non-translation!"
            return w
    return float(weights.get(sev, 0.0))


def segment_score(seg: MQMSegment, weights: Mapping | None = None) -> float:
    """Minus the mean penalty over the segment's raters."""
    weights = GOOGLE_WEIGHTS if weights is None else weights
    penalty = sum(error_weight(e, weights) for e in seg.errors)
    return -penalty / len(seg.raters) if seg.raters else math.nan


def rater_score(seg: MQMSegment, rater: str, weights: Mapping | None = None) -> float:
    """Minus the penalty of one rater's errors in a segment (that rater's own MQM score of it)."""
    weights = GOOGLE_WEIGHTS if weights is None else weights
    return -sum(error_weight(e, weights) for e in seg.errors if e.by == rater)


def mqm_scores(ann: Annotations, weights: Mapping | None = None) -> dict[str, list[float | None]]:
    """System -> one MQM score per segment id (file order), None where the system was not rated."""
    return {
        s: [segment_score(ann.segments[(s, seg)], weights) if (s, seg) in ann.segments else None for seg in ann.seg_ids]
        for s in ann.systems
    }


#: the most (system, segment) hypotheses a set made from annotations alone may have: every system gets a line for
#: every segment id of the file, rated or not (issue 51: 200,000 rows, each of a new system and segment, asked for
#: 4 x 10^10 lines and took 7 GB before being stopped); 20 million is 1,000 systems x 20,000 segments
MAX_GRID = 20_000_000


def check_grid(ann: Annotations, visitor=None) -> None:
    """The grid a set made from ``ann`` alone would have (systems x segment ids, plus the sources) within
    :data:`MAX_GRID`, and within the visitors' bound for a dashboard ``visitor`` who is not the operator."""
    n_seg, n_sys = len(ann.seg_ids), len(ann.systems)
    if n_seg * n_sys > MAX_GRID:
        raise InputError(
            f"'{ann.name}' rates {n_sys:,} systems on {n_seg:,} segments: a set of {n_seg * n_sys:,} hypotheses, most "
            f"of them not rated; mtlens makes a set of at most {MAX_GRID:,} from annotations"
        )
    if visitor is not None and not visitor.admin:
        from ..core.limits import check_visitor_size

        check_visitor_size(n_seg, n_sys + 1, what=f"the set of '{ann.name}'")


def corpus_of(ann: Annotations, visitor=None):
    """A test set made from annotations alone: each system's hypotheses and the sources in the file's
    segment order, no reference (lexical metrics then say they need one), every segment's document from
    the file's ``doc`` column (issue 35; none when the file names no document); within :func:`check_grid`."""
    from ..core.corpus import Corpus

    check_grid(ann, visitor)
    systems = {s: ann.hypotheses(s) for s in ann.systems}
    docs = [" ".join(d.split())[:200] for d in ann.documents()]
    documents = docs if all(docs) else None
    return Corpus.build({}, systems, ann.sources(), allow_no_reference=True, documents=documents)


def check_against(ann: Annotations, corpus) -> None:
    """Annotations added to a set must annotate its hypotheses: a different text is reported by line."""
    if len(ann.seg_ids) != corpus.n_lines:
        raise InputError(f"'{ann.name}' annotates {len(ann.seg_ids)} segments; the set has {corpus.n_lines} lines")
    for s in ann.systems:
        if s not in corpus.systems:
            raise InputError(f"'{ann.name}' annotates system '{s}', which the set does not have")
        wrong = [
            i + 1
            for i, (seg, line) in enumerate(zip(ann.seg_ids, corpus.systems[s], strict=True))
            if (s, seg) in ann.segments and ann.segments[(s, seg)].hypothesis != line
        ]
        if wrong:
            shown = ", ".join(map(str, wrong[:5])) + (f" and {len(wrong) - 5} more" if len(wrong) > 5 else "")
            raise InputError(f"'{ann.name}': system '{s}' has another text than the set on line(s) {shown}")


def mqm_metric(ann: Annotations, corpus, weights: Mapping | None = None):
    """The annotations' MQM scores as a metric like imported ones (``mqm``: higher is better, 0 at best;
    an unrated segment has no score)."""
    import numpy as np

    from ..scores.results import ImportedScores

    check_against(ann, corpus)
    scores = {
        s: np.array([math.nan if v is None else v for v in vals], dtype=np.float64)
        for s, vals in mqm_scores(ann, weights).items()
    }
    for s in corpus.system_names:
        scores.setdefault(s, np.full(corpus.n_lines, math.nan))
    notes = tuple(f"{ann.name}: {p}" for p in ann.problems)
    return ImportedScores("mqm", True, {s: scores[s] for s in corpus.system_names}, ann.name, {}, notes)
