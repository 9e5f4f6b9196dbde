"""What a delta means to humans, on the pages (AppTest): the Significance page's pairs carry the
published estimate for every chrF pair, and Compare two systems says it for the chosen pair."""

from __future__ import annotations

import pytest

from mtlens import Corpus, score
from mtlens.analysis.agreement import human_agreement

from ..conftest import SAMPLE, pair_files
from .conftest import no_errors, plain


def test_significance_pairs_carry_the_human_agreement(app):
    app.switch_page("pages/4_Significance.py").run()
    app.selectbox(key="sig_metric").set_value("chrf").run()
    no_errors(app)
    pairs = app.dataframe[1].value
    assert len(pairs) == 6
    for _, row in pairs.iterrows():
        assert row["humans agree (est.)"] == pytest.approx(human_agreement("chrf", row["delta (a - b)"]), rel=1e-12)
    app.selectbox(key="sig_metric").set_value("ter").run()
    assert app.dataframe[1].value["humans agree (est.)"].isna().all()  # no published fit for TER


def test_compare_two_systems_says_what_the_difference_means(app):
    """The delta with BLEU's decimals (one, as sacrebleu prints it) and the human agreement of its size."""
    app.switch_page("pages/6_Compare_two_systems.py").run()
    app.selectbox(key="cmp_metric").set_value("bleu").run()
    no_errors(app)
    a, b = app.selectbox(key="cmp_a").value, app.selectbox(key="cmp_b").value
    refs, systems = pair_files(SAMPLE)
    bleu = score(Corpus.build({"ref": refs[0], "ref2": refs[1]}, systems), "bleu")["bleu"].scores
    est = human_agreement("bleu", bleu[b] - bleu[a])
    want = f"bleu: {b} − {a} = {bleu[b] - bleu[a]:+.1f}; humans agree with a bleu difference of this size on about {est:.0%}"
    assert any(plain(m.value).startswith(want) for m in app.markdown)
