"""Who the visitor of this session is, and the server's gate (docs/security.md).

Every page passes :func:`gate` before it reads anything (:func:`mtlens.ui.state.current` calls it):
a request whose ``Host`` is not a loopback name is refused when the server listens on loopback
(DNS rebinding), and, when the operator configured an OIDC login, a visitor who has not signed in
sees only the sign-in button.
"""

from __future__ import annotations

import secrets

import streamlit as st

from ..core import access
from ..core.access import OPERATOR, Visitor
from . import render

_KEY = "mtlens_visitor_key"


def login_configured() -> bool:
    """Whether ``.streamlit/secrets.toml`` has an ``[auth]`` section (Streamlit's OIDC login)."""
    try:
        return bool(st.secrets.load_if_toml_exists() and "auth" in st.secrets)
    except Exception:  # an unreadable secrets file is the operator's to fix; the server still starts
        return False


def address() -> str | None:
    return st.get_option("server.address")


def mode() -> str:
    """``local`` or ``owners`` (:func:`mtlens.core.access.mode`)."""
    return access.mode(address(), login_configured())


def gate() -> None:
    """Stop the page (one sentence) for a request to the wrong host, or a visitor who must sign in."""
    headers = st.context.headers
    host = headers.get("Host") if headers else None
    if headers and not access.host_allowed(host, address()):
        st.error(
            "This dashboard listens on this machine only and answers at http://localhost:"
            f"{st.get_option('server.port')}/ ; the address you used "
            f"({render.md(str(host)[:80])}) is not one of its names."
        )
        st.stop()
    if mode() == "owners" and login_configured() and not st.user.is_logged_in:
        st.info("This dashboard is shared by a team: sign in to see your sets and the links shared with you.")
        if st.button("Sign in", key="mtlens_login"):
            st.login()
        st.stop()


def visitor() -> Visitor:
    """The visitor of this session: everyone is the operator in local mode; else the signed-in user, else
    the holder of this browser's key (made on the first visit and kept in a cookie)."""
    if mode() == "local":
        return OPERATOR
    if login_configured() and st.user.is_logged_in:
        user = st.user
        label = str(user.get("email") or user.get("name") or "signed-in user")
        return access.user_visitor(str(user.get("iss") or ""), str(user.get("sub") or ""), label)
    key = st.session_state.get(_KEY)
    if key is None:
        cookie = str(dict(st.context.cookies or {}).get(access.COOKIE, ""))
        try:
            access.browser_visitor(cookie)
            key = cookie
        except Exception:
            key = secrets.token_hex(16)
        st.session_state[_KEY] = key
    if dict(st.context.cookies or {}).get(access.COOKIE) != key and not st.session_state.get("mtlens_cookie_set"):
        st.session_state["mtlens_cookie_set"] = True
        _set_cookie(key)
    return access.browser_visitor(key)


def _set_cookie(key: str) -> None:
    """Keep the browser's key in a first-party cookie (our own script, no user text in it: ``key`` is
    32 hex digits made here)."""
    assert len(key) == 32 and all(c in "0123456789abcdef" for c in key)
    st.html(
        f"<script>document.cookie = '{access.COOKIE}={key}; path=/; max-age=315360000; SameSite=Strict';</script>",
        unsafe_allow_javascript=True,
    )


def owner_id() -> str | None:
    """The owner recorded for a set this session saves (None: the operator)."""
    v = visitor()
    return None if v.admin else v.id
