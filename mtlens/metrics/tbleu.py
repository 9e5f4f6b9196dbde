"""Tolerant BLEU, tBLEU (Libovický & Pecina, 2014), with the decisions of docs/decisions.md ("tBLEU").

No reference implementation is public; these are mtlens's decisions, tested:

- Tokens are word BLEU's (13a by default, optional lowercasing).
- Affix distance of a reference word r and a hypothesis word t: S is their
  longest common substring (ties: the first found scanning t from the left, then
  r from the left), r = r_p S r_s, t = t_p S t_s,
  ``AD = min(1, (Lev(r_p, t_p) + Lev(r_s, t_s)) / |S|)``, 1 if |S| = 0, 0 if r == t.
  (The paper prints "max{1, ...}", a misprint for min.)
- One-to-one minimum-cost matching of hypothesis and reference words
  (scipy's ``linear_sum_assignment`` on the |t| x |r| matrix of affix
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
pair of a block of segments (numpy blocks, or numba's kernel for very many), and the matchings once
for every epsilon: a sweep over epsilon re-uses them.

Bound: the matching is cubic in the sentence length, so a segment with more than
:data:`MAX_PAIRS` hypothesis x reference word pairs is left unmatched (its words
keep weight 1), where tBLEU equals word BLEU.
"""

from __future__ import annotations

import math
import sys
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.limits import max_tbleu_word_chars
from ..core.ngrams import ngram_counts, word_streams
from ..core.options import DEFAULTS
from .base import Metric, Signature
from .bleu import BLEU, bleu_from_totals
from .tbleu_affix import KERNEL, affix_distances, too_long

#: segments with more hypothesis x reference word pairs than this (two 1,000-word lines) are not
#: matched (the minimum-cost matching is cubic): there tBLEU equals word BLEU
MAX_PAIRS = 1_000_000
_UNMATCHED = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))


_LSAP_LOCK = threading.Lock()


