"""The address is the view: the options and a page's choices read from a colleague's link once, and written back
as the page changes (what differs from the set's defaults only)."""

from __future__ import annotations

import streamlit as st

from ..core.options import Options, link_params, read_link

#: session key: sentences about what the session's link asked for and did not get (shown on every page)
LINK_NOTES_KEY = "mtlens_link_notes"


def options_from_link(opts: Options) -> Options:
    """``opts`` with the options the address names (a colleague's link, :func:`mtlens.core.options.read_link`);
    what it names and cannot be used is kept for :func:`link_notes`."""
    opts, notes = read_link(st.query_params, opts)
    for sentence in notes:
        add_note(sentence)
    return opts


def add_note(sentence: str) -> None:
    """Keep a sentence about what the link asked for and did not get (:func:`link_notes`)."""
    st.session_state[LINK_NOTES_KEY] = [*st.session_state.get(LINK_NOTES_KEY, []), sentence]


def link_notes() -> list[str]:
    """What this session's link asked for and did not get (ignored options, an empty set)."""
    return list(st.session_state.get(LINK_NOTES_KEY, []))


def options_to_link(opts: Options, baseline: Options) -> None:
    """Write the options that differ from ``baseline`` (the set's defaults) into the address, and remove
    the others: the link is the view."""
    to_link(**link_params(opts, baseline))


def from_link(
    choices: dict[str, tuple[str, list]],
    numbers: dict[str, tuple[str, int]] | None = None,
    lists: dict[str, tuple[str, list]] | None = None,
) -> None:
    """Set widget keys from the address once per session and page (a colleague's link), before the widgets
    are drawn. ``choices``: parameter -> (widget key, allowed values); ``numbers``: parameter -> (key,
    maximum); ``lists``: parameter -> (multiselect key, allowed values), comma-separated in the address.
    Values that do not fit are ignored. The page is named by its parameters' widget keys."""
    numbers, lists = numbers or {}, lists or {}
    page = ",".join(sorted(k for k, _ in [*choices.values(), *numbers.values(), *lists.values()]))
    flag = f"mtlens_link_applied:{page}"
    if st.session_state.get(flag) == st.query_params.get("set"):
        return
    st.session_state[flag] = st.query_params.get("set")
    for param, (key, allowed) in choices.items():
        value = st.query_params.get(param)
        match = next((a for a in allowed if str(a) == value), None)  # numbers in a selectbox: "0.01"
        if value is not None and match is not None:
            st.session_state[key] = match
    for param, (key, high) in numbers.items():
        value = st.query_params.get(param)
        if value is not None and value.isascii() and value.isdigit() and 1 <= int(value) <= high:
            st.session_state[key] = int(value)
    for param, (key, allowed) in lists.items():
        value = st.query_params.get(param)
        if value is not None:
            picked = [v for v in value.split(",") if v in allowed]
            if picked:
                st.session_state[key] = list(dict.fromkeys(picked))


def to_link(**values) -> None:
    """Write what the page shows into the address (None removes a parameter; a list is comma-separated)."""
    for k, v in values.items():
        if isinstance(v, list | tuple):
            v = ",".join(map(str, v))
        if v is None:
            st.query_params.pop(k, None)
        elif st.query_params.get(k) != str(v):
            st.query_params[k] = str(v)
