"""The language check's model, read from its decompressed copy in the kernels' cache: the same identifier as
py3langid's own loader, rebuilt when the copy is broken, never read through a symbolic link; and `score` no
longer imports scipy.stats for the reference checks (the 0.4 s + 0.5 s that issue 50's checks had added)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtlens.checks import langid_model

ROOT = Path(__file__).resolve().parents[2]
LINES = [
    "Das ist ein ganz gewöhnlicher deutscher Satz über das Wetter.",
    "This is an entirely ordinary English sentence about the weather.",
    "这是一个关于天气的非常普通的中文句子，没有什么特别的。",
    "Toto je úplně obyčejná česká věta o počasí a o ničem jiném.",
    "これは天気についてのごく普通の日本語の文です。特別なことは何もありません。",
]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    langid_model.identifier.cache_clear()
    yield tmp_path / "mtlens-aot"
    langid_model.identifier.cache_clear()


def _theirs():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def test_the_cached_model_identifies_as_py3langids_own_loader(cache):
    ours = langid_model.identifier()
    copies = list(cache.glob("py3langid-*.npz"))
    assert len(copies) == 1
    theirs = _theirs()
    for line in LINES:
        assert ours.classify(line) == theirs.classify(line)
    assert [theirs.classify(line)[0] for line in LINES] == ["de", "en", "zh", "cs", "ja"]


def test_a_broken_copy_is_rebuilt_and_a_symbolic_link_is_not_followed(cache):
    langid_model.identifier()
    (copy,) = cache.glob("py3langid-*.npz")
    copy.write_bytes(b"PK\x03\x04 not an npz")
    langid_model.identifier.cache_clear()
    assert langid_model.identifier().classify(LINES[0])[0] == "de"
    assert copy.stat().st_size > 1_000_000  # written again, whole
    elsewhere = cache.parent / "elsewhere.npz"
    copy.rename(elsewhere)
    copy.symlink_to(elsewhere)
    assert langid_model._read_plain(copy) is None  # a link planted in the cache is not read
    langid_model.identifier.cache_clear()
    assert langid_model.identifier().classify(LINES[1])[0] == "en"
    assert not copy.is_symlink()  # replaced by a real file


def test_an_unwritable_cache_falls_back_to_the_packed_model(cache, monkeypatch):
    monkeypatch.setattr(langid_model, "_write_plain", lambda packed, path: False)
    assert langid_model.identifier().classify(LINES[3])[0] == "cs"
    assert not list(cache.glob("py3langid-*.npz"))


def test_score_checks_the_references_without_importing_scipy_stats(tmp_path):
    script = (
        "import runpy, sys\n"
        "sys.argv = ['mtlens', 'score', '--ref', 'sample_data/ref.txt', '--sys', 'sample_data/UEdin.txt',"
        " 'sample_data/Online-W.txt', '--format', 'json']\n"
        "try:\n    runpy.run_module('mtlens', run_name='__main__')\n"
        "except SystemExit as e:\n    assert not e.code, e.code\n"
        "import json\n"
        "print(json.dumps({'stats': 'scipy.stats' in sys.modules}), file=sys.stderr)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "reference_notes" in json.loads(done.stdout)  # the checks ran
    assert json.loads(done.stderr.strip().splitlines()[-1]) == {"stats": False}


@pytest.fixture
def loop_cache(cache):
    from mtlens.checks import langid_batch

    langid_batch._model.cache_clear()
    yield cache
    langid_batch._model.cache_clear()


def test_the_loops_arrays_are_kept_mapped_and_equal_to_those_made_from_the_model(loop_cache):
    from mtlens.checks import langid_batch

    first = langid_batch._model()  # made from py3langid's identifier, then written
    (folder,) = loop_cache.glob("py3langid-*-loop")
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [f"{name}.npy" for name, _, _ in langid_model.LOOP_ARRAYS] + ["classes.npy"]
    )
    langid_batch._model.cache_clear()
    mapped = langid_batch._model()  # read back: mapped, writable (the loop's signature), the same numbers
    made = langid_batch._arrays_for_the_loop()
    for a, b, c in zip(mapped[:6], first[:6], made[:6], strict=True):
        assert a.dtype == c.dtype and a.flags.c_contiguous and a.flags.writeable
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, c)
    assert mapped[6] == made[6] and len(made[6]) > 90
    theirs = _theirs()
    got = langid_batch.classify_many(LINES)
    assert [lang for lang, _ in got] == [theirs.classify(line)[0] for line in LINES]


@pytest.mark.parametrize("damage", ["truncated", "link", "other dtype", "object classes"])
def test_a_damaged_loop_folder_is_rebuilt_and_a_link_is_not_followed(loop_cache, damage):
    from mtlens.checks import langid_batch

    langid_batch._model()
    (folder,) = loop_cache.glob("py3langid-*-loop")
    ptc = folder / "ptc.npy"
    if damage == "truncated":
        ptc.write_bytes(ptc.read_bytes()[:1000])
    elif damage == "link":
        elsewhere = loop_cache.parent / "elsewhere.npy"
        np.save(elsewhere, np.zeros((3, 3), dtype=np.float32))
        ptc.unlink()
        ptc.symlink_to(elsewhere)
    elif damage == "other dtype":
        np.save(ptc, np.zeros((3, 3), dtype=np.float64))
    else:
        # a pickled object array: never unpickled (allow_pickle=False), so the folder is not read
        np.save(folder / "classes.npy", np.array(["de", None], dtype=object), allow_pickle=True)
    assert langid_model._read_loop(folder) is None
    langid_batch._model.cache_clear()
    assert langid_batch.classify_many(LINES[:1])[0][0] == "de"  # made again from the model, and written again
    assert not ptc.is_symlink() and langid_model._read_loop(folder) is not None
