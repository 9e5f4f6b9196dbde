"""How amounts that are not scores are written, one rule each (issue 59): money and a change in percent. Scores and
statistics follow the decimals rule (:mod:`mtlens.exports.numbers`, which reads :data:`MONEY_DECIMALS` for a table's
cost columns); both are written here once, below every floor that says a cost.
"""

from __future__ import annotations

#: decimals of US dollars: a judge's cost of a few requests is a fraction of a cent
MONEY_DECIMALS = 4


def usd(value: float) -> str:
    """An amount of US dollars as every sentence says it.

    >>> usd(0.00421), usd(12)
    ('US$ 0.0042', 'US$ 12.0000')
    """
    return f"US$ {float(value):.{MONEY_DECIMALS}f}"


def percent_change(value: float) -> str:
    """A relative change in percent, signed, one decimal (``+12.5%``).

    >>> percent_change(12.54), percent_change(-3)
    ('+12.5%', '-3.0%')
    """
    return f"{float(value):+.1f}%"
