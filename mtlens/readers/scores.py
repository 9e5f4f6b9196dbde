"""Scores of the field's neural metrics, imported from their files (mtlens runs no model).

Formats read (docs/decisions.md, "Imported metric scores"):
- ``comet-score --to_json``: one JSON object keyed by each translation file's path, each value a
  list with one ``{"src", "mt", "ref"?, "COMET": float, "errors"?}`` per segment; the score key is
  ``COMET`` or the one numeric key found; the system is the key's file stem. xCOMET's ``errors``
  (spans with ``text``, ``confidence``, ``severity``, ``start``, ``end``) are kept.
- ``comet-score`` text output: ``PATH\\tSegment i\\tscore: x`` lines (then ``PATH\\tscore: x``).
- MetricX-23/24 JSONL: one JSON object per line with ``prediction`` (lower is better, 0-25); one file
  per system (the file stem), or a ``system`` field in every line.
- mt-metrics-eval ``<NAME>-<REF>.seg.score``: ``SYSTEM SCORE`` lines, one block per system in
  segment order (``None`` is refused: a metric must score every segment).
- A TSV with a header: ``system``, ``line`` (1-based) and one column per metric.

Each file becomes a metric whose per-segment statistics are ``[score, 1]``; its corpus score is the
mean of the segment scores, on the file's own scale (COMET 0-1, MetricX 0-25), and it works with
everything built on statistics: rankings, paired bootstrap and approximate randomisation, buckets,
sentence views, human correlation, exports.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.limits import load_json
from ..metrics import REGISTRY
from ..metrics.base import Metric, Signature
from ..scores.results import ImportedScores
from ..scores.sources import METRICX, source_of
from ..scores.spans import Span
from .lines import decode_lines
from .model_spans import SpanTally
from .testset import stem


class ImportedMetric(Metric):
    """A metric whose segment scores come from a file: statistics ``[score, 1]``, corpus score the mean."""

    def __init__(self, scores: ImportedScores):
        self.name = scores.name
        self.higher_is_better = scores.higher_is_better
        self.imported = scores

    def block_statistics(self, references, hypotheses):  # pragma: no cover - never computed from text
        raise InputError(f"'{self.name}' is imported from a file; it cannot be computed from text")

    def score_from_totals(self, totals):
        t = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(t[..., 1] > 0, t[..., 0] / np.where(t[..., 1] > 0, t[..., 1], 1.0), np.nan)
        return mean * self.imported.scale if self.imported.scale != 1.0 else mean

    def sentence_scores(self, stats):
        s = np.asarray(stats, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(s[:, 1] > 0, s[:, 0] / np.where(s[:, 1] > 0, s[:, 1], 1.0), np.nan)

    def signature(self, n_refs):
        origin = self.imported.model or (("file", Path(self.imported.source).name),)
        return Signature(
            (
                ("metric", self.name),
                *origin,
                ("mean", self.imported.mean),
                ("higher", "yes" if self.higher_is_better else "no"),
            )
        )

    def details(self, totals):
        t = np.asarray(totals, dtype=np.float64)
        return {"segments": int(t[1])}

    def stats_for(self, system: str) -> np.ndarray:
        """``[score, 1]`` per line, ``[0, 0]`` where a line has no score (an unrated MQM segment): the corpus
        score is the mean over the scored lines, and an unscored line's sentence score is NaN."""
        s = self.imported.scores[system]
        scored = np.isfinite(s)
        w = scored.astype(np.float64)
        if self.imported.weights is not None:  # a weighted mean: [score x w, w] sums to it
            w = np.where(scored, np.asarray(self.imported.weights[system], dtype=np.float64), 0.0)
        return np.column_stack([np.where(scored, s * w, 0.0), w])


# --------------------------------------------------------------------------- readers
_NAME = re.compile(r"[^a-z0-9+_-]+")


def _higher(name: str) -> bool:
    """Whether a file's scores are better higher: all but MetricX's (an error score), by the tool that wrote them."""
    return source_of(name).family != METRICX


def metric_name(text: str) -> str:
    """A file's metric name as ``--metrics`` takes it (lowercase, no spaces)."""
    name = _NAME.sub("-", text.strip().lower()).strip("-") or "imported"
    if name in REGISTRY:
        name += "-imported"
    return name


