"""The translation checks and a glossary's terms as sources of scores (issue 60): each becomes
:class:`~mtlens.scores.results.ImportedScores` (one score per line, spans, a scale), so that everything built on
scores takes them as it takes a metric: rankings, paired tests and Holm, the gate, sentences, exports, history."""

from __future__ import annotations

import numpy as np

from ..checks import CHECK_PREFIX, CHECKS, check_of, failing_arrays, missing_need, need_of, spans_at, usual_ratio
from ..checks.terms import MATCHES, TERM, TERM_CONSISTENCY, Glossary, consistency, per_term, success
from ..core.corpus import Corpus
from ..core.errors import InputError
from ..scores.results import ImportedScores

__all__ = [
    "RULES_VERSION",
    "check_scores_many",
    "runnable_checks",
    "term_scores",
    "term_table",
]

#: the checks' rules' version, in every check's signature: a change of a rule is a new version
RULES_VERSION = "1"


#: what a check costs per output line, relative to the others (measured: benchmarks/bench_checks.py)
_COST = {"language": 8.0, "repetition": 8.0, "untranslated": 7.0, "numbers": 3.0}


def check_scores_many(corpus: Corpus, names, target: str | None) -> dict[str, ImportedScores]:
    """Several checks' scores for every system of the corpus (1 for a line that fails, 0 for one that passes; the
    system score is the percent of lines failing: ``scale`` 100, lower is better), worked out together: each check over each half of the
    systems is one task of the engine's (:func:`mtlens.runtime.engine.map_tasks`: forked workers share them when
    the work is large enough); a worker sends back which lines fail, and the failing lines' spans are found here."""
    from . import engine

    checks = []
    for name in names:
        check = check_of(name)
        if check is None:
            raise InputError(f"'{name}' is not a check")
        why = missing_need(check, corpus.source is not None, target)
        if why:
            raise InputError(why)
        checks.append(check)
    systems = list(corpus.systems)
    halves = [h for h in (systems[: (len(systems) + 1) // 2], systems[(len(systems) + 1) // 2 :]) if h]
    usual = usual_ratio(corpus.source, corpus.systems)
    tasks = [(c, h) for c in checks for h in halves]
    chars = [sum(sum(map(len, corpus.systems[s])) for s in h) for _, h in tasks]

    def compute(i: int) -> list[np.ndarray]:
        check, half = tasks[i]
        return failing_arrays(check, corpus.source, {s: corpus.systems[s] for s in half}, target, usual)

    def describe(i: int) -> dict:  # what a pool worker needs: the server's own threads are not slowed by the checks
        check, half = tasks[i]
        return {
            "check": CHECK_PREFIX + check.name,
            "source": corpus.source,  # None: the language and empty checks need none
            "systems": {s: corpus.systems[s] for s in half},
            "target": target,
            "usual": usual,
        }

    weights = [n * _COST.get(c.name, 1.0) for (c, _), n in zip(tasks, chars, strict=True)]
    _load_before_fork({c.name for c in checks})
    arrays = engine.map_tasks(compute, weights, describe=describe)
    fails: dict[str, dict[str, np.ndarray]] = {c.name: {} for c in checks}
    for (check, half), got in zip(tasks, arrays, strict=True):
        fails[check.name].update(zip(half, got, strict=True))
    return {CHECK_PREFIX + c.name: _scores(corpus, c, fails[c.name], target, usual) for c in checks}


def _load_before_fork(names: set[str]) -> None:
    """What the checks' workers read, read here once (forked workers inherit it): the code points' tables with the
    compiled loops that read them, and py3langid's model with the compiled loop that reads it (each built ahead of
    time first, as a metric's kernel is)."""
    from . import kernels

    needed = []
    if names & {"repetition", "untranslated"}:
        from ..checks.candidates import tables

        tables()
        needed.append(kernels.LINE_CHECKS)
    if "language" in names:
        from ..checks.langid_batch import prepared

        prepared()
        needed.append(kernels.LANGUAGE_CHECK)
    kernels.prepare(needed)  # both at once: where neither is built yet, they are built side by side


def _scores(corpus: Corpus, check, fails: dict[str, np.ndarray], target, usual) -> ImportedScores:
    lines = {s: np.flatnonzero(f).tolist() for s, f in fails.items()}
    placed = spans_at(check, corpus.source, corpus.systems, lines, target, usual)
    n = corpus.n_lines
    spans: dict[str, list] = {}
    for s in corpus.systems:  # a passing line's spans: one shared empty tuple (read only, like every span list)
        row: list = [()] * n
        for k, found in placed[s].items():
            row[k] = found
        spans[s] = row
    fields: tuple[tuple[str, str], ...] = (("rules", RULES_VERSION),)
    if check.needs_language:
        fields += (("target", str(target)),)
    return ImportedScores(
        name=CHECK_PREFIX + check.name,
        higher_is_better=False,
        scores={s: fails[s].astype(np.float64) for s in corpus.systems},
        source="checks",
        spans=spans,
        model=fields,
        mean="lines failing, percent",
        scale=100.0,
    )


def runnable_checks(corpus: Corpus, target: str | None) -> tuple[list[str], dict[str, list[str]]]:
    """The checks the set can run, and those it cannot by what they need (no source, no target language): what
    ``checks`` leaves out, said, never skipped silently."""
    ok: list[str] = []
    left: dict[str, list[str]] = {}
    for check in CHECKS.values():
        need = need_of(check, corpus.source is not None, target)
        if need:
            left.setdefault(need, []).append(CHECK_PREFIX + check.name)
        else:
            ok.append(CHECK_PREFIX + check.name)
    return ok, left


#: the last glossary's terms found in a source: ``(glossary, source, found)`` (the terms, their consistency and the
#: per-term table of one command find them once)
_LAST: list = []


def _found(corpus: Corpus, glossary: Glossary, match: str):
    if _LAST and _LAST[0][0] is glossary and _LAST[0][1] is corpus.source and match in MATCHES:
        return _LAST[0][2]
    if corpus.source is None:
        raise InputError("the terms need the source: a term counts where its source form occurs in the source line")
    if match not in MATCHES:
        raise InputError(
            f"--terms-match {match} is not offered: {', '.join(MATCHES)} (a lemma match needs a lemmatiser, and "
            "mtlens downloads no model)"
        )
    found = glossary.found(corpus.source)
    _LAST[:] = [(glossary, corpus.source, found)]
    return found


def term_scores(corpus: Corpus, glossary: Glossary, name: str, match: str = "surface") -> ImportedScores:
    """``term`` (the term success rate) or ``term-consistency`` for every system (:mod:`mtlens.checks.terms`): a
    line's score is its rate, weighted by the terms it counts, so the system score is the micro average, in
    percent; lines that count no term have none."""
    found = _found(corpus, glossary, match)
    if not any(found):
        raise InputError(f"no term of glossary '{glossary.name}' occurs in the source")
    scores, weights, spans, notes = {}, {}, {}, []
    for system, outputs in corpus.systems.items():
        got = success(found, outputs)
        if name == TERM:
            num, den = got.hits, got.counted
            spans[system] = got.missed
        else:
            num, den, undecided = consistency(got, corpus.documents)
            if undecided:
                notes.append(
                    f"{system}: {undecided} term(s) never rendered as the glossary writes them in their "
                    f"{'document' if corpus.documents is not None else 'set'} are left out of term-consistency"
                )
        n, d = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            scores[system] = np.where(d > 0, n / np.where(d > 0, d, 1.0), np.nan)
        weights[system] = d
    fields = (("glossary", glossary.name), ("form", glossary.form), ("match", match))
    if glossary.key:
        fields += (("key", glossary.key),)
    if name == TERM_CONSISTENCY:
        fields += (("scope", "documents" if corpus.documents is not None else "set"),)
    if name == TERM_CONSISTENCY and not any(w.sum() for w in weights.values()):
        raise InputError("no term occurs twice in one document with the glossary's form used: consistency is undecided")
    return ImportedScores(
        name=name,
        higher_is_better=True,
        scores=scores,
        source=glossary.name,
        spans=spans,
        notes=tuple(notes),
        model=fields,
        weights=weights,
        mean="terms, percent",
        scale=100.0,
    )


def term_table(corpus: Corpus, glossary: Glossary, match: str = "surface") -> list[dict]:
    """The per-term table (:func:`mtlens.checks.terms.per_term`): which terms each system misses."""
    found = _found(corpus, glossary, match)
    return per_term(found, {s: success(found, out) for s, out in corpus.systems.items()})
