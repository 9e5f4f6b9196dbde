"""Word BLEU (Papineni et al., 2002) and character BLEU (Denoual & Lepage, 2005).

Both compute sacrebleu-compatible statistics per segment,
``[hyp_len, ref_len, correct_1..N, total_1..N]``, and a vectorised
:func:`bleu_from_totals` that reproduces ``sacrebleu.BLEU.compute_bleu``
operation by operation (same smoothing, effective order and early exits), so
that scores agree with sacrebleu 2.6.0 to floating-point rounding.

Character BLEU (``bleu-c``) is BLEU over character n-grams of orders 1..M
(default M = 18, the order Denoual & Lepage found equivalent to word BLEU-4).
Decision (docs/decisions.md, "Character BLEU"): whitespace is removed before counting, so
``bleu-c`` equals sacrebleu's ``BLEU(tokenize='char', max_ngram_order=M)``;
with ``keep_spaces`` each run of whitespace counts as one space character
(leading and trailing whitespace dropped).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.ngrams import Streams, char_streams, ngram_totals, word_streams
from ..core.options import DEFAULTS, SMOOTH_DEFAULTS
from ..core.tokenizers import TOKENIZERS, get_tokenizer, tokenizer_signature
from .base import Metric, Signature
from .counts import NgramKernel, clipped_matches

#: sacrebleu's ``my_log`` floor for log(0)
_LOG_ZERO = -9999999999.0


def bleu_from_totals(
    totals: np.ndarray,
    max_order: int,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    with_precisions: bool = False,
):
    """BLEU (0-100) from summed statistics, vectorised over leading axes.

    Mirrors ``sacrebleu.BLEU.compute_bleu``: brevity penalty
    ``exp(1 - r/c)`` for ``0 < c < r`` and 0 for ``c == 0``; score 0 when no
    n-gram of any order matches; orders after the first with no hypothesis
    n-grams are left out; smoothing ``exp`` (a zero count at order n gets
    ``1 / (2^k * total_n)``), ``floor``, ``add-k`` (orders n > 1), ``none``.

    Args:
        totals: array (..., 2 + 2 * max_order).
        max_order: N.
        smooth_method: ``exp``, ``floor``, ``add-k`` or ``none``.
        smooth_value: the value for ``floor`` / ``add-k`` (None: 0.1 / 1).
        effective_order: average only over orders that have hypothesis n-grams.
        with_precisions: also return the precisions (..., N) and brevity penalty (...).

    Example:
        >>> t = np.array([6, 6, 5, 3, 2, 1, 6, 5, 4, 3])  # sacrebleu compute_bleu gives 53.7285
        >>> round(float(bleu_from_totals(t, 4)), 4)
        53.7285
    """
    if smooth_method not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown smoothing method {smooth_method!r}")
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    t = np.asarray(totals, dtype=np.float64)
    N = max_order
    sys_len, ref_len = t[..., 0], t[..., 1]
    correct = t[..., 2 : 2 + N].copy()
    total = t[..., 2 + N : 2 + 2 * N].copy()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bp = np.where(
            sys_len < ref_len,
            np.where(sys_len > 0, np.exp(1 - ref_len / np.where(sys_len > 0, sys_len, 1)), 0.0),
            1.0,
        )
        any_match = (correct != 0).any(axis=-1)
        if smooth_method == "add-k" and N > 1:
            correct[..., 1:] += smooth_value
            total[..., 1:] += smooth_value
        alive = np.cumprod(total != 0, axis=-1).astype(bool)
        zero = correct == 0
        safe_total = np.where(total != 0, total, 1.0)
        prec = np.where(zero, 0.0, (100.0 * correct) / safe_total)
        if smooth_method == "exp":
            k = np.cumsum(zero & alive, axis=-1)
            prec = np.where(zero, 100.0 / (np.power(2.0, k) * safe_total), prec)
        elif smooth_method == "floor":
            prec = np.where(zero, (100.0 * smooth_value) / safe_total, prec)
        prec = np.where(alive & any_match[..., None], prec, 0.0)
        if effective_order:
            n_alive = alive.sum(axis=-1)
            eff = np.where(n_alive > 0, n_alive, N)
        else:
            eff = np.full(prec.shape[:-1], N)
        logs = np.where(prec > 0, np.log(np.where(prec > 0, prec, 1.0)), _LOG_ZERO)
        acc = np.zeros(prec.shape[:-1])
        for n in range(N):
            acc = acc + np.where(n < eff, logs[..., n], 0.0)
        score = np.where(any_match, bp * np.exp(acc / eff), 0.0)
    if with_precisions:
        return score, prec, bp
    return score


def closest_ref_len(hyp_len: np.ndarray, ref_lens: np.ndarray) -> np.ndarray:
    """The reference length closest to each hypothesis length; ties go to the shorter.

    Args:
        hyp_len: (n_segments,) lengths.
        ref_lens: (n_refs, n_segments) lengths.
    """
    diff = np.abs(ref_lens - hyp_len[None, :])
    key = diff * (int(ref_lens.max(initial=0)) + 1) + ref_lens
    best = np.argmin(key, axis=0)
    return ref_lens[best, np.arange(ref_lens.shape[1])]


class BLEU(NgramKernel, Metric):
    """Word BLEU, sacrebleu-compatible.

    Args:
        tokenize: ``13a`` (default), ``intl``, ``zh``, ``char`` or ``none``.
        lowercase: lowercase before tokenizing.
        smooth_method: ``exp`` (default), ``floor``, ``add-k`` or ``none``.
        smooth_value: value for ``floor`` (default 0.1) or ``add-k`` (default 1).
        max_ngram_order: N (default 4).
        effective_order: use only orders with hypothesis n-grams in corpus scores
            (sentence scores always use it, as sacrebleu's command line does).

    Example:
        >>> m = BLEU(tokenize="none")
        >>> st = m.statistics([["the cat sat on the mat"]], [["the cat sat on a mat"]])
        >>> round(m.corpus_score(st[0]), 4)
        53.7285
    """

    name = "bleu"
    cost_per_char = 1.0  # the unit the others are measured in (docs/decisions.md, "The engine")
    slow = False
    score_range = (0.0, 100.0)
    label = latex = "BLEU"
    params = {p: p for p in ("tokenize", "lowercase", "smooth_method", "smooth_value", "max_ngram_order")}
    score_only_fields = ("smooth_method", "smooth_value")

    _tok = None  # the tokenizer, once looked up

    def __init__(
        self,
        tokenize: str = DEFAULTS.tokenize,
        lowercase: bool = DEFAULTS.lowercase,
        smooth_method: str = DEFAULTS.smooth_method,
        smooth_value: float | None = DEFAULTS.smooth_value,
        max_ngram_order: int = DEFAULTS.max_ngram_order,
        effective_order: bool = False,
    ):
        if tokenize not in TOKENIZERS:
            raise ValueError(f"unknown tokenizer {tokenize!r}; choose one of {', '.join(TOKENIZERS)}")
        if smooth_method not in SMOOTH_DEFAULTS:
            raise ValueError(f"unknown smoothing method {smooth_method!r}; choose one of {', '.join(SMOOTH_DEFAULTS)}")
        if int(max_ngram_order) < 1:
            raise ValueError(f"the maximum n-gram order must be at least 1, not {max_ngram_order}")
        self.tokenize = tokenize
        self.lowercase = bool(lowercase)
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.max_ngram_order = int(max_ngram_order)
        self.effective_order = bool(effective_order)

    # --- preprocessing -------------------------------------------------
    def tokens(self, line: str) -> list[str]:
        """The tokens BLEU counts for one line (lowercase, tokenizer on the right-stripped line)."""
        if self.lowercase:
            line = line.lower()
        tok = self._tok
        if tok is None:  # looked up once per metric object (a missing MeCab is reported here)
            tok = self._tok = get_tokenizer(self.tokenize)
        return tok(line.rstrip()).split()

    def _streams(self, streams: Sequence[Sequence[str]]) -> Streams:
        return word_streams([[self.tokens(line) for line in lines] for lines in streams])

    # --- statistics ----------------------------------------------------
    def block_statistics(self, references, hypotheses):
        n_refs = len(references)
        streams = self._streams(list(references) + list(hypotheses))
        return self.statistics_from_streams(streams, n_refs)

    def statistics_from_streams(self, streams: Streams, n_refs: int) -> list[np.ndarray]:
        """Statistics from prepared streams: the first ``n_refs`` are references."""
        N = self.max_ngram_order
        hyps = range(n_refs, streams.n_streams)
        matches = clipped_matches(streams, range(n_refs), hyps, N, pairwise=False)
        ref_lens = streams.lengths[:n_refs]
        out = []
        for i, h in enumerate(hyps):
            hyp_len = streams.lengths[h]
            ref_len = closest_ref_len(hyp_len, ref_lens)
            out.append(np.column_stack([hyp_len, ref_len, matches[i], ngram_totals(hyp_len, N)]).astype(np.int64))
        return out

    # --- scores --------------------------------------------------------
    def score_from_totals(self, totals):
        return bleu_from_totals(
            totals, self.max_ngram_order, self.smooth_method, self.smooth_value, self.effective_order
        )

    def sentence_scores(self, stats):
        """Sentence BLEU with effective order (as sacrebleu's ``--sentence-level``)."""
        return bleu_from_totals(stats, self.max_ngram_order, self.smooth_method, self.smooth_value, True)

    def details(self, totals):
        N = self.max_ngram_order
        totals = np.asarray(totals)
        _, prec, bp = bleu_from_totals(
            totals, N, self.smooth_method, self.smooth_value, self.effective_order, with_precisions=True
        )
        sys_len, ref_len = int(totals[0]), int(totals[1])
        return {
            "precisions": [float(p) for p in prec],
            "bp": float(bp),
            "ratio": sys_len / ref_len if ref_len else 0.0,
            "sys_len": sys_len,
            "ref_len": ref_len,
            "counts": [int(c) for c in totals[2 : 2 + N]],
            "totals": [int(c) for c in totals[2 + N : 2 + 2 * N]],
        }

    def _smooth_field(self) -> str:
        default = SMOOTH_DEFAULTS[self.smooth_method]
        if default is None:
            return self.smooth_method
        value = default if self.smooth_value is None else self.smooth_value
        return f"{self.smooth_method}[{value:.2f}]"

    def signature(self, n_refs):
        fields = [
            ("nrefs", str(n_refs)),
            ("case", "lc" if self.lowercase else "mixed"),
            ("eff", "yes" if self.effective_order else "no"),
            ("tok", tokenizer_signature(self.tokenize)),
            ("smooth", self._smooth_field()),
        ]
        if self.max_ngram_order != 4:
            fields.append(("order", str(self.max_ngram_order)))
        return Signature(tuple(fields))


class CharBLEU(BLEU):
    """Character BLEU, BLEU_cM (Denoual & Lepage, 2005): BLEU over character n-grams 1..M.

    Lengths for the brevity penalty are in characters. Whitespace is removed by
    default, which makes the score equal to sacrebleu's
    ``BLEU(tokenize='char', max_ngram_order=M)``; ``keep_spaces=True`` counts
    each run of whitespace as one space (ends stripped).

    Example:
        >>> m = CharBLEU(max_ngram_order=4)
        >>> st = m.statistics([["abcd"]], [["abcd"]])
        >>> round(m.corpus_score(st[0]), 9)
        100.0
    """

    name = "bleu-c"
    cost_per_char = 1.5  # measured against word BLEU (engine shares: docs/decisions.md, "The engine")
    label = "BLEU_c"
    latex = "BLEU$_c$"
    params = {
        "lowercase": "lowercase",
        "smooth_method": "smooth_method",
        "smooth_value": "smooth_value",
        "max_ngram_order": "char_order",
        "keep_spaces": "char_keep_spaces",
    }
    score_only_fields = ("smooth_method", "smooth_value")

    def __init__(
        self,
        max_ngram_order: int = DEFAULTS.char_order,
        keep_spaces: bool = DEFAULTS.char_keep_spaces,
        lowercase: bool = DEFAULTS.lowercase,
        smooth_method: str = DEFAULTS.smooth_method,
        smooth_value: float | None = DEFAULTS.smooth_value,
        effective_order: bool = False,
    ):
        super().__init__("char", lowercase, smooth_method, smooth_value, max_ngram_order, effective_order)
        self.keep_spaces = bool(keep_spaces)

    def chars(self, line: str) -> str:
        """The characters counted for one line."""
        if self.lowercase:
            line = line.lower()
        return " ".join(line.split()) if self.keep_spaces else "".join(line.split())

    def tokens(self, line: str) -> list[str]:
        return list(self.chars(line))

    def _streams(self, streams):
        if self.keep_spaces:
            return char_streams([[self.chars(line) for line in lines] for lines in streams])
        cased = [list(map(str.lower, lines)) if self.lowercase else lines for lines in streams]
        return char_streams(cased, drop_space=True)  # self.chars, on whole streams at once

    def signature(self, n_refs):
        fields = [
            ("nrefs", str(n_refs)),
            ("case", "lc" if self.lowercase else "mixed"),
            ("eff", "yes" if self.effective_order else "no"),
            ("tok", "char"),
            ("smooth", self._smooth_field()),
            ("order", str(self.max_ngram_order)),
            ("space", "yes" if self.keep_spaces else "no"),
        ]
        return Signature(tuple(fields))
