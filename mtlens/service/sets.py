"""The workspace as the faces see it: the store of saved sets (:mod:`mtlens.storage`), the bundled
sample's id, pins, and who may do what (:mod:`mtlens.core.access`)."""

from __future__ import annotations

from ..core.access import (
    COOKIE,
    OPERATOR,
    Visitor,
    browser_visitor,
    host_allowed,
    is_loopback,
    mode,
    user_visitor,
)
from ..storage.store import SAMPLE_ID, Pin, Store
from ..version import __version__

__all__ = [
    "COOKIE",
    "OPERATOR",
    "SAMPLE_ID",
    "Pin",
    "Store",
    "Visitor",
    "__version__",
    "browser_visitor",
    "host_allowed",
    "is_loopback",
    "mode",
    "user_visitor",
]
