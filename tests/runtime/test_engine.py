"""The engine (mtlens.runtime.engine): work shared with standard-library worker processes, the same results as
one process, failures recovered, threaded processes never fork, and work that really ran elsewhere.

Each check runs in a fresh interpreter (the test runner itself may have threads, and then mtlens never
forks) and reads the process ids that computed the work.
"""

from __future__ import annotations

import textwrap

from mtlens.runtime.processes import workers

from ..conftest import SAMPLE, TESTDATA, run_python


def run_script(body: str, **env) -> dict:
    head = """
        import json, os, signal, sys
        import numpy as np
        import mtlens.runtime.engine as E
        E.MIN_PARALLEL_WEIGHT = 0
        PARENT = os.getpid()
        """
    return run_python(textwrap.dedent(head) + textwrap.dedent(body), **env)


def test_work_is_shared_as_it_goes_the_largest_task_to_a_worker_the_rest_to_whoever_is_free():
    """Equal weights, but task 0 really takes 1.5 s and the others 0.05 s: the worker gets task 0 (the
    largest tasks are queued for the workers first), and this process, taking tasks from the other end
    while the worker is busy, computes every task the worker has not started, even tasks 1 and 2, which
    ProcessPoolExecutor had already handed to the worker's queue (a static split by weight would have
    left the worker about half of them; cancelling queued tasks only, as before, left it task 1 or 2)."""
    got = run_script(
        """
        import time
        def compute(i):
            time.sleep(1.5 if i == 0 else 0.05)  # the executor has queued tasks for the worker meanwhile
            return [np.array([i, os.getpid()])]
        res = E.map_tasks(compute, [100.0] * 12)
        print(json.dumps({"tasks": [int(r[0][0]) for r in res], "by": [int(r[0][1]) for r in res],
                          "parent": PARENT}))
        """,
        MTLENS_WORKERS="2",
    )
    assert got["tasks"] == list(range(12))
    assert got["by"][0] != got["parent"]  # the worker's first task is always its own
    assert all(pid == got["parent"] for pid in got["by"][1:])  # tasks 1 and 2 too: claimed here first


def test_workers_follows_the_environment(monkeypatch):
    monkeypatch.setenv("MTLENS_WORKERS", "3")
    assert workers() == 3
    monkeypatch.setenv("MTLENS_WORKERS", "0")
    assert workers() == 1
    monkeypatch.setenv("MTLENS_WORKERS", "two")
    assert workers() == 1


def test_results_in_task_order_from_forked_workers():
    got = run_script(
        """
        res = E.map_tasks(lambda i: [np.arange(i, dtype=np.int64), np.array([os.getpid()]), np.full((2, 3), i / 7)],
                          [100.0] * 9)
        ok = all((r[0] == np.arange(i)).all() and (r[2] == i / 7).all() and r[2].shape == (2, 3)
                 for i, r in enumerate(res))
        print(json.dumps({"ok": ok, "pids": sorted({int(r[1][0]) for r in res}), "parent": PARENT,
                          "run": E.LAST_RUN}))
        """,
        MTLENS_WORKERS="2",
    )
    assert got["ok"]
    assert len(got["pids"]) == 2 and got["parent"] in got["pids"]  # work really ran in another process
    assert got["run"]["mode"] == "fork" and sorted(got["run"]["pids"]) == got["pids"]


def test_one_worker_never_forks():
    got = run_script(
        """
        res = E.map_tasks(lambda i: [np.array([os.getpid()])], [100.0] * 6)
        print(json.dumps({"pids": sorted({int(r[0][0]) for r in res}), "parent": PARENT, "run": E.LAST_RUN}))
        """,
        MTLENS_WORKERS="1",
    )
    assert got["pids"] == [got["parent"]] and got["run"]["mode"] == "here"


def test_a_worker_that_fails_or_is_killed_has_its_tasks_computed_again_here():
    for failure in ("raise RuntimeError('boom')", "os.kill(os.getpid(), signal.SIGKILL)"):
        got = run_script(
            f"""
            def compute(i):
                if os.getpid() != PARENT:
                    {failure}
                return [np.array([i, os.getpid()])]
            res = E.map_tasks(compute, [100.0] * 8)
            print(json.dumps({{"tasks": [int(r[0][0]) for r in res], "pids": sorted({{int(r[0][1]) for r in res}}),
                               "parent": PARENT}}))
            """,
            MTLENS_WORKERS="2",
        )
        assert got["tasks"] == list(range(8))
        assert got["pids"] == [got["parent"]]


