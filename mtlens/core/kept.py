"""A small bounded cache for results kept in a process (the one LRU the pages and the service share)."""

from __future__ import annotations

import threading
from collections import OrderedDict


class BoundedCache:
    """A small process-wide LRU keyed by what its results are computed from (thread-safe): at most ``max_entries``,
    the least recently used leaving first. The pages use it where a computation reports progress through Streamlit
    elements, which ``st.cache_*`` cannot replay; the quick view keeps its tests in one."""

    def __init__(self, max_entries: int):
        self.max_entries = max_entries
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key, fn):
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = fn()
        with self._lock:
            self._data[key] = value
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)
        return value

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._data

    def clear(self):
        with self._lock:
            self._data.clear()
