"""The command line: ``python -m mtlens score|compare|analyze|report|gate|add|history|import|...`` (a contract:
keep its options stable). One module per command group, on the service (the faces decide nothing the
service should):

- :mod:`.args`: the argument groups several commands share (data, workspace, metric options, test settings);
- :mod:`.common`: the workspace, loading and scoring, and how a command speaks on stderr;
- :mod:`.scoring` (score, compare, analyze, report), :mod:`.sets` (import, list, delete, add, history,
  store copy), :mod:`.gate`, :mod:`.admin` (build, dashboard, access, models);
- :mod:`.main`: the parser and ``main`` with its exit codes.

Errors are printed to stderr as one sentence and the exit status is 2; no traceback.
"""

from __future__ import annotations

from .common import options_from_args
from .main import INTERNAL_ERROR, build_parser, main

__all__ = ["INTERNAL_ERROR", "build_parser", "main", "options_from_args"]
