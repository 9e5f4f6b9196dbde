"""Secrets in addresses never reach a message: a store's PostgreSQL URL (``postgresql://user:PASS@host/db``, or
libpq's ``?password=PASS``) and a Ray cluster's (``ray://user:PASS@host:port``) are shown redacted, and a driver's
own error text is scrubbed of every secret the address holds before it becomes a sentence (issue 51).

The redaction errs on the side of hiding: everything between the scheme and the *last* ``@`` of the address is
taken as its user information (libpq would read a password holding ``@``, ``/`` or a space there), and the value
of every ``password``-like query parameter is hidden, whatever its case.

Example:
    >>> redact("postgresql://u:Pa@ss/w d@127.0.0.1:5432/db?sslmode=require&password=x")
    'postgresql://u:***@127.0.0.1:5432/db?sslmode=require&password=***'
    >>> scrub("could not parse 'postgresql://u:s3cret@h/db': bad port", "postgresql://u:s3cret@h/db")
    "could not parse 'postgresql://u:***@h/db': bad port"
"""

from __future__ import annotations

import re
from urllib.parse import unquote

#: query parameters whose value is a secret (libpq's ``password``, ``sslpassword``, ``sslkey`` is a path)
SECRET_PARAMS = ("password", "sslpassword", "passfile")
_PARAM = re.compile(r"([?&;](?:" + "|".join(SECRET_PARAMS) + r")=)([^&;#]*)", re.IGNORECASE)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)(.*)$", re.DOTALL)
HIDDEN = "***"


def _userinfo(url: str) -> tuple[str, str, str] | None:
    """(scheme, user information, the rest after its ``@``), or None when the address has no user information."""
    m = _SCHEME.match(url)
    if not m:
        return None
    scheme, rest = m.groups()
    query = rest.find("?")
    at = rest.rfind("@", 0, query if query >= 0 else len(rest))
    if at < 0:
        return None
    return scheme, rest[:at], rest[at + 1 :]


def check_one_at(url: str) -> None:
    """Refuse an address whose user information holds an ``@`` (more than one ``@`` before its host): drivers read
    such an address differently (libpq took ``Pass@127.0.0.1`` as the host of ``postgresql://u:Wr0ng@Pass@127.0.0.1``
    and printed it, issue 58, G11), so it is one sentence naming the fix, and nothing between ``//`` and the last
    ``@`` is shown.

    >>> check_one_at("postgresql://u:p%40ss@127.0.0.1/db")
    >>> check_one_at("postgresql://u:Wr0ng@Pass@127.0.0.1:5432/db")
    Traceback (most recent call last):
    ...
    mtlens.core.errors.InputError: the address 'postgresql://***@127.0.0.1:5432/db' has more than one '@' before its host: write an '@' of the user name or password as %40
    """
    from .errors import InputError

    info = _userinfo(url)
    if info is not None and "@" in info[1]:
        scheme, _, rest = info
        raise InputError(
            f"the address '{scheme}{HIDDEN}@{_PARAM.sub(lambda m: m.group(1) + HIDDEN, rest)}' has more than one '@' "
            "before its host: write an '@' of the user name or password as %40"
        )


def secrets_of(url: str) -> list[str]:
    """The secrets an address holds (its password, raw and decoded, and secret query values), longest first."""
    found = []
    info = _userinfo(url)
    if info is not None and ":" in info[1]:
        found.append(info[1].split(":", 1)[1])
    found += [m.group(2) for m in _PARAM.finditer(url)]
    out = {s for s in found if s}
    out |= {unquote(s) for s in out}
    return sorted(out, key=len, reverse=True)


def redact(url: str) -> str:
    """The address without its secrets: the password of its user information and of its query."""
    info = _userinfo(url)
    if info is not None:
        scheme, user, rest = info
        name = user.split(":", 1)[0]
        url = f"{scheme}{name}:{HIDDEN}@{rest}" if ":" in user else f"{scheme}{name}@{rest}"
    return _PARAM.sub(lambda m: m.group(1) + HIDDEN, url)


def scrub(text: str, url: str) -> str:
    """``text`` (a driver's message) with the address shown redacted and every secret of it hidden, wherever the
    driver quoted it."""
    text = text.replace(url, redact(url))
    for secret in secrets_of(url):
        text = text.replace(secret, HIDDEN)
    return text
