"""Metric options: one frozen dataclass, the single place where an option and its default live.

The command line (:mod:`mtlens.cli`) adds one flag per field from :data:`SPECS`;
the dashboard's sidebar (:mod:`mtlens.ui.widgets`) draws one widget per field
from the same specs; a metric's cache key is the values of the fields it reads
(:func:`mtlens.metrics.options_key`), so an option that does not change a metric
never invalidates its cache, and one that does always does.

Every numeric option is bounded (:data:`SPECS`); a value outside its bounds
raises :class:`~mtlens.core.errors.InputError` naming the command-line flag.

Example:
    >>> o = Options(tokenize="zh")
    >>> o.values(["lowercase", "tokenize"])
    (('tokenize', 'zh'), ('lowercase', False))
    >>> Options(char_order=0)
    Traceback (most recent call last):
    ...
    mtlens.core.errors.InputError: --char-order must be between 1 and 100, not 0
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .tokenizers import TOKENIZERS

#: smoothing method -> its default value (sacrebleu's ``BLEU.SMOOTH_DEFAULTS``)
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}


@dataclass(frozen=True)
class Spec:
    """How one option is offered: flag, help text, its bounds (the metrics it changes declare it:
    :attr:`mtlens.metrics.base.Metric.option_fields`).

    ``kind`` is ``bool``, ``choice``, ``int`` or ``float``; ``low``/``high`` are inclusive
    bounds of numeric options (``low_open`` excludes ``low`` itself).
    """

    help: str
    kind: str
    label: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    step: float | None = None

    def flag(self, name: str) -> str:
        return "--" + name.replace("_", "-")


#: field name -> :class:`Spec`, in the order the sidebar and ``--help`` show them
SPECS: dict[str, Spec] = {
    "tokenize": Spec(
        "word BLEU tokenizer (sacrebleu's): 13a (WMT standard), intl (Unicode punctuation), zh (Chinese), "
        "char, none (spaces only), ja-mecab (Japanese words), ko-mecab (Korean morphemes); also NIST's words",
        "choice",
        "BLEU tokenizer",
        choices=TOKENIZERS,
    ),
    "lowercase": Spec(
        "case-insensitive BLEU, character BLEU, tBLEU and chrF",
        "bool",
        "Lowercase (case-insensitive)",
    ),
    "smooth_method": Spec(
        "BLEU smoothing (sacrebleu's): exp, floor, add-k, none",
        "choice",
        "BLEU smoothing",
        choices=tuple(SMOOTH_DEFAULTS),
    ),
    "smooth_value": Spec(
        "value of floor (default 0.1) or add-k (default 1) smoothing",
        "float",
        "Smoothing value (floor / add-k)",
        low=0.0,
        high=100.0,
        low_open=True,
    ),
    "max_ngram_order": Spec("word BLEU's largest n-gram order", "int", "BLEU n-gram order", low=1, high=10),
    "char_order": Spec(
        "character BLEU order M (BLEU over character n-grams 1..M; 18 behaves like word BLEU-4, Denoual & Lepage 2005)",
        "int",
        "Character BLEU order M",
        low=1,
        high=100,
    ),
    "char_keep_spaces": Spec("character BLEU counts spaces as characters", "bool", "Character BLEU keeps spaces"),
    "chrf_eps_smoothing": Spec(
        "chrF: epsilon smoothing of chrF++.py, NLTK and Moses instead of sacrebleu's effective order "
        "(sacrebleu's --chrf-eps-smoothing)",
        "bool",
        "chrF epsilon smoothing",
    ),
    "ter_normalized": Spec("TER: tercom's normalisation", "bool", "normalized"),
    "ter_no_punct": Spec("TER: remove punctuation", "bool", "no punctuation"),
    "ter_asian_support": Spec("TER: CJK handling (acts only with normalized or no-punct)", "bool", "Asian support"),
    "ter_case_sensitive": Spec("TER: do not lowercase", "bool", "case sensitive"),
    "ter_single_pass": Spec(
        "TER: tokenize references once, as tercom does (sacrebleu 2.6.0 tokenizes them twice, which "
        "changes a few lines with --ter-normalized; the default keeps sacrebleu's numbers)",
        "bool",
        "references tokenized once (tercom, not sacrebleu)",
    ),
    "nist_case_sensitive": Spec("NIST: do not lowercase (mteval's -c)", "bool", "NIST case sensitive"),
    "tbleu_epsilon": Spec(
        "tBLEU affix-distance threshold (a word within it is replaced by its matched reference word)",
        "float",
        "tBLEU epsilon",
        low=0.0,
        high=1.0,
        step=0.05,
    ),
}


@dataclass(frozen=True)
class Options:
    """Every metric option with its default (sacrebleu's defaults where sacrebleu has the option).

    ``smooth_value=None`` means the smoothing method's own default
    (:data:`SMOOTH_DEFAULTS`). Values are checked on construction.
    """

    tokenize: str = "13a"
    lowercase: bool = False
    smooth_method: str = "exp"
    smooth_value: float | None = None
    max_ngram_order: int = 4
    char_order: int = 18
    char_keep_spaces: bool = False
    chrf_eps_smoothing: bool = False
    ter_normalized: bool = False
    ter_no_punct: bool = False
    ter_asian_support: bool = False
    ter_case_sensitive: bool = False
    ter_single_pass: bool = False
    nist_case_sensitive: bool = False
    tbleu_epsilon: float = 0.05

    def __post_init__(self):
        for f in dataclasses.fields(self):
            spec = SPECS[f.name]
            value = getattr(self, f.name)
            object.__setattr__(self, f.name, _check(f.name, spec, value))

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> Options:
        """Options from a mapping (unknown keys are an error, so a typo is never ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - names)
        if unknown:
            raise InputError(f"unknown option(s): {', '.join(unknown)}")
        return cls(**values)

    def replace(self, **changes) -> Options:
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def resolved_smooth_value(self) -> float | None:
        return SMOOTH_DEFAULTS[self.smooth_method] if self.smooth_value is None else self.smooth_value

    def values(self, fields) -> tuple[tuple[str, Any], ...]:
        """The values of ``fields`` in :data:`SPECS` order, as a hashable key (a metric's cache key is
        the values of the fields it reads: :func:`mtlens.metrics.options_key`).

        ``smooth_value`` appears resolved (the method's default when unset), so
        "floor" and "floor with 0.1" share one cache entry.
        """
        wanted = set(fields)
        return tuple(
            (name, self.resolved_smooth_value() if name == "smooth_value" else getattr(self, name))
            for name in SPECS
            if name in wanted
        )


def _check(name: str, spec: Spec, value):
    flag = spec.flag(name)
    if spec.kind == "bool":
        if not isinstance(value, (bool, int)) or isinstance(value, float):
            raise InputError(f"{flag} must be true or false, not {value!r}")
        return bool(value)
    if spec.kind == "choice":
        if value not in spec.choices:
            raise InputError(f"{flag} must be one of {', '.join(spec.choices)}, not {value!r}")
        return value
    if value is None and name == "smooth_value":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{flag} must be a number, not {value!r}") from None
    if spec.kind == "int":
        if not math.isfinite(number) or number != int(number):
            raise InputError(f"{flag} must be a whole number, not {value!r}")
        number = int(number)
    lo_ok = number > spec.low if spec.low_open else number >= spec.low
    if not math.isfinite(number) or not lo_ok or number > spec.high:
        lo = f"above {_fmt(spec.low)}" if spec.low_open else f"between {_fmt(spec.low)}"
        rng = f"{lo} and at most {_fmt(spec.high)}" if spec.low_open else f"{lo} and {_fmt(spec.high)}"
        raise InputError(f"{flag} must be {rng}, not {value!r}")
    return number


def _fmt(x) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


DEFAULTS = Options()

#: an option in a link: ``opt_<field of Options>=value``, only those that differ from the set's defaults (the
#: dashboard's pages and the quick view of a set read and write links the same way)
OPTION_PARAM = "opt_"


def link_value(value) -> str:
    """An option's value as a link writes it (``1``/``0`` for a switch, ``repr`` for a float)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return repr(value) if isinstance(value, float) else str(value)


def from_link(params, opts: Options) -> Options:
    """``opts`` with the options a link's parameters ``params`` (a mapping of strings) name; a value that
    does not fit its option is ignored (the option keeps its value in ``opts``; :func:`read_link` also
    says why).

    >>> from_link({"opt_lowercase": "1", "opt_char_order": "500", "opt_tokenize": "intl"}, DEFAULTS).values(
    ...     ["lowercase", "char_order", "tokenize"])
    (('tokenize', 'intl'), ('lowercase', True), ('char_order', 18))
    """
    return read_link(params, opts)[0]


def read_link(params, opts: Options) -> tuple[Options, list[str]]:
    """:func:`from_link`, and one sentence for each option of the link that was ignored, and why (the
    dashboard and the quick view show them: a link never changes the numbers silently).

    >>> for note in read_link({"opt_char_order": "999", "opt_lowercase": "yes"}, DEFAULTS)[1]:
    ...     print(note)
    the link's opt_lowercase=yes was ignored (it must be 0 or 1)
    the link's opt_char_order=999 was ignored (--char-order must be between 1 and 100, not '999')
    """
    notes = []
    for name, spec in SPECS.items():
        raw = params.get(OPTION_PARAM + name)
        if raw is None:
            continue
        shown = raw if re.fullmatch(r"[\w.+-]{1,40}", raw) else repr(raw[:40])
        if spec.kind == "bool":
            if raw not in ("0", "1"):
                notes.append(f"the link's {OPTION_PARAM}{name}={shown} was ignored (it must be 0 or 1)")
                continue
            value = raw == "1"
        else:
            value = raw
        try:
            opts = opts.replace(**{name: value})
        except (InputError, TypeError, ValueError) as err:
            why = str(err)[:200] if isinstance(err, InputError) else "not a value it takes"
            notes.append(f"the link's {OPTION_PARAM}{name}={shown} was ignored ({why})")
    return opts, notes


def link_params(opts: Options, baseline: Options) -> dict[str, str | None]:
    """The link's option parameters: the value of each option that differs from ``baseline`` (the set's
    defaults), None for those that do not (to be removed from the link)."""
    return {
        OPTION_PARAM + name: None if getattr(opts, name) == getattr(baseline, name) else link_value(getattr(opts, name))
        for name in SPECS
    }
