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

    python benchmarks/bench_dashboard.py [--pair en-de]     # any folder of ../shared/data/wmt, e.g. en-zh
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


def one_server(wait: bool, name: str = "en-de") -> dict:
    """In this (new) process: a server, an upload, Rankings; the times as a dict."""
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


def sacrebleu_cli(name: str) -> float:
    """sacrebleu's command line, BLEU + chrF + TER of every system in one whole process (its language pair given,
    so BLEU tokenises as for the target language, as the dashboard does)."""
    ref_paths, sys_paths = pair(name)
    exe = str(Path(sys.executable).with_name("sacrebleu"))
    cmd = [exe, *map(str, ref_paths), "-i", *map(str, sys_paths), "-m", "bleu", "chrf", "ter", "-l", name, "-f", "json"]
    t = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT)
    return time.perf_counter() - t


def met(value: float, goal: float) -> str:
    return f"goal {goal:g} s: {'met' if value <= goal else 'not met'}"


def main():
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one_server(sys.argv[2] == "wait", sys.argv[3])))
        return
    name = sys.argv[sys.argv.index("--pair") + 1] if "--pair" in sys.argv[1:-1] else "en-de"
    refs, systems = pair(name)  # one sentence, not a child's traceback, when ../shared/data is missing
    runs = {}
    for mode in ("wait", "now"):
        out = subprocess.run(
            [sys.executable, __file__, "--one", mode, name], capture_output=True, text=True, check=True, cwd=ROOT
        )
        runs[mode] = json.loads(out.stdout.strip().splitlines()[-1])
    peer = sacrebleu_bleu_chrf(name)
    cli = sacrebleu_cli(name)
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
    print(f"whole Rankings page (7 metrics + bootstrap) / sacrebleu's BLEU + chrF: {w['page'] / peer:.2f}x the time")
    print(
        f"the first whole Rankings on a fresh server (at once after the upload) / sacrebleu's command line on BLEU + "
        f"chrF + TER: {n['page'] / cli:.2f}x the time (goal at most 0.5x: {'met' if n['page'] <= cli / 2 else 'not met'})"
    )


if __name__ == "__main__":
    main()
