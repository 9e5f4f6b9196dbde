"""Which n-grams of a hypothesis match, in which reference: as data, not HTML.

For one sentence and every order n, each hypothesis n-gram occurrence is
marked matched or not, with BLEU's clipping: if a hypothesis has an n-gram
``c`` times and the references have it at most ``m`` times, its first
``min(c, m)`` occurrences (left to right) are matched. Each matched occurrence
lists the references that contain it at least that often (per-reference
attribution). For each reference, the occurrences of its n-grams that the
hypothesis did not cover are listed as missed. The number of matched
occurrences of order n equals BLEU's ``correct_n`` for the sentence.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..metrics.bleu import BLEU


@dataclass(frozen=True)
class NgramSpan:
    """One n-gram occurrence.

    Attributes:
        start: index of its first token.
        order: n (it covers tokens ``start .. start + order - 1``).
        matched: whether it counts as a match (after clipping).
        references: for a hypothesis span, the references that match it; for a
            reference span, the reference it belongs to.
    """

    start: int
    order: int
    matched: bool
    references: tuple[int, ...]


@dataclass(frozen=True)
class NgramMatches:
    """Match data of one hypothesis against its references.

    Attributes:
        hyp_tokens: the hypothesis tokens as BLEU counts them.
        ref_tokens: the tokens of each reference.
        hyp: order -> every hypothesis n-gram occurrence, left to right.
        refs: order -> for each reference, its n-gram occurrences (matched ones are
            covered by the hypothesis, the others are missed).
    """

    hyp_tokens: tuple[str, ...]
    ref_tokens: tuple[tuple[str, ...], ...]
    hyp: dict[int, tuple[NgramSpan, ...]]
    refs: dict[int, tuple[tuple[NgramSpan, ...], ...]]

    def correct(self, order: int) -> int:
        """Matched hypothesis n-grams of this order (BLEU's ``correct_n``)."""
        return sum(s.matched for s in self.hyp[order])

    def missed(self, order: int, ref: int) -> list[NgramSpan]:
        """The n-grams of reference ``ref`` the hypothesis did not produce."""
        return [s for s in self.refs[order][ref] if not s.matched]

    def hyp_token_matched(self, order: int) -> list[bool]:
        """For each hypothesis token: is it inside a matched n-gram of this order?"""
        return _cover(len(self.hyp_tokens), self.hyp[order])

    def ref_token_matched(self, order: int, ref: int) -> list[bool]:
        """For each token of reference ``ref``: is it inside a covered n-gram of this order?"""
        return _cover(len(self.ref_tokens[ref]), self.refs[order][ref])


def _cover(n_tokens: int, spans: Sequence[NgramSpan]) -> list[bool]:
    out = [False] * n_tokens
    for s in spans:
        if s.matched:
            for i in range(s.start, s.start + s.order):
                out[i] = True
    return out


def _occurrences(tokens: Sequence[str], n: int) -> dict[tuple[str, ...], list[int]]:
    occ: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i in range(len(tokens) - n + 1):
        occ[tuple(tokens[i : i + n])].append(i)
    return occ


def ngram_matches(
    hypothesis: str,
    references: Sequence[str],
    metric: BLEU | None = None,
    max_order: int | None = None,
) -> NgramMatches:
    """Compute :class:`NgramMatches` for one sentence.

    Args:
        hypothesis: the system's line.
        references: the reference lines for that segment (one per reference).
        metric: a :class:`~mtlens.metrics.BLEU` or :class:`~mtlens.metrics.CharBLEU`
            whose preprocessing is used (default: word BLEU, 13a).
        max_order: highest n (default: the metric's maximum order).

    Example:
        >>> m = ngram_matches("the cat the cat", ["the cat sat"], BLEU(tokenize="none"))
        >>> [s.matched for s in m.hyp[2]]
        [True, False, False]
    """
    metric = metric or BLEU()
    N = max_order or metric.max_ngram_order
    hyp = tuple(metric.tokens(hypothesis))
    refs = tuple(tuple(metric.tokens(r)) for r in references)
    hyp_spans: dict[int, tuple[NgramSpan, ...]] = {}
    ref_spans: dict[int, tuple[tuple[NgramSpan, ...], ...]] = {}
    for n in range(1, N + 1):
        ref_occ = [_occurrences(r, n) for r in refs]
        ref_counts = [Counter({g: len(v) for g, v in occ.items()}) for occ in ref_occ]
        hyp_occ = _occurrences(hyp, n)
        spans = []
        seen: Counter = Counter()
        for i in range(len(hyp) - n + 1):
            g = hyp[i : i + n]
            seen[g] += 1
            j = seen[g]
            having = tuple(r for r, rc in enumerate(ref_counts) if rc[g] >= j)
            spans.append(NgramSpan(i, n, bool(having), having))
        hyp_spans[n] = tuple(spans)
        per_ref = []
        for r, occ in enumerate(ref_occ):
            rs = []
            for g, starts in occ.items():
                covered = min(len(hyp_occ.get(g, ())), len(starts))
                rs += [NgramSpan(s, n, k < covered, (r,)) for k, s in enumerate(starts)]
            per_ref.append(tuple(sorted(rs, key=lambda s: s.start)))
        ref_spans[n] = tuple(per_ref)
    return NgramMatches(hyp, refs, hyp_spans, ref_spans)
