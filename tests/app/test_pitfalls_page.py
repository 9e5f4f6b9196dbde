"""COMET pitfalls on the Rankings page (issue 39): with a neural metric shown, the systems whose outputs are
empty or copy the source are named with their counts above the signatures; without one, nothing."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from mtlens.core.corpus import Corpus

from ..conftest import ROOT, SAMPLE, read
from .conftest import no_errors, plain

N = 60


def _set(tmp_path, monkeypatch) -> str:
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    src, ref, good = (read(SAMPLE / f"{n}.txt")[:N] for n in ("src", "ref", "UEdin"))
    systems = {"good": good, "blank": [""] * N, "copy": src}
    corpus = Corpus.build({"ref": ref}, systems, src, language_pair="en-de")
    rows = ["system\tline\tcomet"] + [f"{s}\t{i + 1}\t{0.5 + i / 1000}" for s in systems for i in range(N)]
    return state.store().save(corpus, "pitfalls", scores=[("comet.tsv", ("\n".join(rows) + "\n").encode())])


def _rankings(sid: str, metrics: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "1_Rankings.py"), default_timeout=180)
    at.query_params.update({"set": sid, "metrics": metrics})
    return at.run()


def test_rankings_flags_empty_and_copied_outputs_when_comet_is_shown(tmp_path, monkeypatch):
    sid = _set(tmp_path, monkeypatch)
    at = _rankings(sid, "bleu,comet")
    no_errors(at)
    warning = " ".join(plain(w.value) for w in at.warning)
    assert "Before reading comet: 2 system(s) have outputs that are empty, copy the source" in warning
    table = next(d.value for d in at.dataframe if "copies of the source" in d.value.columns)
    table = table.data if hasattr(table, "data") else table
    got = {r["system"]: (r["empty"], r["copies of the source"], r["in another language"]) for _, r in table.iterrows()}
    assert got == {"blank": (N, 0, 0), "copy": (0, N, 0)}
    assert any("identified by py3langid as another language than 'de' (declared)" in plain(c.value) for c in at.caption)
    without = _rankings(sid, "bleu,chrf")
    no_errors(without)
    assert not [w for w in without.warning if "Before reading" in w.value]
