"""Dashboard speed (streamlit AppTest, a new server process each) on ../shared/data/wmt/en-de:
8 systems x 1002 lines x 3 references, nothing cached.

Measures (issue 23, goal 1: the whole Rankings page within 3 s, its first columns within 1 s):
- upload -> home summary;
- Rankings with every default metric (BLEU, character BLEU, chrF, chrF++, TER, NIST, tBLEU) and bootstrap
  intervals: the first columns (the first group of metrics, drawn as soon as it is scored) and the
  whole page, timed from the click;
  - "after the warm-up": the server's start-up work (kernels, the scoring worker) finished before the
    click, as it does while a user picks the files (it takes about 3.5 s after the server starts);
  - "at once": Rankings clicked the moment the upload is processed (the warm-up still running);
- switching the inspected sentence on the Sentences page.
Peers in the same run: sacrebleu 2.6.0 computing BLEU and chrF alone (two of the page's seven metrics),
references prepared once; and sacrebleu's command line computing BLEU, chrF and TER of every system, one whole
process (issue 62's mark: the first whole Rankings page on a fresh server in at most half that time).

    python benchmarks/bench_dashboard.py [--pair en-de] [--metrics bleu,chrf,ter] [--same-ter]

``--pair``: any folder of ../shared/data/wmt, e.g. en-zh. ``--metrics``: the Rankings page opened with these metrics
only (a link that names them, as a colleague's link would), e.g. the three sacrebleu's command line computes.
``--same-ter``: also sacrebleu's command line with the TER the page computes (for a Chinese or Japanese target,
tercom's normalisation and Asian handling: sacrebleu's pure-Python TER then takes minutes per system).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, pair, read, sacrebleu_seconds

sys.path.insert(0, str(ROOT))

GOAL_PAGE, GOAL_FIRST = 3.0, 1.0


def one_server(wait: bool, name: str = "en-de", chosen: str = "") -> dict:
    """In this (new) process: a server, an upload, Rankings (with the metrics ``chosen`` names, comma-separated, if
    any); the times as a dict."""
    from streamlit.testing.v1 import AppTest

    from mtlens.runtime import engine
    from mtlens.ui import cached

    first = []
    original = cached.metric_results

    def timed(*args, **kwargs):  # the first group's table is drawn when this returns
        out = original(*args, **kwargs)
        first.append(time.perf_counter())
        return out

    cached.metric_results = timed
    ref_paths, sys_paths = pair(name)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run()
    t = time.perf_counter()
    at.file_uploader(key="up_refs").set_value([(p.name, p.read_bytes(), "text/plain") for p in ref_paths])
    at.file_uploader(key="up_systems").set_value([(p.name, p.read_bytes(), "text/plain") for p in sys_paths])
    at.run()
    t_upload = time.perf_counter() - t
    assert not at.exception, at.exception
    if wait:
        engine.WARMED.wait(120)
    first.clear()
    if chosen:
        from mtlens.service.rankings import METRICS_PARAM

        at.query_params[METRICS_PARAM] = chosen
    t = time.perf_counter()
    at.switch_page("pages/1_Rankings.py").run()
    t_rank = time.perf_counter() - t
    assert not at.exception, at.exception
    metrics = [c for c in at.dataframe[0].value.columns if c not in ("rank", "system") and not c.startswith("cluster")]
    at.switch_page("pages/2_Sentences.py").run()
    times = []
    for line in (10, 500, 999 if len(read(ref_paths[0])) > 999 else 3, 37, 640):
        t0 = time.perf_counter()
        at.number_input(key="sent_line_input").set_value(line).run()
        times.append(time.perf_counter() - t0)
    assert not at.exception, at.exception
    return {
        "upload": t_upload,
        "first": first[0] - t,
        "page": t_rank,
        "metrics": metrics,
        "switch": statistics.median(times),
    }


def sacrebleu_bleu_chrf(name: str) -> float:
    ref_paths, sys_paths = pair(name)
    return sacrebleu_seconds([read(p) for p in ref_paths], [read(p) for p in sys_paths])


def page_ter_flags(name: str) -> list[str]:
    """sacrebleu's flags for the TER the page computes for this pair (mtlens's language defaults: tercom's
    normalisation and Asian handling for a Chinese or Japanese target, docs/decisions.md, "Language"); none for
    the others, whose TER is sacrebleu's default."""
    from mtlens.core.language import language_defaults, parse_pair

    d = language_defaults(parse_pair(name)[1])
    return [flag for key, flag in (("ter_normalized", "--ter-normalized"), ("ter_asian_support", "--ter-asian-support"))
            if d[key]]  # fmt: skip


