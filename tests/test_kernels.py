"""Compiled kernels (mtlens.kernels): one version per function, compiled side by side, warmed ahead.

Each check runs in a fresh interpreter with an empty numba cache (a fresh installation), and reads
numba's own bookkeeping (``Dispatcher.stats``: which functions were loaded from the disk cache).
"""

from __future__ import annotations

import textwrap

from .conftest import run_python


def run_fresh(body: str, tmp_path, **env) -> dict:
    head = """
        import json, sys
        from mtlens import kernels
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
    return run_python(textwrap.dedent(head) + textwrap.dedent(body), NUMBA_CACHE_DIR=str(tmp_path), **env)


def test_every_kernel_function_has_one_version_after_real_use(tmp_path):
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
        tmp_path,
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
    )
    # this process compiled TER (no cache hits), a forked child compiled tBLEU, loaded here from disk
    assert all(hits == 0 for _, hits in got["ter"].values())
    assert all(hits == 1 for _, hits in got["tbleu"].values())


def test_one_worker_compiles_both_here(tmp_path):
    got = run_fresh(
        """
        kernels.prepare(["ter", "tbleu"])
        print(json.dumps({"tbleu": loaded_from_cache("mtlens.metrics._tbleu_kernel")}))
        """,
        tmp_path,
        MTLENS_WORKERS="1",
    )
    assert all(hits == 0 for _, hits in got["tbleu"].values())


def test_the_background_warmup_compiles_everything_and_later_use_loads_it(tmp_path):
    got = run_fresh(
        """
        kernels.start_warmup()
        kernels.start_warmup()  # once per process
        proc = kernels._warmup
        kernels.prepare(["ter"])  # waits for the warm-up instead of compiling a second time
        print(json.dumps({"returncode": proc.returncode,
                          "ter": loaded_from_cache("mtlens.metrics._ter_kernel"),
                          "tbleu_imported": "mtlens.metrics._tbleu_kernel" in sys.modules}))
        """,
        tmp_path,
    )
    assert got["returncode"] == 0
    assert all(hits == 1 for _, hits in got["ter"].values())
    assert not got["tbleu_imported"]  # only what was asked for is loaded here


def test_loading_a_kernel_leaves_out_numbas_blas_and_cffi_imports_and_both_still_work_after(tmp_path):
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
        tmp_path,
    )
    assert got["before"] == []
    assert got["left_out"] == ["scipy.linalg", "scipy.linalg.cython_blas", "cffi"]
    assert got["dot"] == 5.0  # 0*0 + 1*1 + 2*2
    assert got["inv"] == [[0.5, 0.0], [0.0, 0.25]]
    assert got["cffi"]