def _linear_sum_assignment():
    """``scipy.optimize.linear_sum_assignment``, loaded without the rest of ``scipy.optimize``.

    The function is scipy's compiled module ``scipy.optimize._lsap``; importing it through its package
    imports all of ``scipy.optimize`` (linear programming, scipy.linalg, ...), about half a second of
    a short process's life. It is loaded from its file once (a lock: the dashboard scores in threads)
    and registered under its own name (a later ``import scipy.optimize`` reuses it); where scipy lays
    it out differently, the public import.
    """
    with _LSAP_LOCK:
        module = sys.modules.get("scipy.optimize._lsap")
        if module is None and "scipy.optimize" not in sys.modules:
            try:
                import importlib.machinery
                import importlib.util
                from pathlib import Path

                folder = Path(importlib.util.find_spec("scipy").submodule_search_locations[0]) / "optimize"
                path = next(
                    folder / f"_lsap{suffix}"
                    for suffix in importlib.machinery.EXTENSION_SUFFIXES
                    if (folder / f"_lsap{suffix}").is_file()
                )
                spec = importlib.util.spec_from_file_location("scipy.optimize._lsap", path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                if hasattr(module, "linear_sum_assignment"):
                    sys.modules["scipy.optimize._lsap"] = module
            except Exception:  # another layout: the public import below
                module = None
        if module is not None and hasattr(module, "linear_sum_assignment"):
            return module.linear_sum_assignment
        from scipy.optimize import linear_sum_assignment

        return linear_sum_assignment


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
    slow = True  # the affix distances of every word pair within reach: minutes per 100,000 system lines
    cost_per_char = 1.0  # measured against word BLEU at the default epsilon: about the same per character
    score_range = (0.0, 100.0)
    kernel = KERNEL
    modules = ()  # scipy's matching is loaded on its own (_linear_sum_assignment)
    params = {
        **{p: p for p in ("tokenize", "lowercase", "smooth_method", "smooth_value", "max_ngram_order")},
        "epsilon": "tbleu_epsilon",
    }
    score_only_fields = ("smooth_method", "smooth_value")

    def __init__(
        self,
        epsilon: float = DEFAULTS.tbleu_epsilon,
        tokenize: str = DEFAULTS.tokenize,
        lowercase: bool = DEFAULTS.lowercase,
        smooth_method: str = DEFAULTS.smooth_method,
        smooth_value: float | None = DEFAULTS.smooth_value,
        max_ngram_order: int = DEFAULTS.max_ngram_order,
    ):
        if not 0 <= float(epsilon) <= 1:
            raise ValueError(f"tBLEU epsilon must be between 0 and 1, not {epsilon}")
        self.epsilon = float(epsilon)
        self._bleu = BLEU(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order)
        self.max_ngram_order = self._bleu.max_ngram_order

    def kernel_needed(self, pairs: int) -> bool:
        return False  # only many affix distances need it: affix_distances loads it then

    def tokens(self, line: str) -> list[str]:
        return self._bleu.tokens(line)

    def check_lines(self, references, systems):
        """A segment whose hypothesis and a reference have two different words of similar length (the
        pairs whose affix distance is computed) longer than
        :func:`~mtlens.core.limits.max_tbleu_word_chars` is refused; only lines that long are tokenized."""
        limit = max_tbleu_word_chars()
        n = len(references[0]) if references else 0
        for name, lines in systems.items():
            for i in range(n):
                if len(lines[i]) <= limit or all(len(r[i]) <= limit for r in references):
                    continue
                long_h = {w for w in self.tokens(lines[i]) if len(w) > limit // 2}
                long_r = {w for r in references for w in self.tokens(r[i]) if len(w) > limit // 2}
                for t in long_h:
                    for w in long_r:
                        if max(len(t), len(w)) > limit and t != w and abs(len(t) - len(w)) < min(len(t), len(w)):
                            raise too_long(max(len(t), len(w)), f"line {i + 1} of '{name}'")

    # --- matching (epsilon-independent) ---------------------------------
    def _replaceable(self, hyp_tok, refs_tok, eps: float) -> list[tuple[int, int]]:
        """The (reference k, segment i) where segment i has a word that reference k could replace at
        threshold ``eps``: a *different* word at affix distance <= eps. Nowhere else can tBLEU's
        statistics differ from BLEU's (an identical word replaced by itself keeps weight 1).

        A different word has AD >= min(1, max(1, ||r| - |t||) / min(|r|, |t|)) (the affixes' edit
        distance is at least 1 and at least the length difference; |S| is at most the shorter word),
        so at a small epsilon only long words of similar length are candidates, and only those pairs
        get a distance (docs/decisions.md, "tBLEU, only where a word can be replaced").
        """
        if eps <= 0:
            return []
        everything = [(k, i) for k in range(len(refs_tok)) for i in range(len(hyp_tok))]
        shortest = math.ceil(1 / eps - 1e-9)
        if shortest <= 2:  # nearly every pair is a candidate: no filter is cheaper than matching them all
            return everything
        candidates: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
        for i, hyp in enumerate(hyp_tok):
            long_h = {w for w in hyp if len(w) >= shortest}
            if not long_h:
                continue
            for k, ref in enumerate(refs_tok):
                for r in {w for w in ref[i] if len(w) >= shortest}:
                    for t in long_h:
                        if t != r and max(1, abs(len(t) - len(r))) <= eps * min(len(t), len(r)) + 1e-9:
                            candidates[t, r].append((k, i))
        if not candidates:
            return []
        words = list({w: None for pair in candidates for w in pair})
        index = {w: n for n, w in enumerate(words)}
        pairs = np.array([[index[t], index[r]] for t, r in candidates], dtype=np.int64)
        distance = affix_distances(words, pairs)
        return sorted({ki for d, where in zip(distance, candidates.values(), strict=True) if d <= eps for ki in where})

    def _matchings(self, hyp_tok, refs_tok, wanted=None) -> dict[tuple[int, int], tuple]:
        """``{(k, i): (rows, cols, distances)}``: the min-cost matching of hypothesis segment i with
        reference k, for each ``wanted`` (k, i) (default: all). Segments without words or with more
        than :data:`MAX_PAIRS` word pairs are not matched (absent)."""
        if wanted is None:
            wanted = [(k, i) for k in range(len(refs_tok)) for i in range(len(hyp_tok))]
        wanted = [
            (k, i)
            for k, i in wanted
            if hyp_tok[i] and refs_tok[k][i] and len(hyp_tok[i]) * len(refs_tok[k][i]) <= MAX_PAIRS
        ]
        if not wanted:
            return {}
        vocab: dict[str, int] = {}
        ids = [
            (
                np.array([vocab.setdefault(w, len(vocab)) for w in hyp_tok[i]], dtype=np.int64),
                np.array([vocab.setdefault(w, len(vocab)) for w in refs_tok[k][i]], dtype=np.int64),
            )
            for k, i in wanted
        ]
        V = len(vocab)
        keys = np.concatenate([(h[:, None] * V + r[None, :]).ravel() for h, r in ids])
        uniq, inverse = np.unique(keys, return_inverse=True)  # each distinct word pair's distance once
        ad = affix_distances(list(vocab), np.column_stack([uniq // V, uniq % V]))[inverse.ravel()]
        linear_sum_assignment = _linear_sum_assignment()
        out = {}
        pos = 0
        for (k, i), (h, r) in zip(wanted, ids, strict=True):
            cost = ad[pos : pos + h.size * r.size].reshape(h.size, r.size)
            pos += h.size * r.size
            rows, cols = linear_sum_assignment(cost)
            out[k, i] = (rows, cols, cost[rows, cols])
        return out

    def sweep_statistics(self, references, hypotheses, epsilons: Sequence[float]) -> list[list[np.ndarray]]:
        """Statistics for several epsilons at once: ``out[e][s]`` for epsilon e and system s.

        Word BLEU's statistics (the vectorised engine, the same tokens), then the weighted credits
        of the segments where some word can be replaced at the largest epsilon (:meth:`_replaceable`).
        """
        N = self.max_ngram_order
        refs_tok = [[self.tokens(x) for x in r] for r in references]
        hyps_tok = [[self.tokens(x) for x in h] for h in hypotheses]
        plain = self._bleu.statistics_from_streams(word_streams([*refs_tok, *hyps_tok]), len(refs_tok))
        top = max(epsilons, default=0.0)
        out: list[list[np.ndarray]] = [[] for _ in epsilons]
        for hyp_tok, bleu_stats in zip(hyps_tok, plain, strict=True):
            matchings = self._matchings(hyp_tok, refs_tok, self._replaceable(hyp_tok, refs_tok, top))
            stats = [bleu_stats.astype(np.float64) for _ in epsilons]
            for i in sorted({i for _, i in matchings}):
                counts = None
                done: dict[tuple[int, ...], np.ndarray] = {}  # the active pairs only change at a few thresholds
                for e_i, eps in enumerate(epsilons):
                    active = tuple(
                        int((matchings[k, i][2] <= eps).sum()) if (k, i) in matchings else 0
                        for k in range(len(refs_tok))
                    )
                    if not any(active):
                        continue  # nothing replaced: BLEU's row
                    if active not in done:
                        if counts is None:
                            counts = [[ngram_counts(r[i], n) for n in range(1, N + 1)] for r in refs_tok]
                        done[active] = self._sentence_credits(hyp_tok[i], i, eps, matchings, refs_tok, counts)
                    stats[e_i][i, 2 : 2 + N] = done[active]
            for e_i, st in enumerate(stats):
                out[e_i].append(st)
        return out

    def _sentence_credits(self, hyp, i, eps, matchings, refs_tok, counts) -> np.ndarray:
        """The weighted n-gram credits (orders 1..N) of hypothesis line ``i`` at threshold ``eps``
        (``counts[k][n - 1]``: reference k's n-gram counts for this line)."""
        corrected_by_ref, weights_by_ref = [], []
        for k, ref in enumerate(refs_tok):
            corrected, weights = list(hyp), [1.0] * len(hyp)
            if (k, i) in matchings:
                rows, cols, dist = matchings[k, i]
                for a, b, d in zip(rows.tolist(), cols.tolist(), dist.tolist(), strict=True):
                    if d <= eps:
                        corrected[a] = ref[i][b]
                        weights[a] = 1.0 - d
            corrected_by_ref.append(corrected)
            weights_by_ref.append(weights)
        out = np.zeros(self.max_ngram_order)
        plain = all(c == hyp for c in corrected_by_ref) and all(w == 1.0 for ws in weights_by_ref for w in ws)
        for n in range(1, self.max_ngram_order + 1):
            by_ref = [c[n - 1] for c in counts]
            if plain:  # nothing replaced: every credit is 1, i.e. BLEU's clipped count (max over references)
                out[n - 1] = sum(min(c, max(rc.get(g, 0) for rc in by_ref)) for g, c in ngram_counts(hyp, n).items())
            else:
                out[n - 1] = _weighted_credits(hyp, weights_by_ref, corrected_by_ref, by_ref, n)
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
            rows, cols, dist = matchings.get((k, 0), _UNMATCHED)
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
