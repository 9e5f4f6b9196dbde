"""An LLM judge over 8 systems x 1,000 lines (issue 48), against a loopback OpenAI-compatible endpoint that takes
200 ms per request (tests/judges/stub.py: GEMBA-MQM answers), as a user meets it: whole processes.

- mtlens: ``python -m mtlens judges add`` then ``python -m mtlens score --set ID --metrics judge:stub`` (a fresh
  store), 100 requests in flight; then the same command again (everything cached).
- Peer, same run, same endpoint: Microsoft's GEMBA, its own client (``gemba.utils.get_gemba_scores``: the openai
  client in a thread pool of 100, a disk cache), on the same 8,000 segments in one call, GEMBA-MQM.

Reports wall time, requests the endpoint received, the most in flight at once, and the requests de-duplication and
the cache saved. Needs ../shared/data and, for the peer, ``pip install -r requirements-bench.txt`` and
``pip install --no-deps gemba==0.1.3`` (the test command installs the latter).

    python benchmarks/bench_judge.py [--lines 1000] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, read, shared

sys.path.insert(0, str(ROOT))

GEMBA = """
import sys, types, json, time
sys.modules.setdefault("ipdb", types.ModuleType("ipdb"))
from gemba.utils import get_gemba_scores
src = json.load(open(sys.argv[1])); hyp = json.load(open(sys.argv[2]))
t = time.perf_counter()
scores, errors = get_gemba_scores(src, hyp, "English", "German", method="GEMBA-MQM", model="stub-model", cache_dir=sys.argv[3])
print(json.dumps({"wall": time.perf_counter() - t, "scored": sum(s is not None for s in scores)}))
"""


def main() -> int:
    import json

    from mtlens.core.corpus import Corpus
    from mtlens.storage.store import Store
    from tests.judges.stub import Stub

    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--latency", type=float, default=0.2)
    args = ap.parse_args()
    folder = shared("wmt", "en-de")
    names = sorted(p.stem for p in folder.glob("*.txt") if not p.stem.startswith(("ref", "src")))[:8]
    src = read(folder / "src.txt")[: args.lines]
    systems = {n: read(folder / f"{n}.txt")[: args.lines] for n in names}
    distinct = len({(src[i], line) for lines in systems.values() for i, line in enumerate(lines)})
    total = len(systems) * len(src)
    with tempfile.TemporaryDirectory() as tmp, Stub(latency=args.latency) as stub:
        ws = Path(tmp) / "ws"
        corpus = Corpus.build({"ref": read(folder / "ref.txt")[: args.lines]}, systems, src, language_pair="en-de")
        set_id = Store(ws).save(corpus, "judge benchmark")
        env = {**os.environ, "MTLENS_DATA_DIR": str(ws)}

        def run(*a):
            return subprocess.run(
                [sys.executable, "-m", "mtlens", *a], env=env, cwd=ROOT, capture_output=True, text=True
            )

        added = run("judges", "add", "stub", "--url", stub.url, "--model", "stub-model", "--protocol", "gemba-mqm",
                    "--concurrency", "100")  # fmt: skip
        if added.returncode:
            raise SystemExit(added.stderr)
        results = {}
        for label in ("first run", "second run (cached)"):
            before = len(stub.requests)
            stub.peak = 0
            t = time.perf_counter()
            done = run("score", "--set", set_id, "--metrics", "judge:stub", "--format", "json")
            wall = time.perf_counter() - t
            if done.returncode:
                raise SystemExit(done.stderr)
            results[label] = (wall, len(stub.requests) - before, stub.peak)
            print(
                f"mtlens, {label}: {wall:.1f} s, {len(stub.requests) - before:,} requests for {total:,} segments "
                f"({distinct:,} distinct), at most {stub.peak} in flight"
            )
        peer = None
        (Path(tmp) / "src.json").write_text(json.dumps([s for lines in systems.values() for s in src]))
        (Path(tmp) / "hyp.json").write_text(json.dumps([h for lines in systems.values() for h in lines]))
        genv = {**os.environ, "OPENAI_API_KEY": "bench", "OPENAI_BASE_URL": stub.url}
        before = len(stub.requests)
        stub.peak = 0
        t = time.perf_counter()
        g = subprocess.run(
            [sys.executable, "-c", GEMBA, str(Path(tmp) / "src.json"), str(Path(tmp) / "hyp.json"), str(Path(tmp) / "gemba-cache")],
            env=genv, capture_output=True, text=True, cwd=tmp,
        )  # fmt: skip
        wall = time.perf_counter() - t
        if g.returncode:
            print(f"peer: GEMBA's client did not run ({g.stderr.strip().splitlines()[-1][:200] if g.stderr.strip() else g.returncode}); "
                  "pip install -r requirements-bench.txt and gemba==0.1.3 --no-deps")  # fmt: skip
        else:
            peer = (wall, len(stub.requests) - before, stub.peak)
            print(
                f"peer, same run: GEMBA's own client: {wall:.1f} s, {peer[1]:,} requests, at most {peer[2]} in flight"
            )
    first = results["first run"]
    if peer:
        print(
            f"mtlens / GEMBA wall time: {first[0] / peer[0]:.2f}x; requests saved by de-duplication: {peer[1] - first[1]:,}"
        )
    print(f"requests saved by the cache on the second run: {first[1] - results['second run (cached)'][1]:,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