def test_a_worker_killed_while_the_job_is_handed_out_leaves_the_job_to_this_process():
    """The worker dies after the first task is handed out and before the rest are (submit then raises
    BrokenProcessPool): every task is computed here, none lost, no error."""
    got = run_script(
        """
        import time
        from concurrent.futures import ProcessPoolExecutor

        class Slow(ProcessPoolExecutor):
            def submit(self, *a, **k):
                fut = super().submit(*a, **k)
                time.sleep(1.0)  # the worker starts, takes the first task and dies meanwhile
                return fut

        E.ProcessPoolExecutor = Slow
        def compute(i):
            if os.getpid() != PARENT:
                os.kill(os.getpid(), signal.SIGKILL)
            return [np.array([i, os.getpid()])]
        res = E.map_tasks(compute, [100.0] * 4)
        print(json.dumps({"tasks": [int(r[0][0]) for r in res], "pids": sorted({int(r[0][1]) for r in res}),
                          "parent": PARENT}))
        """,
        MTLENS_WORKERS="2",
    )
    assert got["tasks"] == list(range(4))
    assert got["pids"] == [got["parent"]]


def test_an_error_here_stops_the_workers_and_is_raised(tmp_path):
    marker = tmp_path / "worker-finished"
    got = run_script(
        f"""
        def compute(i):
            if os.getpid() == PARENT:
                raise ValueError("bad line 3")
            import time
            time.sleep(3)  # a worker still working when the error happens here...
            open({str(marker)!r}, "w").write("finished")  # ...which it never gets to write
            return [np.array([i])]
        try:
            E.map_tasks(compute, [100.0] * 4)
            msg = None
        except ValueError as err:
            msg = str(err)
        import multiprocessing
        print(json.dumps({{"msg": msg, "children_left": len(multiprocessing.active_children())}}))
        """,
        MTLENS_WORKERS="2",
    )
    assert got["msg"] == "bad line 3"
    assert got["children_left"] == 0  # reaped, not left behind
    import time

    time.sleep(4)  # had the worker been waited for or left running, it would have written by now
    assert not marker.exists()  # it was killed


SCORE_ALL = f"""
    import glob, mtlens, mtlens.metrics.base as B
    from mtlens.metrics import metric_names
    B.BLOCK_CHARS = 2_000
    if not os.environ.get("NO_POOL"):  # with it, a threaded process's pool is never started (as while it warms up)
        E.MIN_SPAWN_WEIGHT = 0
    if os.environ.get("LARGE"):  # every job counts as large: a single-threaded process uses the pool too
        E.MAX_FORK_WEIGHT = 0
    if os.environ.get("THREADED"):
        import threading, time
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
    out, runs, alone = {{}}, [], {{}}
    for name in ["sample", "en-cs", "en-zh", "ja-en"]:
        folder = {str(SAMPLE)!r} if name == "sample" else {str(TESTDATA)!r} + "/" + name
        refs = sorted(glob.glob(folder + "/ref*.txt"))
        systems = [p for p in sorted(glob.glob(folder + "/*.txt")) if "/ref" not in p and "/src" not in p]
        corpus = mtlens.load_corpus(refs, systems)
        res = mtlens.score(corpus, list(metric_names()))  # every registered metric
        out[name] = {{m: {{s: r.stats[s].tolist() for s in r.stats}} for m, r in res.items()}}
        runs.append(dict(E.LAST_RUN))
        # each metric's own loop over the blocks in this process (Metric.statistics), not the engine's
        alone[name] = {{
            m: dict(zip(corpus.system_names, (a.tolist() for a in r.scorer.statistics(
                corpus.reference_streams(), corpus.system_streams())), strict=True))
            for m, r in res.items()
        }}
    print(json.dumps({{"stats": out, "runs": runs, "parent": PARENT, "alone": alone}}))
"""


def test_scores_identical_with_one_and_two_processes():
    """Every metric on the bundled excerpts: the statistics of each system are bit-identical whether one
    process or two (forked) computed the blocks (small blocks, many tasks)."""
    one = run_script(SCORE_ALL, MTLENS_WORKERS="1")
    two = run_script(SCORE_ALL, MTLENS_WORKERS="2")
    assert one["stats"] == two["stats"] == one["alone"]
    assert len(one["stats"]["en-cs"]["bleu"]) >= 2
    assert all(r["mode"] == "here" for r in one["runs"])
    assert all(r["mode"] == "fork" and len(r["pids"]) == 2 for r in two["runs"])