def read_scores(data: bytes, file_name: str, corpus: Corpus) -> list[ImportedScores]:
    """Every metric in one scores file, checked against the corpus (every system, every line).

    Raises:
        InputError: unknown format, a missing system, a wrong line count, NaN, or text where a number
            belongs, naming the file, the system and the line.
    """
    low = file_name.lower()
    if low.endswith(".json"):
        return [_comet_json(data, file_name, corpus)]
    if low.endswith(".jsonl"):
        return [_metricx_jsonl(data, file_name, corpus)]
    lines = decode_lines(data, file_name)
    head = lines[0].split("\t")
    if low.endswith((".tsv", ".tab")) or (
        "system" in [h.strip().lower() for h in head] and "line" in [h.strip().lower() for h in head]
    ):
        return _tsv(lines, file_name, corpus)
    if "\tSegment " in lines[0] and "score:" in lines[0]:
        return [_comet_text(lines, file_name, corpus)]
    if low.endswith(".seg.score"):
        return [_mme_seg(lines, file_name, corpus)]
    raise InputError(
        f"'{file_name}' is not a scores file mtlens reads (comet-score JSON or text, MetricX JSONL, "
        "mt-metrics-eval .seg.score, or a TSV with system, line and metric columns)"
    )


def _number(value, file_name: str, system: str, line: int) -> float:
    if isinstance(value, bool) or value is None:
        raise InputError(f"'{file_name}': system '{system}' line {line} has no score ({value!r})")
    try:
        x = float(value)
    except OverflowError:  # an integer too large for a float (10**400)
        raise InputError(f"'{file_name}': system '{system}' line {line}: the score is not a finite number") from None
    except (TypeError, ValueError):
        raise InputError(f"'{file_name}': system '{system}' line {line}: '{str(value)[:40]}' is not a number") from None
    if not math.isfinite(x):
        raise InputError(f"'{file_name}': system '{system}' line {line}: the score {value!r} is not a finite number")
    return x


def _finish(name, higher, by_system: dict[str, list[float]], file_name, corpus, spans=None, notes=()):
    missing = [s for s in corpus.system_names if s not in by_system]
    if missing:
        raise InputError(
            f"'{file_name}' has no {name} scores for system(s) {', '.join(missing)} "
            f"(it has {', '.join(sorted(by_system)) or 'none'})"
        )
    out = {}
    for s in corpus.system_names:
        values = by_system[s]
        if len(values) != corpus.n_lines:
            raise InputError(
                f"'{file_name}': system '{s}' has {len(values)} {name} scores, the test set has {corpus.n_lines} lines"
            )
        out[s] = np.asarray(values, dtype=np.float64)
    extra = sorted(set(by_system) - set(corpus.system_names))
    notes = list(notes)
    if extra:
        notes.append(f"{file_name}: scores of system(s) not in the test set were ignored: {', '.join(extra)}")
    return ImportedScores(name, higher, out, file_name, spans or {}, tuple(notes))


def _comet_json(data: bytes, file_name: str, corpus: Corpus) -> ImportedScores:
    doc = load_json(data, file_name)
    if not isinstance(doc, dict) or not all(isinstance(v, list) for v in doc.values()):
        raise InputError(f"'{file_name}' is not comet-score --to_json output (an object of lists, one per file)")
    key = None
    by_system: dict[str, list[float]] = {}
    spans: dict[str, list[list[Span]]] = {}
    tally = SpanTally()
    paths: dict[str, str] = {}
    for path, segs in doc.items():
        system = stem(str(path).replace("\\", "/"))
        if system in paths:
            raise InputError(
                f"'{file_name}': the paths '{paths[system]}' and '{path}' both name system '{system}' "
                "(the file stem); score each system under its own file name"
            )
        paths[system] = str(path)
        if key is None:
            key = _score_key(segs, file_name)
        values, sys_spans = [], []
        hyp = corpus.systems.get(system)
        for i, seg in enumerate(segs, start=1):
            if not isinstance(seg, dict):
                raise InputError(f"'{file_name}': system '{system}' line {i} is not an object")
            values.append(_number(seg.get(key), file_name, system, i))
            errors = seg.get("errors")
            if errors is not None and not isinstance(errors, list):
                raise InputError(f"'{file_name}': system '{system}' line {i}: 'errors' is not a list of spans")
            line = hyp[i - 1] if hyp and i <= len(hyp) else None
            mt = seg.get("mt")
            mt = mt if isinstance(mt, str) else (line or "").strip()
            line_spans = tally.place(errors, mt, line, f"'{system}' line {i}")
            sys_spans.append(line_spans)
        by_system[system] = values
        if any(sys_spans):
            spans[system] = sys_spans
    name = metric_name(key or "comet")
    if spans and name == "comet":
        name = "xcomet"
    return _finish(name, True, by_system, file_name, corpus, spans, tally.notes(file_name))


def _score_key(segs, file_name) -> str:
    if not segs or not isinstance(segs[0], dict):
        raise InputError(f"'{file_name}' has an empty or malformed list of segments")
    if "COMET" in segs[0]:
        return "COMET"
    numeric = [k for k, v in segs[0].items() if k not in ("src", "mt", "ref") and isinstance(v, (int, float))]
    if len(numeric) != 1:
        raise InputError(f"'{file_name}': cannot tell which field is the score (found {', '.join(numeric) or 'none'})")
    return numeric[0]


