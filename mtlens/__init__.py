"""mtlens: compare machine translation systems, with sacrebleu's numbers, faster.

The small public API::

    import mtlens
    corpus = mtlens.load_corpus(references=["ref.txt"], systems=["A.txt", "B.txt"])
    results = mtlens.score(corpus, ["bleu", "chrf"])
    results["bleu"].scores["A"], results["bleu"].signature
"""

from .corpus import Corpus
from .errors import InputError
from .highlight import ngram_matches
from .io import corpus_from_bytes, load_corpus
from .metrics import BLEU, CHRF, CharBLEU, make_metric, metric_names
from .scoring import MetricResult, score
from .version import __version__

__all__ = [
    "BLEU",
    "CHRF",
    "CharBLEU",
    "Corpus",
    "InputError",
    "MetricResult",
    "__version__",
    "corpus_from_bytes",
    "load_corpus",
    "make_metric",
    "metric_names",
    "ngram_matches",
    "score",
]
