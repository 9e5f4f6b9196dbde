"""Numbers in every face through the one decimals rule (issue 59): no face, service or export writes a number with
decimals of its own. A score or a statistic is shown with :func:`mtlens.exports.numbers.decimals` (``shown``,
``hover_format``), a share with ``share``, money and a change in percent with :mod:`mtlens.core.amounts`. What is not a
result keeps its own format, each named below with what it is."""

from __future__ import annotations

import ast
import re

from ..conftest import ROOT

PKG = ROOT / "mtlens"
#: a format specification with a written precision: ``.2f``, ``6.2f``, ``.0%``, ``.1e``
PRECISION = re.compile(r"\.\d+[fe%]")
#: the places that write a number that is not a result, (file, expression) -> what the number is
NOT_RESULTS = {
    ("mtlens/cli/admin.py", "time.perf_counter() - start"): "a duration in seconds (the kernels' build)",
    ("mtlens/cli/scoring.py", "len(html) / 1000000.0"): "a file's size in MB",
    ("mtlens/ui/screens/sentences.py", "opts.tbleu_epsilon"): "an option's value, in its steps of 0.05",
    ("mtlens/exports/analyses.py", "e"): "the tBLEU sweep's grid of epsilon, in its steps",
    ("mtlens/service/jobs.py", "p.rate"): "a job's speed in segments per second",
}


def _written_precisions(path):
    """``(expression, spec)`` of every f-string field with a written precision, and plotly templates' ``%{x:.1f}``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(v.value for v in node.format_spec.values if isinstance(v, ast.Constant))
            if PRECISION.search(spec):
                yield ast.unparse(node.value), spec
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for m in re.finditer(r"%\{([^}:]*):(" + PRECISION.pattern + r")\}", node.value):
                yield f"plotly {m.group(1)}", m.group(2)


def _faces_services_and_exports():
    for folder in ("cli", "ui", "service", "exports"):
        for path in sorted((PKG / folder).rglob("*.py")):
            if path.name != "numbers.py":
                yield path


def test_no_face_service_or_export_writes_decimals_of_its_own():
    found = {
        (path.relative_to(ROOT).as_posix(), expr): spec
        for path in _faces_services_and_exports()
        for expr, spec in _written_precisions(path)
    }
    assert set(found) - set(NOT_RESULTS) == set(), {k: v for k, v in found.items() if k not in NOT_RESULTS}
    assert set(NOT_RESULTS) <= set(found)  # a place named here and gone leaves the list


def test_the_scan_sees_a_written_precision(tmp_path):
    """The scan above finds an f-string's ``:.2f``, a width with a precision, a percent and a plotly template."""
    probe = tmp_path / "probe.py"
    probe.write_text('a = f"{r:.2f} {x:>6.1f} {s:.0%}"\nb = "p = %{z:.3f}"\nc = f"{n:,} {t:g} {w:>6}"\n')
    assert sorted(_written_precisions(probe)) == [("plotly z", ".3f"), ("r", ".2f"), ("s", ".0%"), ("x", ">6.1f")]


def test_money_is_written_by_one_rule_everywhere():
    """Every sentence that says a cost in US dollars, in any floor, writes it with ``usd`` (four decimals, a judge's
    cost of a few requests being a fraction of a cent); a table's cost column gets the same four."""
    from mtlens.core.amounts import MONEY_DECIMALS, usd
    from mtlens.exports.numbers import decimals

    written = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in PKG.rglob("*.py")
        if path.name != "amounts.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"US\$ \{", line)
    ]
    assert written == []
    assert usd(0.00421) == "US$ 0.0042" and decimals("cost (US$)", [0.00421]) == MONEY_DECIMALS == 4
