"""The sacrebleu parity cases on the full WMT data (../shared/data), in one list that both the golden-value
script (``make_sacrebleu_golden.py``, which runs sacrebleu) and the parity tests
(``tests/metrics/test_shared_parity.py``, which run mtlens) read, so the two can never ask different
questions.

A case names a pair, the lines and systems it takes, and the metric with its options as sacrebleu's
constructor takes them; its golden value is sacrebleu's corpus score of each system (``kind="corpus"``),
its sentence scores (``"sentence"``), or its per-line TER statistics ``[edits, reference length]``
(``"ter"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

PAIRS = ["de-en", "zh-en", "ja-en", "cs-en", "en-de", "en-cs", "en-ja", "en-zh"]

#: TER's option sets checked on every line of en-cs (its ref2 line 99 is the double-tokenization case)
TER_OPTION_SETS = [
    {},
    {"normalized": True},
    {"no_punct": True},
    {"normalized": True, "asian_support": True},
    {"no_punct": True, "asian_support": True},
    {"case_sensitive": True},
    {"normalized": True, "no_punct": True, "asian_support": True, "case_sensitive": True},
]


@dataclass(frozen=True)
class Case:
    """One parity question.

    Attributes:
        id: the key of its golden values.
        pair: the WMT pair folder.
        metric: ``bleu``, ``chrf`` or ``ter`` (sacrebleu's class).
        options: sacrebleu's constructor arguments.
        kind: ``corpus`` (a score per system), ``sentence`` (a score per line) or ``ter`` (per-line statistics).
        lines: only the first this many lines (None: all).
        systems: only the first this many systems, in file-name order (None: all).
    """

    id: str
    pair: str
    metric: str
    options: dict = field(default_factory=dict)
    kind: str = "corpus"
    lines: int | None = None
    systems: int | None = None


def _name(options: dict) -> str:
    return "+".join(f"{k}={v}" for k, v in sorted(options.items())) or "default"


def cases() -> list[Case]:
    out = []
    for pair in PAIRS:
        out.append(Case(f"bleu/{pair}", pair, "bleu"))
        out.append(Case(f"bleu-intl-lc/{pair}", pair, "bleu", {"tokenize": "intl", "lowercase": True}))
        out.append(Case(f"chrf/{pair}", pair, "chrf"))
        out.append(Case(f"chrf++/{pair}", pair, "chrf", {"word_order": 2}))
        for word_order in (0, 2):
            opts = {"word_order": word_order, "eps_smoothing": True}
            out.append(Case(f"chrf-eps/{pair}/{word_order}", pair, "chrf", opts))
        out.append(
            Case(f"bleu-c18/{pair}", pair, "bleu", {"tokenize": "char", "max_ngram_order": 18}, lines=150, systems=3)
        )
        out.append(Case(f"ter/{pair}", pair, "ter", kind="ter", lines=120, systems=2))
        out.append(Case(f"ter-normalized/{pair}", pair, "ter", {"normalized": True}, kind="ter", systems=1))
    for pair, tok in [("en-zh", "zh"), ("en-ja", "zh"), ("en-ja", "char"), ("en-ja", "ja-mecab"), ("zh-en", "none")]:
        out.append(Case(f"bleu-tok/{pair}/{tok}", pair, "bleu", {"tokenize": tok}))
    for pair, smooth in [("en-cs", "floor"), ("de-en", "add-k"), ("cs-en", "none")]:
        out.append(Case(f"bleu-smooth/{pair}/{smooth}", pair, "bleu", {"smooth_method": smooth}))
    out.append(Case("chrf-lc/en-de", "en-de", "chrf", {"lowercase": True}))
    out.append(Case("bleu-c4/en-ja", "en-ja", "bleu", {"tokenize": "char", "max_ngram_order": 4}))
    for pair in ("en-de", "zh-en"):
        out.append(Case(f"sentence-bleu/{pair}", pair, "bleu", {"effective_order": True}, kind="sentence", systems=1))
        out.append(Case(f"sentence-chrf/{pair}", pair, "chrf", kind="sentence", systems=1))
    for pair, opts in [
        ("en-zh", {"normalized": True, "asian_support": True}),
        ("en-ja", {"no_punct": True, "asian_support": True}),
        ("de-en", {"normalized": True}),
        ("cs-en", {"case_sensitive": True, "no_punct": True}),
    ]:
        out.append(Case(f"ter-options/{pair}/{_name(opts)}", pair, "ter", opts, kind="ter", lines=60, systems=1))
    for opts in TER_OPTION_SETS:
        out.append(Case(f"ter-en-cs/{_name(opts)}", "en-cs", "ter", opts, kind="ter", systems=None))
    return out


def select(case: Case, refs: list[list[str]], systems: dict[str, list[str]]):
    """The references and systems a case takes from a pair (``ter-en-cs`` cases: CUNI-Marian-Baselines)."""
    names = list(systems)
    if case.id.startswith("ter-en-cs/"):
        names = ["CUNI-Marian-Baselines"]
    elif case.systems is not None:
        names = names[: case.systems]
    n = case.lines
    return [r[:n] for r in refs], {k: systems[k][:n] for k in names}
