"""How the pages cache: one decorator over Streamlit's ``cache_resource`` keyed by content fingerprints (and, for
computations that draw progress while they run, which Streamlit's caches cannot replay, the process-wide
:class:`mtlens.core.kept.BoundedCache`)."""

from __future__ import annotations

import functools
import hashlib

import streamlit as st


def cache(key, max_entries: int = 16, spinner: str | None = None):
    """The one cache decorator of the pages: ``fn(dataset, ...)`` is computed once per ``key(dataset, ...)`` and
    kept in Streamlit's process-wide ``cache_resource`` (shared by every session, at most ``max_entries``
    results, least recently used dropped first), showing ``spinner`` while it computes.

    ``key`` takes the function's arguments and returns a tuple of plain values: the content fingerprints of
    what the result depends on (the texts, the human files, the scores' files) and the options that change it,
    never the objects themselves, so two sessions share a result only when all of its inputs are identical.
    The arguments themselves are passed to ``fn`` unhashed.
    """

    def decorate(fn):
        def compute(key_value, _args, _kwargs):
            return fn(*_args, **_kwargs)

        # Streamlit names a cache by its function's module, name and source: each decorated function its own
        compute.__module__, compute.__qualname__ = fn.__module__, f"{fn.__qualname__}.cached"
        stored = st.cache_resource(max_entries=max_entries, show_spinner=spinner or False)(compute)

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            return stored((fn.__qualname__, *key(*args, **kwargs)), args, kwargs)

        cached.clear = stored.clear
        return cached

    return decorate


def text_fingerprint(lines) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return h.hexdigest()[:24]
