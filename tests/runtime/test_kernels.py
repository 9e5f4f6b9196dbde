"""Compiled kernels (mtlens.runtime.kernels, mtlens.metrics._compiled): built ahead of time where a C compiler
is there, numba's otherwise; one version per function, compiled side by side, warmed ahead.

Each check runs in a fresh interpreter (``NUMBA_CACHE_DIR`` is its cache) and reads numba's own
bookkeeping (``Dispatcher.stats``: which functions were loaded from the disk cache) or what the
interpreter imported. A check about compiling or building starts from an empty cache (a fresh
installation). One fresh installation's build (:func:`built`: ``prepare`` building both kernels ahead of
time) is shared: the checks about that build read its record, and the checks about what happens after a
first build (results, a broken or impossible build, what loading imports) start from a copy of it, as a
user's later processes do, instead of compiling TER again (20 CPU-seconds each time).
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
import time

import numpy as np
import pytest

from ..conftest import SAMPLE, run_python
from ..golden.cases import SAMPLE_TER
from ..golden.make_sacrebleu_golden import excerpt_golden
from ..memory import group_members

TER_KERNEL = "mtlens.metrics._ter_kernel"
TBLEU_KERNEL = "mtlens.metrics._tbleu_kernel"


def run_fresh(body: str, tmp_path, data=None, **env) -> dict:
    """Run ``body`` in a fresh interpreter whose numba cache (and ahead-of-time folder) is ``tmp_path``;
    ``data`` reaches it as ``DATA`` (JSON); ``TER``, ``TBLEU`` name the two kernel modules."""
    (tmp_path / "data.json").write_text(json.dumps(data))
    names = f"""
        DATA = json.loads(open({str(tmp_path / "data.json")!r}).read())
        TER, TBLEU = {TER_KERNEL!r}, {TBLEU_KERNEL!r}
        """
    head = """
        import json, sys
        from mtlens.runtime import kernels
        from mtlens.metrics import _compiled
        def loaded_from_cache(module):
            import importlib
            from numba.core.registry import CPUDispatcher
            m = importlib.import_module(module)
            out = {}
            for name, f in vars(m).items():
                if isinstance(f, CPUDispatcher):
                    out[name] = (len(f.signatures), sum(f.stats.cache_hits.values()))
            return out
        """
    code = textwrap.dedent(head) + textwrap.dedent(names) + textwrap.dedent(body)
    return run_python(code, NUMBA_CACHE_DIR=str(tmp_path), **env)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A fresh installation (an empty cache, apart from files of older builds) where ``prepare`` built both
    kernels ahead of time, side by side; numba's TER functions compiled and cached as well (the build
    compiles them first), for the argument types the checks below use. Returns (the folder, the build's
    record: what was built, which files are left, whether numba was imported). Checks about results copy
    the folder into their own ``tmp_path`` (:func:`from_build`); checks about the build read the record."""
    folder = tmp_path_factory.mktemp("built")
    stale = folder / "mtlens-aot"
    stale.mkdir()
    suffix = __import__("importlib.machinery").machinery.EXTENSION_SUFFIXES[0]
    for name in (f"_ter_kernel_aot-0123456789abcdef{suffix}", f"_ter_kernel_aot-0123456789abcdef{suffix}.failed"):
        (stale / name).write_text("old")
    (stale / OTHER_PYTHON).write_text("another interpreter's")
    for name, age in ((".build-left-by-a-killed-builder", 2 * 86400), (".build-of-a-running-build", 0)):
        (stale / name / "pycc-build-x").mkdir(parents=True)
        os.utime(stale / name, (time.time() - age, time.time() - age))
    scratch = folder / "tmp"  # the temporary folder of the process and its builders
    scratch.mkdir()
    record = run_fresh(
        """
        import importlib, os, numpy as np
        kernels.prepare(["ter", "tbleu"])
        record = {"built": [_compiled.built(m) for m in (TER, TBLEU)],
                  "left_in_tmp": sorted(os.listdir(os.environ["TMPDIR"])),
                  "files": sorted(p.name for p in _compiled.cache_dir().iterdir()),
                  "want": [_compiled.aot_path(m).name for m in (TER, TBLEU)],
                  "numba": "numba" in sys.modules}
        k = importlib.import_module(TER)
        h, r = np.array([1, 2, 3, 4], dtype=np.int64), np.array([3, 4, 1, 2, 5], dtype=np.int64)
        shifts = np.zeros((len(h) + len(r) + 1, 3), dtype=np.int64)
        edits, n, shifted = k.ter_pair(h, r, shifts)
        k.trace_ops(k.edit_distance_rows(shifted, r), shifted, r)
        k._perform_shift(h, 1, 2, len(h) - 1, np.empty_like(h))
        k.ter_many(h, np.array([0, 4], dtype=np.int64), r, np.array([0, 5], dtype=np.int64),
                   np.zeros((1, 2), dtype=np.int64))
        k.ter_pair(np.array([1, 2, 3, 4]), np.array([3, 4, 1, 2]), np.zeros((0, 3), "int64"))
        print(json.dumps(record))
        """,
        folder,
        MTLENS_WORKERS="2",
        TMPDIR=str(scratch),
    )
    (folder / "data.json").unlink()
    shutil.rmtree(scratch)  # what was left is in the record (checked below); copies of the folder start without it
    shutil.rmtree(stale / ".build-of-a-running-build")  # the same
    return folder, record


