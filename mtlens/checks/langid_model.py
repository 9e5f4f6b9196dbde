"""py3langid's language identifier, loaded fast (the language checks of :mod:`mtlens.analysis.pitfalls` and
:mod:`mtlens.analysis.reference`): its wheel ships the model xz-compressed, and decompressing it took about 0.4 s of
every command that checks a language; the decompressed arrays are kept in the kernels' cache folder instead, and so
are the arrays the compiled loop of :mod:`.langid_batch` reads, as plain ``.npy`` files that a process maps
(:func:`loop_arrays`) instead of reading the model and converting it (0.28 s of every such process)."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1)
def identifier():
    """py3langid's identifier. Its wheel ships the model as an xz-compressed npz whose decompression takes
    about 0.4 s, paid by every command that checks a language; the decompressed npz (the same arrays, read with
    ``allow_pickle=False``) is kept in the kernels' cache folder, keyed by the packed file's size and
    modification time, and rebuilt from the packed file whenever it is missing, unreadable or not a regular file."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    packed = MODEL_DIR / MODEL_FILE
    plain = _cached(".npz")
    arrays = _read_plain(plain)
    if arrays is None and _write_plain(packed, plain):
        arrays = _read_plain(plain)
    if arrays is None:  # no writable cache, or a broken one: the packed model, as py3langid reads it
        return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    ptc, pc, classes, nextmove, row, output = arrays
    return LanguageIdentifier(ptc, pc, classes, nextmove, output, norm_probs=True, tk_row=row)


_MODEL_KEYS = ("ptc", "pc", "classes", "nextmove", "nextmove_row", "out_feat")


def _cached(suffix: str):
    """Where a copy of the model (named with this ``suffix``) is kept in the kernels' cache folder: its name holds the
    packed file's size and modification time, so another py3langid gets copies of its own."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    from ..metrics._compiled import cache_dir

    stat = (MODEL_DIR / MODEL_FILE).stat()
    return cache_dir() / f"py3langid-{stat.st_size}-{stat.st_mtime_ns}{suffix}"


def _open_regular(path):
    """``path`` opened for reading if it is a regular file and not a link (the cache is never read through a link
    planted in it), else None."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        f.close()
        return None
    return f


def _read_plain(path):
    """The model's arrays from the decompressed copy (as py3langid's ``load_model`` returns them), or None."""
    import zipfile
    from array import array

    import numpy as np

    def stdlib(a):  # the transition tables as py3langid keeps them (stdlib arrays)
        out = array({2: "H", 4: "I", 8: "L"}[a.dtype.itemsize])
        out.frombytes(np.ascontiguousarray(a).tobytes())
        return out

    f = _open_regular(path)
    if f is None:
        return None
    try:
        with f, np.load(f, allow_pickle=False) as data:
            a = {k: data[k] for k in _MODEL_KEYS}
        return (
            a["ptc"],
            a["pc"],
            a["classes"].tolist(),
            stdlib(a["nextmove"]),
            stdlib(a["nextmove_row"]),
            a["out_feat"].tolist(),
        )
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def _write_plain(packed, path) -> bool:
    """Decompress the packed model next to its final name, then move it there in one step."""
    import lzma
    import os
    import shutil
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out, lzma.open(packed) as src:
                shutil.copyfileobj(src, out, length=1 << 20)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return True
    except (OSError, lzma.LZMAError):
        return False


#: the compiled loop's arrays (:func:`mtlens.checks.langid_batch._model`), one ``.npy`` file each, in this order
LOOP_ARRAYS = (("nextmove", "<u4", 1), ("rowbase", "<i8", 1), ("output", "<i8", 1), ("ptc", "<f4", 2), ("pc", "<f4", 1),
               ("alias", "<i8", 2))  # fmt: skip


def loop_arrays(build):
    """The compiled loop's arrays (``build()`` makes them: six arrays and the list of classes), mapped copy-on-write
    from a folder of the kernels' cache keyed like the decompressed model; the folder is written (whole, then
    renamed) when it is missing or anything in it is unreadable, of another type or a link."""
    folder = _cached("-loop")
    got = _read_loop(folder)
    if got is None:
        got = build()
        _write_loop(folder, got)
    return got


def _read_loop(folder):
    """The arrays of :func:`loop_arrays`' folder, or None (missing, a link, another type, not whole)."""
    import numpy as np

    out = []
    try:
        for name, dtype, ndim in (*LOOP_ARRAYS, ("classes", None, 1)):
            f = _open_regular(folder / f"{name}.npy")
            if f is None:
                return None
            with f:
                if dtype is None:  # the class names: a small array of strings (never an object array)
                    names = np.load(f, allow_pickle=False)
                    if names.dtype.kind != "U":
                        return None
                    out.append(names.tolist())
                    continue
                version = np.lib.format.read_magic(f)
                if version not in ((1, 0), (2, 0)):
                    return None
                read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
                shape, fortran, found = read(f)
                if found != np.dtype(dtype) or fortran or len(shape) != ndim:
                    return None
                mapped = np.memmap(f, dtype=found, mode="c", offset=f.tell(), shape=shape) if all(shape) else None
                out.append(np.zeros(shape, dtype=found) if mapped is None else mapped.view(np.ndarray))
    except (OSError, ValueError, TypeError):
        return None
    return tuple(out)


def _write_loop(folder, arrays) -> None:
    """Write :func:`loop_arrays`' folder next to its final name, then move it there in one step (best effort)."""
    import os
    import shutil
    import tempfile

    import numpy as np

    try:
        tmp = tempfile.mkdtemp(dir=folder.parent, prefix=".loop-")
        try:
            for (name, dtype, _), a in zip(LOOP_ARRAYS, arrays, strict=False):
                np.save(f"{tmp}/{name}.npy", np.ascontiguousarray(a, dtype=dtype), allow_pickle=False)
            np.save(f"{tmp}/classes.npy", np.array(arrays[-1], dtype=str), allow_pickle=False)
            if folder.is_symlink() or folder.is_file():
                folder.unlink()
            elif folder.is_dir():
                shutil.rmtree(folder)
            os.replace(tmp, folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError:
        return
