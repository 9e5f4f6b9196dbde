"""What a face shows of one line, computed from a set's corpus and options: the machine evidence (word n-gram matches,
TER's alignment), tBLEU's corrections and character n-gram matches. The analyses themselves are pure
(:mod:`mtlens.analysis`, which the faces import directly); what is decided here is which metric, with which options,
explains a line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.errors import InputError
from ..core.options import Options
from ..metrics.ter import TERAlignment  # the alignment's type, as the faces draw it

if TYPE_CHECKING:
    from ..analysis.highlight import NgramMatches
    from ..core.corpus import Corpus

__all__ = ["TERAlignment", "char_matches", "line_evidence", "tbleu_rows"]


def char_matches(line: str, references: list[str], order: int, lowercase: bool = False) -> NgramMatches:
    """The character n-grams of ``line`` (up to ``order``) matched in ``references``, counted as character
    BLEU and chrF count them (white space left out)."""
    from ..analysis.highlight import ngram_matches
    from ..metrics import CharBLEU

    return ngram_matches(line, references, CharBLEU(order, lowercase=lowercase), max_order=order)


def line_evidence(corpus: Corpus, opts: Options, systems: Sequence[str], i: int) -> dict:
    """The machine evidence of line ``i`` for each system: word n-gram matches (BLEU's tokenizer and
    options) and the TER alignment against the best reference."""
    from ..analysis.highlight import ngram_matches
    from ..metrics import BLEU, TER, make_metric

    c = corpus
    seg_refs = [r[i] for r in c.reference_streams()]
    bleu, ter = make_metric("bleu", opts), make_metric("ter", opts)
    assert isinstance(bleu, BLEU) and isinstance(ter, TER)
    return {
        "references": seg_refs,
        "ngrams": {s: ngram_matches(c.systems[s][i], seg_refs, bleu, max_order=4) for s in systems},
        "ter": {s: _alignment_or_sentence(c.systems[s][i], seg_refs, ter) for s in systems},
    }


def _alignment_or_sentence(line: str, refs: Sequence[str], ter):
    """The TER alignment, or the sentence why this line is past TER's bound (the page says it)."""
    from ..metrics.ter import ter_alignment

    try:
        return ter_alignment(line, list(refs), ter)
    except InputError as err:
        return str(err)


def tbleu_rows(corpus: Corpus, opts: Options, system: str, i: int) -> list[dict]:
    """tBLEU's corrections of one line: each hypothesis word within the affix distance of its matched
    reference word."""
    from ..metrics import TBLEU, make_metric

    c = corpus
    seg_refs = [r[i] for r in c.reference_streams()]
    tbleu = make_metric("tbleu", opts)
    assert isinstance(tbleu, TBLEU)
    per_ref = tbleu.corrections(c.systems[system][i], seg_refs)
    return [
        {
            "reference": c.reference_names[k],
            "hypothesis word": x.hyp_word,
            "reference word": x.ref_word,
            "affix distance": x.distance,
            "replaced": x.replaced,
            "weight": x.weight,
        }
        for k, corr in enumerate(per_ref)
        for x in corr
        if x.distance < 1
    ]
