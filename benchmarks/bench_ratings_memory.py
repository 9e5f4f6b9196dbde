"""The Annotations page on the largest MQM file a visitor may give a set (issue 58, G2): the bundled 200-line sample
(4 systems) and N error rows on random segments with unknown severities (each a problem row: the hostile round's
shape), added to the set, then the page drawn in a fresh process (Streamlit's AppTest). Prints the time to add the
file, the time to draw the page, and (run under /usr/bin/time -f "%M KB") the process's peak memory. Peer: none (the
reference tools have no page); the figure is held against the issue's bound of 1 GB.

    /usr/bin/time -f "%e s %M KB" python benchmarks/bench_ratings_memory.py [--rows 100000]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000, help="error rows (default: the visitors' bound)")
    args = ap.parse_args()
    ws = tempfile.mkdtemp()
    os.environ["MTLENS_DATA_DIR"] = ws
    from streamlit.testing.v1 import AppTest

    from mtlens.core.corpus import Corpus
    from mtlens.service.evaluation import add_annotations
    from mtlens.storage.store import Store

    def read(name: str) -> list[str]:
        return (ROOT / "sample_data" / name).read_text(encoding="utf-8").split("\n")[:-1]

    systems = {s: read(f"{s}.txt") for s in ("UEdin", "Online-W", "HuaweiTSC", "VolcTrans-GLAT")}
    src, ref = read("src.txt"), read("ref.txt")
    store = Store(ws)
    set_id = store.save(Corpus.build({"ref": ref}, systems, src, language_pair="en-de"), "ratings")
    rng = random.Random(0)
    rows = ["system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"]
    rows += [f"{s}\td\t1\t{i + 1}\tr0\t{src[i]}\t{systems[s][i]}\tno-error\tno-error" for i in range(len(src))
             for s in systems]  # fmt: skip
    for k in range(args.rows):
        s, i = rng.choice(list(systems)), rng.randrange(len(src))
        rows.append(f"{s}\td\t1\t{i + 1}\tr{k % 50}\t{src[i]}\t{systems[s][i]}\tAccuracy/Mistranslation\tweird{k % 3}")
    data = ("\n".join(rows) + "\n").encode()
    start = time.perf_counter()
    add_annotations(store, set_id, "big.tsv", data, None)
    added = time.perf_counter() - start
    at = AppTest.from_file(str(ROOT / "pages" / "8_Annotations.py"), default_timeout=900)
    at.query_params["set"] = set_id
    start = time.perf_counter()
    at.run()
    drawn = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    print(f"{args.rows:,} error rows ({len(data) / 2**20:.0f} MB): added in {added:.1f} s, page drawn in {drawn:.1f} s")


if __name__ == "__main__":
    main()
