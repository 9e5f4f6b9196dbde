"""What a face hands to people: score tables as text, JSON, CSV, LaTeX and Excel
(:mod:`mtlens.exports.tables`), the standalone HTML report and the presentation's slides
(:mod:`mtlens.exports.html`), with the colours and figure settings they share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_names

if TYPE_CHECKING:  # the names as a type checker and an editor see them (tests/test_architecture.py)
    from ..exports.analyses import analysis_to_table, pair_to_table
    from ..exports.comparisons import (
        comparisons_to_csv,
        comparisons_to_dict,
        comparisons_to_latex,
        comparisons_to_table,
    )
    from ..exports.excel import result_sheets, to_xlsx
    from ..exports.figures import describe_figure, safe_figure
    from ..exports.history import history_figure, history_rows, history_slide, history_to_table
    from ..exports.html import (
        NOT_SIGNIFICANT_COLOUR,
        PLOTLY_CONFIG,
        SIGNIFICANT_COLOUR,
        SLIDE_CSS,
        build_html_report,
        p_text,
        presentation_slides,
    )
    from ..exports.tables import (
        dumps,
        frame_to_csv,
        groups_to_dict,
        groups_to_table,
        results_to_dict,
        set_labels,
        table_to_latex,
        to_csv,
        to_latex,
        to_table,
    )

_NAMES = {
    "NOT_SIGNIFICANT_COLOUR": "mtlens.exports.html:NOT_SIGNIFICANT_COLOUR",
    "PLOTLY_CONFIG": "mtlens.exports.html:PLOTLY_CONFIG",
    "SIGNIFICANT_COLOUR": "mtlens.exports.html:SIGNIFICANT_COLOUR",
    "SLIDE_CSS": "mtlens.exports.html:SLIDE_CSS",
    "analysis_to_table": "mtlens.exports.analyses:analysis_to_table",
    "build_html_report": "mtlens.exports.html:build_html_report",
    "comparisons_to_csv": "mtlens.exports.comparisons:comparisons_to_csv",
    "comparisons_to_dict": "mtlens.exports.comparisons:comparisons_to_dict",
    "comparisons_to_latex": "mtlens.exports.comparisons:comparisons_to_latex",
    "comparisons_to_table": "mtlens.exports.comparisons:comparisons_to_table",
    "dumps": "mtlens.exports.tables:dumps",
    "groups_to_dict": "mtlens.exports.tables:groups_to_dict",
    "groups_to_table": "mtlens.exports.tables:groups_to_table",
    "history_figure": "mtlens.exports.history:history_figure",
    "history_slide": "mtlens.exports.history:history_slide",
    "history_rows": "mtlens.exports.history:history_rows",
    "history_to_table": "mtlens.exports.history:history_to_table",
    "frame_to_csv": "mtlens.exports.tables:frame_to_csv",
    "p_text": "mtlens.exports.html:p_text",
    "pair_to_table": "mtlens.exports.analyses:pair_to_table",
    "presentation_slides": "mtlens.exports.html:presentation_slides",
    "result_sheets": "mtlens.exports.excel:result_sheets",
    "results_to_dict": "mtlens.exports.tables:results_to_dict",
    "safe_figure": "mtlens.exports.figures:safe_figure",
    "describe_figure": "mtlens.exports.figures:describe_figure",
    "set_labels": "mtlens.exports.tables:set_labels",
    "table_to_latex": "mtlens.exports.tables:table_to_latex",
    "to_csv": "mtlens.exports.tables:to_csv",
    "to_latex": "mtlens.exports.tables:to_latex",
    "to_table": "mtlens.exports.tables:to_table",
    "to_xlsx": "mtlens.exports.excel:to_xlsx",
}
__getattr__, __dir__ = lazy_names(__name__, _NAMES)
__all__ = sorted([*_NAMES])
__all__ += ["auto_set_name", "plain", "printable"]


def printable(text: str) -> str:
    """Text as a face prints it to a terminal or a CI log: every character that would act there escaped
    (:func:`mtlens.core.names.terminal_safe`, the one rule: issue 58, G10)."""
    from ..core.names import terminal_safe

    return terminal_safe(text)


def plain(text: str, limit: int = 80) -> str:
    """A name from a file or a flag as a sentence shows it (:func:`mtlens.core.names.shown`), cut to ``limit``."""
    from ..core.names import shown

    return shown(text, limit)


def auto_set_name(systems: int, pair: str, lines: int) -> str:
    """The name of a set nobody named (:func:`mtlens.core.names.auto_set_name`; runs added keep its count current)."""
    from ..core.names import auto_set_name as name

    return name(systems, pair, lines)