def test_a_threaded_process_shares_with_its_persistent_pool_and_gets_the_same_statistics():
    one = run_script(SCORE_ALL, MTLENS_WORKERS="1")
    pooled = run_script(SCORE_ALL, MTLENS_WORKERS="2", THREADED="1")
    assert one["stats"] == pooled["stats"]
    assert all(r["mode"] == "pool" for r in pooled["runs"])  # a threaded process never forks
    workers = {pid for r in pooled["runs"] for pid in r["pids"]} - {pooled["parent"]}
    assert len(workers) == 1  # one worker, started once and reused by every job (persistent)


def test_a_threaded_process_without_its_pool_shares_a_job_with_ter_between_threads_with_the_same_statistics():
    """The dashboard's server while its pool warms up: every registered metric (TER among them, whose kernel
    releases the interpreter lock) on the excerpts, shared between two threads; bit-identical to one process."""
    one = run_script(SCORE_ALL, MTLENS_WORKERS="1")
    threaded = run_script(SCORE_ALL, MTLENS_WORKERS="2", THREADED="1", NO_POOL="1")
    assert one["stats"] == threaded["stats"] == threaded["alone"]
    assert all(r["mode"] == "threads" and r["pids"] == [threaded["parent"]] for r in threaded["runs"])


def test_a_metrics_tokenizer_is_loaded_before_the_workers_are_forked():
    """BLEU's 13a tokenizer is sacrebleu's package (about 30 ms to import): loaded before the fork, every forked worker
    inherits it instead of loading it again on the job's critical path (whole processes, docs/speed.md)."""
    got = run_script(
        """
        import glob, mtlens
        seen = []
        real = E._forked
        def spy(*args, **kwargs):
            seen.append("sacrebleu.tokenizers.tokenizer_13a" in sys.modules)
            return real(*args, **kwargs)
        E._forked = spy
        folder = os.environ["FOLDER"]
        corpus = mtlens.load_corpus(sorted(glob.glob(folder + "/ref*.txt")), [folder + "/UEdin.txt", folder + "/Online-W.txt"])
        assert "sacrebleu.tokenizers.tokenizer_13a" not in sys.modules
        res = mtlens.score(corpus, ["bleu", "chrf"])
        print(json.dumps({"seen": seen, "mode": E.LAST_RUN["mode"]}))
        """,
        MTLENS_WORKERS="2",
        FOLDER=str(SAMPLE),
    )
    assert got == {"seen": [True], "mode": "fork"}


def test_a_threaded_process_sends_the_translation_checks_to_its_pool_with_the_same_failures():
    """The checks are plain Python that holds the interpreter lock: in the dashboard's server they ran in the page's
    thread and slowed every other visitor (docs/decisions.md, "Serving many visitors"). A threaded process now sends
    them to its pool of processes, described as a check and its lines; each line fails or passes as in one process
    (every check the bundled excerpt's set can run, the language check included)."""
    got = run_script(
        """
        import threading, time
        from mtlens.core.corpus import Corpus
        from mtlens.runtime import checking
        from mtlens.checks import CHECKS
        folder = os.environ["FOLDER"]
        read = lambda n: open(os.path.join(folder, n), encoding="utf-8").read().split("\\n")[:200]
        corpus = Corpus.build({"ref": read("ref.txt")}, {n: read(n + ".txt") for n in ("UEdin", "Online-W", "HuaweiTSC")},
                              read("src.txt"))
        names = ["check:" + n for n, c in CHECKS.items() if not checking.missing_need(c, True, "de")]
        def run(threaded):
            if threaded:
                threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
            got = checking.check_scores_many(corpus, names, "de")
            return {n: {s: v.tolist() for s, v in r.scores.items()} for n, r in got.items()}, dict(E.LAST_RUN)
        E.MIN_PARALLEL_WEIGHT = 10**18  # in this process alone
        alone, first = run(False)
        E.MIN_PARALLEL_WEIGHT = E.MIN_SPAWN_WEIGHT = 0
        pooled, second = run(True)
        bare = Corpus.build(dict(corpus.references), dict(corpus.systems))  # no source: the checks that need none
        got = checking.check_scores_many(bare, ["check:empty", "check:language"], "de")
        assert E.LAST_RUN["mode"] == "pool"
        assert {n: {s: v.tolist() for s, v in r.scores.items()} for n, r in got.items()} == {
            n: pooled[n] for n in ("check:empty", "check:language")}
        print(json.dumps({"same": alone == pooled, "n": len(alone), "fails": sum(sum(map(sum, r.values())) for r in alone.values()),
                          "first": first, "second": second, "parent": PARENT}))
        """,
        MTLENS_WORKERS="2",
        FOLDER=str(SAMPLE),
    )
    assert got["same"] and got["n"] >= 8 and got["fails"] > 0
    assert got["first"]["mode"] == "here"
    assert got["second"]["mode"] == "pool" and any(p != got["parent"] for p in got["second"]["pids"])


