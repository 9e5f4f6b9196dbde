"""Exports: score tables (JSON, CSV, LaTeX, text) and the standalone HTML report."""