#: a file of another interpreter's build, planted in :func:`built`'s folder: a new build keeps it
OTHER_PYTHON = "_ter_kernel_aot-0123456789abcdef.cpython-399-x86_64-linux-gnu.so"


def from_build(built, tmp_path, aot: bool = True):
    """``tmp_path`` holding a copy of :func:`built`'s cache (``aot=False``: numba's cache only, as an
    installation where no ahead-of-time build was tried yet)."""
    import shutil

    shutil.copytree(built[0], tmp_path, dirs_exist_ok=True)
    if not aot:
        shutil.rmtree(tmp_path / "mtlens-aot")
    return tmp_path


# --------------------------------------------------------------------------- ahead of time
def test_prepare_builds_both_kernels_ahead_of_time_and_a_new_process_scores_without_numba(built, tmp_path, sample):
    """A fresh installation: prepare builds both modules (side by side: :func:`built`); a later process
    loads them, never imports numba, and gets sacrebleu's TER statistics on real lines."""
    got = built[1]
    assert got["built"] == [True, True] and not got["numba"]  # loaded the builds, not numba's kernels
    assert not [f for f in got["files"] if f.endswith(".failed")]
    refs, systems = sample
    hyps = list(systems.values())[:2]
    later = run_fresh(
        """
        import mtlens
        from mtlens.metrics.ter import TER as Metric
        from mtlens.metrics.tbleu_affix import affix_distances
        refs, hyps = DATA
        stats = mtlens.runtime.tasks.statistics(Metric(), refs, hyps)  # 400 pairs: a job for the kernel
        from mtlens.metrics import _affix, tbleu_affix
        words = ["Zusammenarbeit", "Zusammenarbeiten", "Verträge", "Vertrag", "Vertragsbruch"]
        pairs = [[0, 1], [2, 3], [3, 4], [2, 4]]
        ad = affix_distances(words, pairs)
        chars, lens = tbleu_affix._char_matrix(words)
        plain = _affix.affix_distances(chars.tolist(), lens.tolist(), pairs)
        print(json.dumps({"stats": [s.tolist() for s in stats], "ad": ad.tolist(), "plain": list(plain),
                          "aot": [m + "_aot" in sys.modules for m in (TER, TBLEU)],
                          "numba": "numba" in sys.modules}))
        """,
        from_build(built, tmp_path),
        data=[[r[:100] for r in refs], [h[:100] for h in hyps]],
        MTLENS_WORKERS="1",
    )
    assert later["aot"] == [True, True] and not later["numba"]
    gold = excerpt_golden(SAMPLE_TER)  # sacrebleu's per-line statistics (a line's depend on it alone)
    for name, st in zip(list(systems)[:2], later["stats"], strict=True):
        np.testing.assert_array_equal(np.array(st), np.array(gold[name][:100]))
    assert later["ad"] == later["plain"] and 0 < min(later["ad"]) < 1  # the definition's plain-Python loop


