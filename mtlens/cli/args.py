"""The command line's shared argument groups: every flag that several commands take is declared here once
(the data files, the workspace, the metric options from :data:`mtlens.core.options.SPECS`, the test settings,
the output format), so a flag reads the same in every command."""

from __future__ import annotations

import argparse

from ..analysis.policy import ALPHA, MAX_SAMPLES, SEED
from ..core.language import TOKENIZER_RULE
from ..core.options import DEFAULTS, SPECS
from ..service.results import metric_names


class Parser(argparse.ArgumentParser):
    """argparse with mtlens's errors: one sentence, exit status 2, no usage dump."""

    def error(self, message):
        self.exit(2, f"mtlens: error: {message} (see '{self.prog} --help')\n")


def add_data_args(s: argparse.ArgumentParser) -> None:
    """The data of a scoring command: files (``--ref``/``--sys``/``--src``, ``--data``), or a saved set."""
    s.add_argument("--ref", action="append", default=[], metavar="REF", help="a reference file (repeat for several)")
    s.add_argument("--sys", nargs="+", default=[], metavar="SYS", help="system output files (names: file stems)")
    s.add_argument("--src", metavar="SRC", help="the source file (optional, checked for line count)")
    s.add_argument(
        "--data", metavar="FILE", help="one TSV (with header) or WMT XML file holding references and systems"
    )
    s.add_argument("--set", metavar="ID", help="a saved set of the workspace instead of files (see 'list')")
    add_docs(
        s,
        "every line's document (one 'doc_id' or 'doc_id<TAB>domain' per line), for --by and --resample "
        "documents; WMT XML (--data) carries them already",
    )
    add_data_dir(s)
    add_language_pair(
        s,
        f"e.g. en-zh: word BLEU tokenizer by target ({TOKENIZER_RULE}), as "
        "sacrebleu's -l; without it the target is detected from the references' script",
    )


def add_docs(s: argparse.ArgumentParser, text: str = "every line's document ('doc_id[<TAB>domain]' per line)") -> None:
    s.add_argument("--docs", metavar="FILE", help=text)
    s.add_argument(
        "--docs-order",
        choices=["id-domain", "domain-id"],
        help="the order of --docs's lines: 'doc_id<TAB>domain' (id-domain), or mt-metrics-eval's 'domain doc_id' "
        "(domain-id); default: domain-id for a .docs file, else id-domain",
    )


def add_language_pair(s: argparse.ArgumentParser, text: str = "e.g. en-de (default: detect the target)") -> None:
    s.add_argument("-l", "--language-pair", metavar="SRC-TGT", help=text)


def add_data_dir(s: argparse.ArgumentParser) -> None:
    """Where the workspace is: a folder, or a store's address."""
    s.add_argument(
        "--data-dir",
        metavar="DIR",
        help="the workspace's folder (default: $MTLENS_DATA_DIR or the per-user data folder)",
    )
    s.add_argument(
        "--store",
        metavar="URL|DIR",
        help="the workspace's store: a folder (SQLite) or postgresql://user@host/db (default: $MTLENS_STORE, else "
        "--data-dir)",
    )


def add_exact_flag(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--exact",
        action="store_true",
        help="neural metrics (comet:NAME) in comet-score's own batches, its numbers bit for bit; default: the "
        "faster shared-work mode, equal to one half-precision step (docs/decisions.md)",
    )


def add_format(s: argparse.ArgumentParser, choices=("table", "json"), default: str | None = None) -> None:
    s.add_argument("--format", default=default or choices[0], choices=list(choices))


def add_metric_args(s: argparse.ArgumentParser, default_metrics: str) -> None:
    """The metrics and their options, one flag per field of :class:`~mtlens.core.options.Options` (flags, help
    and defaults from :data:`mtlens.core.options.SPECS`; bounds are checked when the Options are built)."""
    s.add_argument(
        "--metrics",
        default=None,
        help=f"comma-separated: {','.join(metric_names())}, comet:NAME for a registered model (see 'models'), and the "
        f"names of imported metrics (default {default_metrics}, every --scores metric and a set's computed ones)",
    )
    s.set_defaults(default_metrics=default_metrics)
    add_exact_flag(s)
    s.add_argument(
        "--mqm-weights",
        metavar="JSON",
        help="MQM weights over Google's (major 5, minor 1, minor fluency/punctuation 0.1, non-translation 25), e.g. "
        '\'{"major": 10, "minor:fluency/punctuation": 0.5}\'',
    )
    s.add_argument(
        "--scores",
        action="append",
        default=[],
        metavar="FILE",
        help="segment scores of another metric (comet-score JSON or text, MetricX JSONL, mt-metrics-eval "
        ".seg.score, TSV with system/line columns); repeat for several",
    )
    add_terms(s)
    add_option_flags(s)
    add_format(s, ("table", "json", "csv", "latex"))


def add_terms(s: argparse.ArgumentParser) -> None:
    """A glossary (issue 60): the file, a JSONL glossary's key, and the match."""
    from ..service.evaluation import TERMS_KEY, TERMS_MATCHES

    s.add_argument(
        "--terms",
        metavar="FILE",
        help="a glossary for --metrics term,term-consistency: a TSV of source<TAB>target (found wherever the source "
        "term occurs), or JSONL with one object per line of the set (WMT25's terminology files)",
    )
    s.add_argument(
        "--terms-key",
        metavar="KEY",
        default=None,
        help=f"a JSONL glossary's key of each line's terms (default {TERMS_KEY})",
    )
    s.add_argument(
        "--terms-match",
        default=TERMS_MATCHES[0],
        choices=list(TERMS_MATCHES),
        help="how a term is found: lower-cased surface forms",
    )


def add_option_flags(s: argparse.ArgumentParser) -> None:
    """One flag per field of :class:`Options` (flags, help and defaults from :data:`mtlens.core.options.SPECS`)."""
    for name, spec in SPECS.items():
        default = getattr(DEFAULTS, name)
        flag = spec.flag(name)
        # every default is None here: a value the user did not give is filled in by the language
        # defaults, then by Options' own defaults (options_from_args)
        if spec.kind == "bool":
            s.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=spec.help)
        elif spec.kind == "choice":
            s.add_argument(flag, dest=name, default=None, choices=spec.choices, help=f"{spec.help} (default {default})")
        else:
            s.add_argument(
                flag,
                dest=name,
                type=int if spec.kind == "int" else float,
                default=None,
                metavar="N" if spec.kind == "int" else "X",
                help=f"{spec.help} (default {default})",
            )


def add_alpha(s: argparse.ArgumentParser) -> None:
    """The significance level (the statistics policy's default, :mod:`mtlens.analysis.policy`)."""
    s.add_argument("--alpha", type=float, default=ALPHA, help=f"significance level after Holm's correction ({ALPHA})")


def add_seed(s: argparse.ArgumentParser, text: str = "random seed") -> None:
    s.add_argument("--seed", type=int, default=SEED, help=f"{text} (default {SEED}; 0 is a seed)")


def add_resamples(s: argparse.ArgumentParser, text: str) -> None:
    s.add_argument("--n", type=int, default=None, help=f"{text}; at most {MAX_SAMPLES:,}")


def add_resample(s: argparse.ArgumentParser, text: str) -> None:
    """What a test resamples: segments, or whole documents."""
    s.add_argument("--resample", default="segments", choices=["segments", "documents"], help=text)


def port(text: str) -> int:
    """A TCP port given on the command line."""
    try:
        number = int(text)
    except ValueError:
        number = -1
    if not 1 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"the port must be a number from 1 to 65535, not '{text}'")
    return number
