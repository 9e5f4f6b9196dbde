"""The dashboard on a large upload: 20,000 lines x 10 systems (real WMT lines, cycled), one reference.

Measures (streamlit AppTest, in process): upload -> summary; BLEU, character BLEU and chrF (the
first columns of the Rankings table, computed as the page does: in one job, in a thread of a
threaded process, so the work is shared with the server's worker as in the real server); the whole Rankings page (all metrics + bootstrap, nothing cached); paging and switching
sentences on the Sentences page; peak memory of this process (helpers not included).

Goals (issue 14): first columns under 10 s, the whole Rankings under 20 s. Peer in the same run:
sacrebleu 2.6.0's API computing BLEU and chrF alone on the same lines (references prepared once).

    python benchmarks/bench_dashboard_large.py [--lines 20000] [--systems 10]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import threading
import time
from itertools import cycle, islice

from common import ROOT, read, sacrebleu_seconds, shared

sys.path.insert(0, str(ROOT))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--systems", type=int, default=10)
    args = ap.parse_args()
    from streamlit.testing.v1 import AppTest

    import mtlens

    refs, syss = [], [[] for _ in range(args.systems)]
    for folder in sorted(shared("wmt").iterdir()):
        systems = [p for p in sorted(folder.glob("*.txt")) if not p.stem.startswith(("ref", "src"))]
        refs += read(folder / "ref.txt")
        for k in range(args.systems):
            syss[k] += read(systems[k % len(systems)])
    ref_bytes = ("\n".join(islice(cycle(refs), args.lines)) + "\n").encode()
    sys_files = [
        (f"sys{k:02d}.txt", ("\n".join(islice(cycle(s), args.lines)) + "\n").encode()) for k, s in enumerate(syss)
    ]

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=3000).run()
    t = time.perf_counter()
    at.file_uploader(key="up_refs").set_value([("ref.txt", ref_bytes, "text/plain")])
    at.file_uploader(key="up_systems").set_value([(n, b, "text/plain") for n, b in sys_files])
    at.run()
    t_upload = time.perf_counter() - t
    assert not at.exception, at.exception
    corpus = mtlens.corpus_from_bytes([("ref.txt", ref_bytes)], sys_files)

    from mtlens.metrics import REGISTRY
    from mtlens.ui import cached

    first = cached.metric_groups(cached.fast_metrics(list(REGISTRY)))[0]

    def first_columns():  # as the Rankings page does: its first group of metrics in one job, in a server thread
        mtlens.score(corpus, ",".join(first))

    t = time.perf_counter()
    worker = threading.Thread(target=first_columns)  # a threaded process, like the Streamlit server
    worker.start()
    worker.join()
    t_core = time.perf_counter() - t
    t = time.perf_counter()
    at.switch_page("pages/1_Rankings.py").run()
    t_rank = time.perf_counter() - t
    assert not at.exception, at.exception
    at.switch_page("pages/2_Sentences.py").run()
    t = time.perf_counter()
    at.number_input(key="sent_page").set_value(500).run()
    t_page = time.perf_counter() - t
    times = []
    for line in (10, 12_345, 19_999, 777, 15_000):
        t = time.perf_counter()
        at.number_input(key="sent_line_input").set_value(line).run()
        times.append(time.perf_counter() - t)
    assert not at.exception, at.exception
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ref_lines = list(islice(cycle(refs), args.lines))
    hyp_lines = [list(islice(cycle(s), args.lines)) for s in syss]
    peer = sacrebleu_seconds([ref_lines], hyp_lines)
    print(f"| {args.lines} lines x {args.systems} systems | s |")
    print("|---|---:|")
    print(f"| upload and summary | {t_upload:.1f} |")
    print(f"| {', '.join(first)} (the first Rankings columns) | {t_core:.1f} |")
    print(
        f"| whole Rankings page with its default metrics (TER, tBLEU opt-in above 30,000 system lines) + bootstrap | {t_rank:.1f} |"
    )
    print(f"| Sentences: jump to page 500 | {t_page:.2f} |")
    print(f"| Sentences: switch the inspected line (median of 5) | {statistics.median(times):.2f} |")
    print(f"| peak memory of the process | {peak:.0f} MB |")
    print(
        f"| peer: sacrebleu 2.6.0 API, BLEU and chrF of the {args.systems} systems (references prepared once) | {peer:.1f} |"
    )
    print(f"first columns / peer: {t_core / peer:.2f}x the time; whole Rankings / peer: {t_rank / peer:.2f}x")
    ok = t_core < 10 and t_rank < 20
    print(f"\ngoals (first columns < 10 s, whole Rankings < 20 s): {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