def test_ahead_of_time_and_numba_kernels_agree_on_real_data(tmp_path, excerpts, built):
    """Every exported function, both builds of the same source, on every (hypothesis, reference) pair
    of the bundled excerpts (tercom tokens, normalised and not), references cut and joined so that some
    exceed the bit-parallel path's 62 words and some are three times the hypothesis's length (where the
    beam decides)."""
    from mtlens.metrics.ter import TER

    seqs = {"hyp": [], "ref": []}
    for options in ({}, {"normalized": True}):
        m = TER(**options)
        vocab: dict[str, int] = {}
        for refs, systems in excerpts.values():
            for i, line in enumerate(refs[0][:60]):
                ref = [vocab.setdefault(w, len(vocab)) for w in m.ref_words(line)]
                for hyp_line in list(systems.values())[:3]:
                    hyp = [vocab.setdefault(w, len(vocab)) for w in m.words(hyp_line[i])]
                    seqs["hyp"].append(hyp)
                    seqs["ref"].append(ref)
                    joined = ref + [vocab.setdefault(w, len(vocab)) for w in m.ref_words(refs[0][i - 1])] + ref
                    seqs["hyp"].append(hyp)
                    seqs["ref"].append(joined)  # long, and about three times the hypothesis
    long_refs = sum(len(r) > 62 for r in seqs["ref"])
    assert long_refs > 100 and sum(len(r) <= 62 for r in seqs["ref"]) > 100
    got = run_fresh(
        """
        import importlib, numpy as np
        kernels.prepare(["ter", "tbleu"])
        seqs = DATA
        out = {}
        for name, k in (("aot", _compiled.load(TER)), ("numba", importlib.import_module(TER))):
            res = []
            for h, r in zip(seqs["hyp"], seqs["ref"]):
                h, r = np.array(h, dtype=np.int64), np.array(r, dtype=np.int64)
                shifts = np.zeros((len(h) + len(r) + 1, 3), dtype=np.int64)
                edits, n, shifted = k.ter_pair(h, r, shifts)
                trace = k.trace_ops(k.edit_distance_rows(shifted, r), shifted, r) if len(r) else []
                moved = np.empty_like(h)
                if len(h) > 3:
                    k._perform_shift(h, 1, 2, len(h) - 1, moved)
                res.append([int(edits), shifts[:n].tolist(), shifted.tolist(), list(map(int, trace)),
                            moved.tolist() if len(h) > 3 else []])
            flat = lambda s: (np.array([w for x in s for w in x], dtype=np.int64),
                              np.cumsum([0] + [len(x) for x in s]).astype(np.int64))
            (hf, ho), (rf, ro) = flat(seqs["hyp"]), flat(seqs["ref"])
            pairs = np.column_stack([np.arange(len(seqs["hyp"])), np.arange(len(seqs["ref"]))]).astype(np.int64)
            many = k.ter_many(hf, ho, rf, ro, pairs).tolist()
            out[name] = {"pairs": res, "many": many, "module": k.__name__}
        print(json.dumps(out))
        """,
        from_build(built, tmp_path),
        data=seqs,
    )
    assert got["aot"]["module"] == TER_KERNEL + "_aot" and got["numba"]["module"] == TER_KERNEL
    assert got["aot"]["pairs"] == got["numba"]["pairs"]
    assert got["aot"]["many"] == got["numba"]["many"] == [p[0] for p in got["aot"]["pairs"]]
    assert sum(bool(p[1]) for p in got["aot"]["pairs"]) > 20  # shifts taken, not only plain edits


