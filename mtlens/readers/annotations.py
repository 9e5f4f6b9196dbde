"""An MQM annotation file by its kind (:func:`read_annotations`): Google's MQM TSV (:mod:`.mqm`, the hypotheses in
the file) or mt-metrics-eval's ``.seg.rating`` (read here: it annotates a set's own lines)."""

from __future__ import annotations

from ..core.errors import InputError
from ..scores.spans import Span
from .lines import decode_lines
from .mqm import MAX_ROWS, SEVERITIES, Annotations, MQMSegment, Problems, read_mqm_tsv


def read_mtme_ratings(data: bytes, name: str, corpus) -> Annotations:
    """mt-metrics-eval's ratings (``human-scores/<pair>.<name>.seg.rating``): one line per system and
    segment in segment order, ``SYSTEM<TAB>{"errors": [{"start", "end", "category", "severity", "score",
    "is_source_error"}]}[<TAB>RATER]``, or ``SYSTEM<TAB>None`` for an unrated segment. The hypotheses are
    not in the file: it annotates a set's own lines (offsets into its hypotheses; a source error keeps no
    span on the hypothesis)."""
    from ..core.limits import load_json

    lines = decode_lines(data, name)
    if len(lines) > MAX_ROWS:
        raise InputError(f"'{name}' has {len(lines):,} rows; mtlens reads annotation files of up to {MAX_ROWS:,}")
    seen: dict[str, int] = {}
    segments: dict[tuple[str, str], MQMSegment] = {}
    problems = Problems()
    for k, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        f = line.split("\t")
        if len(f) not in (2, 3):
            raise InputError(f"line {k} of '{name}' has {len(f)} fields; a .seg.rating line is SYSTEM, RATING[, RATER]")
        system, rating = f[0].strip(), f[1].strip()
        rater = f[2].strip() if len(f) == 3 else "rater"
        i = seen.get(system, 0)
        seen[system] = i + 1
        if system not in corpus.systems:
            raise InputError(f"line {k} of '{name}' rates system '{system}', which the set does not have")
        if i >= corpus.n_lines:
            raise InputError(f"'{name}' rates more than {corpus.n_lines} segments of system '{system}'")
        if rating == "None":
            continue
        doc = load_json(rating, name, f"line {k} of '{name}'")
        errors = doc.get("errors") if isinstance(doc, dict) else None
        if not isinstance(errors, list):
            raise InputError(f"line {k} of '{name}': the rating is not an object with a list of errors")
        hyp = corpus.systems[system][i]
        out = []
        for e in errors:
            if not isinstance(e, dict):
                raise InputError(f"line {k} of '{name}': an error is not an object")
            start, end = e.get("start"), e.get("end")
            severity, category = str(e.get("severity") or ""), str(e.get("category") or "")
            if severity.lower() not in SEVERITIES:
                problems.append(f"line {k}: unknown severity '{severity}' (counted with weight 0)")
            placed = (
                not e.get("is_source_error")
                and type(start) is int
                and type(end) is int
                and 0 <= start <= end <= len(hyp)
            )
            if not placed and not e.get("is_source_error") and (start, end) != (None, None):
                problems.append(f"line {k}: a span {start}-{end} outside the hypothesis; kept without a span")
            out.append(Span(start if placed else None, end if placed else None, severity, category, by=rater, row=k))
        key = (system, str(i + 1))
        old = segments.get(key)
        raters = (*(old.raters if old else ()), rater)
        segments[key] = MQMSegment(system, str(i + 1), "", "", hyp, raters, (*(old.errors if old else ()), *out))
    short = [s for s in seen if seen[s] != corpus.n_lines]
    if short:
        raise InputError(
            f"'{name}' rates {seen[short[0]]} segments of system '{short[0]}'; the set has {corpus.n_lines}"
        )
    seg_ids = tuple(str(i + 1) for i in range(corpus.n_lines))
    systems = tuple(s for s in corpus.system_names if s in seen)
    if not systems:
        raise InputError(f"'{name}' holds no rating")
    return Annotations(name, segments, seg_ids, systems, problems.kept())


def read_annotations(data: bytes, name: str, corpus=None) -> Annotations:
    """An annotation file by its kind: mt-metrics-eval ``.seg.rating`` (needs the set it annotates), else
    Google's MQM TSV."""
    if name.lower().endswith(".seg.rating"):
        if corpus is None:
            raise InputError(f"'{name}' holds ratings without the text they rate: add it to a set of those systems")
        return read_mtme_ratings(data, name, corpus)
    return read_mqm_tsv(data, name)
