"""TER, translation edit rate (Snover et al., 2006), as sacrebleu 2.6.0 computes it (following tercom).

Tokenization is sacrebleu's ``TercomTokenizer`` (lowercased by default;
``normalized``, ``no_punct``, ``asian_support``, ``case_sensitive`` options), done as
:class:`mtlens.core.tokenizers.TokenizerTercom` does it: the same output, faster.
Per segment the statistics are ``[edits, avg_ref_len]``: the fewest edits over
the references (shifts + beam edit distance, see :mod:`._ter_kernel`) and the
average reference length. TER = 100 * sum(edits) / sum(avg_ref_len); 100 if
there are edits but no reference words, 0 if neither.

Bound for pathological input: TER's tables hold one cell per hypothesis x
reference word pair of a line, so a line pair with more than
:func:`mtlens.core.limits.max_ter_word_pairs` word pairs (9 million: two lines of
3,000 words, 144 MB) is refused in one sentence before anything is computed
(docs/security.md); the longest line of the WMT data has 151 words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError
from ..core.limits import max_ter_word_pairs
from ..core.options import DEFAULTS
from ..core.tokenizers import tercom_tokenizer
from . import _compiled
from .base import Metric, Signature

#: the compiled kernel's module
KERNEL = "mtlens.metrics._ter_kernel"
#: up to this many (hypothesis, reference) pairs, sacrebleu's own TER (Python, about 3 ms a pair on WMT
#: news, so at most about 0.9 s) is used while the kernel is not loaded: compiling the kernel after
#: installation takes 12 s (loading it from numba's disk cache later 0.3 s); docs/decisions.md,
#: "Small jobs need no compiler"
PLAIN_PAIRS = 300
#: ... and as long as the lines are short: at most this many hypothesis x reference words over all pairs
#: (sacrebleu's shift search grows with the square of a line's length)
PLAIN_CELLS = 300 * 40 * 40


def _too_large(n_hyp: int, n_ref: int, where: str) -> InputError | None:
    limit = max_ter_word_pairs()
    if n_hyp * n_ref <= limit:
        return None
    return InputError(
        f"TER aligns lines of up to {limit:,} hypothesis x reference word pairs (MTLENS_MAX_TER_WORD_PAIRS); "
        f"{where} has {n_hyp:,} x {n_ref:,} words: choose other metrics, or shorten or remove that line"
    )


def ter_from_totals(totals: np.ndarray) -> np.ndarray:
    """TER (0-100, lower is better) from ``[edits, ref_len]`` totals, vectorised over leading axes."""
    t = np.asarray(totals, dtype=np.float64)
    edits, ref_len = t[..., 0], t[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(ref_len > 0, edits / np.where(ref_len > 0, ref_len, 1.0), np.where(edits > 0, 1.0, 0.0))
    return 100 * score


class TER(Metric):
    """Translation edit rate, sacrebleu-compatible (lower is better).

    Args:
        normalized: tercom's normalisation (punctuation split, entities unescaped).
        no_punct: remove punctuation.
        asian_support: CJK handling for ``normalized`` / ``no_punct``.
        case_sensitive: do not lowercase.

    Example:
        >>> m = TER()
        >>> st = m.statistics([["a b c d e f c"]], [["a d e b c f"]])[0]
        >>> round(m.corpus_score(st), 2)  # 2 edits / 7 reference words (docs/decisions.md, "TER")
        28.57
    """

    name = "ter"
    cost_per_char = 2.5  # measured against word BLEU
    label = latex = "TER"
    higher_is_better = False
    slow = True
    kernel = KERNEL
    releases_gil = True  # measured: en-zh's TER in two threads 0.67 s, in one 1.10 s
    score_range = (0.0, None)
    params = {p: f"ter_{p}" for p in ("normalized", "no_punct", "asian_support", "case_sensitive", "single_pass")}

    def __init__(
        self,
        normalized: bool = DEFAULTS.ter_normalized,
        no_punct: bool = DEFAULTS.ter_no_punct,
        asian_support: bool = DEFAULTS.ter_asian_support,
        case_sensitive: bool = DEFAULTS.ter_case_sensitive,
        single_pass: bool = DEFAULTS.ter_single_pass,
    ):
        self.single_pass = bool(single_pass)
        self.normalized = bool(normalized)
        self.no_punct = bool(no_punct)
        self.asian_support = bool(asian_support)
        self.case_sensitive = bool(case_sensitive)
        self._tok = tercom_tokenizer(self.normalized, self.no_punct, self.asian_support, self.case_sensitive)

    def kernel_needed(self, pairs: int) -> bool:
        return pairs > PLAIN_PAIRS

    def words(self, line: str) -> list[str]:
        """The words TER aligns for one hypothesis line (tokenized once)."""
        return self._tok(line.rstrip()).split()

    def ref_words(self, line: str) -> list[str]:
        """The words TER aligns for one reference line.

        sacrebleu 2.6.0 tokenizes every reference twice (``Metric._cache_references``
        preprocesses it, then ``TER._extract_reference_info`` preprocesses the result
        again); the normalized tokenizer is not idempotent (en-cs ``ref2.txt`` line 99,
        "McDonald's": 40 words after one pass, 41 after two), so we do the same unless
        ``single_pass`` (tercom's behaviour). See docs/decisions.md, "TER".
        """
        once = self._tok(line.rstrip())
        return once.split() if self.single_pass else self._tok(once.rstrip()).split()

    def check_lines(self, references, systems):
        """Lines whose word pairs pass :func:`~mtlens.core.limits.max_ter_word_pairs` are refused. A line
        has at most as many words as characters, so only lines long enough in characters are tokenized."""
        limit = max_ter_word_pairs()
        n = len(references[0]) if references else 0
        ref_chars = [max(len(r[i]) for r in references) for i in range(n)]
        for name, lines in systems.items():
            for i, line in enumerate(lines):
                if len(line) * ref_chars[i] > limit:
                    words = self.words(line)
                    refs_words = [self.ref_words(r[i]) for r in references]
                    # a reference identical to the line needs no tables (block_statistics)
                    ref_words = max((len(w) for w in refs_words if w != words), default=0)
                    err = _too_large(len(words), ref_words, f"line {i + 1} of '{name}'")
                    if err:
                        raise err

    def block_statistics(self, references, hypotheses):
        R, H = len(references), len(hypotheses)
        n = len(references[0]) if R else 0
        vocab: dict[str, int] = {}

        def ids(lines, words):
            out = []
            for line in lines:
                out.append([vocab.setdefault(w, len(vocab)) for w in words(line)])
            return out

        refs = [ids(r, self.ref_words) for r in references]  # refs[k][i]
        hyps = [ids(h, self.words) for h in hypotheses]
        if (  # sacrebleu's TER for a small job of short lines (the word count only where it can matter)
            not _compiled.ready(KERNEL)
            and H * n * R <= PLAIN_PAIRS
            and sum(len(h[i]) * len(refs[k][i]) for h in hyps for i in range(n) for k in range(R)) <= PLAIN_CELLS
        ):
            from sacrebleu.metrics.lib_ter import translation_edit_rate

            edits = np.array(
                [[[translation_edit_rate(h[i], refs[k][i])[0] for k in range(R)] for i in range(n)] for h in hyps],
                dtype=np.int64,
            ).reshape(H, n, R)
            return self._statistics(edits, refs, n, R)
        ref_seqs = [refs[k][i] for i in range(n) for k in range(R)]  # segment-major
        # each distinct hypothesis line of a segment once: systems often agree on a line, and a
        # (hypothesis, reference) pair's edits depend on nothing else
        distinct: dict[tuple[int, tuple[int, ...]], int] = {}
        hyp_seqs: list[list[int]] = []
        which = np.empty((H, n), dtype=np.int64)
        for s_, h in enumerate(hyps):
            for i in range(n):
                key = (i, tuple(h[i]))
                if key not in distinct:
                    distinct[key] = len(hyp_seqs)
                    hyp_seqs.append(h[i])
                which[s_, i] = distinct[key]
        ref_flat, ref_off = _flatten(ref_seqs)
        hyp_flat, hyp_off = _flatten(hyp_seqs)
        segment = np.array([i for i, _ in distinct], dtype=np.int64)
        u = np.arange(len(hyp_seqs), dtype=np.int64)
        pairs = np.column_stack([np.repeat(u, R), (segment[:, None] * R + np.arange(R)[None, :]).ravel()]).astype(
            np.int64
        )
        # a hypothesis identical to the reference has no edits (no shift can gain, the distance is 0):
        # not aligned, so a long line repeated as its own reference needs no tables
        same = np.array([hyp_seqs[h] == ref_seqs[r] for h, r in pairs], dtype=bool)
        flat = np.zeros(len(pairs), dtype=np.int64)
        if not same.all():
            K = _compiled.load(KERNEL)
            flat[~same] = K.ter_many(hyp_flat, hyp_off, ref_flat, ref_off, np.ascontiguousarray(pairs[~same]))
        edits = flat.reshape(len(hyp_seqs), R)[which]
        return self._statistics(edits, refs, n, R)

    def _statistics(self, edits: np.ndarray, refs, n: int, R: int) -> list[np.ndarray]:
        """Per system: the fewest edits over the references, the references' average length."""
        ref_lens = np.array([[len(refs[k][i]) for k in range(R)] for i in range(n)], dtype=np.int64).reshape(n, R)
        avg_len = ref_lens.sum(axis=1) / R
        out = []
        for s in range(edits.shape[0]):
            best = edits[s].min(axis=1) if R else np.zeros(n, dtype=np.int64)
            out.append(np.column_stack([best.astype(np.float64), avg_len]))
        return out

    def score_from_totals(self, totals):
        return ter_from_totals(totals)

    def details(self, totals):
        t = np.asarray(totals, dtype=np.float64)
        return {"num_edits": float(t[0]), "ref_length": float(t[1])}

    def signature(self, n_refs):
        yn = lambda b: "yes" if b else "no"  # noqa: E731
        return Signature(
            (
                ("nrefs", str(n_refs)),
                ("case", "mixed" if self.case_sensitive else "lc"),
                ("tok", "tercom"),
                ("norm", yn(self.normalized)),
                ("punct", yn(not self.no_punct)),
                ("asian", yn(self.asian_support)),
                *((("refpass", "once"),) if self.single_pass else ()),
            )
        )


def _flatten(seqs: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    lens = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
    off = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    flat = np.fromiter((w for s in seqs for w in s), dtype=np.int64, count=int(off[-1]))
    return flat, off


# --------------------------------------------------------------------------- alignment for display
@dataclass(frozen=True)
class Shift:
    """One applied shift: ``words`` moved from ``before`` (index in the hypothesis as it was before
    this shift) to ``after`` (index of the first moved word after it); ``original`` are the
    positions of the moved words in the original hypothesis."""

    words: tuple[str, ...]
    before: int
    after: int
    original: tuple[int, ...]


@dataclass(frozen=True)
class EditOp:
    """One operation between the shifted hypothesis and the reference.

    ``op`` is ``match``, ``substitution``, ``insertion`` (a reference word the
    hypothesis lacks: ``hyp`` is None) or ``deletion`` (a hypothesis word not in
    the reference: ``ref`` is None). ``hyp`` indexes the shifted hypothesis,
    ``original`` the same word in the original hypothesis.
    """

    op: str
    hyp: int | None
    ref: int | None
    hyp_word: str | None
    ref_word: str | None
    original: int | None


@dataclass(frozen=True)
class TERAlignment:
    """How a hypothesis turns into its best reference under TER.

    Attributes:
        hyp_words, ref_words: the tokenized words.
        reference: index of the best reference (fewest edits; the first on ties).
        shifts: the shifts, in the order they were applied.
        shifted: the hypothesis after all shifts.
        ops: the edit operations against the reference, left to right.
        edits: shifts + substitutions + insertions + deletions (the segment's TER edit count).
        ref_length: the average reference length (the TER denominator of the segment).
    """

    hyp_words: tuple[str, ...]
    ref_words: tuple[str, ...]
    reference: int
    shifts: tuple[Shift, ...]
    shifted: tuple[str, ...]
    ops: tuple[EditOp, ...]
    edits: int
    ref_length: float

    @property
    def ter(self) -> float:
        """This line's TER by the corpus formula (100 where there are edits and no reference words)."""
        return float(ter_from_totals(np.array([self.edits, self.ref_length])))

    @property
    def counts(self) -> dict[str, int]:
        c = {"shift": len(self.shifts), "substitution": 0, "insertion": 0, "deletion": 0, "match": 0}
        for o in self.ops:
            c[o.op] += 1
        return c


#: operation codes of the compiled kernel (0 match, 1 substitution, 2 insertion, 3 deletion)
_OP_NAMES = {0: "match", 1: "substitution", 2: "insertion", 3: "deletion"}


def ter_alignment(hypothesis: str, references: list[str], metric: TER | None = None) -> TERAlignment:
    """The TER alignment of one sentence against its best reference.

    Example:
        >>> a = ter_alignment("THIS WEEK THE SAUDIS denied information published in the new york times",
        ...     ["SAUDI ARABIA denied THIS WEEK information published in the AMERICAN new york times"])
        >>> a.edits, a.counts["shift"], a.counts["substitution"], a.counts["insertion"]
        (4, 1, 2, 1)
    """
    metric = metric or TER()
    hyp_words = metric.words(hypothesis)
    refs_words = [metric.ref_words(r) for r in references]
    err = _too_large(len(hyp_words), max(map(len, refs_words), default=0), "this line")
    if err:
        raise err
    K = _compiled.load(KERNEL)
    vocab: dict[str, int] = {}
    hyp = np.array([vocab.setdefault(w, len(vocab)) for w in hyp_words], dtype=np.int64)
    best = None
    for k, rw in enumerate(refs_words):
        ref = np.array([vocab.setdefault(w, len(vocab)) for w in rw], dtype=np.int64)
        shifts_out = np.zeros((len(hyp_words) + len(rw) + 1, 3), dtype=np.int64)
        edits, n_shifts, shifted = K.ter_pair(hyp, ref, shifts_out)
        if best is None or edits < best[0]:
            best = (int(edits), k, shifts_out[:n_shifts].copy(), shifted, ref)
    edits, k, shifts_arr, shifted, ref = best
    ref_words = refs_words[k]
    # replay the shifts on the positions to know where each word came from
    perm = np.arange(len(hyp_words), dtype=np.int64)
    buf = np.empty_like(perm)
    shifts = []
    for start, length, target in shifts_arr:
        moved = tuple(int(p) for p in perm[start : start + length])
        K._perform_shift(perm, start, length, target, buf)
        perm = buf.copy()
        after = int(target) if target <= start + length else int(target - length)
        shifts.append(Shift(tuple(hyp_words[p] for p in moved), int(start), after, moved))
    shifted_words = tuple(hyp_words[p] for p in perm)
    ops = []
    if len(ref):
        trace = K.trace_ops(K.edit_distance_rows(shifted, ref), shifted, ref)
        i = j = 0
        for op in trace:
            name = _OP_NAMES[int(op)]
            if name in ("match", "substitution"):
                ops.append(EditOp(name, i, j, shifted_words[i], ref_words[j], int(perm[i])))
                i += 1
                j += 1
            elif name == "insertion":
                ops.append(EditOp(name, None, j, None, ref_words[j], None))
                j += 1
            else:
                ops.append(EditOp(name, i, None, shifted_words[i], None, int(perm[i])))
                i += 1
    elif not len(ref):
        ops = [EditOp("deletion", i, None, w, None, i) for i, w in enumerate(hyp_words)]
    avg = sum(len(r) for r in refs_words) / len(refs_words) if refs_words else 0.0
    return TERAlignment(tuple(hyp_words), tuple(ref_words), k, tuple(shifts), shifted_words, tuple(ops), edits, avg)