def _metricx_jsonl(data: bytes, file_name: str, corpus: Corpus) -> ImportedScores:
    lines = decode_lines(data, file_name)
    by_system: dict[str, list[float]] = {}
    default = stem(file_name)
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        obj = load_json(line, file_name, f"line {i} of '{file_name}'")
        if not isinstance(obj, dict) or "prediction" not in obj:
            raise InputError(f"line {i} of '{file_name}' has no 'prediction' (MetricX JSONL)")
        system = str(obj.get("system", default))
        values = by_system.setdefault(system, [])
        values.append(_number(obj["prediction"], file_name, system, len(values) + 1))
    if len(by_system) == 1 and default not in corpus.systems and len(corpus.systems) == 1:
        by_system = {corpus.system_names[0]: next(iter(by_system.values()))}
    return _finish("metricx", False, by_system, file_name, corpus)


def _comet_text(lines: list[str], file_name: str, corpus: Corpus) -> ImportedScores:
    by_system: dict[str, list[float]] = {}
    pat = re.compile(r"^(.*)\tSegment (\d+)\tscore: (\S+)$")
    for k, line in enumerate(lines, start=1):
        m = pat.match(line)
        if not m:
            if re.match(r"^.*\tscore: \S+$", line) or not line.strip():
                continue  # the system-level line
            raise InputError(f"line {k} of '{file_name}' is not 'PATH<TAB>Segment i<TAB>score: x'")
        system = stem(m.group(1).replace("\\", "/"))
        values = by_system.setdefault(system, [])
        if int(m.group(2)) != len(values):
            raise InputError(f"line {k} of '{file_name}': segment {m.group(2)} of '{system}' is out of order")
        values.append(_number(m.group(3), file_name, system, len(values) + 1))
    return _finish("comet", True, by_system, file_name, corpus)


def _mme_seg(lines: list[str], file_name: str, corpus: Corpus) -> ImportedScores:
    base = Path(file_name).name[: -len(".seg.score")]
    name = metric_name(base.rsplit("-", 1)[0] if "-" in base else base)
    by_system: dict[str, list[float]] = {}
    for k, line in enumerate(lines, start=1):
        fields = line.split()
        if len(fields) != 2:
            raise InputError(f"line {k} of '{file_name}' is not 'SYSTEM SCORE'")
        values = by_system.setdefault(fields[0], [])
        values.append(_number(None if fields[1] == "None" else fields[1], file_name, fields[0], len(values) + 1))
    higher = _higher(name)
    return _finish(name, higher, by_system, file_name, corpus)


def _tsv(lines: list[str], file_name: str, corpus: Corpus) -> list[ImportedScores]:
    header = [h.strip() for h in lines[0].split("\t")]
    low = [h.lower() for h in header]
    if "system" not in low or "line" not in low:
        raise InputError(f"the header of '{file_name}' needs 'system' and 'line' columns")
    si, li = low.index("system"), low.index("line")
    cols = [i for i in range(len(header)) if i not in (si, li)]
    if not cols:
        raise InputError(f"'{file_name}' has no metric column")
    values: dict[int, dict[str, dict[int, float]]] = {c: {} for c in cols}
    for k, row in enumerate(lines[1:], start=2):
        if not row.strip():
            continue
        f = row.split("\t")
        if len(f) != len(header):
            raise InputError(f"line {k} of '{file_name}' has {len(f)} fields, the header has {len(header)}")
        try:
            line = int(f[li])
        except ValueError:
            raise InputError(f"line {k} of '{file_name}': '{f[li]}' is not a line number") from None
        if not 1 <= line <= corpus.n_lines:
            raise InputError(f"line {k} of '{file_name}' refers to line {line}; the test set has {corpus.n_lines}")
        for c in cols:
            seen = values[c].setdefault(f[si], {})
            if line in seen:
                raise InputError(
                    f"line {k} of '{file_name}' scores system '{f[si]}' line {line} a second time; "
                    "every (system, line) must appear once"
                )
            seen[line] = _number(f[c], file_name, f[si], line)
    out = []
    for c in cols:
        by_system = {}
        for s, d in values[c].items():
            if len(d) != corpus.n_lines:
                missing = sorted(set(range(1, corpus.n_lines + 1)) - set(d))[:5]
                raise InputError(
                    f"'{file_name}': system '{s}' has no {header[c]} score for line(s) {', '.join(map(str, missing))}"
                )
            by_system[s] = [d[i] for i in range(1, corpus.n_lines + 1)]
        name = metric_name(header[c])
        out.append(_finish(name, _higher(name), by_system, file_name, corpus))
    return out


def read_score_files(files: Sequence[tuple[str, bytes]], corpus: Corpus) -> list[ImportedScores]:
    """All metrics of several files; two metrics with one name are refused."""
    out: list[ImportedScores] = []
    for name, data in files:
        for s in read_scores(data, name, corpus):
            if any(o.name == s.name for o in out):
                raise InputError(f"two score files give a metric named '{s.name}'; rename one file")
            out.append(s)
    return out