def test_both_builds_of_ters_kernel_release_the_interpreter_lock_while_they_compute(tmp_path, built):
    """Another thread runs while ``ter_many`` computes, in the ahead-of-time build and in numba's (what lets the
    dashboard's server share TER's blocks between threads). Deterministic: the switch interval is 100 s, so this
    thread never has the lock taken from it; the other thread (which gives the lock up at every step) counts only
    if the kernel call itself lets it go. A kernel that kept the lock counts 0."""
    got = run_fresh(
        """
        import importlib, threading, time, numpy as np
        kernels.prepare(["ter"])
        rng = np.random.default_rng(0)
        hyps = [rng.integers(0, 30, 60) for _ in range(300)]
        refs = [np.roll(h, 7) for h in hyps]  # shifts to search: tens of milliseconds of work
        flat = lambda s: (np.concatenate(s).astype(np.int64), np.cumsum([0] + [len(x) for x in s]).astype(np.int64))
        (hf, ho), (rf, ro) = flat(hyps), flat(refs)
        pairs = np.column_stack([np.arange(300), np.arange(300)]).astype(np.int64)
        out = {}
        for name, k in (("aot", _compiled.load(TER)), ("numba", importlib.import_module(TER))):
            k.ter_many(hf, ho, rf, ro, pairs[:1])  # loaded and called once before counting
            count, stop = [0], []
            def other():
                while not stop:
                    count[0] += 1
                    time.sleep(0)  # gives the lock up, and asks for it again
            sys.setswitchinterval(100.0)
            t = threading.Thread(target=other)
            t.start()
            before = count[0]
            k.ter_many(hf, ho, rf, ro, pairs)
            during = count[0] - before
            stop.append(1)
            sys.setswitchinterval(0.005)
            t.join()
            out[name] = {"module": k.__name__, "during": during}
        print(json.dumps(out))
        """,
        from_build(built, tmp_path),
    )
    assert got["aot"]["module"] == TER_KERNEL + "_aot" and got["numba"]["module"] == TER_KERNEL
    assert got["aot"]["during"] > 0 and got["numba"]["during"] > 0, got


def test_without_a_c_compiler_a_marker_is_left_and_numbas_kernel_is_used(tmp_path, sample, built):
    """A build that fails (here: the C compiler named in CC does not exist) leaves a marker with the
    reason; TER is numba's and correct, and a later process does not try again. Nothing is left in the
    temporary folder (numba.pycc removes its own build folder only when the build succeeds)."""
    refs, systems = sample
    refs, hyps = [r[:60] for r in refs], [h[:60] for h in list(systems.values())[:3]]
    body = """
        import mtlens, os
        from mtlens.metrics.ter import TER as Metric
        marker = _compiled.failed(TER)
        before = os.path.getmtime(marker) if marker.exists() else None
        stats = mtlens.runtime.tasks.statistics(Metric(), *DATA)
        print(json.dumps({"stats": [s.tolist() for s in stats], "marker": marker.read_text(),
                          "same_marker": before == os.path.getmtime(marker),
                          "built": _compiled.built(TER), "numba": TER in sys.modules}))
        """
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"CC": "/nonexistent/cc", "MTLENS_WORKERS": "1", "TMPDIR": str(scratch)}
    cache = from_build(built, tmp_path, aot=False)  # numba's kernels cached; no ahead-of-time build tried
    first = run_fresh(body, cache, data=[refs, hyps], **env)
    assert list(scratch.iterdir()) == []
    second = run_fresh(body, cache, data=[refs, hyps], **env)
    for got in (first, second):
        assert not got["built"] and got["numba"]
        assert "compiler" in got["marker"]  # numba.pycc: no working external compiler
    assert second["same_marker"] and not first["same_marker"]  # written once, not attempted again
    gold = excerpt_golden(SAMPLE_TER)  # sacrebleu's per-line statistics (a line's depend on it alone)
    for name, st in zip(list(systems)[:3], first["stats"], strict=True):
        np.testing.assert_array_equal(np.array(st), np.array(gold[name][:60]))


