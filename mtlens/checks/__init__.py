"""Translation checks (issue 60): what blocks a release whatever the score. Each check is a source of scores of its
own (``check:NAME`` in ``--metrics``; ``checks`` names them all): one failure (1) or pass (0) per line with the
failure's spans and MQM category, and a system score that is the percent of its lines failing (lower is better).
The rules and their cases: docs/checks.md. Glossaries (``term``, ``term-consistency``): :mod:`.terms`.

Which checks need what: every check but ``empty`` needs the source; ``language`` needs the target language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..scores.sources import CHECK_PREFIX
from ..scores.spans import Span
from . import kept, lines


@dataclass(frozen=True)
class Check:
    """One check: its name (after ``check:``), what it needs, and what it tells."""

    name: str
    needs_source: bool
    needs_language: bool
    says: str


CHECKS = {
    c.name: c
    for c in (
        Check("numbers", True, False, "a number of the source is missing from the output"),
        Check("placeholders", True, False, "the output's placeholders are not the source's"),
        Check("markup", True, False, "the source's tags or entities are lost, added or out of order"),
        Check("urls", True, False, "a URL or e-mail address of the source is not kept verbatim"),
        Check("untranslated", True, False, "the output is the source left untranslated"),
        Check("language", False, True, "the output is in another language than the target"),
        Check("empty", False, False, "the output is empty"),
        Check("repetition", True, False, "the output loops on a phrase"),
        Check("length", True, False, "the output is far longer or shorter than the pair's lines usually are"),
    )
}


def check_names() -> list[str]:
    """Every check's metric name, in the documented order (``check:numbers``...)."""
    return [CHECK_PREFIX + n for n in CHECKS]


def check_of(name: str) -> Check | None:
    """The check a metric name names (``check:numbers``), else None."""
    return CHECKS.get(name[len(CHECK_PREFIX) :]) if name.startswith(CHECK_PREFIX) else None


def need_of(check: Check, has_source: bool, target: str | None) -> str:
    """What ``check`` needs and a set lacks, as a sentence says it after "needs" (empty: it can run)."""
    if check.needs_source and not has_source:
        return "the source: give the set's source (--src)"
    if check.needs_language and not target:
        return "the target language: declare the pair (-l SRC-TGT)"
    return ""


def missing_need(check: Check, has_source: bool, target: str | None) -> str:
    """Why ``check`` cannot run on a set (empty: it can)."""
    need = need_of(check, has_source, target)
    return f"check:{check.name} needs {need}" if need else ""


def failing(
    check: Check,
    source: Sequence[str] | None,
    systems: Mapping[str, Sequence[str]],
    target: str | None = None,
    usual: float | None = None,
) -> dict[str, list[bool]]:
    """Whether each line fails, per system (what a worker process sends back; the failing lines' spans:
    :func:`spans_at`). What a check reads of a source line is found once, for every system that looks at it.
    ``usual``: the length check's usual ratio, when the systems are some of the set's."""
    if check.name in _PREPARED:  # what the check reads of a source line, found once for the systems that look
        prepare, test = _PREPARED[check.name]
        looked = {name: _looked_at(check, source, outputs) for name, outputs in systems.items()}
        wanted = [any(seen) for seen in zip(*looked.values(), strict=True)]
        preps = [prepare(s) if w else None for s, w in zip(source, wanted, strict=True)]
        return {
            name: [
                bool(seen and test(s, o, p)) for s, o, p, seen in zip(source, outputs, preps, looked[name], strict=True)
            ]
            for name, outputs in systems.items()
        }
    per_line = _per_line(check, source, systems, target, usual=usual)
    out = {}
    for name, outputs in systems.items():
        looked = _looked_at(check, source, outputs)
        out[name] = [
            bool(looked[k] and per_line(source[k] if source is not None else None, o, k)) for k, o in enumerate(outputs)
        ]
    return out


def _looked_at(check: Check, source, outputs) -> Sequence[bool]:
    """Which outputs a check must look at: all, or for the costly two the lines their cheap condition keeps, found
    for every line at once (:mod:`.candidates`)."""
    if check.name == "repetition":
        from .candidates import may_loop

        return may_loop(outputs).tolist()
    if check.name == "untranslated":
        from .candidates import may_be_copies

        return may_be_copies(source, outputs).tolist()
    return [True] * len(outputs)


def spans_at(
    check: Check,
    source: Sequence[str] | None,
    systems: Mapping[str, Sequence[str]],
    lines: Mapping[str, Sequence[int]],
    target: str | None = None,
    usual: float | None = None,
) -> dict[str, dict[int, list[Span]]]:
    """The spans of the given lines of each system (the failing ones :func:`failing` found)."""
    per_line = _per_line(check, source, systems, target, bulk=False, usual=usual)
    return {
        name: {k: per_line(source[k] if source is not None else None, systems[name][k], k) for k in ks}
        for name, ks in lines.items()
    }


def failing_arrays(check: Check, source, systems: Mapping[str, Sequence[str]], target=None, usual=None) -> list:
    """:func:`failing` as arrays, one per system in the order of ``systems``: 1 for a line that fails, 0 for one that
    passes (what a check's task sends back)."""
    import numpy as np

    got = failing(check, source, systems, target, usual)
    return [np.asarray(got[s], dtype=np.uint8) for s in systems]


def failing_described(task: dict) -> list:
    """A check's task as :func:`mtlens.runtime.checking.check_scores_many` describes it for a pool worker (the check's
    name, the source, some systems' lines, the target language and the usual length ratio), computed here."""
    check = check_of(task["check"])
    if check is None:
        raise ValueError(f"{task['check']!r} is not a check")
    return failing_arrays(check, task["source"], task["systems"], task["target"], task["usual"])


def usual_ratio(source: Sequence[str] | None, systems: Mapping[str, Sequence[str]]) -> float | None:
    """The set's usual length ratio (:func:`.lines.median_ratio`), over every system."""
    return lines.median_ratio(source, systems.values()) if source is not None else None


#: per check: what it reads of a source line (found once per line, shared by the systems) and the check itself
_PREPARED: dict[str, tuple[Callable, Callable]] = {
    "numbers": (kept.numbers, kept.check_numbers),
    "placeholders": (kept.placeholders, kept.check_placeholders),
    "markup": (kept.tags, kept.check_markup),
    "urls": (kept.urls, kept.check_urls),
    "untranslated": (lines.source_words, lines.check_untranslated),
}


def _per_line(
    check: Check, source, systems, target, bulk: bool = True, usual: float | None = None
) -> Callable[[str | None, str, int], list[Span]]:
    """The check as one function of (source line, output line, line index), with what it shares across lines;
    ``bulk``: every output's language identified at once (else each when asked); ``usual``: the length ratio."""
    name = check.name
    if name in _PREPARED:
        prepare, test = _PREPARED[name]
        found: dict[int, object] = {}

        def prepared(s, o, k):
            if k not in found:
                found[k] = prepare(s)
            return test(s, o, found[k])

        return prepared
    if name == "length":
        ratio = usual if usual is not None else lines.median_ratio(source, systems.values())
        return lambda s, o, k: lines.check_length(s, o, ratio)
    if name == "language":  # every output identified in one compiled pass
        from .language import identify_many

        cache = identify_many(o for outputs in systems.values() for o in outputs) if bulk else {}
        return lambda s, o, k: lines.check_language(o, str(target), cache)
    if name == "repetition":
        return lambda s, o, k: lines.check_repetition(s, o)
    return lambda s, o, k: lines.check_empty(s, o)
