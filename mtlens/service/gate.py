"""The release gate as the faces call it: a candidate against a baseline, from files or in a saved set
(:mod:`mtlens.analysis.gate` decides; :mod:`mtlens.exports.gate` writes the verdict).

Exit status of the command line: 0 no regression, 1 regression, 2 bad input (nothing is saved by a gate).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from ..analysis.gate import GateResult, check_gate_settings, gate
from ..analysis.policy import ALPHA
from ..core.errors import InputError
from ..core.options import DEFAULTS
from .comparisons import resampled_documents
from .evaluation import Evaluation, evaluate, options_for

__all__ = ["DEFAULT_METRICS", "gate_evaluation", "gate_files", "gate_metrics", "gate_set"]

#: the metrics a gate compares when none are named (sacrebleu's two defaults)
DEFAULT_METRICS = "bleu,chrf"


def gate_evaluation(
    store,
    ev: Evaluation,
    baseline: str,
    candidate: str,
    metrics: str | None = None,
    alpha: float = ALPHA,
    min_agreement: float | None = None,
    options=None,
    visitor=None,
    say=None,
    resample: str = "segments",
    candidate_tuned_on: str | None = None,
    max_cost_increase: float | None = None,
    costs: tuple[float | None, float | None] = (None, None),
    extra_scores=(),
    max_check_failures: str | None = None,
    min_term_success: float | None = None,
) -> GateResult:
    """The gate on an evaluation holding both systems (a saved set's stored statistics are reused).
    ``options``: explicit metric options over the language's defaults; ``resample``: ``segments`` or
    ``documents`` (the evaluation's documents: WMT XML, a documents file, a saved set's).
    ``candidate_tuned_on``: the metrics the candidate was tuned on (with a saved set's run metadata's);
    ``costs``: (baseline, candidate) US$ given with files (a saved set's runs say theirs); ``max_cost_increase``:
    the cost clause, in percent; ``extra_scores``: ``(name, bytes)`` score files of other metrics (``--scores``).
    The translation checks are computed whenever the set has the source, and the term success rate whenever it has a
    glossary (issue 60); ``max_check_failures`` (``placeholders=0,numbers=0.5``) and ``min_term_success`` are their
    limits (:func:`mtlens.analysis.check_gate.parse_limits`)."""
    from ..analysis.check_gate import parse_limits
    from ..analysis.families import tuned_families
    from .evaluation import kept_options
    from .results import named_results
    from .run_facts import run_facts

    check_gate_settings(alpha, min_agreement)
    limits = parse_limits(max_check_failures, min_term_success)
    tuned = tuned_families(candidate_tuned_on)
    for who, name in (("baseline", baseline), ("candidate", candidate)):
        if name not in ev.corpus.systems:
            raise InputError(
                f"the {who} '{name}' is not a system of this set; its systems: {', '.join(ev.corpus.system_names)}"
            )
    if baseline == candidate:
        raise InputError("the candidate and the baseline are the same system; name two")
    opts = options_for(ev.language, DEFAULTS, options)
    keep = kept_options(store, ev.set_id, ev.language, visitor) if ev.set_id else None
    documents = resampled_documents(ev.corpus, resample)
    if ev.set_id:  # the runs' own facts: what the candidate was tuned on, what each cost
        facts = run_facts(store, ev.set_id, ev.corpus)
        tuned |= facts[candidate]["tuned_on"]
        given_baseline, given_candidate = costs
        costs = (
            given_baseline if given_baseline is not None else facts[baseline]["cost"].usd,
            given_candidate if given_candidate is not None else facts[candidate]["cost"].usd,
        )
    names = gate_metrics(ev, metrics, limits)
    results = named_results(store, ev, names, opts, keep, say, extra_scores, visitor=visitor)
    res = gate(results, baseline, candidate, alpha, min_agreement, documents=documents, tuned_on=tuned, costs=costs,
               max_cost_increase=max_cost_increase, limits=limits)  # fmt: skip
    from .references import reference_notes  # is the reference the problem? said with the verdict (issue 50)

    imported = [getattr(r.scorer, "imported", None) for r in results.values()]
    more = reference_notes(store, ev, [m for m in imported if m is not None], results.get("chrf"))
    return dataclasses.replace(res, notes=(*res.notes, *more)) if more else res


def gate_metrics(ev: Evaluation, metrics: str | None, limits) -> str:
    """The gate's metrics: those named (default :data:`DEFAULT_METRICS`), with every check the set can run when it
    has the source (``checks``: what cannot run is said) and ``term`` when it has a glossary or a term limit, unless
    named already; a limit on a check the set cannot run is one sentence."""
    from ..scores.sources import ALL_CHECKS, CHECK_PREFIX

    names = [n.strip().lower() for n in (metrics or DEFAULT_METRICS).split(",") if n.strip()]
    if ev.corpus.source is not None and not any(n == ALL_CHECKS or n.startswith(CHECK_PREFIX) for n in names):
        names.append(ALL_CHECKS)
    elif ev.corpus.source is None and any(n.startswith(CHECK_PREFIX) for n in limits):
        raise InputError("--max-check-failures needs the source: give --src (the checks compare the output with it)")
    if (ev.terms or "term" in limits) and "term" not in names:
        names.append("term")
    return ",".join(names)


def gate_set(store, set_id: str, baseline: str, candidate: str, **kwargs) -> GateResult:
    """The gate between two systems (runs) of a saved set."""
    from .sets import open_set

    return gate_evaluation(store, open_set(store, set_id), baseline, candidate, **kwargs)


def gate_files(
    store,
    references: Sequence[str],
    baseline: str,
    candidate: str,
    source: str | None = None,
    language_pair: str | None = None,
    docs: str | None = None,
    docs_order: str | None = None,
    terms: tuple[str, bytes, str | None] | None = None,
    **kwargs,
) -> GateResult:
    """The gate between two files against the references (nothing is saved). The systems are named by
    their file stems, or ``baseline`` and ``candidate`` when the stems are the same. ``terms``: a glossary
    ``(name, bytes, JSONL key)``."""
    from .inputs import build_corpus, read_files

    if not references:
        raise InputError("give at least one --ref file")
    names = [Path(baseline).stem, Path(candidate).stem]
    if names[0] == names[1]:
        names = ["baseline", "candidate"]
    outputs = read_files([baseline, candidate])
    corpus = build_corpus(
        read_files(references),
        [(f"{n}.txt", data) for n, (_, data) in zip(names, outputs, strict=True)],
        read_files([source])[0] if source is not None else None,
        documents=read_files([docs])[0] if docs is not None else None,
        documents_order=docs_order,
    )
    ev = evaluate(corpus, language_pair)
    if terms is not None:
        from .evaluation import with_glossary

        ev = with_glossary(ev, terms[1], terms[0], terms[2])
    return gate_evaluation(store, dataclasses.replace(ev, set_id=None), names[0], names[1], **kwargs)
