"""The service: what every way into mtlens (the command line, the dashboard's pages, the quick view)
asks of the core, decided once.

- :mod:`.evaluation`: language, data notes, side files, bundles; kept with a set.
- :mod:`.rankings`: the Rankings of a set, from its stored statistics.
"""
