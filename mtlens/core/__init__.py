"""The ground floor: what every other part of mtlens stands on and that imports nothing of mtlens above it.

- :mod:`.errors`: the one exception type for bad input (a readable sentence).
- :mod:`.options`: metric options, their defaults and bounds (one frozen dataclass).
- :mod:`.limits`: bounds on everything read from outside.
- :mod:`.language`: the target language and the option defaults that follow from it.
- :mod:`.tokenizers`: sacrebleu's tokenizers in a registry.
- :mod:`.corpus`: references with one named orientation, systems, source.
- :mod:`.ngrams`: segment-aware n-gram identifiers.
- :mod:`.access`: who may do what with saved sets.
"""
