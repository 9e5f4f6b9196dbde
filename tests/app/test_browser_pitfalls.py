"""COMET pitfalls on Rankings in real headless Chromium (issue 39): a set whose systems include one of empty
lines, one that copies the source and one in English (other English sentences of the source), with COMET
scores; the page names the three, with their counts, above the signatures, and says nothing of the real
system."""

from __future__ import annotations

import os

from mtlens.core.corpus import Corpus
from mtlens.storage.store import Store

from ..conftest import SAMPLE, read
from .test_browser import _idle, browser, running_server  # noqa: F401 (the fixture)

N = 60


def test_rankings_names_empty_and_copied_systems_before_the_comet_scores(browser, tmp_path):  # noqa: F811
    data = tmp_path / "ws"
    src, ref, good = (read(SAMPLE / f"{n}.txt")[:N] for n in ("src", "ref", "UEdin"))
    english = src[1:] + src[:1]  # English, never its own line's source
    systems = {"UEdin": good, "blank": [""] * N, "parrot": src, "english": english}
    long_lines = sum(len(x.strip()) >= 20 for x in english)
    rows = ["system\tline\tcomet"] + [f"{s}\t{i + 1}\t{0.5 + i / 1000}" for s in systems for i in range(N)]
    sid = Store(data).save(
        Corpus.build({"ref": ref}, systems, src, language_pair="en-de"),
        "pitfalls in chromium",
        scores=[("comet.tsv", ("\n".join(rows) + "\n").encode())],
    )
    with running_server(tmp_path, env=dict(os.environ, MTLENS_DATA_DIR=str(data))) as url:
        ctx = browser.new_context(viewport={"width": 1400, "height": 2400})
        page = ctx.new_page()
        page.goto(f"{url}/Rankings?set={sid}&metrics=bleu%2Ccomet")
        box = page.locator(".st-key-rank_pitfalls")
        box.get_by_text("Before reading comet: 3 system(s) have outputs").wait_for(timeout=120_000)
        _idle(page)
        table = box.locator('[data-testid="stDataFrame"]')
        table.wait_for(timeout=60_000)
        text = box.inner_text()
        assert "identified by py3langid as another language than 'de' (declared)" in text
        # the grid draws on a canvas: its cells are read from the accessible table Streamlit keeps beside it
        cells = table.locator('[role="gridcell"]').all_inner_texts()
        assert cells and {"blank", "parrot", "english"} <= set(cells) and "UEdin" not in cells, cells
        row_blank = cells[cells.index("blank") : cells.index("blank") + 4]
        row_parrot = cells[cells.index("parrot") : cells.index("parrot") + 4]
        assert row_blank == ["blank", "60", "0", "0"] and row_parrot == ["parrot", "0", "60", "0"], (
            row_blank,
            row_parrot,
        )
        row_english = cells[cells.index("english") : cells.index("english") + 4]
        assert row_english[:3] == ["english", "0", "0"] and 0.9 * long_lines <= int(row_english[3]) <= long_lines
        assert page.locator('[data-testid="stException"]').count() == 0
        ctx.close()
