"""A set's metrics and their results, as the command line and the pages ask for them.

What a face needs to know about metrics (their names, facts and decimals, the cache key of their
options), scoring a set (statistics stored with a saved set are reused), the result of imported
scores, and the preparation of the workers and compiled kernels before the first scoring.
"""

from __future__ import annotations

import functools

from ..analysis.pitfalls import neural_names
from ..core.corpus import Corpus
from ..core.errors import InputError
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
from ..runtime.scoring import parse_metric_list, result_for, score, score_saved_many, score_set
from ..scores.results import MetricResult
from ..scores.sources import ALL_CHECKS, CHECK_PREFIX, JUDGE_KIND, SLIDE, source_of

__all__ = [
    "REGISTRY",
    "MetricResult",
    "build_kernels",
    "chosen_metrics",
    "corpus_pitfalls",
    "glossary_scores",
    "make_metric",
    "metric_label",
    "metric_names",
    "metrics_using",
    "named_results",
    "offered_check_names",
    "offered_checks",
    "options_key",
    "pitfalls_for",
    "prepare_for",
    "result_for",
    "score_set",
    "scored",
    "sentence_metrics",
    "start_warmup",
    "stop_workers",
    "term_rows",
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
    tracker, the kernels' warm-up and its builders): a server calls it when it stops
    (:func:`mtlens.runtime.engine.stop_helpers`, :func:`mtlens.runtime.kernels.stop_warmup`)."""
    engine.stop_helpers()
    kernels.stop_warmup()


def prepare_for(corpus: Corpus) -> None:
    """Start the scoring workers, warm, when ``corpus`` (new text, not yet scored) is large enough to use
    them (:func:`mtlens.runtime.engine.start_pool`, weighed by every metric's cost per character)."""
    chars = sum(len(x) for lines in (*corpus.references.values(), *corpus.systems.values()) for x in lines)
    engine.start_pool(chars * sum(m.cost_per_char for m in REGISTRY.values()))


def _opened(store):
    """The workspace, given as a Store or as a callable that opens it (a face that has none open yet)."""
    return store() if callable(store) else store


def chosen_metrics(
    store, ev, text: str | None, defaults: str, extra_scores=(), mqm_weights=None, say=None, visitor=None
):
    """The metrics a user asks for, as both faces parse them (one rule): ``(names in order, built-in names,
    imported metrics by name)``.

    ``text`` (``--metrics``, ``"bleu,chrf,comet:NAME"``): those names, in that order; built-in ones, the set's
    own imported ones, and ``comet:NAME`` from a registered model (only segments its cache lacks are scored:
    :func:`mtlens.service.neural_scoring.model_scores`; ``say`` takes progress sentences). ``None``: the
    ``defaults`` (when the set has a reference) and every metric the set offers from files (its score files,
    ``extra_scores``, its annotations' MQM with ``mqm_weights``, its finished neural jobs). An unknown name
    is one InputError naming the known ones. ``store``: the workspace, or a callable that opens it (only
    a saved set or a neural metric needs it). ``visitor``: who asks (None: the operator); a visitor who may not start
    a judge's or a model's job gets only what is computed already, never a request or a model run (issue 58, G4)."""
    from .evaluation import file_metrics, finished_neural
    from .neural_scoring import model_scores

    def workspace():
        return _opened(store)

    neural = finished_neural(workspace(), ev) if ev.set_id else ()
    offered = file_metrics(workspace() if ev.set_id else None, ev, neural, extra_scores, mqm_weights)
    imported = {m.name: m for m in offered}
    if text is None:
        builtin = parse_metric_list(defaults) if ev.corpus.references else []
        return [*builtin, *imported], builtin, imported
    if not text.strip(" ,"):
        return [], [], {}
    names = parse_names(text, [*REGISTRY, *imported], also=lambda n: source_of(n).runs in ("job", "checks"))
    names = _runnable(ev, names, say)
    if visitor is not None:
        _may_compute(workspace(), ev, [n for n in names if n not in REGISTRY and n not in imported], visitor)
    imported.update(_checks_together(ev, [n for n in names if n not in REGISTRY and n not in imported]))
    for n in names:
        if n not in REGISTRY and n not in imported and source_of(n).runs == "checks":  # a glossary's terms
            imported[n] = glossary_scores(ev, n)
        elif n not in REGISTRY and n not in imported and source_of(n).kind == JUDGE_KIND:  # a registered LLM judge
            from .judging import judge_metric  # the judges' HTTP client only when a judge is asked (start-up)

            imported[n] = judge_metric(workspace(), ev.corpus, n, say, ev.set_id)
        elif n not in REGISTRY and n not in imported and source_of(n).kind == SLIDE:  # documents (issue 49)
            from ..neural.slide import slide_scores

            if say:
                say(f"{n}: scoring the documents' windows")
            imported[n] = slide_scores(workspace(), ev.corpus, n)
        elif n not in REGISTRY and n not in imported:  # comet:NAME: a registered model's scores
            imported[n] = model_scores(workspace(), ev.corpus, n, ev.set_id, say)
    return names, [n for n in names if n in REGISTRY], {n: imported[n] for n in names if n in imported}


def _runnable(ev, names: list[str], say) -> list[str]:
    """``checks`` replaced by every check the set can run; those it cannot (no source, no target language) are
    said (``say``), never left out silently; a check named on its own that cannot run is the caller's error."""
    from ..runtime.checking import runnable_checks

    out: list[str] = []
    for n in names:
        if n != ALL_CHECKS:
            out += [n] if n not in out else []
            continue
        ok, left = runnable_checks(ev.corpus, ev.language.target)
        for need, left_out in left.items():  # one sentence per missing need, naming the checks it leaves out
            if say:
                say(f"{', '.join(left_out)} {'needs' if len(left_out) == 1 else 'need'} {need}; left out of 'checks'")
        out += [m for m in ok if m not in out]
    return out


def _checks_together(ev, names: list[str]) -> dict:
    """The checks among ``names``, worked out together (:func:`mtlens.runtime.checking.check_scores_many`)."""
    from ..runtime.checking import check_scores_many

    wanted = [n for n in names if n.startswith(CHECK_PREFIX)]
    return check_scores_many(ev.corpus, wanted, ev.language.target) if wanted else {}


def glossary_scores(ev, name: str):
    """``term`` or ``term-consistency`` of the set (:func:`mtlens.runtime.checking.term_scores`), with the set's
    glossary (``--terms`` or the one saved with it)."""
    from ..runtime.checking import term_scores

    return term_scores(ev.corpus, glossary_of(ev), name)


def offered_check_names(ev) -> list[str]:
    """The names of the checks :func:`offered_checks` computes, in its order, none computed (a page's list of metrics
    needs only the names); the glossary's terms are not among them (whether they are offered depends on their
    scores)."""
    from ..runtime.checking import runnable_checks

    return runnable_checks(ev.corpus, ev.language.target)[0] if ev.corpus.source is not None else []


def offered_checks(ev) -> list:
    """What a page offers of the checks (issue 60): every check the set can run, and the terms when it has a
    glossary, as :class:`~mtlens.scores.results.ImportedScores` (none without a source)."""
    if ev.corpus.source is None:
        return []
    out = list(_checks_together(ev, offered_check_names(ev)).values())
    for n in ["term", "term-consistency"] if ev.terms else []:
        try:
            out.append(glossary_scores(ev, n))
        except InputError:  # a glossary no line of the set uses, consistency undecided: not offered
            continue
    return out


def term_rows(ev) -> list[dict]:
    """The per-term table of the set's glossary (:func:`mtlens.runtime.checking.term_table`): each counted term,
    its target, how often it counts and how often each system missed it, the most missed first."""
    from ..runtime.checking import term_table

    return term_table(ev.corpus, glossary_of(ev))


def glossary_of(ev):
    """The set's glossary, read (:func:`mtlens.readers.glossary.read_glossary`); one sentence without one."""
    if not ev.terms:
        raise InputError(
            "the terms need a glossary: give --terms FILE (TSV or WMT25's JSONL), or save one with the set"
        )
    name, data, key = ev.terms[0]
    return _read_glossary(bytes(data), name, ev.corpus.n_lines, key)


@functools.lru_cache(maxsize=1)
def _read_glossary(data: bytes, name: str, n_lines: int, key: str):
    """The last glossary read, kept (a million terms take seconds to read; the terms, their consistency and the
    per-term table of one command read it once)."""
    from ..readers.glossary import read_glossary

    return read_glossary(data, name, n_lines, key)


def _may_compute(store, ev, pending: list[str], visitor) -> None:
    """One sentence when ``visitor`` names a judge or a model whose scores of the set are not all computed and may not
    start its job (an LLM judge spends the operator's money; a model, the server's time): the judges' and the neural
    jobs' rights, decided here for every path that names metrics (the gate, a history, a campaign)."""
    from .rights import may_run_jobs, may_start

    for n in pending:
        judge = source_of(n).kind == JUDGE_KIND
        allowed = may_start(store, ev.set_id, visitor) if judge else may_run_jobs(store, ev.set_id, visitor)
        if not allowed:
            raise InputError(f"{n} has not scored this set yet, and only who may start its job can have it computed")


def scored(store, ev, names, builtin, imported, options, keep_only=None) -> dict[str, MetricResult]:
    """The results of :func:`chosen_metrics`' metrics, in the order of ``names``: built-in metrics scored (a
    saved set's stored statistics reused and new ones stored, ``keep_only`` as
    :func:`~mtlens.runtime.scoring.score_saved_many` takes it), imported ones read."""
    if ev.set_id is None:
        got = score(ev.corpus, builtin, options) if builtin else {}
    else:
        workspace = _opened(store)
        got = dict(
            zip(builtin, score_saved_many(workspace, ev.set_id, ev.corpus, builtin, options, keep_only), strict=True)
        )
    return {n: got[n] if n in got else result_for(ev.corpus, imported[n]) for n in names}


def named_results(
    store, ev, text: str, options, keep_only=None, say=None, extra_scores=(), visitor=None
) -> dict[str, MetricResult]:
    """The results of the metrics a user names (``"bleu,chrf,comet:NAME"``), for the faces that take a list
    of names (the release gate, a set's history): :func:`chosen_metrics` then :func:`scored`. An unknown
    name, a lexical metric on a set without a reference, or a model the set cannot feed (a QE model without
    a source), is one InputError; ``visitor``: who asks (None: the operator, :func:`chosen_metrics`)."""
    names, builtin, imported = chosen_metrics(store, ev, text, "", extra_scores, say=say, visitor=visitor)
    return scored(store, ev, names, builtin, imported, options, keep_only)


def pitfalls_for(corpus: Corpus, names):
    """The COMET pitfalls of the corpus's systems (:func:`corpus_pitfalls`) when a neural metric is among
    ``names``, else None."""
    return corpus_pitfalls(corpus) if neural_names(names) else None


def corpus_pitfalls(corpus: Corpus):
    """The COMET pitfalls of the corpus's systems (:mod:`mtlens.analysis.pitfalls`), its language pair
    read as the check needs it."""
    from ..analysis import pitfalls
    from ..core.language import known_pair

    pair = known_pair(corpus.language_pair)  # und-TGT: only the target's script was seen
    return pitfalls.find(corpus.systems, corpus.source, list(corpus.references.values()), pair)