def sacrebleu_cli(name: str, flags: list[str] = ()) -> float:
    """sacrebleu's command line, BLEU + chrF + TER of every system in one whole process (its language pair given,
    so BLEU tokenises as for the target language, as the dashboard does); ``flags``: TER's options."""
    ref_paths, sys_paths = pair(name)
    exe = str(Path(sys.executable).with_name("sacrebleu"))
    cmd = [exe, *map(str, ref_paths), "-i", *map(str, sys_paths), "-m", "bleu", "chrf", "ter", "-l", name, "-f", "json"]
    cmd += list(flags)
    t = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT)
    return time.perf_counter() - t


def met(value: float, goal: float) -> str:
    return f"goal {goal:g} s: {'met' if value <= goal else 'not met'}"


def main():
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one_server(sys.argv[2] == "wait", sys.argv[3], sys.argv[4])))
        return
    name = sys.argv[sys.argv.index("--pair") + 1] if "--pair" in sys.argv[1:-1] else "en-de"
    chosen = sys.argv[sys.argv.index("--metrics") + 1] if "--metrics" in sys.argv[1:-1] else ""
    refs, systems = pair(name)  # one sentence, not a child's traceback, when ../shared/data is missing
    runs = {}
    for mode in ("wait", "now"):
        out = subprocess.run(
            [sys.executable, __file__, "--one", mode, name, chosen],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        runs[mode] = json.loads(out.stdout.strip().splitlines()[-1])
    peer = sacrebleu_bleu_chrf(name)
    cli = sacrebleu_cli(name)
    flags = page_ter_flags(name) if "--same-ter" in sys.argv else []
    same = sacrebleu_cli(name, flags) if flags else cli  # the same TER as the page's (pure Python: slow on CJK)
    w, n = runs["wait"], runs["now"]
    print(f"{name}: {len(systems)} systems x {len(read(refs[0]))} lines x {len(refs)} references; metrics: "
          f"{', '.join(w['metrics'])} + bootstrap intervals")  # fmt: skip
    print("| step | s |")
    print("|---|---:|")
    print(f"| upload {len(refs)} references + {len(systems)} systems, home summary | {w['upload']:.1f} |")
    print(f"| Rankings after the warm-up: first columns | {w['first']:.2f} ({met(w['first'], GOAL_FIRST)}) |")
    print(f"| Rankings after the warm-up: whole page | {w['page']:.2f} ({met(w['page'], GOAL_PAGE)}) |")
    print(f"| Rankings at once after the upload: first columns | {n['first']:.2f} |")
    print(f"| Rankings at once after the upload: whole page | {n['page']:.2f} |")
    print(f"| switch the inspected sentence (median of 5) | {w['switch']:.2f} |")
    print(f"| peer: sacrebleu 2.6.0, BLEU and chrF of the 8 systems (API, references prepared once) | {peer:.2f} |")
    print(
        f"| peer: sacrebleu 2.6.0's command line, BLEU + chrF + TER of the {len(systems)} systems, one process | {cli:.2f} |"
    )
    if flags:
        print(f"| peer: the same with the page's TER ({' '.join(flags)}) | {same:.2f} |")
    print(
        f"whole Rankings page ({len(w['metrics'])} columns + bootstrap) / sacrebleu's BLEU + chrF: {w['page'] / peer:.2f}x the time"
    )
    print(
        f"the first whole Rankings on a fresh server (at once after the upload) / sacrebleu's command line on BLEU + "
        f"chrF + TER: {n['page'] / cli:.2f}x the time (goal at most 0.5x: {'met' if n['page'] <= cli / 2 else 'not met'})"
    )
    if flags:
        print(
            f"the same, against sacrebleu's command line computing the page's TER ({' '.join(flags)}): "
            f"{n['page'] / same:.2f}x the time (goal at most 0.5x: {'met' if n['page'] <= same / 2 else 'not met'})"
        )


if __name__ == "__main__":
    main()
