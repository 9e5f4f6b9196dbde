"""mtlens: compare machine translation systems, with sacrebleu's numbers, faster.

The small public API::

    import mtlens
    corpus = mtlens.load_corpus(references=["ref.txt"], systems=["A.txt", "B.txt"])
    results = mtlens.score(corpus, ["bleu", "chrf"])
    results["bleu"].scores["A"], results["bleu"].signature
"""

from .analysis.highlight import ngram_matches
from .core.corpus import Corpus
from .core.errors import InputError
from .metrics import BLEU, CHRF, CharBLEU, make_metric, metric_names
from .readers.testset import corpus_from_bytes, load_corpus
from .runtime.scoring import score
from .scores.results import MetricResult
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
