"""The metric registry: every metric class, by the name used on the command line, in JSON and exports.

A metric describes itself (:class:`~mtlens.metrics.base.Metric`: name, label, sentence-level, slow,
kernel, direction, range, the option fields it reads, how it is built from the options); everything
else (the command line, the pages, significance, exports, kernels, tests) iterates over
:data:`REGISTRY`. Adding a metric is one file with its class, :func:`register` below, its test, and the
README line that lists metrics (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.errors import InputError
from ..core.options import DEFAULTS, SPECS, Options
from .base import Metric, Signature
from .bleu import BLEU, CharBLEU, bleu_from_totals
from .chrf import CHRF, CHRFpp, chrf_from_totals
from .nist import NIST
from .tbleu import TBLEU
from .ter import TER

#: metric name -> its class, in the order they are shown
REGISTRY: dict[str, type[Metric]] = {}


#: facts every registered metric states itself (in its own class or a metric class it derives from), because a
#: default would be silently wrong: its measured cost per character of text (how the engine shares work), whether
#: it is slow (opt-in on large sets), and the range of its scores (what the tests hold it to)
DECLARED = ("cost_per_char", "slow", "score_range")


def register(cls: type[Metric]) -> type[Metric]:
    """Add a metric class (usable as a decorator). Its name must be new, its option fields real, and its
    :data:`DECLARED` facts its own."""
    if not cls.name or cls.name in REGISTRY:
        raise ValueError(f"a metric needs a new name, not {cls.name!r}")
    own = [k for k in cls.__mro__ if k is not Metric and isinstance(k, type) and issubclass(k, Metric)]
    undeclared = [f for f in DECLARED if not any(f in vars(k) for k in own)]
    if undeclared:
        raise ValueError(f"{cls.__name__} must declare {', '.join(undeclared)} (measured, not Metric's defaults)")
    unknown = sorted(set(cls.option_fields) - set(SPECS))
    if unknown:
        raise ValueError(f"{cls.__name__} reads unknown option fields {unknown}")
    REGISTRY[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Remove a metric (tests that register a toy one)."""
    REGISTRY.pop(name, None)


for _cls in (BLEU, CharBLEU, CHRF, CHRFpp, TER, NIST, TBLEU):
    register(_cls)


def metric_names() -> tuple[str, ...]:
    """Every registered metric's name, in display order."""
    return tuple(REGISTRY)


def sentence_metrics() -> tuple[str, ...]:
    """The metrics with a meaningful score per line."""
    return tuple(n for n, c in REGISTRY.items() if c.sentence_level)


def metric_class(name: str) -> type[Metric]:
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(unknown_metric(name, REGISTRY)) from None


#: the metrics a set may also have, named when a name is unknown (issue 58: the sentence listed neither)
MORE_FORMS = (
    "esa and mqm where the set has human ratings, comet:NAME, metricx:NAME, metricx-qe:NAME and slide:NAME for a "
    "registered checkpoint (python -m mtlens models list), judge:NAME for a registered LLM judge (python -m mtlens "
    "judges list), and the metrics of the set's score files"
)


def unknown_metric(name: str, choices, more: bool = False) -> str:
    """The one sentence for a metric name nobody knows (``more``: the other forms a name may take are said too)."""
    return f"unknown metric '{name}'; choose from {', '.join(choices)}" + (f"; also {MORE_FORMS}" if more else "")


def parse_names(text: str | Sequence[str], known=None, also=None) -> list[str]:
    """Metric names as a user writes them (``--metrics``, a link): stripped, lowercased, repeats removed, in
    order; each one of ``known`` (default: the registry) or accepted by ``also`` (e.g. ``comet:NAME``), else
    an InputError naming it and the choices. The one parser of metric names.

    >>> parse_names("bleu, CHRF,bleu")
    ['bleu', 'chrf']
    >>> parse_names("bleu,comet:x", also=lambda name: name.startswith("comet:"))
    ['bleu', 'comet:x']
    """
    items = text.split(",") if isinstance(text, str) else list(text)
    known = list(REGISTRY) if known is None else list(known)
    names: list[str] = []
    for item in items:
        name = item.strip().lower()
        if not name:
            continue
        if name not in known and not (also is not None and also(name)):
            raise InputError(unknown_metric(item.strip(), known, more=also is not None))
        if name not in names:
            names.append(name)
    if not names:
        raise InputError("no metric was given")
    return names


def label(name: str) -> str:
    """The display name of a metric (an imported metric's own name)."""
    cls = REGISTRY.get(name)
    return (cls.label or cls.name) if cls else name


def options_key(name: str, options: Options | None = None) -> tuple:
    """The cache key of a metric's results: the options it reads (none for an imported metric).

    >>> options_key("chrf")
    (('lowercase', False), ('chrf_eps_smoothing', False))
    >>> options_key("comet-imported")
    ()
    """
    cls = REGISTRY.get(name)
    return (options or DEFAULTS).values(cls.option_fields) if cls else ()


def stats_key(name: str, options: Options | None = None) -> tuple:
    """The key of a metric's stored statistics: the options it reads less those that change only the score
    (:attr:`Metric.score_only_fields`: BLEU's smoothing), so that changing one of those reuses the
    statistics and re-scores nothing. (chrF's eps smoothing is not one: with several references it chooses
    each segment's reference.)

    >>> stats_key("bleu") == stats_key("bleu", DEFAULTS.replace(smooth_method="floor", smooth_value=0.2))
    True
    >>> stats_key("chrf")
    (('lowercase', False), ('chrf_eps_smoothing', False))
    """
    cls = REGISTRY.get(name)
    if cls is None:
        return ()
    return (options or DEFAULTS).values(tuple(f for f in cls.option_fields if f not in cls.score_only_fields))


def metrics_using(field: str) -> tuple[str, ...]:
    """The metrics an option changes (the sidebar groups options by them)."""
    return tuple(n for n, c in REGISTRY.items() if field in c.option_fields)


def make_metric(name: str, options: Options | None = None, **changes) -> Metric:
    """Build a metric from its name and the options (:class:`mtlens.core.options.Options`).

    ``changes`` are applied on top of ``options`` (or of the defaults), e.g.
    ``make_metric("bleu", tokenize="zh")``. Options a metric does not read are ignored by it.

    Raises:
        InputError: unknown name, unknown option, or an option out of its bounds.
    """
    o = options or DEFAULTS
    if changes:
        o = Options.from_mapping({**o.as_dict(), **changes})
    metric = metric_class(name).from_options(o)
    metric.spec = (name, o.as_dict())  # rebuilds it in a worker process (mtlens.runtime.engine)
    return metric


__all__ = [
    "BLEU",
    "CHRF",
    "NIST",
    "REGISTRY",
    "TER",
    "CHRFpp",
    "CharBLEU",
    "Metric",
    "Signature",
    "bleu_from_totals",
    "chrf_from_totals",
    "label",
    "make_metric",
    "metric_class",
    "metric_names",
    "metrics_using",
    "options_key",
    "parse_names",
    "register",
    "sentence_metrics",
    "stats_key",
]