def test_with_its_pool_ready_a_threaded_process_keeps_a_small_ter_job_in_threads_and_sends_the_rest_to_the_pool():
    """Below MIN_SPAWN_WEIGHT a job with TER stays in the process's threads even when the pool is warm (its
    tokenizers' caches are here); the same job without TER, and one above MIN_SPAWN_WEIGHT, go to the pool. The
    statistics are the same every way."""
    got = run_script(
        """
        import glob, threading, time, mtlens
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        import mtlens.metrics.base as B
        B.BLOCK_CHARS = 2_000
        E.start_pool()
        assert E.WARMED.wait(300)
        folder = os.environ["FOLDER"]
        corpus = mtlens.load_corpus(sorted(glob.glob(folder + "/ref*.txt")),
                                    [p for p in sorted(glob.glob(folder + "/*.txt")) if "/ref" not in p and "/src" not in p])
        out = {}
        for label, names, spawn in (("ter", "ter,chrf", None), ("no ter", "bleu,chrf", None), ("large", "ter,chrf", 0)):
            if spawn is not None:
                E.MIN_SPAWN_WEIGHT = spawn
            res = mtlens.score(corpus, names)
            out[label] = {"mode": E.LAST_RUN["mode"],
                          "stats": {m: {s: r.stats[s].tolist() for s in r.stats} for m, r in res.items()}}
        print(json.dumps(out))
        """,
        MTLENS_WORKERS="2",
        FOLDER=str(TESTDATA / "en-zh"),
    )
    assert got["ter"]["mode"] == "threads"
    assert got["no ter"]["mode"] == "pool" and got["large"]["mode"] == "pool"
    assert got["ter"]["stats"] == got["large"]["stats"]


def test_threads_share_the_tasks_largest_first_keep_runs_here_and_an_error_stops_the_rest():
    got = run_script(
        """
        import threading, time
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()  # a threaded process
        main, started, kept = threading.get_ident(), [], []
        def compute(i):
            started.append(i)
            time.sleep(0.2)  # gives the interpreter lock up, as the kernels do
            return [np.array([i, threading.get_ident()])]
        def keep(i, arrays):
            kept.append(threading.get_ident())
            return int(arrays[0][0]), int(arrays[0][1])
        res = E.map_tasks(compute, [float(w) for w in (1, 5, 3, 2)], keep=keep, threads=True)
        mode = E.LAST_RUN["mode"]
        serial = E.map_tasks(compute, [1.0] * 4, keep=keep)  # without threads: this thread only
        started.clear()
        def failing(i):
            started.append(i)
            time.sleep(0.2)
            if i == 0:
                raise ValueError("bad block")
            return [np.array([i])]
        try:
            E.map_tasks(failing, [9.0] + [1.0] * 20, threads=True)
            msg = None
        except ValueError as err:
            msg = str(err)
        print(json.dumps({"tasks": [t for t, _ in res], "by": len({b for _, b in res}),
                          "main_in": any(b == main for _, b in res), "kept_here": set(kept) == {main},
                          "mode": mode, "serial_by": sorted({b for _, b in serial}) == [main],
                          "msg": msg, "begun": len(started)}))
        """,
        MTLENS_WORKERS="2",
    )
    assert got["tasks"] == [0, 1, 2, 3] and got["mode"] == "threads"
    assert got["by"] == 2 and not got["main_in"]  # two threads of the process computed, not the caller's
    assert got["kept_here"]  # keep only ever in the calling thread
    assert got["serial_by"]
    assert got["msg"] == "bad block" and got["begun"] < 21  # raised here; the tasks not begun never ran


def test_a_large_job_in_a_single_threaded_process_uses_the_pool_and_gets_the_same_statistics():
    """Above MAX_FORK_WEIGHT the command line's jobs go to the pool (a forked worker would copy the pages
    of every inherited line it touches); each block's statistics are copied into the metric's arrays as
    they arrive, and the result is bit-identical to one process's."""
    one = run_script(SCORE_ALL, MTLENS_WORKERS="1")
    large = run_script(SCORE_ALL, MTLENS_WORKERS="2", LARGE="1")
    assert one["stats"] == large["stats"] == one["alone"]
    assert all(r["mode"] == "pool" and len(r["pids"]) == 2 for r in large["runs"])


