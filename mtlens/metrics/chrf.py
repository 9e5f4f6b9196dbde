"""chrF (Popović, 2015) and chrF++ (Popović, 2017), sacrebleu-compatible.

Per segment and order, the statistics are ``[hyp, ref, match]`` for character
orders 1..6 (whitespace removed) and, for chrF++, word orders 1..2 (words
split off their leading/trailing punctuation as in Popović's chrF++.py). With
several references a segment keeps the statistics of the reference with the
best sentence-level F-score (the first one on ties), as sacrebleu does. The
corpus score is the F-beta of the summed statistics, precision and recall
averaged over the orders that have both hypothesis and reference n-grams.
"""

from __future__ import annotations

import numpy as np

from ..core.ngrams import char_streams, ngram_totals, word_streams
from ..core.options import DEFAULTS
from .base import Metric, Signature
from .counts import NgramKernel, clipped_matches

_PUNCTS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def split_punctuation(line: str) -> list[str]:
    """chrF++'s word split: one leading or trailing ASCII punctuation mark becomes its own word.

    Example:
        >>> split_punctuation('Hello, "world" !')
        ['Hello', ',', '"world', '"', '!']
    """
    words: list[str] = []
    for w in line.split():
        if len(w) == 1:
            words.append(w)
        elif w[-1] in _PUNCTS:
            words += [w[:-1], w[-1]]
        elif w[0] in _PUNCTS:
            words += [w[0], w[1:]]
        else:
            words.append(w)
    return words


def chrf_from_totals(totals: np.ndarray, beta: float = 2, eps_smoothing: bool = False) -> np.ndarray:
    """chrF (0-100) from ``[hyp, ref, match]`` triples per order, vectorised over leading axes.

    Operation for operation the formula of sacrebleu's ``CHRF._compute_f_score``, so
    that ties between references resolve the same way. With ``eps_smoothing``
    (chrF++.py's, NLTK's and Moses' smoothing), the score is the mean over *all*
    orders of each order's F-beta, where a missing precision or recall is 1e-16
    and an order whose F is undefined counts 1e-16.

    Example:
        >>> round(float(chrf_from_totals(np.array([4, 4, 4, 3, 3, 2]))), 4)
        83.3333
    """
    t = np.asarray(totals, dtype=np.float64)
    n_orders = t.shape[-1] // 3
    factor = beta**2
    if eps_smoothing:
        return _chrf_eps(t, n_orders, factor)
    avg_p = np.zeros(t.shape[:-1])
    avg_r = np.zeros(t.shape[:-1])
    eff = np.zeros(t.shape[:-1], dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n_orders):
            n_hyp, n_ref, n_match = t[..., 3 * i], t[..., 3 * i + 1], t[..., 3 * i + 2]
            both = (n_hyp > 0) & (n_ref > 0)
            avg_p = avg_p + np.where(both, n_match / np.where(both, n_hyp, 1.0), 0.0)
            avg_r = avg_r + np.where(both, n_match / np.where(both, n_ref, 1.0), 0.0)
            eff += both
        avg_p = np.where(eff > 0, avg_p / np.maximum(eff, 1), 0.0)
        avg_r = np.where(eff > 0, avg_r / np.maximum(eff, 1), 0.0)
        denom = (factor * avg_p) + avg_r
        score = (1 + factor) * avg_p * avg_r
        score = score / np.where(denom != 0, denom, 1.0)
    return np.where((avg_p + avg_r) != 0, 100 * score, 0.0)


