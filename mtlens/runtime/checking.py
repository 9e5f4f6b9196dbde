"""The translation checks and a glossary's terms as sources of scores (issue 60): each becomes
:class:`~mtlens.scores.results.ImportedScores` (one score per line, spans, a scale), so that everything built on
scores takes them as it takes a metric: rankings, paired tests and Holm, the gate, sentences, exports, history."""

from __future__ import annotations

import numpy as np

from ..checks import CHECK_PREFIX, check_names, check_of, missing_need, run
from ..checks.terms import MATCHES, TERM, TERM_CONSISTENCY, Glossary, consistency, per_term, success
from ..core.corpus import Corpus
from ..core.errors import InputError
from ..scores.results import ImportedScores

__all__ = ["RULES_VERSION", "check_names", "check_scores", "runnable_checks", "term_scores", "term_table"]

#: the checks' rules' version, in every check's signature: a change of a rule is a new version
RULES_VERSION = "1"


def check_scores(corpus: Corpus, name: str, target: str | None) -> ImportedScores:
    """One check's scores for every system of the corpus: 1 for a line that fails, 0 for one that passes; the
    system score is the percent of lines failing (``scale`` 100, lower is better)."""
    check = check_of(name)
    if check is None:
        raise InputError(f"'{name}' is not a check")
    why = missing_need(check, corpus.source is not None, target)
    if why:
        raise InputError(why)
    found = run(check, corpus.source, corpus.systems, target)
    fields: tuple[tuple[str, str], ...] = (("rules", RULES_VERSION),)
    if check.needs_language:
        fields += (("target", str(target)),)
    return ImportedScores(
        name=CHECK_PREFIX + check.name,
        higher_is_better=False,
        scores={s: np.array([1.0 if f else 0.0 for f in lines], dtype=np.float64) for s, lines in found.items()},
        source="checks",
        spans={s: lines for s, lines in found.items()},
        model=fields,
        mean="lines failing, percent",
        scale=100.0,
    )


def runnable_checks(corpus: Corpus, target: str | None, names) -> tuple[list[str], list[str]]:
    """Of the checks ``names``, those the set can run and one sentence for each it cannot (no source, no
    language): what ``checks`` and the gate leave out, said, never skipped silently."""
    ok, left = [], []
    for n in names:
        check = check_of(n)
        why = missing_need(check, corpus.source is not None, target) if check is not None else f"'{n}' is not a check"
        (left if why else ok).append(why or n)
    return ok, left


def _found(corpus: Corpus, glossary: Glossary, match: str):
    if corpus.source is None:
        raise InputError("the terms need the source: a term counts where its source form occurs in the source line")
    if match not in MATCHES:
        raise InputError(
            f"--terms-match {match} is not offered: {', '.join(MATCHES)} (a lemma match needs a lemmatiser, and "
            "mtlens downloads no model)"
        )
    return glossary.found(corpus.source)


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
