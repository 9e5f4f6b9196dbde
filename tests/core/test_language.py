"""Language-aware defaults: the target script detected or the pair declared, sacrebleu's -l rule for the
word BLEU tokenizer, and the numbers that follow (golden values: sacrebleu with that tokenizer; its TER with
Asian support on the en-zh excerpt, 14 s per system, read from ``tests/golden/excerpts.json``, written by
``tests/golden/make_sacrebleu_golden.py``)."""

from __future__ import annotations

import json

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from mtlens.cli import main
from mtlens.core.errors import InputError
from mtlens.core.language import detect_target, language_defaults, parse_pair

from ..conftest import PAIRS, SAMPLE, SHARED, TESTDATA, pair_files
from ..golden.make_sacrebleu_golden import excerpt_golden, shared_golden


@pytest.mark.parametrize(
    ("lines", "target", "script"),
    [
        ([], None, "none"),
        ([""], None, "none"),
        (["", "   "], None, "none"),
        (["123 456", "7.8 %", "2024-01-01"], None, "none"),
        (["日本"], "zh", "Han"),  # two ideographs, no kana: Chinese is the sensible reading
        (["これはペンです。"], "ja", "Japanese"),
        (["東京は日本の首都です。"], "ja", "Japanese"),  # mostly kanji, but kana decide
        (["안녕하세요, 저는 학생입니다."], "ko", "Hangul"),
        (["สวัสดีครับ ยินดีต้อนรับ"], "th", "Thai"),
        (["Привет, мир!"], None, "Cyrillic"),
        (["The JonathanAshworth report 2021 was 乔纳森 short."], None, "Latin"),  # a few ideographs in English
        (["乔纳森·阿什沃思 (Jonathan Ashworth) 表示，NHS 需要更多资金。"], "zh", "Han"),  # names in Latin script
        (["a"] * 5, None, "Latin"),
    ],
)
def test_detection_edge_cases(lines, target, script):
    lang = detect_target(lines)
    assert (lang.target, lang.script) == (target, script)
    assert lang.describe()  # always a sentence, never a crash


def test_detection_on_the_bundled_excerpts():
    assert detect_target(pair_files(TESTDATA / "en-zh")[0][0]).target == "zh"
    assert detect_target(pair_files(TESTDATA / "en-cs")[0][0]).target is None
    assert detect_target(pair_files(TESTDATA / "ja-en")[0][0]).target is None  # English target
    assert detect_target(pair_files(SAMPLE)[0][0]).script == "Latin"


def test_a_text_read_again_is_classified_once_with_the_same_counts():
    """The script counts of a sample are kept (the server opens a set for every visitor): the same text again is a
    hit with the same counts, which are those of one regular-expression count per script; another text is counted."""
    import regex

    from mtlens.core import language

    lines = pair_files(TESTDATA / "en-zh")[0][0]
    language._counts.cache_clear()
    first = language.script_counts(lines)
    again = language.script_counts(list(lines))  # another list of the same lines: the same text
    assert language._counts.cache_info().hits == 1 and again == first
    sample = "\n".join(lines)[: language.SAMPLE_CHARS]
    assert first == {name: len(regex.findall(p, sample)) for name, p in language._SCRIPTS.items()}
    assert first["Han"] > 1000
    other = language.script_counts(lines[1:])
    assert language._counts.cache_info().misses == 2 and other["Han"] < first["Han"]


@pytest.mark.shared
@pytest.mark.parametrize("pair", PAIRS)
def test_detection_on_every_pair_of_the_shared_data(shared_pairs, pair):
    refs, _ = shared_pairs[pair]
    lang = detect_target(refs[0])
    expected = {"en-zh": "zh", "en-ja": "ja"}.get(pair)
    assert lang.target == expected
    if expected is None:
        assert lang.script == "Latin" and lang.share > 0.99


@pytest.mark.shared
def test_detection_on_the_ted_set():
    refs, _ = pair_files(SHARED / "ted-sk-en")
    assert detect_target(refs[0]).script == "Latin"


