"""Where the dashboard's own files are (``app.py``, ``pages/``, ``.streamlit/config.toml``, ``sample_data/``): the
root of a checkout, or, for an installed package, the ``share/mtlens`` folder the wheel installs them to (issue 51,
D4: an installed package's ``mtlens dashboard`` refused to start). One place decides; the faces ask here."""

from __future__ import annotations

import site
import sys
import sysconfig
from pathlib import Path

from .errors import InputError

#: the folder above the package: a checkout's root when it holds app.py
CHECKOUT = Path(__file__).resolve().parents[2]


def _candidates() -> list[Path]:
    bases = [sysconfig.get_path("data"), sys.prefix, getattr(site, "USER_BASE", None) or ""]
    return [CHECKOUT, *(Path(b) / "share" / "mtlens" for b in dict.fromkeys(bases) if b)]


def find_app_root() -> Path | None:
    """The first folder holding the dashboard's ``app.py``: the checkout, else the installed ``share/mtlens``."""
    return next((p for p in _candidates() if (p / "app.py").is_file()), None)


def app_root() -> Path:
    """:func:`find_app_root`, or one sentence when neither a checkout nor an installed package holds the files."""
    found = find_app_root()
    if found is None:
        raise InputError(
            "the dashboard's files (app.py, pages/, sample_data/) are neither beside the mtlens package (a checkout) "
            f"nor installed with it ({Path(sys.prefix) / 'share' / 'mtlens'}); reinstall mtlens"
        )
    return found
