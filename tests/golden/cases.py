"""The sacrebleu parity cases on the full WMT data (../shared/data), in one list that both the golden-value
script (``make_sacrebleu_golden.py``, which runs sacrebleu) and the parity tests
(``tests/metrics/test_shared_parity.py``, which run mtlens) read, so the two can never ask different
questions.

A case names a pair, the lines and systems it takes, and the metric with its options as sacrebleu's
constructor takes them; its golden value is sacrebleu's corpus score of each system (``kind="corpus"``),
its sentence scores (``"sentence"``), or its per-line TER statistics ``[edits, reference length]``
(``"ter"``). Two kinds are for the bundled excerpts only: BLEU's corpus score with its n-gram counts and
totals (``"bleu-counts"``), and chrF's corpus score with a digest of its per-line statistics
(``"chrf-lines"``, :func:`stats_digest`).
"""

from __future__ import annotations

import hashlib
import json
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
        kind: ``corpus`` (a score per system), ``sentence`` (a score per line), ``ter`` (per-line statistics),
            ``bleu-counts`` or ``chrf-lines`` (excerpts only: a score per system and what it is made of).
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


#: the bundled excerpts (``tests/data`` folders with references, and the sample), as ``excerpts`` in
#: tests/conftest.py names them
EXCERPTS = ["en-cs", "en-zh", "ja-en", "sample_en-de"]

#: TER's option sets checked line by line on the excerpts (tests/metrics/test_ter.py): each option alone and
#: the two Asian combinations, without the set of every option at once
TER_EXCERPT_OPTIONS = TER_OPTION_SETS[:-1]


def ter_excerpt_id(excerpt: str, options: dict) -> str:
    return f"ter-lines/{excerpt}/{_name(options)}"


#: character BLEU's orders checked against sacrebleu's ``tokenize="char"`` on every excerpt (test_char_bleu.py)
CHAR_BLEU_ORDERS = [1, 4, 10, 18, 25]

#: chrF's option sets checked against sacrebleu on every excerpt, line by line (test_chrf.py)
CHRF_OPTION_SETS = [
    {},
    {"word_order": 2},
    {"lowercase": True},
    {"word_order": 2, "lowercase": True},
    {"whitespace": True},
    {"char_order": 4, "word_order": 1},
    {"beta": 1},
    {"beta": 3, "word_order": 2},
]


def char_bleu_id(excerpt: str, order: int) -> str:
    return f"bleu-char/{excerpt}/{order}"


def chrf_excerpt_id(excerpt: str, options: dict) -> str:
    return f"chrf-lines/{excerpt}/{_name(options)}"


#: TER's per-line statistics of every line and system of the sample with both references (default options):
#: a line's statistics depend on that line alone, so sacrebleu's corpus TER of any first lines of the sample
#: is its ``_compute_score_from_stats`` of their sum (the page, ranking and kernel tests ask for it)
SAMPLE_TER = "ter-lines/sample_en-de/every line"


def stats_digest(stats) -> str:
    """SHA-256 of per-line statistics (a rows x columns table of counts), as exact numbers: sacrebleu's
    lists and mtlens's arrays of the same counts give the same digest, one differing count another."""
    rows = [[float(v) for v in row] for row in stats]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def beam_shapes(refs: list[list[str]], hyp_lines: list[str]) -> dict[str, tuple[list[list[str]], list[str]]]:
    """Real lines of the sample joined into shapes where TER's kernel leaves its bit-parallel shortcut
    (tests/metrics/test_ter.py): name -> (references, hypotheses)."""
    return {
        "reference x3": ([[f"{r[i]} {r[i + 1]} {r[i]}" for i in range(12)] for r in refs[:1]], hyp_lines[:12]),
        # the matching words at the end of a long reference: the beam keeps the path from them
        "reference x3, its match last": (
            [[f"{r[i + 1]} {r[i + 2]} {r[i]}" for i in range(36, 48)] for r in refs[:1]],
            hyp_lines[36:48],
        ),
        "both x2": (
            [[f"{r[i]} {r[i + 1]}" for i in range(12, 24)] for r in refs[:1]],
            [f"{hyp_lines[i + 1]} {hyp_lines[i]}" for i in range(12, 24)],  # swapped halves: long shifts
        ),
        "hypothesis x3": (
            [[r[i] for i in range(24, 36)] for r in refs[:1]],
            [f"{hyp_lines[i]} {hyp_lines[i - 1]} {hyp_lines[i]}" for i in range(24, 36)],
        ),
    }


def excerpt_cases() -> list[Case]:
    """The questions over the bundled excerpts (present in every clone), whose golden values
    ``make_sacrebleu_golden.py`` writes to ``excerpts.json``: sacrebleu's TER is pure Python (with Asian
    support about 14 s per system on the en-zh excerpt), too slow to ask at every run."""
    out = [
        Case(SAMPLE_TER, "sample_en-de", "ter", kind="ter"),
        Case(
            "ter/en-zh/asian_support=True+normalized=True", "en-zh", "ter", {"normalized": True, "asian_support": True}
        ),
        Case("ter/en-zh/asian_support=True", "en-zh", "ter", {"asian_support": True}),
    ]
    for excerpt in EXCERPTS:  # per-line statistics of the first 40 lines of two systems
        for opts in TER_EXCERPT_OPTIONS:
            out.append(Case(ter_excerpt_id(excerpt, opts), excerpt, "ter", opts, kind="ter", lines=40, systems=2))
        for order in CHAR_BLEU_ORDERS:  # every line and system: sacrebleu's n-gram counting is pure Python
            opts = {"tokenize": "char", "max_ngram_order": order}
            out.append(Case(char_bleu_id(excerpt, order), excerpt, "bleu", opts, kind="bleu-counts"))
        for opts in CHRF_OPTION_SETS:
            out.append(Case(chrf_excerpt_id(excerpt, opts), excerpt, "chrf", opts, kind="chrf-lines"))
    return out