def test_a_broken_ahead_of_time_file_is_set_aside_and_numbas_kernel_is_used(tmp_path, built):
    got = run_fresh(
        """
        import numpy as np
        path = _compiled.aot_path(TER)
        path.write_bytes(b"\\x7fELF not really a module")
        k = _compiled.load(TER)
        edits = k.ter_pair(np.array([1, 2, 3, 4]), np.array([3, 4, 1, 2]), np.zeros((0, 3), "int64"))[0]
        print(json.dumps({"module": k.__name__, "broken": path.with_name(path.name + ".broken").exists(),
                          "left": path.exists(), "edits": int(edits)}))
        """,
        from_build(built, tmp_path),
    )
    assert got["module"] == TER_KERNEL and got["broken"] and not got["left"]
    assert got["edits"] == 1  # one shift of "3 4" (sacrebleu: translation_edit_rate gives 1 as well)


def test_a_new_build_removes_the_files_of_older_sources_and_versions(built):
    """:func:`built` planted a build and a failure marker of an older key, another interpreter's file, and two
    builds' temporary folders: one untouched for two days (a builder killed outright left it), removed; one just
    made (another process's build now), kept. Nothing is left in the temporary folder (numba.pycc's probe of the C
    compiler never removes its own)."""
    got = built[1]
    assert got["files"] == sorted([*got["want"], OTHER_PYTHON, ".build-of-a-running-build"])
    assert got["left_in_tmp"] == []


def test_the_key_follows_every_kernel_source_and_numpy(tmp_path, monkeypatch):
    """The file name's hash covers the kernel sources (a changed byte, a new file) and numpy's version."""
    import shutil

    from mtlens.metrics import _compiled

    here = tmp_path / "metrics"
    shutil.copytree(_compiled._HERE, here, ignore=shutil.ignore_patterns("__pycache__"))
    keys = []
    for change in (None, "edit", "add", "numpy"):
        if change == "edit":
            (here / "_ter_kernel.py").write_text((here / "_ter_kernel.py").read_text() + "\n# changed\n")
        elif change == "add":
            (here / "_new_kernel.py").write_text("X = 1\n")
        elif change == "numpy":
            monkeypatch.setattr(np, "__version__", np.__version__ + ".post1")
        monkeypatch.setattr(_compiled, "_HERE", here)
        monkeypatch.setattr(_compiled, "_key", None)
        keys.append(_compiled.key())
    assert len(set(keys)) == 4


# --------------------------------------------------------------------------- numba's kernels (MTLENS_AOT=0)
def test_every_kernel_function_has_one_version_after_real_use(tmp_path, built):
    got = run_fresh(
        """
        import mtlens
        c = mtlens.Corpus.build({"ref": ["a b c d e", "x y"]}, {"A": ["b a c d f", "x"], "B": ["", "y x y"]})
        res = mtlens.score(c, "ter,tbleu")
        from mtlens.metrics.ter import ter_alignment
        ter_alignment("b a c d f", ["a b c d e"])
        print(json.dumps({**loaded_from_cache("mtlens.metrics._ter_kernel"),
                          **loaded_from_cache("mtlens.metrics._tbleu_kernel")}))
        """,
        from_build(built, tmp_path),  # numba's cache of real use's types, as after a first run
        MTLENS_AOT="0",
    )
    assert {"ter_many", "_shift_round", "affix_distances", "trace_ops"} <= set(got)
    assert all(versions == 1 for versions, _ in got.values()), got


def test_two_kernels_compile_side_by_side_and_the_second_comes_from_the_cache(tmp_path):
    got = run_fresh(
        """
        kernels.prepare(["ter", "tbleu"])
        print(json.dumps({"ter": loaded_from_cache("mtlens.metrics._ter_kernel"),
                          "tbleu": loaded_from_cache("mtlens.metrics._tbleu_kernel")}))
        """,
        tmp_path,
        MTLENS_WORKERS="2",
        MTLENS_AOT="0",
    )
    # this process compiled TER (no cache hits), a forked child compiled tBLEU, loaded here from disk
    assert all(hits == 0 for _, hits in got["ter"].values())
    assert all(hits == 1 for _, hits in got["tbleu"].values())


