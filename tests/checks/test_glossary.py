"""Glossaries (issue 60): the two formats, the term success rate and consistency by hand, and a bad glossary as one
sentence with nothing kept."""

from __future__ import annotations

import json

import pytest

from mtlens.checks.terms import consistency, success
from mtlens.core.errors import InputError
from mtlens.readers.glossary import read_glossary

SOURCE = [
    "Open the workspace and pick a space.",
    "The space is full; free some storage.",
    "Storage costs money.",
    "Nothing to see here.",
]
OUTPUT = [
    "Öffnen Sie den Arbeitsbereich und wählen Sie einen Space.",
    "Der Raum ist voll; geben Sie Speicher frei.",
    "SPEICHER kostet Geld.",
    "Hier gibt es nichts.",
]


def _data(tmp_path, command: str, glossary: str, repeat: int = 1) -> list[str]:
    """The source and OUTPUT (as reference and system A) written ``repeat`` times, and ``glossary``: the command's
    arguments for them."""
    (tmp_path / "src.txt").write_text("\n".join(SOURCE * repeat) + "\n", encoding="utf-8")
    (tmp_path / "A.txt").write_text("\n".join(OUTPUT * repeat) + "\n", encoding="utf-8")
    (tmp_path / "g.tsv").write_text(glossary, encoding="utf-8")
    files = [str(tmp_path / n) for n in ("src.txt", "A.txt", "A.txt")]
    return [command, "--src", files[0], "--ref", files[1], "--sys", files[2], "--terms", str(tmp_path / "g.tsv")]


def test_a_tsv_glossary_finds_terms_at_word_boundaries_and_scores_by_hand():
    g = read_glossary(b"source\ttarget\nspace\tSpace\nstorage\tSpeicher\nc++\tC++\n", "g.tsv", 4)
    found = g.found(SOURCE)
    # 'space' counts once on line 1 (not inside 'workspace'), once on line 2; 'storage' on lines 2 and 3
    assert found == [[("space", "Space")], [("space", "Space"), ("storage", "Speicher")], [("storage", "Speicher")], []]
    got = success(found, OUTPUT)
    assert got.hits == [1, 1, 1, 0] and got.counted == [1, 2, 1, 0]  # 3 of 4 succeed: 75%
    assert [s.text for s in got.missed[1]] == ["space -> Space"]
    assert g.found(["Use C++ or c+++ today", "no plus here"]) == [[("c++", "C++")], []]  # text, not a pattern


def test_term_consistency_by_hand():
    g = read_glossary(b"space\tSpace\nstorage\tSpeicher\n", "g.tsv", 4)
    got = success(g.found(SOURCE), OUTPUT)
    # 'space': lines 1 (used) and 2 (not): inconsistent, 2 occurrences decided; 'storage': lines 2 and 3, both
    # used: consistent. 2 of 4 decided occurrences are consistent.
    good, decided, undecided = consistency(got, None)
    assert (sum(good), sum(decided), undecided) == (2, 4, 0)
    # split into documents, each term occurs once per document: nothing is decided
    assert consistency(got, ["a", "b", "c", "d"]) == ([0] * 4, [0] * 4, 0)


def test_a_jsonl_glossary_reads_each_lines_terms_under_its_key():
    lines = [
        {"proper": {"space": "Space"}, "terms": {}},
        {"proper": {}},
        {"proper": {"Storage": "Speicher"}},
        {"proper": {}},
    ]
    data = "\n".join(json.dumps(x) for x in lines).encode()
    g = read_glossary(data, "t.jsonl", 4, "proper")
    assert g.found(SOURCE) == [[("space", "Space")], [], [("Storage", "Speicher")], []]


def test_the_score_command_gives_the_rate_and_the_per_line_spans(tmp_path, capsys):
    from mtlens.cli import main

    argv = _data(tmp_path, "score", "space\tSpace\nstorage\tSpeicher\n")
    argv += ["--metrics", "term,term-consistency", "--format", "json"]
    assert main([*argv, "--sentence-level", "--data-dir", str(tmp_path / "ws")]) == 0
    doc = json.loads(capsys.readouterr().out)
    system = doc["systems"][0]
    assert system["scores"] == {"term": 75.0, "term-consistency": 50.0}
    assert doc["terms"] == [
        {"source": "space", "target": "Space", "counted": 2, "missed": {"A": 1}},
        {"source": "storage", "target": "Speicher", "counted": 2, "missed": {"A": 0}},
    ]
    assert system["sentences"]["term"] == [1.0, 0.5, 1.0, None]
    assert [len(x) for x in system["spans"]["term"]] == [0, 1, 0, 0]


