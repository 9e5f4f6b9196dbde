"""Where a metric's scores come from (issue 59), read once from its name as ``--metrics`` writes it.

A source of scores is one of: a metric built into mtlens (``bleu``, ``chrf``...), a registered checkpoint
(``comet:NAME``, ``metricx:NAME``, ``metricx-qe:NAME``), SLIDE over a registered reference-free checkpoint
(``slide:NAME``), a registered LLM judge (``judge:NAME``), human ratings (``mqm``, ``esa``), or a file of scores an
outside tool wrote (``comet``, ``cometkiwi-xl``, ``metricx-24``, ``bleurt``...). :func:`source_of` is the one place a
name's prefix is read: every other module asks it (tests/test_architecture.py holds the prefixes here).

A registered scorer's prefix is its declaration: whoever registered ``metricx:comet-distilled`` registered a MetricX
checkpoint, whatever its name says. A file's scores are named by the tool that wrote them, so there the tool's name
decides the family (``cometkiwi-xl`` is COMET's, ``metricx-24`` MetricX's), and a name no tool is known by is a
learned metric.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the families (docs/decisions.md, "Metric families")
SURFACE, COMET, METRICX, LEARNED, JUDGE, HUMAN = "surface", "comet", "metricx", "learned", "llm-judge", "human"
CHECKS_FAMILY = "checks"
FAMILIES = (SURFACE, COMET, METRICX, LEARNED, JUDGE, HUMAN, CHECKS_FAMILY)

#: the kinds of source
BUILT_IN, MODEL, SLIDE, JUDGE_KIND, HUMAN_KIND, FILE = "built-in", "model", "slide", "judge", "human", "file"
CHECK_KIND, TERMS_KIND = "check", "terms"

#: how ``--metrics`` names a translation check (``check:numbers``), all of them, and a glossary's scores (issue 60)
CHECK_PREFIX, ALL_CHECKS = "check:", "checks"
TERM_NAMES = frozenset({"term", "term-consistency"})

#: how ``--metrics`` names a registered scorer: prefix -> (kind, family)
COMET_PREFIX, METRICX_PREFIX, METRICX_QE_PREFIX = "comet:", "metricx:", "metricx-qe:"
SLIDE_PREFIX, JUDGE_PREFIX = "slide:", "judge:"
REGISTERED = {
    COMET_PREFIX: (MODEL, COMET),
    METRICX_PREFIX: (MODEL, METRICX),
    METRICX_QE_PREFIX: (MODEL, METRICX),
    SLIDE_PREFIX: (SLIDE, ""),  # SLIDE's family is its checkpoint's (the name alone cannot say: see source_of)
    JUDGE_PREFIX: (JUDGE_KIND, JUDGE),
}

#: how a registered judge's identity (its jobs' key, a digest of what its answers depend on) begins
JUDGE_IDENTITY_PREFIX = "judge-"
#: the protocols a judge may speak (GEMBA's two in mtlens.judges.gemba, M-Prometheus in mtlens.judges.prometheus)
JUDGE_PROTOCOLS = ("gemba-mqm", "gemba-esa", "m-prometheus")
#: how a judge's samples of a segment become its score (mtlens.judges.votes)
JUDGE_AGGREGATES = ("mean", "median", "gemba-v2")

#: the string-overlap metrics mtlens computes (the registry's names; tests/metrics hold the two lists equal)
SURFACE_NAMES = frozenset({"bleu", "bleu-c", "tbleu", "chrf", "chrf++", "ter", "nist"})
#: human ratings' names
HUMAN_NAMES = frozenset({"mqm", "esa"})


@dataclass(frozen=True)
class Source:
    """What a metric's name says of its source.

    Attributes:
        name: the name as given.
        kind: built-in, model, slide, judge, human, file, check or terms.
        family: the family its scores belong to.
        registered: the registered scorer's own name (after the prefix), empty for other kinds.
        prefix: the registered scorer's prefix (``comet:``...), empty for other kinds.
    """

    name: str
    kind: str
    family: str
    registered: str = ""
    prefix: str = ""

    @property
    def runs(self) -> str:
        """How its scores are made: ``inline`` (computed by the command, built in), ``job`` (a registered scorer's
        work, resumable, cached), or ``file`` (read: human ratings, a tool's file)."""
        return _RUNS.get(self.kind, "file")  # "checks": computed by the command from the set's text


#: how each kind's scores are made (:attr:`Source.runs`); the registered prefixes, the longest first (the rule)
_RUNS = {BUILT_IN: "inline", MODEL: "job", SLIDE: "job", JUDGE_KIND: "job", CHECK_KIND: "checks", TERMS_KIND: "checks"}
_LONGEST_FIRST = sorted(REGISTERED, key=len, reverse=True)


def source_of(name: str) -> Source:
    """The source a metric's name says (the one resolver).

    >>> source_of("metricx:comet-distilled").family  # the prefix is the registration's declaration
    'metricx'
    >>> source_of("judge:gpt").kind, source_of("judge:gpt").registered
    ('judge', 'gpt')
    >>> [source_of(n).family for n in ("chrf", "cometkiwi-xl", "metricx-24", "bleurt", "esa", "gemba-mqm")]
    ['surface', 'comet', 'metricx', 'learned', 'human', 'llm-judge']
    """
    low = name.lower()
    if low in SURFACE_NAMES:
        return Source(name, BUILT_IN, SURFACE)
    if low.startswith(CHECK_PREFIX) or low == ALL_CHECKS:
        return Source(name, CHECK_KIND, CHECKS_FAMILY, name[len(CHECK_PREFIX) :], CHECK_PREFIX)
    if low in TERM_NAMES:
        return Source(name, TERMS_KIND, CHECKS_FAMILY)
    # a registered scorer's prefix decides before any word of its name
    for prefix in _LONGEST_FIRST:
        if low.startswith(prefix):
            kind, family = REGISTERED[prefix]
            rest = name[len(prefix) :]
            return Source(name, kind, family or _tool_family(rest.lower()), rest, prefix)
    family = _tool_family(low)
    if family == LEARNED and (low in HUMAN_NAMES or low.startswith(("mqm-", "human"))):
        return Source(name, HUMAN_KIND, HUMAN)
    return Source(name, FILE, family)


def judge_name(name: str) -> str:
    """A registered judge's own name, whether given as ``NAME`` or as ``--metrics`` writes it (``judge:NAME``).

    >>> judge_name("judge:gpt"), judge_name("gpt")
    ('gpt', 'gpt')
    """
    source = source_of(name)
    return source.registered if source.kind == JUDGE_KIND else name


def is_judge_job(job: str) -> bool:
    """Whether a job's name (``judge:NAME``) or key (the judge's identity, ``judge-...``) is an LLM judge's.

    >>> is_judge_job("judge:gpt"), is_judge_job(JUDGE_IDENTITY_PREFIX + "0f3a"), is_judge_job("tiny")
    (True, True, False)
    """
    return source_of(job).kind == JUDGE_KIND or job.startswith(JUDGE_IDENTITY_PREFIX)


def _tool_family(low: str) -> str:
    """The family of a tool's scores by the tool's name (a file's column, a SLIDE checkpoint's name)."""
    if "gemba" in low or low.startswith("judge"):
        return JUDGE
    if "comet" in low:
        return COMET
    if "metricx" in low:
        return METRICX
    return LEARNED
