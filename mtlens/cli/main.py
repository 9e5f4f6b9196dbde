"""``python -m mtlens``: the parser made of every command group's parsers, and ``main`` with its exit codes.

Exit status: 0 done, 1 the gate found a regression, 2 bad input (one sentence on stderr, never a traceback),
3 a bug (still one sentence), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..core.errors import InputError
from ..core.names import terminal_safe
from ..service.neural_scoring import choose_exact, kept_workers
from ..version import __version__
from . import admin, gate, judges, ratings, scoring, sets
from .args import Parser
from .common import Exit

#: the exit status of a bug (0: done, 1: the gate found a regression, 2: bad input, 130: interrupted)
INTERNAL_ERROR = 3

#: the command groups, in the order ``--help`` lists their commands
GROUPS = (scoring, sets, ratings, gate, admin, judges)


def _parser_and_commands() -> tuple[argparse.ArgumentParser, dict]:
    p = Parser(prog="mtlens", description="Compare machine translation systems (sacrebleu-compatible scores).")
    p.add_argument("--version", action="version", version=f"mtlens {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    commands: dict = {}
    for group in GROUPS:
        commands.update(group.add_parsers(sub))
    return p, commands


def build_parser() -> argparse.ArgumentParser:
    """The whole command line's parser."""
    return _parser_and_commands()[0]


class Terminated(KeyboardInterrupt):
    """SIGTERM, read as Ctrl-C: a job this command runs is left cancelled with its work saved, not "running" for
    another 30 s until its heartbeat is stale (issue 58, D9)."""


def _stop_on_sigterm():
    """SIGTERM raises :class:`Terminated` while the command runs; returns the handler it replaced (None off the main
    thread, where no handler can be set)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum, frame):
        raise Terminated

    return signal.signal(signal.SIGTERM, stop)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser, commands = _parser_and_commands()
    args = parser.parse_args(argv)
    previous = _stop_on_sigterm()
    try:
        return _main(args, commands)
    finally:
        if previous is not None:
            import signal

            signal.signal(signal.SIGTERM, previous)


def _main(args, commands) -> int:
    if getattr(args, "exact", False):  # the mode is the environment's: a job this command starts inherits it
        choose_exact()
    try:
        with kept_workers():  # one neural worker per checkpoint for the whole command (mtlens.neural.kept)
            out = commands[args.command](args)
    except InputError as err:
        print(terminal_safe(f"mtlens: error: {err}"), file=sys.stderr)
        return 2
    except Exit as done:
        out, status = done.out, done.status
    except MemoryError:
        print("mtlens: error: out of memory; score fewer or shorter files at once", file=sys.stderr)
        return 2
    except Terminated:
        return 143
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # a bug: still one sentence, never a traceback; 3, so no CI reads it as a verdict
        print(terminal_safe(f"mtlens: internal error: {type(err).__name__}: {err}"), file=sys.stderr)
        return INTERNAL_ERROR
    else:
        status = 0
    try:
        sys.stdout.write(terminal_safe(out))  # the one rule for what a file or a flag put in the output (G10)
        sys.stdout.flush()
    except BrokenPipeError:
        return status
    return status