BAD = [
    (b"space\n", "has 1 columns"),
    (b"space\tSpace\textra\n", "has 3 columns"),
    (b"space\t \n", "target term is empty"),
    (b"spa\x07ce\tSpace\n", "control character (U+0007)"),
    (b"space\tSpace\nSpace\tSpace\n", "gives the term 'Space' again"),
    (b"space\tSpace\nspace\tRaum\n", "with another target ('Space', then 'Raum')"),
    (b"\xff\xfe\x00", "UTF-16"),
    (b"", "is empty"),
    (b"\n\n", "holds no term"),
    (b"a b c d e f g h i j k l m\tx\n", "has 13 words"),
]


@pytest.mark.parametrize("data,says", BAD)
def test_a_bad_tsv_glossary_is_one_sentence(data, says):
    with pytest.raises(InputError) as err:
        read_glossary(data, "g.tsv", 4)
    assert says in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    "lines,key,says",
    [
        (['{"terms": {}}'] * 3, None, "has 3 lines and the set 4"),
        (
            ['{"terms": {}}'] * 3 + ['{"proper": {"a": "b"}}'],
            None,
            "line 4 has no 'terms' (--terms-key); its keys of terms: proper",
        ),
        (['{"terms": {}}'] * 3 + ["[1]"], None, "line 4 is not a JSON object"),
        (['{"terms": {}}'] * 3 + ['{"terms": {"a": 1}}'], None, "target term is not text"),
        (['{"terms": {}}'] * 3 + ['{"terms": '], None, "line 4"),
    ],
)
def test_a_bad_jsonl_glossary_is_one_sentence(lines, key, says):
    with pytest.raises(InputError) as err:
        read_glossary("\n".join(lines).encode(), "g.jsonl", 4, key)
    assert says in str(err.value)


def test_a_bad_glossary_is_one_sentence_on_the_command_line(tmp_path, capsys):
    from mtlens.cli import main

    argv = _data(tmp_path, "score", "space\tSpace\nspace\tRaum\n")
    code = main([*argv, "--metrics", "term", "--data-dir", str(tmp_path / "ws")])
    err = capsys.readouterr().err
    assert code != 0 and "gives the term 'space' with another target" in err and "Traceback" not in err


def test_a_glossary_imported_with_a_set_is_saved_with_it_and_a_bad_one_saves_nothing(tmp_path, capsys):
    from mtlens.cli import main

    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "src.txt").write_text("\n".join(SOURCE) + "\n", encoding="utf-8")
    (folder / "ref.txt").write_text("\n".join(OUTPUT) + "\n", encoding="utf-8")
    (folder / "A.txt").write_text("\n".join(OUTPUT) + "\n", encoding="utf-8")
    (tmp_path / "bad.tsv").write_text("space\tSpace\nspace\tRaum\n", encoding="utf-8")
    (tmp_path / "g.tsv").write_text("space\tSpace\nstorage\tSpeicher\n", encoding="utf-8")
    ws = ["--data-dir", str(tmp_path / "ws")]
    assert main(["import", str(folder), "--terms", str(tmp_path / "bad.tsv"), *ws]) != 0
    assert "another target" in capsys.readouterr().err
    assert main(["list", "--format", "json", *ws]) == 0
    assert json.loads(capsys.readouterr().out) == []  # nothing was saved half
    assert main(["import", str(folder), "--terms", str(tmp_path / "g.tsv"), *ws]) == 0
    set_id = capsys.readouterr().out.strip()
    assert main(["score", "--set", set_id, "--metrics", "term", "--format", "json", *ws]) == 0
    assert json.loads(capsys.readouterr().out)["systems"][0]["scores"]["term"] == 75.0


def test_a_sets_glossary_travels_in_its_bundle_and_a_bad_one_is_refused(tmp_path):
    from mtlens.core.corpus import Corpus
    from mtlens.service.bundles import export_bundle, import_bundle, read_bundle
    from mtlens.storage.store import Store

    store = Store(tmp_path / "ws")
    corpus = Corpus.build({"ref": OUTPUT}, {"A": OUTPUT}, SOURCE)
    sid = store.save(corpus, "g", terms=[("g.tsv", b"space\tSpace\n", "terms")])
    data = export_bundle(store, sid)
    other = import_bundle(store, data)
    assert store.load(other).terms == (("g.tsv", b"space\tSpace\n", "terms"),)
    import gzip

    doc = json.loads(gzip.decompress(data))
    doc["terms"] = [["g.tsv", b"space\tSpace\nspace\tRaum\n".hex(), "terms"]]
    with pytest.raises(InputError, match="another target"):
        read_bundle(gzip.compress(json.dumps(doc).encode()))


def test_the_report_lists_the_terms_each_system_misses_escaped(tmp_path, capsys):
    from mtlens.cli import main

    argv = _data(tmp_path, "report", "space\t<b>Space</b>\nstorage\tSpeicher\n", repeat=10)
    argv += ["--metrics", "chrf,term,check:placeholders", "-o", str(tmp_path / "r.html")]
    assert main([*argv, "--data-dir", str(tmp_path / "ws")]) == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<h2>Terms each system misses</h2>" in html
    assert "&lt;b&gt;Space&lt;/b&gt;" in html and "<b>Space</b>" not in html  # user text escaped
