"""What the store calls things: the bundled sample's id, a new set's id, and the one rule for a name it keeps."""

from __future__ import annotations

import secrets

from ..core import names

#: the bundled sample's id: a read-only set of every workspace
SAMPLE_ID = "sample"


def new_id() -> str:
    """128 random bits as 32 hex digits (URL-safe, and never taken for a command-line option)."""
    return secrets.token_hex(16)


def clean_name(name: str) -> str:
    """A set's (or project's) name as the store keeps it: the one name rule (:mod:`mtlens.core.names`), cut to
    200 characters."""
    return names.clean_name(name, "set", cut=True, empty="a set needs a name")