def test_one_worker_compiles_both_here_and_mtlens_aot_0_builds_and_loads_nothing_ahead_of_time(tmp_path):
    got = run_fresh(
        """
        kernels.prepare(["ter", "tbleu"])
        print(json.dumps({"ter": loaded_from_cache(TER), "tbleu": loaded_from_cache(TBLEU),
                          "files": sorted(p.name for p in _compiled.cache_dir().iterdir()),
                          "aot": [m + "_aot" in sys.modules for m in (TER, TBLEU)]}))
        """,
        tmp_path,
        MTLENS_WORKERS="1",
        MTLENS_AOT="0",
    )
    assert all(hits == 0 for _, hits in [*got["ter"].values(), *got["tbleu"].values()])  # both compiled here
    assert got["files"] == [] and got["aot"] == [False, False]  # cache_dir() is NUMBA_CACHE_DIR/mtlens-aot


@pytest.mark.parametrize("aot", ["1", "0"])
def test_the_background_warmup_prepares_everything_and_later_use_loads_it(tmp_path, aot):
    got = run_fresh(
        """
        kernels.start_warmup()
        kernels.start_warmup()  # once per process
        proc = kernels._warmup
        kernels.prepare(["ter"])  # waits for the warm-up's numba stage instead of compiling a second time
        ter = loaded_from_cache(TER) if DATA == "0" else None
        tbleu_loaded = _compiled.loaded(TBLEU) is not None
        proc.wait()
        print(json.dumps({"returncode": proc.returncode, "ter": ter, "tbleu_loaded": tbleu_loaded,
                          "built": [_compiled.built(m) for m in (TER, TBLEU, "mtlens.metrics._ngram_kernel")]}))
        """,
        tmp_path,
        data=aot,
        MTLENS_AOT=aot,
    )
    assert got["returncode"] == 0
    if aot == "1":
        assert got["built"] == [True, True, True]  # the warm-up's second stage
    else:
        assert got["built"] == [False, False, False]
        assert all(hits == 1 for _, hits in got["ter"].values())  # compiled by the warm-up, loaded here
    assert not got["tbleu_loaded"]  # only what was asked for is loaded here


def test_the_warmup_and_its_builders_stop_with_the_process_that_started_it_and_leave_no_build_folder(built, tmp_path):
    """A server that stops (or any process that ends) while its warm-up builds stops the warm-up and the builders it
    started (issue 38: every process a server starts stops with it; a warm-up left behind went on compiling for half a
    minute). The process here ends normally once a builder has its temporary folder (numba's cache from the shared
    build, so the warm-up's first stage is short); afterwards no process of the warm-up's group runs and no build
    folder is left in the cache."""
    folder = from_build(built, tmp_path, aot=False)
    got = run_fresh(
        """
        import time
        kernels.start_warmup()
        proc = kernels._warmup
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None and not any(_compiled.cache_dir().glob(".build-*")):
            time.sleep(0.05)
        print(json.dumps({"pid": proc.pid, "building": any(_compiled.cache_dir().glob(".build-*"))}))
        """,
        folder,
    )
    assert got["building"]  # it was stopped midway
    deadline = time.monotonic() + 120  # a warm-up left running would end by itself, having built every module
    while time.monotonic() < deadline and group_members(got["pid"]):
        time.sleep(0.1)
    assert group_members(got["pid"]) == []
    aot = folder / "mtlens-aot"
    assert list(aot.glob(".build-*")) == []
    from mtlens.metrics import _compiled
    from mtlens.runtime.kernels import kernel_modules

    built_now = [p.name for p in aot.glob(f"*-{_compiled.key()}*") if p.suffix == ".so"]
    assert len(built_now) < len(set(kernel_modules().values())), built_now  # stopped, not left to finish