def test_keep_receives_each_tasks_arrays_once_wherever_they_were_computed():
    got = run_script(
        """
        seen = []
        def keep(i, arrays):
            seen.append((i, int(arrays[0][0]), os.getpid()))
            return -i
        res = E.map_tasks(lambda i: [np.array([i, os.getpid()])], [100.0] * 9, keep=keep)
        print(json.dumps({"res": res, "seen": seen, "parent": PARENT, "mode": E.LAST_RUN["mode"]}))
        """,
        MTLENS_WORKERS="2",
    )
    assert got["mode"] == "fork"
    assert got["res"] == [-i for i in range(9)]  # keep's values stand for the arrays, in task order
    assert sorted(i for i, _, _ in got["seen"]) == list(range(9))  # each task once
    assert all(i == j and pid == got["parent"] for i, j, pid in got["seen"])  # always called here


def test_a_process_with_threads_never_forks():
    got = run_script(
        """
        import threading, time
        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
        res = E.map_tasks(lambda i: [np.array([os.getpid()])], [100.0] * 6)
        print(json.dumps({"pids": sorted({int(r[0][0]) for r in res}), "parent": PARENT, "may": E.can_fork()}))
        """,
        MTLENS_WORKERS="2",
    )
    assert got["pids"] == [got["parent"]] and not got["may"]  # no description: nothing leaves this process


def test_a_pool_worker_that_cannot_do_its_tasks_leaves_them_to_this_process():
    got = run_script(
        """
        import threading, time
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        E.MIN_SPAWN_WEIGHT = 0
        # the worker is asked for a metric that does not exist: it fails, this process computes
        res = E.map_tasks(lambda i: [np.array([i, os.getpid()])], [100.0] * 6,
                          lambda i: {"metric": "no-such-metric", "options": {}, "references": [], "hypotheses": []})
        print(json.dumps({"tasks": [int(r[0][0]) for r in res], "pids": sorted({int(r[0][1]) for r in res}),
                          "parent": PARENT}))
        """,
        MTLENS_WORKERS="2",
    )
    assert got["tasks"] == list(range(6)) and got["pids"] == [got["parent"]]


def test_a_killed_pool_worker_is_recovered_and_the_pool_replaced():
    got = run_script(
        """
        import threading, time
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        E.MIN_SPAWN_WEIGHT = 0
        import mtlens
        c = mtlens.Corpus.build({"ref": ["a b c d"] * 400}, {"A": ["a b x d"] * 400, "B": ["a c"] * 400})
        import mtlens.metrics.base as B
        B.BLOCK_CHARS = 500
        first = mtlens.score(c, "bleu")["bleu"].scores
        victim = [p for p in E.LAST_RUN["pids"] if p != PARENT][0]
        os.kill(victim, signal.SIGKILL)
        time.sleep(0.5)
        second = mtlens.score(c, "bleu")["bleu"].scores  # the broken pool: its share computed here
        third = mtlens.score(c, "bleu")["bleu"].scores  # a new pool
        print(json.dumps({"same": first == second == third, "third": E.LAST_RUN, "victim": victim}))
        """,
        MTLENS_WORKERS="2",
    )
    assert got["same"]
    assert got["third"]["mode"] == "pool" and got["victim"] not in got["third"]["pids"]


def test_the_dashboards_pool_starts_warm(tmp_path):
    """engine.start_pool (the dashboard, for a large upload): the worker has imported every metric's modules
    and tokenizers, and, after the kernels' warm-up compiled them, the kernels, as this process has."""
    got = run_script(
        """
        import threading, time
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        from mtlens.runtime import kernels
        kernels.start_warmup()
        E.start_pool(page_weight=200_000)  # a small upload: its jobs stay in this process, no pool
        assert not E.pool_running()
        E.start_pool(page_weight=4_000_000)
        E.start_pool()  # once per process
        assert E.WARMED.wait(300)
        wanted = ("mtlens.metrics._", "sacrebleu.tokenizers.tokenizer_13a")
        worker = E._pool.submit(E.loaded, wanted).result()
        pid = E._pool.submit(os.getpid).result()
        print(json.dumps({"worker": worker, "here": E.loaded(wanted), "pid": pid, "parent": PARENT}))
        """,
        MTLENS_WORKERS="2",
        NUMBA_CACHE_DIR=str(tmp_path),
    )
    # numba's kernels, or the ahead-of-time builds if the warm-up's second stage was done already
    for kernel in ("mtlens.metrics._ter_kernel", "mtlens.metrics._tbleu_kernel", "mtlens.metrics._ngram_kernel"):
        for loaded in (got["worker"], got["here"]):
            assert kernel in loaded or kernel + "_aot" in loaded, (kernel, loaded)
    assert "sacrebleu.tokenizers.tokenizer_13a" in got["worker"]
    assert got["pid"] != got["parent"]
