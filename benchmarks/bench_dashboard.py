"""Dashboard speed (streamlit AppTest, in process) on ../shared/data/wmt/en-de: 8 systems x 1002 lines x 3 refs.

Measures: upload -> home summary; Rankings with every metric (first visit, nothing cached);
switching the inspected sentence on the Sentences page.

    python benchmarks/bench_dashboard.py
"""

from __future__ import annotations

import statistics
import sys
import time

from common import ROOT, pair

sys.path.insert(0, str(ROOT))


def main():
    from streamlit.testing.v1 import AppTest

    ref_paths, sys_paths = pair("en-de")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run()
    t = time.perf_counter()
    at.file_uploader(key="up_refs").set_value([(p.name, p.read_bytes(), "text/plain") for p in ref_paths])
    at.file_uploader(key="up_systems").set_value([(p.name, p.read_bytes(), "text/plain") for p in sys_paths])
    at.run()
    t_upload = time.perf_counter() - t
    assert not at.exception, at.exception
    # the Rankings table shows BLEU, character BLEU and chrF first (the same cached calls, in this order)
    import mtlens

    corpus = mtlens.load_corpus(ref_paths, sys_paths)
    t = time.perf_counter()
    mtlens.score(corpus, "bleu,bleu-c,chrf")
    t_core = time.perf_counter() - t
    t = time.perf_counter()
    at.switch_page("pages/1_Rankings.py").run()
    t_rank = time.perf_counter() - t
    assert not at.exception, at.exception
    metrics = [c for c in at.dataframe[0].value.columns if c not in ("rank", "system") and not c.startswith("cluster")]
    at.switch_page("pages/2_Sentences.py").run()
    times = []
    for line in (10, 500, 999, 37, 640):
        t = time.perf_counter()
        at.number_input(key="sent_line_input").set_value(line).run()
        times.append(time.perf_counter() - t)
    assert not at.exception, at.exception
    print("| step | s |")
    print("|---|---:|")
    print(f"| upload 3 references + 8 systems, home summary | {t_upload:.1f} |")
    print(f"| BLEU, character BLEU and chrF, the first columns the Rankings table shows | {t_core:.1f} |")
    print(f"| open Rankings, nothing cached ({', '.join(metrics)} + bootstrap CIs) | {t_rank:.1f} |")
    print(f"| switch the inspected sentence (median of 5) | {statistics.median(times):.2f} |")


if __name__ == "__main__":
    main()