def test_a_stopping_server_stops_a_running_warmup_and_its_children(monkeypatch):
    """The server's stop (:func:`mtlens.service.results.stop_workers`, which its lifespan calls: a signal skips
    ``atexit``) stops the warm-up's whole process group: here a stand-in warm-up that started a child of its own."""
    import subprocess
    import sys

    from mtlens.runtime import kernels
    from mtlens.service import results

    script = "import subprocess, sys, time; print(subprocess.Popen(['sleep', '300']).pid, flush=True); time.sleep(300)"
    # a stand-in warm-up in a group of its own, as start_warmup starts it, with a child of its own
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, start_new_session=True)
    child = int(proc.stdout.readline())
    monkeypatch.setattr(kernels, "_warmup", proc)
    assert len(group_members(proc.pid)) == 2
    results.stop_workers()
    assert proc.poll() is not None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and group_members(proc.pid):
        time.sleep(0.05)
    assert group_members(proc.pid) == [], child


def test_prepare_waits_for_the_warmups_first_stage_only_and_builds_nothing_while_it_builds(monkeypatch):
    """While the warm-up builds the ahead-of-time modules (after its line COMPILED), a page's prepare
    loads numba's kernels at once and builds nothing; once the warm-up has ended, prepare builds what
    is missing itself."""
    import subprocess
    import sys
    import threading
    import time

    from mtlens.runtime import kernels

    script = f"print({kernels.COMPILED!r}, flush=True); import time; time.sleep(120)"
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    monkeypatch.setattr(kernels, "_warmup", proc)
    monkeypatch.setattr(kernels, "_warmup_compiled", threading.Event())
    threading.Thread(target=kernels._follow_warmup, args=(proc,), daemon=True).start()
    builds, loads = [], []
    monkeypatch.setattr(kernels, "_build_ahead", lambda modules: builds.append(list(modules)))
    monkeypatch.setattr(kernels._compiled, "loaded", lambda m: None)
    monkeypatch.setattr(kernels._compiled, "load", loads.append)
    try:
        t = time.perf_counter()
        kernels.prepare(["ter"])
        assert time.perf_counter() - t < 60 and proc.poll() is None  # did not wait for the end
        assert builds == [] and loads == [TER_KERNEL]
    finally:
        proc.kill()
        proc.wait()
    assert kernels._warmup_compiled.wait(10)
    kernels.prepare(["ter"])
    assert len(builds) == 1 and loads == [TER_KERNEL, TER_KERNEL]


def test_loading_a_kernel_leaves_out_numbas_blas_and_cffi_imports_and_both_still_work_after(tmp_path, built):
    got = run_fresh(
        """
        import numpy as np
        blocked_before = [m for m in ("scipy.linalg", "cffi") if m in sys.modules]
        import mtlens.metrics._ter_kernel
        left_out = [m for m in ("scipy.linalg", "scipy.linalg.cython_blas", "cffi") if m not in sys.modules]
        import cffi, scipy.linalg  # importable as usual afterwards
        from numba import njit
        dot = njit(lambda a, b: np.dot(a, b))(np.arange(3.0), np.arange(3.0))  # numba's BLAS path imports scipy
        inv = njit(lambda a: np.linalg.inv(a))(np.array([[2.0, 0.0], [0.0, 4.0]]))
        print(json.dumps({"before": blocked_before, "left_out": left_out, "dot": dot, "inv": inv.tolist(),
                          "cffi": cffi.__version__ is not None}))
        """,
        from_build(built, tmp_path),  # numba's TER kernel loaded from its cache, as in every later process
    )
    assert got["before"] == []
    assert got["left_out"] == ["scipy.linalg", "scipy.linalg.cython_blas", "cffi"]
    assert got["dot"] == 5.0  # 0*0 + 1*1 + 2*2
    assert got["inv"] == [[0.5, 0.0], [0.0, 0.25]]
    assert got["cffi"]


def test_cache_dir_falls_back_to_the_users_cache_when_beside_the_sources_cannot_be_written(tmp_path):
    """Where ``__pycache__`` beside the sources cannot be made (here: the sources' folder is a file, which
    fails even for root), the modules go to the user's cache folder."""
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    code = f"""
import json
from pathlib import Path
from mtlens.metrics import _compiled
_compiled._HERE = Path({str(blocked)!r})
print(json.dumps({{"dir": str(_compiled.cache_dir())}}))
"""
    got = run_python(code, HOME=str(tmp_path / "home"))
    assert got["dir"] == str(tmp_path / "home" / ".cache" / "mtlens" / "kernels")


