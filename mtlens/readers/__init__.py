"""Readers: files -> validated data. They never drop, merge or reorder lines, and save nothing.

- :mod:`.testset`: plain text, TSV, WMT XML -> a :class:`~mtlens.core.corpus.Corpus`.
- :mod:`.folders`: whole test sets from disk (mt-metrics-eval folders, campaigns).
- :mod:`.scores`: scores of neural metrics from their files.
- :mod:`.mqm`: human error annotations (MQM) and MQM scores from them.
"""
