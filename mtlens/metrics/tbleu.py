"""Tolerant BLEU, tBLEU (Libovický & Pecina, 2014), with the decisions of docs/decisions.md ("tBLEU").

No reference implementation is public; these are mtlens's decisions, tested:

- Tokens are word BLEU's (13a by default, optional lowercasing).
- Affix distance of a reference word r and a hypothesis word t: S is their
  longest common substring (ties: the first found scanning t from the left, then
  r from the left), r = r_p S r_s, t = t_p S t_s,
  ``AD = min(1, (Lev(r_p, t_p) + Lev(r_s, t_s)) / |S|)``, 1 if |S| = 0, 0 if r == t.
  (The paper prints "max{1, ...}", a misprint for min.)
- One-to-one minimum-cost matching of hypothesis and reference words
  (``scipy.optimize.linear_sum_assignment`` on the |t| x |r| matrix of affix
  distances); unmatched words stay as they are.
- A hypothesis word matched with ``AD <= epsilon`` is replaced by its reference
  word and weighted ``1 - AD``; every other word has weight 1.
- n-gram precision: a corrected n-gram found in the reference, clipped as in BLEU
  keeping the highest-weighted occurrences (the leftmost among equal weights),
  counts the mean weight of its words instead of 1; the denominator is the plain
  number of hypothesis n-grams. Brevity penalty, smoothing and the rest as BLEU.
- Several references: the hypothesis is corrected against each reference
  separately; for each n-gram type of the *original* hypothesis, its credit is the
  largest weighted clipped match any single reference gives it; the numerator is
  the sum of these credits. At epsilon 0 this is BLEU's clipping by the maximum
  reference count, so tBLEU equals BLEU exactly.

Affix distances are computed once per distinct (hypothesis word, reference word)
pair of a block of segments (a compiled kernel, numba), and the matchings once
for every epsilon: a sweep over epsilon re-uses them.

Bound: the matching is cubic in the sentence length, so a segment with more than
:data:`MAX_PAIRS` hypothesis x reference word pairs is left unmatched (its words
keep weight 1), where tBLEU equals word BLEU.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..ngrams import ngram_counts
from .base import Metric, Signature
from .bleu import BLEU, bleu_from_totals, closest_ref_len

#: segments with more hypothesis x reference word pairs than this (two 1,000-word lines) are not
#: matched (the minimum-cost matching is cubic): there tBLEU equals word BLEU
MAX_PAIRS = 1_000_000


# --------------------------------------------------------------------------- affix distance
def affix_distance(reference_word: str, hypothesis_word: str) -> float:
    """The affix distance AD(r, t) (docs/decisions.md, "tBLEU").

    Example:
        >>> affix_distance("zapomenout", "vzpomenou") == 3 / 7
        True
    """
    chars, lens = _char_matrix([hypothesis_word, reference_word])
    from ._tbleu_kernel import affix_distances

    return float(affix_distances(chars, lens, np.array([[0, 1]], dtype=np.int64))[0])


def _char_matrix(words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    lens = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    width = int(lens.max(initial=1)) or 1
    chars = np.zeros((len(words), width), dtype=np.int64)
    for i, w in enumerate(words):
        if w:
            chars[i, : len(w)] = np.frombuffer(w.encode("utf-32-le"), dtype=np.uint32)
    return chars, lens


# --------------------------------------------------------------------------- per sentence
@dataclass(frozen=True)
class Correction:
    """One hypothesis word matched to a reference word.

    Attributes:
        hyp_index, ref_index: positions in the tokenized hypothesis and reference.
        hyp_word, ref_word: the words.
        distance: their affix distance.
        replaced: whether ``distance <= epsilon`` (the word became ``ref_word``).
        weight: ``1 - distance`` if replaced, else 1.
    """

    hyp_index: int
    ref_index: int
    hyp_word: str
    ref_word: str
    distance: float
    replaced: bool
    weight: float


def _weighted_credits(hyp, weights_by_ref, corrected_by_ref, ref_counts_by_ref, n):
    """Sum over original n-gram types of the best single-reference weighted clipped credit."""
    L = len(hyp)
    if n > L:
        return 0.0
    best: dict[tuple, float] = {}
    for corrected, weights, ref_counts in zip(corrected_by_ref, weights_by_ref, ref_counts_by_ref, strict=True):
        groups: dict[tuple, list[tuple[float, int]]] = defaultdict(list)
        for i in range(L - n + 1):
            c = tuple(corrected[i : i + n])
            if c in ref_counts:
                groups[c].append((-sum(weights[i : i + n]) / n, i))
        credit_by_type: dict[tuple, float] = defaultdict(float)
        for c, occ in groups.items():
            occ.sort()
            for neg_w, i in occ[: ref_counts[c]]:
                credit_by_type[tuple(hyp[i : i + n])] += -neg_w
        for g, v in credit_by_type.items():
            if v > best.get(g, 0.0):
                best[g] = v
    return sum(best.values())


class TBLEU(Metric):
    """Tolerant BLEU (higher is better, 0-100).

    Args:
        epsilon: affix-distance threshold for replacing a word (default 0.05).
        tokenize, lowercase, smooth_method, smooth_value, max_ngram_order: as :class:`BLEU`.

    Example:
        >>> m = TBLEU(epsilon=1.0, tokenize="none", smooth_method="none", max_ngram_order=2)
        >>> st = m.statistics([["Jedu novým červeným autem"]], [["Jedu s novém červeném auto"]])[0]
        >>> [round(float(x), 4) for x in m.details(st.sum(axis=0))["precisions"]]  # 17/30 and 1/3
        [56.6667, 33.3333]
    """

    name = "tbleu"
    label = "tBLEU"
    latex = "tBLEU"
    slow = True
    kernel = "mtlens.metrics._tbleu_kernel"
    option_fields = ("tokenize", "lowercase", "smooth_method", "smooth_value", "max_ngram_order", "tbleu_epsilon")

    @classmethod
    def from_options(cls, o):
        return cls(o.tbleu_epsilon, o.tokenize, o.lowercase, o.smooth_method, o.smooth_value, o.max_ngram_order)

    def __init__(
        self,
        epsilon: float = 0.05,
        tokenize: str = "13a",
        lowercase: bool = False,
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        max_ngram_order: int = 4,
    ):
        if not 0 <= float(epsilon) <= 1:
            raise ValueError(f"tBLEU epsilon must be between 0 and 1, not {epsilon}")
        self.epsilon = float(epsilon)
        self._bleu = BLEU(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order)
        self.max_ngram_order = self._bleu.max_ngram_order

    def tokens(self, line: str) -> list[str]:
        return self._bleu.tokens(line)

    # --- matching (epsilon-independent) ---------------------------------
    def _matchings(self, hyp_tok, refs_tok):
        """Per reference: (rows, cols, distances) of the min-cost matching, for each segment."""
        vocab: dict[str, int] = {}
        hyp_ids = [[vocab.setdefault(w, len(vocab)) for w in seg] for seg in hyp_tok]
        ref_ids = [[[vocab.setdefault(w, len(vocab)) for w in seg] for seg in ref] for ref in refs_tok]
        words = [None] * len(vocab)
        for w, i in vocab.items():
            words[i] = w
        keys = []
        for ref in ref_ids:
            for h, r in zip(hyp_ids, ref, strict=True):
                if h and r and len(h) * len(r) <= MAX_PAIRS:
                    keys.append((np.asarray(h, dtype=np.int64)[:, None] * len(vocab) + np.asarray(r)[None, :]).ravel())
        ad_of = {}
        if keys:
            uniq, inverse = np.unique(np.concatenate(keys), return_inverse=True)
            chars, lens = _char_matrix(words)
            pairs = np.column_stack([uniq // len(vocab), uniq % len(vocab)]).astype(np.int64)
            from ._tbleu_kernel import affix_distances

            ad = affix_distances(chars, lens, pairs)[inverse]
            ad_of = ad
        from scipy.optimize import linear_sum_assignment

        out = []
        pos = 0
        for ref in ref_ids:
            per_seg = []
            for h, r in zip(hyp_ids, ref, strict=True):
                if not (h and r) or len(h) * len(r) > MAX_PAIRS:
                    per_seg.append((np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)))
                    continue
                size = len(h) * len(r)
                cost = ad_of[pos : pos + size].reshape(len(h), len(r))
                pos += size
                rows, cols = linear_sum_assignment(cost)
                per_seg.append((rows, cols, cost[rows, cols]))
            out.append(per_seg)
        return out

    def sweep_statistics(self, references, hypotheses, epsilons: Sequence[float]) -> list[list[np.ndarray]]:
        """Statistics for several epsilons at once: ``out[e][s]`` for epsilon e and system s."""
        N = self.max_ngram_order
        refs_tok = [[self.tokens(x) for x in r] for r in references]
        ref_lens = np.array([[len(x) for x in r] for r in refs_tok], dtype=np.int64).reshape(len(refs_tok), -1)
        ref_counts = [[[ngram_counts(seg, n) for n in range(1, N + 1)] for seg in r] for r in refs_tok]
        out = [[] for _ in epsilons]
        for hyp_lines in hypotheses:
            hyp_tok = [self.tokens(x) for x in hyp_lines]
            matchings = self._matchings(hyp_tok, refs_tok)
            hyp_len = np.array([len(x) for x in hyp_tok], dtype=np.int64)
            ref_len = closest_ref_len(hyp_len, ref_lens)
            totals = np.maximum(hyp_len[:, None] - np.arange(N)[None, :], 0)
            correct_by_eps = [np.zeros((len(hyp_tok), N)) for _ in epsilons]
            for i, hyp in enumerate(hyp_tok):
                if not hyp:
                    continue
                done: dict[tuple[int, ...], np.ndarray] = {}  # the active pairs only change at a few thresholds
                for e_i, eps in enumerate(epsilons):
                    active = tuple(int((matchings[k][i][2] <= eps).sum()) for k in range(len(refs_tok)))
                    if active not in done:
                        done[active] = self._sentence_credits(hyp, i, eps, matchings, refs_tok, ref_counts)
                    correct_by_eps[e_i][i] = done[active]
            for e_i in range(len(epsilons)):
                correct = correct_by_eps[e_i]
                out[e_i].append(np.column_stack([hyp_len, ref_len, correct, totals]).astype(np.float64))
        return out

    def _sentence_credits(self, hyp, i, eps, matchings, refs_tok, ref_counts) -> np.ndarray:
        """The weighted n-gram credits (orders 1..N) of hypothesis line ``i`` at threshold ``eps``."""
        corrected_by_ref, weights_by_ref = [], []
        for k, ref in enumerate(refs_tok):
            rows, cols, dist = matchings[k][i]
            corrected, weights = list(hyp), [1.0] * len(hyp)
            for a, b, d in zip(rows.tolist(), cols.tolist(), dist.tolist(), strict=True):
                if d <= eps:
                    corrected[a] = ref[i][b]
                    weights[a] = 1.0 - d
            corrected_by_ref.append(corrected)
            weights_by_ref.append(weights)
        out = np.zeros(self.max_ngram_order)
        plain = all(c == hyp for c in corrected_by_ref) and all(w == 1.0 for ws in weights_by_ref for w in ws)
        for n in range(1, self.max_ngram_order + 1):
            counts = [ref_counts[k][i][n - 1] for k in range(len(refs_tok))]
            if plain:  # nothing replaced: every credit is 1, i.e. BLEU's clipped count (max over references)
                out[n - 1] = sum(min(c, max(rc.get(g, 0) for rc in counts)) for g, c in ngram_counts(hyp, n).items())
            else:
                out[n - 1] = _weighted_credits(hyp, weights_by_ref, corrected_by_ref, counts, n)
        return out

    def block_statistics(self, references, hypotheses):
        return self.sweep_statistics(references, hypotheses, [self.epsilon])[0]

    def score_from_totals(self, totals):
        b = self._bleu
        return bleu_from_totals(totals, b.max_ngram_order, b.smooth_method, b.smooth_value, False)

    def sentence_scores(self, stats):
        b = self._bleu
        return bleu_from_totals(stats, b.max_ngram_order, b.smooth_method, b.smooth_value, True)

    def details(self, totals):
        d = self._bleu.details(totals)
        d["counts"] = [float(c) for c in np.asarray(totals)[2 : 2 + self.max_ngram_order]]
        d["epsilon"] = self.epsilon
        return d

    def signature(self, n_refs):
        base = self._bleu.signature(n_refs).fields
        return Signature((*base, ("eps", f"{self.epsilon:g}")))

    # --- per sentence data for display -------------------------------------
    def corrections(self, hypothesis: str, references: Sequence[str]) -> list[list[Correction]]:
        """For each reference, the matched word pairs of one sentence (with distances and weights)."""
        hyp = self.tokens(hypothesis)
        refs = [self.tokens(r) for r in references]
        matchings = self._matchings([hyp], [[r] for r in refs])
        out = []
        for k, ref in enumerate(refs):
            rows, cols, dist = matchings[k][0]
            out.append(
                [
                    Correction(
                        int(a),
                        int(b),
                        hyp[a],
                        ref[b],
                        float(d),
                        d <= self.epsilon,
                        1.0 - d if d <= self.epsilon else 1.0,
                    )
                    for a, b, d in zip(rows.tolist(), cols.tolist(), dist.tolist(), strict=True)
                ]
            )
        return out
