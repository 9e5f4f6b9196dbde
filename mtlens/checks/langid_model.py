"""py3langid's language identifier, loaded fast (the language checks of :mod:`mtlens.analysis.pitfalls` and
:mod:`mtlens.analysis.reference`): its wheel ships the model xz-compressed, and decompressing it took about 0.4 s of
every command that checks a language; the decompressed arrays are kept in the kernels' cache folder instead."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1)
def identifier():
    """py3langid's identifier. Its wheel ships the model as an xz-compressed npz whose decompression takes
    about 0.4 s, paid by every command that checks a language; the decompressed npz (the same arrays, read with
    ``allow_pickle=False``) is kept in the kernels' cache folder, keyed by the packed file's size and
    modification time, and rebuilt from the packed file whenever it is missing, unreadable or not a regular file."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    from ..metrics._compiled import cache_dir

    packed = MODEL_DIR / MODEL_FILE
    stat = packed.stat()
    plain = cache_dir() / f"py3langid-{stat.st_size}-{stat.st_mtime_ns}.npz"
    arrays = _read_plain(plain)
    if arrays is None and _write_plain(packed, plain):
        arrays = _read_plain(plain)
    if arrays is None:  # no writable cache, or a broken one: the packed model, as py3langid reads it
        return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    ptc, pc, classes, nextmove, row, output = arrays
    return LanguageIdentifier(ptc, pc, classes, nextmove, output, norm_probs=True, tk_row=row)


_MODEL_KEYS = ("ptc", "pc", "classes", "nextmove", "nextmove_row", "out_feat")


def _read_plain(path):
    """The model's arrays from the decompressed copy (as py3langid's ``load_model`` returns them), or None."""
    import os
    import stat
    import zipfile
    from array import array

    import numpy as np

    def stdlib(a):  # the transition tables as py3langid keeps them (stdlib arrays)
        out = array({2: "H", 4: "I", 8: "L"}[a.dtype.itemsize])
        out.frombytes(np.ascontiguousarray(a).tobytes())
        return out

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            with np.load(f, allow_pickle=False) as data:
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
