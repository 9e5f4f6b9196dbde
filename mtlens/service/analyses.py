"""The analyses the faces show, computed from a set's results (:mod:`mtlens.analysis`): human
judgments and meta-evaluation, rankings from human scores, AutoRank, words vs characters, the tBLEU
sweep, two systems side by side, the sentence table, matched n-grams, TER's alignment and MQM summaries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_names

if TYPE_CHECKING:  # the names as a type checker and an editor see them (tests/test_architecture.py)
    import mtlens.analysis.human as human
    import mtlens.analysis.words_chars as words_chars

    from ..analysis.agreement import human_agreement
    from ..analysis.autorank import autorank, human_ranking
    from ..analysis.correlation import pearson
    from ..analysis.groups import group_clusters, group_scores, restricted
    from ..analysis.groups import labels_for as groups_labels
    from ..analysis.highlight import NgramMatches, ngram_matches
    from ..analysis.human import (
        human_correlation,
        merge,
        merge_correlations,
        metric_clusters,
        read_human_files,
        segment_pairs,
    )
    from ..analysis.mqm_summary import (
        as_human_scores,
        disagreements,
        document_scores,
        error_counts,
        rater_agreement,
        span_overlap,
    )
    from ..analysis.pairwise import frequency_buckets, length_buckets, ngram_differences, pair_analysis
    from ..analysis.power import min_detectable_delta, segments_needed
    from ..analysis.sentences import sentence_table, sort_options
    from ..analysis.significance import pair_power
    from ..analysis.slices import slices
    from ..analysis.sweep import tbleu_sweep
    from ..analysis.words_chars import words_vs_chars
    from ..metrics.ter import TERAlignment, ter_alignment

_NAMES = {
    "NgramMatches": "mtlens.analysis.highlight:NgramMatches",
    "TERAlignment": "mtlens.metrics.ter:TERAlignment",
    "as_human_scores": "mtlens.analysis.mqm_summary:as_human_scores",
    "autorank": "mtlens.analysis.autorank:autorank",
    "disagreements": "mtlens.analysis.mqm_summary:disagreements",
    "document_scores": "mtlens.analysis.mqm_summary:document_scores",
    "error_counts": "mtlens.analysis.mqm_summary:error_counts",
    "min_detectable_delta": "mtlens.analysis.power:min_detectable_delta",
    "pair_power": "mtlens.analysis.significance:pair_power",
    "segments_needed": "mtlens.analysis.power:segments_needed",
    "slices": "mtlens.analysis.slices:slices",
    "group_clusters": "mtlens.analysis.groups:group_clusters",
    "restricted": "mtlens.analysis.groups:restricted",
    "group_scores": "mtlens.analysis.groups:group_scores",
    "groups_labels": "mtlens.analysis.groups:labels_for",
    "frequency_buckets": "mtlens.analysis.pairwise:frequency_buckets",
    "human": "mtlens.analysis.human",
    "human_agreement": "mtlens.analysis.agreement:human_agreement",
    "human_correlation": "mtlens.analysis.human:human_correlation",
    "human_ranking": "mtlens.analysis.autorank:human_ranking",
    "length_buckets": "mtlens.analysis.pairwise:length_buckets",
    "merge": "mtlens.analysis.human:merge",
    "merge_correlations": "mtlens.analysis.human:merge_correlations",
    "metric_clusters": "mtlens.analysis.human:metric_clusters",
    "ngram_differences": "mtlens.analysis.pairwise:ngram_differences",
    "ngram_matches": "mtlens.analysis.highlight:ngram_matches",
    "pair_analysis": "mtlens.analysis.pairwise:pair_analysis",
    "pearson": "mtlens.analysis.correlation:pearson",
    "rater_agreement": "mtlens.analysis.mqm_summary:rater_agreement",
    "read_human_files": "mtlens.analysis.human:read_human_files",
    "segment_pairs": "mtlens.analysis.human:segment_pairs",
    "sentence_table": "mtlens.analysis.sentences:sentence_table",
    "sort_options": "mtlens.analysis.sentences:sort_options",
    "span_overlap": "mtlens.analysis.mqm_summary:span_overlap",
    "tbleu_sweep": "mtlens.analysis.sweep:tbleu_sweep",
    "ter_alignment": "mtlens.metrics.ter:ter_alignment",
    "words_chars": "mtlens.analysis.words_chars",
    "words_vs_chars": "mtlens.analysis.words_chars:words_vs_chars",
}
__getattr__, __dir__ = lazy_names(__name__, _NAMES)
__all__ = sorted([*_NAMES, "char_matches"])


def char_matches(line: str, references: list[str], order: int, lowercase: bool = False) -> NgramMatches:
    """The character n-grams of ``line`` (up to ``order``) matched in ``references``, counted as character
    BLEU and chrF count them (white space left out)."""
    from ..analysis.highlight import ngram_matches
    from ..metrics import CharBLEU

    return ngram_matches(line, references, CharBLEU(order, lowercase=lowercase), max_order=order)
