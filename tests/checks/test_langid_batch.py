"""The compiled identification of many lines (:mod:`mtlens.checks.langid_batch`) against py3langid's own
``classify`` on the same model: the same language and the probability within 1e-5 (float32 sums in another
order), on real lines of every language of the bundled data (English, German, Czech, Chinese, Japanese), their
upper-cased forms (py3langid lowers those), Serbian and Uzbek lines (whose two columns py3langid folds into one)
and lines with no feature at all."""

from __future__ import annotations

from mtlens.checks.langid_batch import classify_many
from mtlens.checks.langid_model import identifier

from ..conftest import ROOT, SAMPLE


def _lines() -> list[str]:
    files = [*SAMPLE.glob("*.txt"), *(ROOT / "tests" / "data").glob("*/*.txt")]
    out = [x.strip() for f in sorted(files) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
    # py3langid folds two columns into one for Serbian (Cyrillic and Latin) and Uzbek: lines that need the folding
    aliased = [
        "Београд је главни град Србије и највећи град у земљи.",
        "Beograd je glavni grad Srbije i najveći grad u zemlji.",
        "Toshkent O'zbekistonning poytaxti va eng katta shahri hisoblanadi.",
        "Тошкент Ўзбекистоннинг пойтахти ва энг катта шаҳри ҳисобланади.",
    ]
    return [*out, *(x.upper() for x in out[:50]), *aliased, "\x01\x02", "12345 67890 !!!"]


def test_many_lines_at_once_are_identified_as_py3langid_identifies_each():
    lines = _lines()
    assert len(lines) > 1500
    ours = classify_many(lines)
    theirs = identifier()
    langs = set()
    for line, (lang, prob) in zip(lines, ours, strict=True):
        want_lang, want_prob = theirs.classify(line)
        assert lang == want_lang, line
        assert abs(prob - want_prob) < 1e-5, line
        langs.add(lang)
    assert {"en", "de", "cs", "zh", "ja", "sr", "uz"} <= langs
    assert classify_many([]) == []
