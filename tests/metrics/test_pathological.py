"""Pathological text through every metric and the command line: no crash, no hang, sensible scores.

mtlens applies no normalisation of its own by default (scores stay sacrebleu's); zero-width
characters, no-break spaces, right-to-left marks and emoji are counted as the text has them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from mtlens.cli import main
from mtlens.metrics import REGISTRY, make_metric, metric_names

RNG = np.random.default_rng(7)
VOCAB = [f"w{i}" for i in range(500)]
# two 2,500-word lines: 6.25 million word pairs, within TER's bound (MTLENS_MAX_TER_WORD_PAIRS)
LONG_A = " ".join(RNG.choice(VOCAB, 2500))
LONG_B = " ".join(RNG.choice(VOCAB, 2500))
REFS = [
    LONG_A,
    "... !!! ??? ;;; --- ,,,",
    "Zero\u200bwidth\u200bspaces and no\u00a0break\u00a0spaces",
    "Mixed scripts: Praha 東京 Москва القاهرة ירושלים",
    "\u202bשלום עולם\u202c and مرحبا بالعالم",
    "Emoji 😀👍🏽 family 👨‍👩‍👧 flags 🇨🇿",
    "",
    "a",
]
HYPS = [
    LONG_B,
    "!!! ... ,,,",
    "Zero\u200bwidth spaces and no break spaces",
    "Mixed scripts: Praha Tokio Moskva القاهرة",
    "שלום עולם and مرحبا",
    "Emoji 😀 family 👨‍👩‍👧",
    "something where the reference is empty",
    "",
]


@pytest.mark.parametrize("name", metric_names())
def test_every_metric_copes(name):
    m = make_metric(name, char_order=18)
    st = m.statistics([REFS], [HYPS])[0]
    scores = [m.corpus_score(st), *m.sentence_scores(st)]
    low, high = REGISTRY[name].score_range  # the metric's own declared range, not a list kept here
    assert all(np.isfinite(scores))
    assert low is None or min(scores) >= low
    assert high is None or max(scores) <= high
    # the two 2,500-word lines drawn from 500 words share many words but few long n-grams
    assert 0 <= m.sentence_scores(st)[0] < 100


def test_word_bleu_equals_sacrebleu_on_pathological_lines():
    m = make_metric("bleu")
    got = m.corpus_score(m.statistics([REFS], [HYPS])[0])
    assert got == pytest.approx(SacreBLEU().corpus_score(HYPS, [REFS]).score, abs=1e-9)


def test_command_line_on_pathological_files(tmp_path, capsys):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    code = main(
        [
            "score",
            "--ref",
            str(ref),
            "--sys",
            str(hyp),
            "--metrics",
            ",".join(metric_names()),
            "--sentence-level",
            "--format",
            "json",
        ]
    )
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert all(len(v) == len(HYPS) for v in doc["systems"][0]["sentences"].values())


def test_a_line_at_the_bound_is_one_segment_and_a_longer_one_is_refused(tmp_path, capsys):
    """Lines up to MAX_LINE_CHARS are scored whole (every metric); a two-megabyte line gets one sentence."""
    from mtlens.core.corpus import MAX_LINE_CHARS

    words = [f"w{i % 997}" for i in range(MAX_LINE_CHARS // 4)]
    long = " ".join(words)[:MAX_LINE_CHARS]
    (tmp_path / "r.txt").write_text(long + "\nshort\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text(long + "\nshort\n", encoding="utf-8")
    args = ["score", "--ref", str(tmp_path / "r.txt"), "--sys", str(tmp_path / "h.txt"), "--format", "json"]
    code = main([*args, "--metrics", "bleu,chrf,bleu-c,ter,tbleu,nist"])
    assert code == 0
    scores = json.loads(capsys.readouterr().out)["systems"][0]["scores"]
    assert scores["bleu"] == pytest.approx(100.0) and scores["ter"] == 0.0 and scores["chrf"] == pytest.approx(100.0)
    big = "lorem ipsum " * 180_000
    (tmp_path / "h.txt").write_text(big + "\nshort\n", encoding="utf-8")
    code = main([*args, "--metrics", "bleu"])
    err = capsys.readouterr().err
    assert code == 2
    assert "line 1 has 2,160,000 characters; mtlens scores lines of up to 100,000" in err