def test_the_language_identification_is_built_ahead_of_time_and_a_score_process_needs_no_numba(tmp_path):
    """The references' language check (``score -l``) identifies every line with the compiled loop of
    :mod:`mtlens.checks.langid_batch`: prepare builds it ahead of time like the metrics' kernels, and a later process
    identifies lines without importing numba, with the same languages and probabilities as numba's loop (which
    tests/checks/test_langid_batch.py holds to py3langid's own)."""
    from mtlens.checks.langid_batch import KERNEL, classify_many

    lines = [x for p in sorted(SAMPLE.glob("*.txt")) for x in p.read_text(encoding="utf-8").splitlines()[:60]]
    want = classify_many(lines)  # this process: numba's loop, or a build of this installation
    done = run_fresh(
        f"kernels.prepare([kernels.LANGUAGE_CHECK]); print(json.dumps(_compiled.built({KERNEL!r})))", tmp_path
    )
    assert done is True
    later = run_fresh(
        """
        from mtlens.checks.langid_batch import classify_many
        got = classify_many(DATA)
        print(json.dumps({"got": got, "numba": "numba" in sys.modules, "aot": any(m.endswith("_langid_kernel_aot")
                          for m in sys.modules)}))
        """,
        tmp_path,
        data=lines,
    )
    assert later["aot"] and not later["numba"]
    assert [lang for lang, _ in later["got"]] == [lang for lang, _ in want] and len(want) > 100
    np.testing.assert_allclose([p for _, p in later["got"]], [p for _, p in want], rtol=0, atol=1e-6)


def test_the_line_checks_loops_are_built_ahead_of_time_and_a_checking_process_needs_no_numba(tmp_path):
    """The repetition and untranslated checks find their candidate lines with the compiled loops of
    :mod:`mtlens.checks.candidates`: prepare builds them ahead of time like the metrics' kernels, and a later process
    finds the same lines as numba's loops (``MTLENS_AOT=0``) without importing numba (the dashboard's server checks
    every set it shows; numba and LLVM were about 70 MB of its memory). tests/checks/test_candidates.py holds the
    loops to the checks' own rules. Real lines of the bundled sample, with loops and copies of the source added."""
    from mtlens.checks.candidates import KERNEL

    lines = [x for p in sorted(SAMPLE.glob("*.txt")) for x in p.read_text(encoding="utf-8").splitlines()[:60]]
    lines += ["the the the the the the", "ja ja ja ja ja ja ja", "a b c a b c a b c a b c", "𝔘 astral"]
    sources = lines[::-1]
    outputs = [s if k % 3 == 0 else o for k, (s, o) in enumerate(zip(sources, lines, strict=True))]
    find = """
        from mtlens.checks.candidates import may_be_copies, may_loop
        lines, sources, outputs = DATA
        got = {"loops": may_loop(lines).tolist(), "copies": may_be_copies(sources, outputs).tolist()}
        print(json.dumps({"got": got, "numba": "numba" in sys.modules,
                          "aot": any(m.endswith("_candidates_kernel_aot") for m in sys.modules)}))
        """
    jit = run_fresh(find, tmp_path, data=[lines, sources, outputs], MTLENS_AOT="0")
    assert jit["numba"] and not jit["aot"]
    want = jit["got"]
    assert sum(want["loops"]) >= 4 and sum(want["copies"]) >= len(lines) // 3  # both kinds of line are there
    done = run_fresh(
        f"kernels.prepare([kernels.LINE_CHECKS]); print(json.dumps(_compiled.built({KERNEL!r})))", tmp_path
    )
    assert done is True
    later = run_fresh(find, tmp_path, data=[lines, sources, outputs])
    assert later["aot"] and not later["numba"]
    assert later["got"] == want
