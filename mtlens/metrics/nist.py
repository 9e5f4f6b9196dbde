"""NIST (Doddington, 2002), following mteval-v13a.

Tokenization: the 13a tokenizer (mteval-v13a's normalisation) by default, lowercased
by default; for an unsegmented target the word BLEU tokenizer of the language
(``zh``, ``ja-mecab``, ``ko-mecab``; docs/decisions.md, "Language"), named in the
signature. Information weights come from all reference n-grams of the whole test
set (all references): ``info(w1..wn) = log2(count(w1..wn-1) / count(w1..wn))``,
with the total number of reference words for unigrams. Per segment and order,
matched n-grams are clipped by the maximum count over the references (as BLEU)
and weighted by their information. Maximum order 5. Score:
``sum_n info_n / max(count_n, 1) * exp(-beta * ln^2(c / r))`` for ``c < r``,
``beta = -ln 0.5 / ln^2 1.5``, c the system's words and r the average reference
length (total reference words / number of references).

Decisions: lowercasing is Python's Unicode ``str.lower`` (mteval lowercases only
A-Z). NLTK's ``corpus_nist`` equals this with one reference; with several it
picks, per segment and order, the single reference with the best precision and
sums that reference's length, instead of clipping by the maximum count over all
references and averaging the lengths, so its scores differ there.

Statistics per segment: ``[info_1..5, count_1..5, avg_ref_len]`` (floats). The
information weights are fixed by the whole test set, so resampled scores reuse them.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.ngrams import iter_ngram_ids, word_streams
from ..core.options import DEFAULTS
from .base import Metric, Signature
from .bleu import BLEU

BETA = -math.log(0.5) / math.log(1.5) / math.log(1.5)


def nist_from_totals(totals: np.ndarray, max_order: int = 5) -> np.ndarray:
    """NIST from summed ``[info_1..N, count_1..N, avg_ref_len]``, vectorised over leading axes."""
    t = np.asarray(totals, dtype=np.float64)
    N = max_order
    info, cnt, ref_len = t[..., :N], t[..., N : 2 * N], t[..., 2 * N]
    score = np.zeros(t.shape[:-1])
    for n in range(N):
        score = score + info[..., n] / np.maximum(cnt[..., n], 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ref_len > 0, cnt[..., 0] / np.where(ref_len > 0, ref_len, 1.0), 1.0)
        pen = np.where(
            ratio >= 1, 1.0, np.where(ratio <= 0, 0.0, np.exp(-BETA * np.log(np.maximum(ratio, 1e-300)) ** 2))
        )
    return score * pen


class NIST(Metric):
    """NIST score (mteval-v13a). Higher is better; not on a 0-100 scale.

    Args:
        lowercase: lowercase before tokenizing (default True, as mteval).
        max_order: N (default 5).

    Example:
        >>> m = NIST()
        >>> st = m.statistics([["the cat sat on the mat"]], [["the cat sat on the mat"]])[0]
        >>> round(m.corpus_score(st), 4)  # by hand: unigrams (2*log2(3) + 4*log2(6))/6, bigrams 2/5
        2.6516
    """

    name = "nist"
    cost_per_char = 1.2  # measured against word BLEU
    slow = False
    label = latex = "NIST"
    sentence_level = False
    score_range = (0.0, None)
    decimals = 2  # NIST scores are single digits
    option_fields = ("tokenize", "nist_case_sensitive")

    @classmethod
    def from_options(cls, o):  # the option says case-sensitive; NIST's own switch lowercases
        return cls(lowercase=not o.nist_case_sensitive, tokenize=o.tokenize)

    def __init__(
        self, lowercase: bool = not DEFAULTS.nist_case_sensitive, max_order: int = 5, tokenize: str = DEFAULTS.tokenize
    ):
        self.lowercase = bool(lowercase)
        self.max_order = int(max_order)
        self.tokenize = tokenize
        self._words = BLEU(tokenize, self.lowercase)  # mteval-v13a's words: BLEU's 13a preprocessing

    def tokens(self, line: str) -> list[str]:
        return self._words.tokens(line)

    #: the whole corpus at once (information weights depend on every reference)
    blockwise = False

    def block_statistics(self, references, hypotheses):
        R, H, N = len(references), len(hypotheses), self.max_order
        streams = word_streams([[self.tokens(x) for x in lines] for lines in [*references, *hypotheses]])
        n_seg = streams.n_segments
        info = np.zeros((H, n_seg, N))
        total_ref_words = float(streams.lengths[:R].sum())
        prev_count = None
        for order in iter_ngram_ids(streams, N, with_global=True):
            k = order.order - 1
            ref_end = order.bounds[R]
            g = order.global_ids
            ref_g = g[:ref_end]
            count = np.bincount(ref_g, minlength=order.n_global).astype(np.float64)
            info_g = np.zeros(order.n_global)
            if k == 0:
                denom = np.full(len(ref_g), total_ref_words)
            else:
                denom = prev_count[order.prefix_global_ids[:ref_end]]
            with np.errstate(divide="ignore"):
                info_g[ref_g] = np.log2(denom / count[ref_g])
            prev_count = count
            global_of_local = np.empty(order.n_ids, dtype=np.int64)
            global_of_local[order.ids] = g
            ref_counts = [order.counts(r) for r in range(R)]
            ref_max = np.maximum.reduce(ref_counts) if R > 1 else ref_counts[0]
            for h in range(H):
                hc = order.counts(R + h)
                nz = np.flatnonzero(hc)
                m = np.minimum(hc[nz], ref_max[nz]) * info_g[global_of_local[nz]]
                info[h, :, k] = np.bincount(order.segment_of_id[nz], weights=m, minlength=n_seg)
        ref_avg = streams.lengths[:R].sum(axis=0) / R
        out = []
        for h in range(H):
            hyp_len = streams.lengths[R + h]
            cnt = np.maximum(hyp_len[:, None] - np.arange(N)[None, :], 0)
            out.append(np.column_stack([info[h], cnt, ref_avg]).astype(np.float64))
        return out

    def score_from_totals(self, totals):
        return nist_from_totals(totals, self.max_order)

    def details(self, totals):
        t = np.asarray(totals, dtype=np.float64)
        N = self.max_order
        return {
            "info": [float(x) for x in t[:N]],
            "counts": [int(x) for x in t[N : 2 * N]],
            "sys_len": int(t[N]),
            "ref_len": float(t[2 * N]),
        }

    def signature(self, n_refs):
        return Signature(
            (
                ("nrefs", str(n_refs)),
                ("case", "lc" if self.lowercase else "mixed"),
                ("tok", dict(self._words.signature(n_refs).fields)["tok"]),
                ("order", str(self.max_order)),
            )
        )
