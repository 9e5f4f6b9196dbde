"""The operator's commands: ``build`` (the kernels), ``dashboard``, ``access`` (project members) and ``models``."""

from __future__ import annotations

import argparse
import os
import sys

from ..core.errors import InputError
from ..service.inputs import build_corpus, read_files
from . import args as flags
from .args import Parser
from .common import open_store, warn, workspace


def add_parsers(sub) -> dict:
    sub.add_parser(
        "build", help="compile the kernels (TER, tBLEU, n-gram counts) now, so no first use waits (installation)"
    )
    db = sub.add_parser("dashboard", help="start the dashboard (on 127.0.0.1) and print the link to open")
    db.add_argument("--set", metavar="ID", help="open this saved set")
    db.add_argument("--ref", action="append", default=[], metavar="REF", help="save these files as a set and open it")
    db.add_argument("--sys", nargs="+", default=[], metavar="SYS")
    db.add_argument("--src", metavar="SRC")
    db.add_argument("-l", "--language-pair", metavar="SRC-TGT")
    db.add_argument("--name", help="name of the set saved from --ref/--sys")
    db.add_argument("--port", type=flags.port, default=8501, help="TCP port, 1-65535 (default 8501)")
    db.add_argument(
        "--address",
        default="127.0.0.1",
        help="listen address (default 127.0.0.1: this machine only); another address shares the dashboard with "
        "everyone who can reach it, each visitor owning their own sets (docs/security.md)",
    )
    flags.add_data_dir(db)
    ac = sub.add_parser("access", help="project members on a shared server (the operator's command)")
    ac_sub = ac.add_subparsers(dest="action", required=True, parser_class=Parser)
    for action, text in (("grant", "make a visitor a member of a project"), ("revoke", "remove a member")):
        a = ac_sub.add_parser(action, help=text)
        a.add_argument("project", metavar="PROJECT")
        a.add_argument(
            "visitor", metavar="VISITOR", help="the visitor id the dashboard shows (user:... or browser:...)"
        )
        flags.add_data_dir(a)
    a = ac_sub.add_parser("list", help="every project's members")
    flags.add_data_dir(a)
    mo = sub.add_parser("models", help="neural models (COMET, CometKiwi, xCOMET, MetricX-24) from local checkpoints")
    mo_sub = mo.add_subparsers(dest="action", required=True, parser_class=Parser)
    a = mo_sub.add_parser(
        "add",
        help="register a local checkpoint; then score with --metrics comet:NAME (MetricX: metricx:NAME, metricx-qe:NAME)",
    )
    a.add_argument(
        "name", metavar="NAME", help="the name --metrics uses: comet:NAME, or metricx:NAME and metricx-qe:NAME"
    )
    a.add_argument(
        "path",
        metavar="PATH",
        help="a COMET model folder (hparams.yaml, checkpoints/model.ckpt) or its .ckpt; or a MetricX-24 folder "
        "(config.json naming MT5ForRegression, model.safetensors or pytorch_model.bin)",
    )
    a.add_argument(
        "--tokenizer",
        metavar="FOLDER",
        help="MetricX: the mT5 tokenizer when the checkpoint's folder has none: its folder, or a model id in the local "
        "Hugging Face cache (google/mt5-xl, as Google's runner takes it; nothing is downloaded)",
    )
    flags.add_data_dir(a)
    a = mo_sub.add_parser("list", help="the registered models")
    flags.add_data_dir(a)
    a = mo_sub.add_parser(
        "remove", aliases=["delete"], help="forget a model (its cached scores stay with its checkpoint digest)"
    )
    a.add_argument("name", metavar="NAME")
    flags.add_data_dir(a)
    return {"build": run_build, "dashboard": run_dashboard, "access": run_access, "models": run_models}


def run_access(args: argparse.Namespace) -> str:
    ws = workspace(args)
    if args.action == "grant":
        ws.grant(args.project, args.visitor)
        return f"{args.visitor} is a member of '{args.project}'\n"
    if args.action == "revoke":
        ws.revoke(args.project, args.visitor)
        return f"{args.visitor} is no longer a member of '{args.project}'\n"
    rows = ws.members()
    return "".join(f"{p}\t{m}\n" for p, m in rows) or "no project has members yet\n"


def run_models(args: argparse.Namespace) -> str:
    room = workspace(args)
    if args.action == "add":
        return room.add_model(args.name, args.path, args.tokenizer).registered
    if args.action in ("remove", "delete"):  # one set of verbs for every scorer (delete: the judges' old verb)
        room.remove_model(args.name)
        return f"removed {args.name}\n"
    rows = [f"{m.metric}\t{m.kind}\t{','.join(m.inputs)}\t{m.digest[:12]}\t{m.path}" for m in room.models()]
    return "\n".join(rows) + "\n" if rows else "no model is registered (python -m mtlens models add NAME PATH)\n"


def run_build(args: argparse.Namespace) -> str:
    import time

    from ..service.results import build_kernels

    start = time.perf_counter()
    built = build_kernels()
    how = f"{len(built)} built ahead of time" if built else "numba's, cached (no C compiler for ahead-of-time builds)"
    return f"mtlens: kernels ready ({how}) in {time.perf_counter() - start:.1f} s\n"


def run_dashboard(args: argparse.Namespace) -> str:
    from ..core.access import is_loopback
    from ..core.paths import app_root
    from ..service.neural_scoring import check_ray

    root = app_root()  # a checkout's, or the installed package's share/mtlens (issue 51, D4)
    app = root / "app.py"
    target = open_store(args)
    set_id = args.set
    if args.ref or args.sys:
        if set_id:
            raise InputError("give either --set ID or --ref/--sys files, not both")
        from ..service.evaluation import evaluate, save

        source = read_files([args.src])[0] if args.src else None
        ev = evaluate(build_corpus(read_files(args.ref), read_files(args.sys), source), args.language_pair)
        set_id = save(target, ev, args.name or "from the command line").set_id
    elif set_id:
        target.load(set_id)  # a wrong id is said now, not in the browser
    target.check()  # an unreachable database too
    check_ray()  # and an unreachable Ray cluster (MTLENS_RAY_ADDRESS)
    link = f"http://{args.address}:{args.port}/" + (f"?set={set_id}" if set_id else "")
    print(f"mtlens dashboard: open {link}", flush=True)
    if set_id:
        from ..service.rankings import quick_link

        quick = f"http://{args.address}:{args.port}/{quick_link({'set': set_id})}"
        print(f"mtlens dashboard: the set's quick view (its Rankings as plain HTML) {quick}", flush=True)
    if not is_loopback(args.address):
        warn(
            f"the dashboard listens on {args.address}, not only on this machine: everyone who can "
            "reach that address can upload files, read any set whose link they have, and create sets of their own "
            "(each visitor owns what they upload; see docs/security.md for a login and a reverse proxy)"
        )
        sys.stderr.flush()
    env = dict(os.environ, **target.child_env())
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app),
        "--server.address",
        args.address,
        "--server.port",
        str(args.port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]
    sys.stdout.flush()
    os.chdir(root)  # Streamlit reads .streamlit/config.toml (loopback, no error details, the page list) from here
    os.execve(sys.executable, cmd, env)  # streamlit replaces this process: stopping it stops the server
    return ""  # pragma: no cover
