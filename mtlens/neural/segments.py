"""A model's segments and their cache: the inputs each segment gives the model, the keys scores are cached by (the
checkpoint's digest and the digest of the inputs), the groups work is shared in, what is still missing, and
the scores of a corpus read back from the cache."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence

import numpy as np

from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.limits import env_number
from .models import EXACT, FAST, FAST_PREFIX, Model, cache_digest, mode, refs_combine, signature_fields


def _reference(corpus: Corpus) -> tuple[str, ...] | None:
    return next(iter(corpus.references.values())) if corpus.references else None


def check_inputs(model: Model, corpus: Corpus) -> None:
    if model.needs_reference and not corpus.references:
        raise InputError(f"model '{model.name}' ({model.kind}) needs a reference, and this set has none")
    if model.needs_source and corpus.source is None:
        raise InputError(f"model '{model.name}' ({model.kind}) needs the source text, and this set has none")


def reference_corpus(corpus: Corpus) -> Corpus | None:
    """The corpus's references as systems (what a reference-free model scores to tell whether the reference is the
    problem: issue 50); None without a reference or a source."""
    if not corpus.references or corpus.source is None:
        return None
    return Corpus.build(corpus.references, corpus.references, corpus.source, language_pair=corpus.language_pair)


def _segment_key(mt: str, src: str, ref: str) -> str:
    return hashlib.blake2b("\0".join(("mt", mt, "src", src, "ref", ref)).encode("utf-8"), digest_size=16).hexdigest()


def rows_of(model: Model, corpus: Corpus) -> dict[str, list[dict]]:
    """system -> its segments as the model reads them: stripped as comet-score strips them; for MetricX as they are
    (Google's predict.py reads its JSON lines' text unchanged)."""
    check_inputs(model, corpus)
    ref = _reference(corpus) if model.needs_reference else None
    src = corpus.source if model.needs_source else None
    clean = model.checkpoint.clean
    out = {}
    for system, hyp in corpus.systems.items():
        rows = []
        for i, mt in enumerate(hyp):
            row = {"mt": clean(mt)}
            if src is not None:
                row["src"] = clean(src[i])
            if ref is not None:
                row["ref"] = clean(ref[i])
            rows.append(row)
        out[system] = rows
    return out


def _row_key(row: dict) -> str:
    return _segment_key(row["mt"], row.get("src", ""), row.get("ref", ""))


def keys_of(model: Model, corpus: Corpus, how: str | None = None) -> dict[str, tuple[list[str], list[dict]]]:
    """system -> (the cache key of each of its segments, its rows), for the scoring mode ``how``.

    - ``exact``: comet-score's batches, so a key is (group, line): see :func:`groups`;
    - ``fast``: a segment's score is that of its inputs (source, translation, reference) whatever else is
      scored with it (to one half-precision step, docs/decisions.md), so the key is the inputs' digest:
      identical inputs in two systems, two sets or two runs are one key, scored once."""
    how = how or mode()
    if how == EXACT:
        return {s: (_line_keys(g, len(rows)), rows) for s, (g, rows) in groups(model, corpus).items()}
    return {s: ([FAST_PREFIX + _row_key(r) for r in rows], rows) for s, rows in rows_of(model, corpus).items()}


def groups(model: Model, corpus: Corpus, size: int | None = None) -> dict[str, tuple[str, list[dict]]]:
    """system -> (group key, its segments as the model reads them, stripped as comet-score strips them).

    The group key is the digest of the batch size and every segment of the system in order: comet-score
    scores a system's segments in batches that depend on all of them (sorted by source length), and in half
    precision a segment's score depends on its batch; so a score is cached under (checkpoint digest, group
    key, line), which is exactly what determines it."""
    size = size or batch_size()
    out = {}
    for system, rows in rows_of(model, corpus).items():
        h = hashlib.blake2b(f"batch={size}\n".encode(), digest_size=16)
        for r in rows:
            h.update(_row_key(r).encode())
        out[system] = (h.hexdigest(), rows)
    return out


def _line_keys(group: str, n: int) -> list[str]:
    return [f"{group}:{i}" for i in range(n)]


def views(model: Model, corpus: Corpus) -> list[Corpus]:
    """The corpora a model scores: the corpus itself, or, for a reference-based model and several references, one
    corpus per reference (each reference scored apart, then combined per segment: :func:`cached_scores`)."""
    if not model.needs_reference or len(corpus.references) < 2:
        return [corpus]
    return [
        Corpus.build({name: lines}, corpus.systems, corpus.source, language_pair=corpus.language_pair)
        for name, lines in corpus.references.items()
    ]


def missing(store, model: Model, corpus: Corpus, how: str | None = None) -> list[dict]:
    """The work left for this checkpoint on the corpus (every reference of a reference-based model: :func:`views`)
    in the mode ``how``, as :func:`_missing_one` gives it for one reference; work shared by references (a source-only
    row, a group) is given once."""
    how = how or mode()
    parts = [_missing_one(store, model, v, how) for v in views(model, corpus)]
    if len(parts) == 1:
        return parts[0]
    if how == EXACT:
        seen: dict[str, dict] = {}
        for item in (x for p in parts for x in p):
            seen.setdefault(item["group"], item)
        return list(seen.values())
    rows: dict[str, dict] = {}
    for item in (x for p in parts for x in p):
        for k, r in zip(item["keys"], item["rows"], strict=True):
            rows.setdefault(k, r)
    return [{"rows": list(rows.values()), "keys": list(rows)}] if rows else []


def _missing_one(store, model: Model, corpus: Corpus, how: str | None = None) -> list[dict]:
    """The work left for this checkpoint on the corpus, in the mode ``how``:

    - ``exact``: the systems with segments never scored, ``{"group", "rows", "todo"}`` each (``todo``: the
      line indices to score), one per distinct group;
    - ``fast``: one item ``{"rows", "keys"}``, the distinct inputs never scored across every system, in
      line order (a line's source and reference serve all its translations)."""
    how = how or mode()
    if how == EXACT:
        grouped = groups(model, corpus)
        have = store.get_neural(
            cache_digest(model), [k for g, rows in grouped.values() for k in _line_keys(g, len(rows))]
        )
        out: dict[str, dict] = {}
        for g, rows in grouped.values():
            todo = [i for i, k in enumerate(_line_keys(g, len(rows))) if k not in have]
            if todo and g not in out:
                out[g] = {"group": g, "rows": rows, "todo": todo}
        return list(out.values())
    keyed = keys_of(model, corpus, FAST)
    have = store.get_neural(cache_digest(model), [k for ks, _ in keyed.values() for k in ks])
    seen: dict[str, dict] = {}
    for i in range(corpus.n_lines):
        for ks, rows in keyed.values():
            if ks[i] not in have and ks[i] not in seen:
                seen[ks[i]] = rows[i]
    return [{"rows": list(seen.values()), "keys": list(seen)}] if seen else []


def segments_cached(store, model: Model, corpus: Corpus, how: str | None = None) -> int:
    """How many of the corpus's segments (lines x systems) have a cached score (in the mode ``how``; with several
    references, against every one)."""
    done = None
    for v in views(model, corpus):
        keyed = keys_of(model, v, how or mode())
        keys = [k for ks, _ in keyed.values() for k in ks]
        have = store.get_neural(cache_digest(model), keys)
        got = np.array([k in have for k in keys], dtype=bool)
        done = got if done is None else done & got
    return int(done.sum()) if done is not None else 0


def work_size(items: Sequence[dict]) -> int:
    """How many scores :func:`missing`'s work items ask for (exact: each system's lines; fast: distinct
    inputs)."""
    return sum(len(g["todo"]) if "todo" in g else len(g["rows"]) for g in items)


def cached_scores(store, model: Model, corpus: Corpus, how: str | None = None):
    """The model's scores for the corpus as a metric (an :class:`~mtlens.scores.results.ImportedScores`), or
    None while any segment is unscored (in the mode ``how``). With several references (a reference-based model),
    each segment's score is the mean of its scores against each reference (the COMET maintainers' advice; the
    maximum with ``MTLENS_NEURAL_REFS=max``), xCOMET's spans those against the first reference, and the signature
    says so (``refs:3|combine:mean``)."""
    import dataclasses

    parts = [_cached_one(store, model, v, how) for v in views(model, corpus)]
    if any(p is None for p in parts):
        return None
    if len(parts) == 1:
        return parts[0]
    how_refs = refs_combine()
    pick = np.mean if how_refs == "mean" else np.max
    scores = {s: pick(np.stack([p.scores[s] for p in parts]), axis=0) for s in corpus.systems}
    model_fields = (*parts[0].model, ("refs", str(len(parts))), ("combine", how_refs))
    return dataclasses.replace(parts[0], scores=scores, model=model_fields)


def _cached_one(store, model: Model, corpus: Corpus, how: str | None = None):
    from ..readers.model_spans import SpanTally
    from ..scores.results import ImportedScores

    how = how or mode()
    keyed = keys_of(model, corpus, how)
    have = store.get_neural(cache_digest(model), [k for ks, _ in keyed.values() for k in ks])
    scores, spans = {}, {}
    tally = SpanTally()
    for system, (ks, _) in keyed.items():
        if any(k not in have for k in ks):
            return None
        scores[system] = np.array([have[k][0] for k in ks], dtype=np.float64)
        if model.kind == "xcomet":  # offsets into the stripped line (what the model read): the import's rule
            spans[system] = [
                tally.place(json.loads(have[k][1] or "[]"), h.strip(), h, f"'{system}' line {i}")
                for i, (h, k) in enumerate(zip(corpus.systems[system], ks, strict=True), start=1)
            ]
    return ImportedScores(
        model.metric,
        model.higher_is_better,
        scores,
        f"{model.name} ({model.kind}, checkpoint {model.digest[:12]}, {how})",
        spans if any(any(x) for x in spans.values()) else {},
        tuple(tally.notes(model.metric)),
        signature_fields(model, how),
    )


def spans_json(spans) -> str | None:
    """xCOMET's spans of one segment as the model gave them (offsets into the stripped line), stored as they
    are: :func:`mtlens.readers.model_spans.place_span` places them when they are read, as for an imported file."""
    if spans is None:
        return None
    out = []
    for s in spans or []:
        try:
            out.append(
                {
                    "start": int(s["start"]),
                    "end": int(s["end"]),
                    "text": str(s.get("text", "")),
                    "severity": str(s.get("severity", "")),
                    "confidence": float(s.get("confidence", 0.0)),
                }
            )
        except (KeyError, TypeError, ValueError, OverflowError):
            continue
    return json.dumps(out, ensure_ascii=False)


def batch_size(how: str = EXACT) -> int:
    """Sentences per batch: ``MTLENS_NEURAL_BATCH``; unset, comet-score's 16 in exact mode and 0 (the
    worker chooses from the device) in fast mode."""
    if how == FAST and not os.environ.get("MTLENS_NEURAL_BATCH", "").strip():
        return 0
    return int(env_number("MTLENS_NEURAL_BATCH", 16))
