"""A set's metrics and their results, as the command line and the pages ask for them.

What a face needs to know about metrics (their names, facts and decimals, the cache key of their
options), scoring a set (statistics stored with a saved set are reused), the result of imported
scores, and the preparation of the workers and compiled kernels before the first scoring.
"""

from __future__ import annotations

from ..analysis.pitfalls import neural_names
from ..core.corpus import Corpus
from ..core.errors import InputError
from ..exports.numbers import ABSENT, column_decimals, decimals, direction_note, shown
from ..metrics import (
    REGISTRY,
    make_metric,
    metric_names,
    metrics_using,
    options_key,
    parse_names,
    sentence_metrics,
)
from ..metrics import (
    label as metric_label,
)
from ..runtime import engine, kernels
from ..runtime.scoring import MetricResult, parse_metric_list, result_for, score, score_saved_many, score_set

__all__ = [
    "ABSENT",
    "REGISTRY",
    "MetricResult",
    "build_kernels",
    "column_decimals",
    "decimals",
    "direction_note",
    "make_metric",
    "metric_label",
    "metric_names",
    "metrics_using",
    "named_results",
    "neural_names",
    "options_key",
    "parse_metric_list",
    "parse_names",
    "pitfalls_for",
    "prepare_for",
    "result_for",
    "score",
    "score_saved_many",
    "score_set",
    "sentence_metrics",
    "shown",
    "start_warmup",
    "stop_workers",
]


def start_warmup() -> None:
    """Start compiling the kernels in the background, once per process
    (:func:`mtlens.runtime.kernels.start_warmup`)."""
    kernels.start_warmup()


def build_kernels() -> list[str]:
    """Compile the kernels (TER, tBLEU, the n-gram counts) and build them ahead of time now, as the
    installation's last step, so that no first page waits for a compiler
    (:func:`mtlens.runtime.kernels.build_all`); the modules built."""
    return kernels.build_all()


def stop_workers() -> None:
    """Stop every process this one started to score (its pool's workers, the forkserver, the resource
    tracker): a server calls it when it stops (:func:`mtlens.runtime.engine.stop_helpers`)."""
    engine.stop_helpers()


def prepare_for(corpus: Corpus) -> None:
    """Start the scoring workers, warm, when ``corpus`` (new text, not yet scored) is large enough to use
    them (:func:`mtlens.runtime.engine.start_pool`, weighed by every metric's cost per character)."""
    chars = sum(len(x) for lines in (*corpus.references.values(), *corpus.systems.values()) for x in lines)
    engine.start_pool(chars * sum(m.cost_per_char for m in REGISTRY.values()))


def named_results(store, ev, text: str, options, keep_only=None, say=None) -> dict[str, MetricResult]:
    """The results of the metrics a user names (``"bleu,chrf,comet:NAME"``), for the faces that take a list
    of names (the release gate, a set's history): built-in metrics scored (a saved set's stored statistics
    reused, new ones stored), ``comet:NAME`` from a registered model (only segments its cache lacks are
    scored: :func:`mtlens.service.neural_scoring.model_scores`), and the set's own imported metrics by
    name. An unknown name, or a model the set cannot feed (a QE model without a source), is one InputError."""
    from .evaluation import file_metrics
    from .neural_scoring import PREFIX, model_scores

    imported = {m.name: m for m in file_metrics(store, ev)}
    names = parse_names(text, [*REGISTRY, *imported], also=lambda n: n.startswith(PREFIX))
    builtin = [n for n in names if n in REGISTRY]
    if builtin and not ev.corpus.references:
        raise InputError(f"{', '.join(builtin)} need a reference, and this set has none")
    if ev.set_id is None:
        got = score(ev.corpus, builtin, options) if builtin else {}
    else:
        got = dict(
            zip(builtin, score_saved_many(store, ev.set_id, ev.corpus, builtin, options, keep_only), strict=True)
        )
    out = {}
    for n in names:
        if n in got:
            out[n] = got[n]
        elif n in imported:
            out[n] = result_for(ev.corpus, imported[n])
        else:
            out[n] = result_for(ev.corpus, model_scores(store, ev.corpus, n, ev.set_id, say))
    return out


def pitfalls_for(corpus: Corpus, names):
    """The COMET pitfalls of the corpus's systems (:mod:`mtlens.analysis.pitfalls`) when a neural metric is
    among ``names``, else None."""
    if not neural_names(names):
        return None
    from ..analysis import pitfalls
    from ..core.language import parse_pair

    pair = parse_pair(corpus.language_pair) if corpus.language_pair else (None, None)
    pair = tuple(None if x == "und" else x for x in pair)  # und-TGT: only the target's script was seen
    return pitfalls.find(corpus.systems, corpus.source, list(corpus.references.values()), pair)
