"""Analyses on top of the metrics' per-segment statistics, one module per topic.

- :mod:`.correlation`: correlation coefficients, Cohen's kappa, bootstrap intervals.
- :mod:`.words_chars`: words vs characters (Denoual & Lepage, 2005).
- :mod:`.human`: reading human judgments and correlating metrics with them.
- :mod:`.sweep`: the tBLEU threshold sweep (Libovický & Pecina, 2014).
- :mod:`.pairwise`: two systems side by side (n-grams, length and frequency buckets with tests).
- :mod:`.sentences`: the sentence table (per-line scores, sorting, filtering).

Every function returns a frozen dataclass; ``to_dict`` functions give the JSON
of the ``analyze`` command. Submodules are imported by name (scipy and pandas
load only when an analysis is used).
"""
