"""`score --by domain|document`, `compare --resample documents`, `--docs FILE` (issue 35): the command-line
contract, and documents kept with a saved set and its bundle."""

from __future__ import annotations

import json

import pytest

from mtlens.cli import main
from mtlens.readers.testset import load_corpus
from mtlens.service.bundles import export_bundle, import_bundle
from mtlens.storage.store import Store

from ..conftest import SAMPLE, SHARED

DATA = [
    "--ref",
    str(SAMPLE / "ref.txt"),
    "--sys",
    *(str(SAMPLE / f"{s}.txt") for s in ("UEdin", "Online-W", "HuaweiTSC")),
]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def docs(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_text("".join(f"d{i // 5}\t{'news' if i < 100 else 'social'}\n" for i in range(200)), encoding="utf-8")
    return str(path)


def test_score_by_domain_json_contract(capsys, docs):
    code, out, err = run(
        capsys, "score", *DATA, "--docs", docs, "--by", "domain", "--metrics", "bleu,chrf", "--format", "json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert [(g["group"], g["lines"]) for g in doc["groups"]] == [("news", 100), ("social", 100)]
    assert {(s["system"], s["metric"]) for s in doc["groups"][0]["scores"]} == {
        (s, m) for s in ("UEdin", "Online-W", "HuaweiTSC") for m in ("bleu", "chrf")
    }
    code, out, err = run(capsys, "score", *DATA, "--docs", docs, "--by", "document", "--metrics", "bleu")
    assert code == 0 and out.count("document d") == 40


def test_compare_by_documents_gives_every_pair_its_min_detectable_delta(capsys, docs):
    code, out, err = run(
        capsys, "compare", *DATA, "--docs", docs, "--resample", "documents", "--n", "500", "--format", "json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["resample"] == "documents" and "resample:documents" in doc["signature"]
    assert all(p["min_detectable_delta"] > 0 for p in doc["pairs"]) and len(doc["pairs"]) == 6
    code, out, _ = run(capsys, "compare", *DATA, "--n", "500", "--format", "json")
    assert all(p["min_detectable_delta"] > 0 for p in json.loads(out)["pairs"])


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["compare", "--resample", "documents"], "--resample documents needs documents"),
        (["score", "--by", "domain"], "this test set has no domains"),
        (["score", "--docs", "SHORT"], "has 2 lines; the test set has 200"),
    ],
)
def test_without_documents_it_is_one_sentence(capsys, tmp_path, extra, said):
    short = tmp_path / "short.tsv"
    short.write_text("a\nb\n", encoding="utf-8")
    extra = [str(short) if x == "SHORT" else x for x in extra]
    code, out, err = run(capsys, extra[0], *DATA, *extra[1:])
    assert code == 2 and said in err and err.count("\n") == 1 and out == ""


def test_documents_and_domains_stay_with_a_saved_set_and_its_bundle(tmp_path):
    corpus = load_corpus([SAMPLE / "ref.txt"], [SAMPLE / "UEdin.txt"])
    corpus = corpus.with_documents([f"d{i // 10}" for i in range(200)], ["news"] * 200)
    a = Store(tmp_path / "a")
    sid = a.save(corpus, "with documents")
    back = a.load(sid).corpus
    assert back.documents == corpus.documents and back.domains == corpus.domains
    b = Store(tmp_path / "b")
    copy = b.load(import_bundle(b, export_bundle(a, sid))).corpus
    assert copy.documents == corpus.documents and copy.domains == corpus.domains
    a.save(load_corpus([SAMPLE / "ref.txt"], [SAMPLE / "UEdin.txt"]), "without")
    assert all(s.corpus.documents is None for s in [a.load(x.id) for x in a.list()] if s.info.name == "without")


@pytest.mark.shared
def test_the_wmt_xml_carries_its_documents_through_the_command_line(capsys):
    xml = str(SHARED / "wmt22-xml" / "wmttest2022.ja-en.all.xml")
    code, out, err = run(
        capsys, "score", "--data", xml, "-l", "ja-en", "--by", "domain", "--metrics", "chrf", "--format", "json"
    )
    assert code == 0, err
    groups = json.loads(out)["groups"]
    assert len(groups) >= 2 and sum(g["lines"] for g in groups) == load_corpus(data=xml).n_lines


