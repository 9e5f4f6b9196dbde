"""Names a service module hands on, imported when first used (PEP 562 module ``__getattr__``).

The service is the faces' one gateway to the core, but a page that only reads a set must not pay for
scipy, pandas or plotly: each name is imported from its home module on first use, as the faces'
own imports inside functions did before the gateway existed.
"""

from __future__ import annotations

import importlib


def lazy_names(module_name: str, table: dict[str, str]):
    """``__getattr__`` and ``__dir__`` for a module that hands on ``table``: name -> ``"pkg.module:attr"``
    (an attribute of that module) or ``"pkg.module"`` (the module itself).

    >>> getattr_, _ = lazy_names("x", {"sqrt": "math:sqrt"})
    >>> getattr_("sqrt")(4.0)
    2.0
    """

    def __getattr__(name: str):
        where = table.get(name)
        if where is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        module, _, attr = where.partition(":")
        value = importlib.import_module(module)
        return getattr(value, attr) if attr else value

    def __dir__():
        return sorted(table)

    return __getattr__, __dir__