def test_pairs_and_defaults():
    assert parse_pair("en-zh") == ("en", "zh")
    assert parse_pair("EN-zh_TW") == ("en", "zh")
    for bad in ("zh", "en_zh", "english-chinese", "en-", "-zh"):
        with pytest.raises(InputError, match="must look like 'en-zh'"):
            parse_pair(bad)
    assert language_defaults("zh") == {"tokenize": "zh", "ter_normalized": True, "ter_asian_support": True}
    assert language_defaults("ko")["tokenize"] == "ko-mecab" and not language_defaults("ko")["ter_normalized"]
    assert (
        language_defaults("de")
        == language_defaults(None)
        == {
            "tokenize": "13a",
            "ter_normalized": False,
            "ter_asian_support": False,
        }
    )


def _score(capsys, files, *extra):
    refs, syss = files
    code = main(
        ["score", *[x for r in refs for x in ("--ref", str(r))], "--sys", *map(str, syss), "--format", "json", *extra]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def _files(folder):
    refs = sorted(folder.glob("ref*.txt"))
    syss = sorted(p for p in folder.glob("*.txt") if not p.stem.startswith(("ref", "src")))
    return refs, syss


def test_chinese_excerpt_declared_and_detected_equal_sacrebleu_zh(capsys):
    refs, syss = _files(TESTDATA / "en-zh")
    ref_lines, systems = pair_files(TESTDATA / "en-zh")
    for extra in ([], ["-l", "en-zh"]):
        doc, err = _score(capsys, (refs, syss), "--metrics", "bleu,ter", *extra)
        for entry in doc["systems"]:
            hyp = systems[entry["name"]]
            assert entry["scores"]["bleu"] == pytest.approx(
                SacreBLEU(tokenize="zh").corpus_score(hyp, ref_lines).score, abs=1e-9
            )
            ter = excerpt_golden("ter/en-zh/asian_support=True+normalized=True")[entry["name"]]
            assert entry["scores"]["ter"] == pytest.approx(ter, abs=1e-9)
        assert "tok:zh" in doc["signatures"]["bleu"] and "norm:yes|punct:yes|asian:yes" in doc["signatures"]["ter"]
        if extra:
            assert doc["language_pair"] == "en-zh" and "note" not in err
        else:
            assert doc["language_pair"] == "und-zh"
            assert "target language zh detected (Han script" in err and "-l SRC-TGT" in err


def test_explicit_options_win_over_the_language(capsys):
    refs, syss = _files(TESTDATA / "en-zh")
    ref_lines, systems = pair_files(TESTDATA / "en-zh")
    doc, err = _score(capsys, (refs, syss), "--metrics", "bleu,ter", "--tokenize", "13a", "--no-ter-normalized")
    first = doc["systems"][0]
    hyp = systems[first["name"]]
    assert first["scores"]["bleu"] == pytest.approx(SacreBLEU().corpus_score(hyp, ref_lines).score, abs=1e-9)
    ter = excerpt_golden("ter/en-zh/asian_support=True")[first["name"]]
    assert first["scores"]["ter"] == pytest.approx(ter, abs=1e-9)
    assert "note" not in err  # the user chose the tokenizer: nothing to announce


@pytest.mark.parametrize("folder", ["en-cs", "ja-en"])
def test_space_delimited_targets_keep_13a_with_and_without_l(capsys, folder):
    refs, syss = _files(TESTDATA / folder)
    ref_lines, systems = pair_files(TESTDATA / folder)
    pair = {"en-cs": "en-cs", "ja-en": "ja-en"}[folder]
    for extra in ([], ["-l", pair]):
        doc, err = _score(capsys, (refs, syss), "--metrics", "bleu", *extra)
        for entry in doc["systems"]:
            want = SacreBLEU().corpus_score(systems[entry["name"]], ref_lines).score
            assert entry["scores"]["bleu"] == pytest.approx(want, abs=1e-9)
        assert "tok:13a" in doc["signatures"]["bleu"]
        assert err == ""
        assert doc["language_pair"] == (pair if extra else None)


def test_korean_uses_ko_mecab_like_sacrebleu(capsys, tmp_path):
    ref = ["안녕하세요, 저는 학생입니다.", "오늘 날씨가 정말 좋네요.", "한국어 형태소 분석기를 시험합니다."]
    hyp = ["안녕하세요 나는 학생입니다.", "오늘은 날씨가 좋아요.", "한국어 형태소 분석을 시험해 봅니다."]
    (tmp_path / "ref.txt").write_text("\n".join(ref) + "\n", encoding="utf-8")
    (tmp_path / "A.txt").write_text("\n".join(hyp) + "\n", encoding="utf-8")
    doc, err = _score(capsys, ([tmp_path / "ref.txt"], [tmp_path / "A.txt"]), "--metrics", "bleu")
    assert "target language ko detected (Hangul script" in err
    assert "tok:ko-mecab" in doc["signatures"]["bleu"]
    want = SacreBLEU(tokenize="ko-mecab").corpus_score(hyp, [ref]).score
    assert doc["systems"][0]["scores"]["bleu"] == pytest.approx(want, abs=1e-9)
    assert want != pytest.approx(SacreBLEU().corpus_score(hyp, [ref]).score)


def test_thai_gets_a_warning(capsys, tmp_path):
    (tmp_path / "ref.txt").write_text("สวัสดีครับ ยินดีต้อนรับ\n", encoding="utf-8")
    (tmp_path / "A.txt").write_text("สวัสดีค่ะ ยินดีต้อนรับ\n", encoding="utf-8")
    _doc, err = _score(capsys, ([tmp_path / "ref.txt"], [tmp_path / "A.txt"]), "--metrics", "bleu,chrf")
    assert "warning: Thai is written without spaces" in err and "use chrF or character BLEU" in err


def test_bad_language_pair_is_one_sentence(capsys):
    refs, syss = _files(TESTDATA / "en-zh")
    code = main(["score", "--ref", str(refs[0]), "--sys", str(syss[0]), "-l", "chinese"])
    err = capsys.readouterr().err
    assert code == 2 and "-l/--language-pair must look like 'en-zh'" in err


def test_wmt_xml_languages_are_read():
    from mtlens.readers.wmt import parse_wmt_xml

    xml = (
        '<dataset source-language="en" target-language="zh"><doc id="d"><src><p><seg id="1">Hi.</seg></p></src>'
        '<ref><p><seg id="1">你好。</seg></p></ref><hyp system="A"><p><seg id="1">你好！</seg></p></hyp></doc></dataset>'
    )
    assert parse_wmt_xml(xml.encode(), "t.xml").language_pair == "en-zh"


@pytest.mark.shared
@pytest.mark.parametrize(
    ("pair", "tok"),
    [("en-zh", "zh"), ("en-ja", "ja-mecab"), ("en-de", "13a"), ("en-cs", "13a"), ("de-en", "13a"), ("cs-en", "13a")],
)
def test_full_pairs_with_and_without_l_equal_sacrebleu_with_the_targets_tokenizer(capsys, pair, tok):
    """CJK targets get sacrebleu's -l tokenizer; space-delimited targets stay with 13a."""
    folder = SHARED / "wmt" / pair
    refs, syss = _files(folder)
    # sacrebleu's corpus BLEU with that tokenizer (tests/golden: the cases bleu/PAIR and bleu-tok/PAIR/TOK)
    gold = shared_golden()["bleu/" + pair if tok == "13a" else f"bleu-tok/{pair}/{tok}"]
    for extra in ([], ["-l", pair]):
        doc, _ = _score(capsys, (refs, syss), "--metrics", "bleu", *extra)
        assert {e["name"] for e in doc["systems"]} == set(gold)
        for entry in doc["systems"]:
            assert entry["scores"]["bleu"] == pytest.approx(gold[entry["name"]], abs=1e-9), (pair, entry["name"], extra)