def test_a_tsv_with_document_and_domain_columns(capsys, tmp_path):
    ref = (SAMPLE / "ref.txt").read_text(encoding="utf-8").split("\n")[:200]
    hyp = (SAMPLE / "UEdin.txt").read_text(encoding="utf-8").split("\n")[:200]
    rows = ["doc\tdomain\tref\tUEdin"] + [
        f"d{i // 4}\t{'a' if i < 120 else 'b'}\t{r}\t{h}" for i, (r, h) in enumerate(zip(ref, hyp, strict=True))
    ]
    path = tmp_path / "all.tsv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, err = run(
        capsys, "score", "--data", str(path), "--by", "domain", "--metrics", "chrf", "--format", "json"
    )
    assert code == 0, err
    assert [(g["group"], g["lines"]) for g in json.loads(out)["groups"]] == [("a", 120), ("b", 80)]
    assert [s["name"] for s in json.loads(out)["systems"]] == ["UEdin"]  # doc and domain are no systems
    path.write_text(
        "domain\tref\tUEdin\n" + "".join(f"a\t{r}\t{h}\n" for r, h in zip(ref, hyp, strict=True)), encoding="utf-8"
    )
    code, _, err = run(capsys, "score", "--data", str(path))
    assert code == 2 and "has a domain column but no document column" in err


def test_analyze_pair_slices_json(capsys, docs):
    code, out, err = run(
        capsys, "analyze", *DATA, "--docs", docs, "--pair", "UEdin", "Online-W", "--slices", "--format", "json"
    )
    assert code == 0, err
    sl = json.loads(out)["slices"]
    assert sl["a"] == "UEdin" and sl["correction"].startswith("holm")
    kinds = {s["kind"] for s in sl["slices"]}
    assert {"domain", "length", "differ"} <= kinds
    assert set(sl["slices"][0]) == {"slice", "kind", "lines", "a", "b", "delta", "p_value", "p_holm", "significant"}
    code, out, err = run(capsys, "analyze", *DATA, "--slices")
    assert code == 2 and "--slices goes with --pair A B" in err


def _xml(tmp_path, src_lang='lang="en"', tgt_lang='lang="zh"', hyp_lang='lang="zh"'):
    segs = "".join(f'<seg id="{i}">w{i} x</seg>' for i in range(1, 4))
    body = (
        f'<doc id="d1" domain="news"><src {src_lang}><p>{segs}</p></src><ref {tgt_lang} translator="A"><p>{segs}</p>'
        f'</ref><hyp system="S" {hyp_lang}><p>{segs}</p></hyp></doc>'
    )
    path = tmp_path / "t.xml"
    path.write_text(
        f'<?xml version="1.0" encoding="utf-8"?><dataset id="t"><collection id="g">{body}</collection></dataset>'
    )
    return str(path)


def test_the_languages_a_wmt_xml_declares_are_its_pair(capsys, tmp_path):
    """Issue 51, D1: WMT22's XML declares its languages on <src lang> and <ref lang>/<hyp lang>; they were
    ignored, so every signature said 'lang:und-zh' unless -l was typed. Several values on a side declare
    nothing, and say so; -l still wins."""
    code, out, err = run(capsys, "score", "--data", _xml(tmp_path), "--metrics", "bleu", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["language_pair"] == "en-zh" and "|lang:en-zh|" in doc["signatures"]["bleu"]
    assert "|tok:zh|" in doc["signatures"]["bleu"]  # sacrebleu's -l rule for a Chinese target
    code, out, err = run(capsys, "score", "--data", _xml(tmp_path, hyp_lang='lang="ja"'), "--metrics", "bleu")
    assert code == 0 and "declares several languages (en -> ja, zh)" in out  # the table's notes on the data
    assert "lang:en-zh" not in out
    code, out, _ = run(
        capsys, "score", "--data", _xml(tmp_path), "-l", "en-ja", "--metrics", "bleu", "--format", "json"
    )
    assert "|lang:en-ja|" in json.loads(out)["signatures"]["bleu"]


@pytest.mark.shared
def test_the_wmt22_en_zh_xml_says_en_zh_in_its_signatures(capsys):
    xml = str(SHARED / "wmt22-xml" / "wmttest2022.en-zh.all.xml")
    code, out, err = run(capsys, "score", "--data", xml, "--metrics", "bleu,chrf", "--format", "json")
    assert code == 0, err
    assert all("|lang:en-zh|" in s for s in json.loads(out)["signatures"].values())


def test_a_wmt_xml_beside_plain_text_files_is_said_as_such(capsys, tmp_path):
    """Issue 51, D5: an XML given as a system beside a reference was read as text ("has 1003 lines")."""
    xml = _xml(tmp_path)
    code, _, err = run(capsys, "score", "--ref", str(SAMPLE / "ref.txt"), "--sys", xml)
    assert code == 2 and "is a WMT XML test set" in err and "give it alone" in err and err.count("\n") == 1
