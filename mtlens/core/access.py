"""Who may do what with saved sets (docs/security.md).

Two modes, decided once per server:

- ``local`` (the default when the server listens on loopback and no login is configured): one person
  uses the dashboard on their own machine; they own everything and nothing asks who they are.
- ``owners`` (the default when the server listens on another address or a login is configured;
  ``MTLENS_ACCESS=owners`` forces it): every set belongs to the visitor who made it. A visitor is the
  user of the OIDC login when the operator configured one (``user:<issuer-subject digest>``), else the
  holder of a random key kept in their browser (``browser:<digest>``). The key itself never leaves the
  browser and the server's memory: the store keeps only its digest. A link (``?set=<id>``) lets anyone
  read a set; only its owner, or the operator on the command line, may rename, re-project, add to or
  delete it. The set list shows a visitor their own sets and those of the projects the operator made
  them a member of (``python -m mtlens access grant PROJECT VISITOR``).

Example:
    >>> v = browser_visitor("0f" * 16)
    >>> v.id.startswith("browser:"), v.admin, len(v.id)
    (True, False, 40)
    >>> OPERATOR.admin
    True
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
from dataclasses import dataclass

from .errors import InputError

MODES = ("local", "owners")
#: the name of the browser cookie that holds a visitor's key (random, 128 bits as hex)
COOKIE = "mtlens_visitor"
_KEY = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True)
class Visitor:
    """Who is asking.

    Attributes:
        id: ``user:...`` (OIDC login), ``browser:...`` (a browser's key), or ``operator``.
        label: what the page shows (the login's name or e-mail; "this browser").
        admin: may change every set (the operator; everyone in local mode).
    """

    id: str
    label: str
    admin: bool = False


OPERATOR = Visitor("operator", "the operator", admin=True)


def is_operator(visitor: Visitor | None) -> bool:
    """Whether ``visitor`` acts as the operator: the command line (None) or an administrator (the one rule every floor
    that grants the operator's rights reads)."""
    return visitor is None or bool(getattr(visitor, "admin", False))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def browser_visitor(key: str) -> Visitor:
    """The visitor holding a browser key (only its digest is kept)."""
    if not _KEY.match(key or ""):
        raise InputError("that browser key is not one mtlens made")
    return Visitor("browser:" + _digest("browser\0" + key), "this browser")


def user_visitor(issuer: str, subject: str, label: str) -> Visitor:
    """The visitor of an OIDC login: its issuer and subject identify it (a display name may repeat)."""
    return Visitor("user:" + _digest(f"oidc\0{issuer}\0{subject}"), label or "signed-in user")


def is_loopback(address: str | None) -> bool:
    """Whether a listen address is this machine only (``127.x``, ``::1``, ``localhost``).

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0"), is_loopback(None)
    (True, True, False, False)
    """
    if not address:
        return False  # no address: every interface
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def mode(address: str | None, login_configured: bool) -> str:
    """The access mode: ``MTLENS_ACCESS`` when set, else ``local`` on loopback without a login, else
    ``owners``."""
    forced = os.environ.get("MTLENS_ACCESS", "").strip().lower()
    if forced:
        if forced not in MODES:
            raise InputError(f"MTLENS_ACCESS={forced!r} is not one of {', '.join(MODES)}")
        return forced
    return "local" if is_loopback(address) and not login_configured else "owners"


_LOCAL_HOSTS = {"localhost", "127.0.0.1", "[::1]", "::1"}
#: a Host header as RFC 9110 has it: a name or an IPv4 address, or an IPv6 address in brackets, and an
#: optional port; nothing else
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9.-]+|::1)(?::[0-9]{1,5})?")


def host_allowed(host_header: str | None, address: str | None) -> bool:
    """DNS-rebinding guard: a server bound to loopback answers only requests addressed to a loopback name
    (``Host: localhost:8501``, ``127.0.0.1:8501``, ``[::1]:8501``); a server bound elsewhere leaves this to
    its reverse proxy (docs/security.md).

    >>> host_allowed("localhost:8501", "127.0.0.1"), host_allowed("evil.example:8501", "127.0.0.1")
    (True, False)
    >>> host_allowed("evil.example", "0.0.0.0")
    True
    """
    if not is_loopback(address):
        return True
    if not host_header:
        return False
    m = _HOST.fullmatch(host_header.strip().lower())
    if m is None:  # anything but name[:port] ("localhost:8501@evil.example", "a b", "[::1")
        return False
    host = m.group(1)
    if host in _LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