def _chrf_eps(t: np.ndarray, n_orders: int, factor: float) -> np.ndarray:
    eps = 1e-16
    score = np.zeros(t.shape[:-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n_orders):
            n_hyp, n_ref, n_match = t[..., 3 * i], t[..., 3 * i + 1], t[..., 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / np.where(n_hyp > 0, n_hyp, 1.0), eps)
            rec = np.where(n_ref > 0, n_match / np.where(n_ref > 0, n_ref, 1.0), eps)
            denom = factor * prec + rec
            score = score + np.where(denom > 0, (1 + factor) * prec * rec / np.where(denom > 0, denom, 1.0), eps)
    return 100 * score / n_orders


class CHRF(NgramKernel, Metric):
    """chrF / chrF++.

    Args:
        char_order: character n-gram order (6).
        word_order: word n-gram order (0 for chrF, 2 for chrF++).
        beta: recall weight (2).
        lowercase: lowercase first.
        whitespace: keep whitespace in character n-grams.
        eps_smoothing: sacrebleu's ``eps_smoothing`` (chrF++.py's smoothing; signature ``eff:no``).

    Example:
        >>> m = CHRF()
        >>> st = m.statistics([["the cat"]], [["the cat"]])
        >>> round(m.corpus_score(st[0]), 9)
        100.0
    """

    name = "chrf"
    cost_per_char = 1.0  # measured against word BLEU: about the same
    slow = False
    score_range = (0.0, 100.0)
    label = latex = "chrF"
    params = {"lowercase": "lowercase", "eps_smoothing": "chrf_eps_smoothing"}
    # eps smoothing is *not* score-only: with several references each segment keeps the reference with the
    # best sentence-level F, and that F is computed with or without eps smoothing (sacrebleu's
    # ``_compute_segment_statistics``), so the statistics themselves depend on it
    # (tests/metrics/test_score_only.py checks every declared score-only field)

    def __init__(
        self,
        char_order: int = 6,
        word_order: int = 0,
        beta: float = 2,
        lowercase: bool = DEFAULTS.lowercase,
        whitespace: bool = False,
        eps_smoothing: bool = DEFAULTS.chrf_eps_smoothing,
    ):
        if int(char_order) < 1 or int(word_order) < 0:
            raise ValueError("chrF needs a character order >= 1 and a word order >= 0")
        self.char_order = int(char_order)
        self.word_order = int(word_order)
        self.beta = beta
        self.lowercase = bool(lowercase)
        self.whitespace = bool(whitespace)
        self.eps_smoothing = bool(eps_smoothing)
        self.name = "chrf" if self.word_order == 0 else "chrf" + "+" * self.word_order
        if self.word_order:
            self.label = self.latex = "chrF" + "+" * self.word_order

    def chars(self, line: str) -> str:
        if self.lowercase:
            line = line.lower()
        return line if self.whitespace else "".join(line.split())

    def words(self, line: str) -> list[str]:
        if self.lowercase:
            line = line.lower()
        return split_punctuation(line)

    def block_statistics(self, references, hypotheses):
        R, H = len(references), len(hypotheses)
        streams = list(references) + list(hypotheses)
        refs, hyps = range(R), range(R, R + H)
        cased = [list(map(str.lower, lines)) if self.lowercase else lines for lines in streams]
        cs = char_streams(cased, drop_space=not self.whitespace)  # self.chars, on whole streams at once
        parts = [self._triples(cs, refs, hyps, self.char_order)]
        if self.word_order:
            ws = word_streams([[self.words(x) for x in lines] for lines in streams])
            parts.append(self._triples(ws, refs, hyps, self.word_order))
        # (H, R, n_seg, n_orders, 3) -> (H, R, n_seg, 3 * n_orders)
        triples = np.concatenate(parts, axis=3)
        stats = triples.reshape((*triples.shape[:3], -1))
        out = []
        for h in range(H):
            if R == 1:
                out.append(stats[h, 0].copy())
                continue
            f = chrf_from_totals(stats[h], self.beta, self.eps_smoothing)  # (R, n_seg)
            best = np.argmax(f, axis=0)
            out.append(stats[h, best, np.arange(stats.shape[2])])
        return out

    @staticmethod
    def _triples(streams, refs, hyps, order):
        match = clipped_matches(streams, refs, hyps, order, pairwise=True)  # (H, R, n_seg, order)
        ref_tot = ngram_totals(streams.lengths[list(refs)], order)  # (R, n_seg, order)
        hyp_tot = ngram_totals(streams.lengths[list(hyps)], order)  # (H, n_seg, order)
        hyp_cnt = hyp_tot[:, None] * (ref_tot[None] > 0)
        ref_cnt = np.broadcast_to(ref_tot[None], match.shape)
        return np.stack([hyp_cnt, ref_cnt, match], axis=-1).astype(np.int64)

    def score_from_totals(self, totals):
        return chrf_from_totals(totals, self.beta, self.eps_smoothing)

    def details(self, totals):
        t = np.asarray(totals)
        k = self.char_order
        return {
            "char_order": self.char_order,
            "word_order": self.word_order,
            "beta": self.beta,
            "hyp": [int(x) for x in t[0::3]],
            "ref": [int(x) for x in t[1::3]],
            "match": [int(x) for x in t[2::3]],
            "char_orders": k,
        }

    def signature(self, n_refs):
        return Signature(
            (
                ("nrefs", str(n_refs)),
                ("case", "lc" if self.lowercase else "mixed"),
                ("eff", "no" if self.eps_smoothing else "yes"),
                ("nc", str(self.char_order)),
                ("nw", str(self.word_order)),
                ("space", "yes" if self.whitespace else "no"),
            )
        )


class CHRFpp(CHRF):
    """chrF++: chrF with word unigrams and bigrams (Popović 2017), sacrebleu's ``CHRF(word_order=2)``."""

    name = "chrf++"
    cost_per_char = 1.3  # measured against word BLEU
    label = latex = "chrF++"

    def __init__(
        self,
        lowercase: bool = DEFAULTS.lowercase,
        eps_smoothing: bool = DEFAULTS.chrf_eps_smoothing,
        word_order: int = 2,
        **kwargs,
    ):
        super().__init__(word_order=word_order, lowercase=lowercase, eps_smoothing=eps_smoothing, **kwargs)
