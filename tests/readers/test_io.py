"""Readers: never drop, merge or reorder lines; every bad input is a readable InputError."""

from __future__ import annotations

import pytest

from mtlens import InputError, load_corpus, score
from mtlens.readers.lines import decode_lines
from mtlens.readers.testset import corpus_from_bytes, corpus_from_single, stem
from mtlens.readers.wmt import parse_tsv, parse_wmt_xml

from ..conftest import SAMPLE, TESTDATA


def test_plain_text_keeps_tabs_and_odd_separators_inside_lines():
    data = "a\tb\nc\x0cd\u2028e\n\nlast".encode()
    assert decode_lines(data, "x.txt") == ["a\tb", "c\x0cd\u2028e", "", "last"]


def test_final_newline_does_not_add_a_line_but_an_empty_last_line_counts():
    assert decode_lines(b"a\nb\n", "x") == ["a", "b"]
    assert decode_lines(b"a\nb", "x") == ["a", "b"]
    assert decode_lines(b"a\n\n", "x") == ["a", ""]
    assert decode_lines(b"\n", "x") == [""]


def test_real_file_with_tab_comment_keeps_its_line_count():
    lines = decode_lines((TESTDATA / "en-cs" / "ref2.txt").read_bytes(), "ref2.txt")
    assert len(lines) == 40 and "\t" in lines[22]


def test_bom_and_crlf_give_exactly_the_same_scores(tmp_path):
    ref = (SAMPLE / "ref.txt").read_bytes()
    hyp = (SAMPLE / "UEdin.txt").read_bytes()
    (tmp_path / "ref.txt").write_bytes(b"\xef\xbb\xbf" + ref.replace(b"\n", b"\r\n"))
    (tmp_path / "UEdin.txt").write_bytes(b"\xef\xbb\xbf" + hyp.replace(b"\n", b"\r\n"))
    clean = score(load_corpus([SAMPLE / "ref.txt"], [SAMPLE / "UEdin.txt"]), "bleu,chrf,bleu-c,chrf++")
    dirty = score(load_corpus([tmp_path / "ref.txt"], [tmp_path / "UEdin.txt"]), "bleu,chrf,bleu-c,chrf++")
    for m in clean:
        assert clean[m].scores == dirty[m].scores


def test_line_count_mismatch_names_both_files_and_counts():
    with pytest.raises(InputError) as e:
        corpus_from_bytes([("ref.txt", b"a\nb\nc\n")], [("B.txt", b"a\nb\n")])
    msg = str(e.value)
    assert "'B.txt' has 2 lines" in msg and "'ref.txt' has 3" in msg


def test_second_reference_mismatch_and_source_mismatch():
    with pytest.raises(InputError, match="reference 'r2.txt' has 1 lines, the reference 'r1.txt' has 2"):
        corpus_from_bytes([("r1.txt", b"a\nb\n"), ("r2.txt", b"a\n")], [("A.txt", b"a\nb\n")])
    with pytest.raises(InputError, match="source 'src.txt' has 3 lines"):
        corpus_from_bytes([("r.txt", b"a\nb\n")], [("A.txt", b"a\nb\n")], ("src.txt", b"1\n2\n3\n"))


def test_non_utf8_reports_file_line_and_byte_offset():
    data = "héllo\nwörld\n".encode() + b"bad \xff byte\n"
    with pytest.raises(InputError) as e:
        decode_lines(data, "sys.txt")
    msg = str(e.value)
    assert "'sys.txt' is not valid UTF-8" in msg and "line 3" in msg and "byte 5 of that line" in msg
    offset = data.index(b"\xff")
    assert f"byte offset {offset}" in msg


def test_latin1_file_is_rejected_with_a_message():
    with pytest.raises(InputError, match="not valid UTF-8: line 1"):
        decode_lines("Größe".encode("latin-1"), "de.txt")


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"", "is empty"),
        (b"\xef\xbb\xbf", "only a byte order mark"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks binary"),
    ],
)
def test_empty_and_binary_files(data, needle):
    with pytest.raises(InputError, match=needle):
        decode_lines(data, "f.txt")


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_corpus([tmp_path / "nope.txt"], [SAMPLE / "UEdin.txt"])
    with pytest.raises(InputError, match="is a folder"):
        load_corpus([tmp_path], [SAMPLE / "UEdin.txt"])


def test_system_names_are_file_stems_and_colliding_stems_say_where_they_came_from():
    c = corpus_from_bytes(
        [("x/ref.de.txt", b"a\n")], [("d1/A.txt", b"a\n"), ("d2/A.txt", b"b\n"), ("A (2).txt", b"c\n"), ("B", b"d\n")]
    )
    assert c.system_names == ("d1/A", "d2/A", "A (2)", "B")  # three uploads, three systems, whatever the order
    assert c.systems["d2/A"] == ("b",) and c.systems["A (2)"] == ("c",)
    c2 = corpus_from_bytes([("r.txt", b"a\n")], [("A (2).txt", b"c\n"), ("d2/A.txt", b"b\n"), ("d1/A.txt", b"a\n")])
    assert c2.systems["d1/A"] == ("a",) and c2.systems["A (2)"] == ("c",)
    assert c.reference_names == ("ref.de",)
    assert stem(".hidden") == ".hidden"


def test_names_that_cannot_be_told_apart_are_refused():
    with pytest.raises(InputError, match="two system files are named 'A.txt'"):
        corpus_from_bytes([("r.txt", b"a\n")], [("A.txt", b"a\n"), ("A.txt", b"b\n")])
    with pytest.raises(InputError, match="'A.txt', 'A.tsv' would all be named 'A'"):
        corpus_from_bytes([("r.txt", b"a\n")], [("A.txt", b"a\n"), ("A.tsv", b"b\n")])


def test_a_backslash_is_part_of_a_file_name():
    c = corpus_from_bytes([("ref.txt", b"a\n")], [("sys\\v2.txt", b"a\n")])
    assert c.system_names == ("sys\\v2",)


def test_utf16_is_read_with_a_bom_and_named_without_one():
    text = "Grüße\nzweite Zeile\n"
    for codec, bom in (("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")):
        assert decode_lines(bom + text.encode(codec), "u.txt") == ["Grüße", "zweite Zeile"]
    with pytest.raises(InputError, match="'u.txt' looks like UTF-16 text without a byte order mark; save it as UTF-8"):
        decode_lines(text.encode("utf-16-le"), "u.txt")


def test_a_line_longer_than_the_bound_is_refused_with_its_number():
    from mtlens.core.corpus import MAX_LINE_CHARS

    long = "x" * (MAX_LINE_CHARS + 1)
    with pytest.raises(
        InputError, match=r"system 'A' line 2 has 100,001 characters; mtlens scores lines of up to 100,000"
    ):
        corpus_from_bytes([("r.txt", b"a\nb\n")], [("A.txt", f"a\n{long}\n".encode())])
    ok = corpus_from_bytes([("r.txt", b"a\n")], [("A.txt", ("y" * MAX_LINE_CHARS + "\n").encode())])
    assert len(ok.systems["A"][0]) == MAX_LINE_CHARS


def test_warnings_report_real_oddities():
    c = corpus_from_bytes([("ref.txt", "a\u00a0b\n\nx &amp; y\n".encode())], [("A.txt", "a\u200bb\n\t\nz\n".encode())])
    text = "\n".join(c.warnings)
    assert "reference 'ref' has 1 empty line(s): 2" in text
    assert "HTML entities" in text and "zero-width" in text and "tabs inside 1 line(s): 2" in text


# --------------------------------------------------------------------------- TSV
def test_tsv_with_source_references_and_systems():
    data = b"src\tref\tref2\tA\tB\ns1\tr1\tq1\ta1\tb1\ns2\tr2\tq2\ta2\tb2\n"
    c = parse_tsv(data, "all.tsv")
    assert c.reference_names == ("ref", "ref2") and c.system_names == ("A", "B")
    assert c.source == ("s1", "s2") and c.systems["B"] == ("b1", "b2")


def test_tsv_errors():
    with pytest.raises(InputError, match="line 3 of 'x.tsv' has 2 tab-separated fields, the header has 3"):
        parse_tsv(b"ref\tA\tB\nr\ta\tb\nr\ta\n", "x.tsv")
    with pytest.raises(InputError, match="no reference column"):
        parse_tsv(b"A\tB\na\tb\n", "x.tsv")
    with pytest.raises(InputError, match="no system column"):
        parse_tsv(b"src\tref\ns\tr\n", "x.tsv")
    with pytest.raises(InputError, match="header but no segments"):
        parse_tsv(b"ref\tA\n", "x.tsv")
    with pytest.raises(InputError, match="repeats the column name 'A'"):
        parse_tsv(b"ref\tA\tA\nr\ta\tb\n", "x.tsv")


# --------------------------------------------------------------------------- WMT XML
WMT_XML = """<?xml version="1.0" encoding="utf-8"?>
<dataset id="newstest2021" source-language="en" target-language="de">
  <doc id="d1" origlang="en">
    <src lang="en"><p><seg id="1">Hello &amp; welcome.</seg><seg id="2">Bye.</seg></p></src>
    <ref lang="de" translator="A"><p><seg id="1">Hallo &amp; willkommen.</seg><seg id="2">Tschüss.</seg></p></ref>
    <ref lang="de" translator="B"><p><seg id="1">Hallo und willkommen.</seg><seg id="2">Ciao.</seg></p></ref>
    <hyp system="sysA" language="de"><p><seg id="1">Hallo &amp; willkommen.</seg><seg id="2">Tschüss.</seg></p></hyp>
  </doc>
  <doc id="d2" origlang="de">
    <src lang="en"><p><seg id="1">Third.</seg></p></src>
    <ref lang="de" translator="A"><p><seg id="1">Dritte.</seg></p></ref>
    <ref lang="de" translator="B"><p><seg id="1">Drittens.</seg></p></ref>
    <hyp system="sysA" language="de"><p><seg id="1">Drittens.</seg></p></hyp>
  </doc>
</dataset>
"""


def test_wmt_xml():
    c = parse_wmt_xml(WMT_XML.encode(), "newstest.xml")
    assert c.reference_names == ("ref-A", "ref-B") and c.system_names == ("sysA",)
    assert c.references["ref-A"] == ("Hallo & willkommen.", "Tschüss.", "Dritte.")
    assert c.source == ("Hello & welcome.", "Bye.", "Third.")
    assert score(c, "bleu")["bleu"].scores["sysA"] == pytest.approx(100.0)


def test_wmt_xml_errors():
    with pytest.raises(InputError, match="not well-formed XML"):
        parse_wmt_xml(b"<dataset><doc>", "x.xml")
    with pytest.raises(InputError, match="no <doc>"):
        parse_wmt_xml(b"<dataset></dataset>", "x.xml")
    with pytest.raises(InputError, match="no <seg>"):
        parse_wmt_xml(b"<dataset><doc id='1'><ref><p></p></ref><hyp system='A'><p></p></hyp></doc></dataset>", "x.xml")
    bad = WMT_XML.replace('<seg id="2">Tschüss.</seg></p></hyp>', "</p></hyp>")
    with pytest.raises(InputError, match="document 'd1' of 'x.xml': system 'sysA' lacks segment id\\(s\\) 2"):
        parse_wmt_xml(bad.encode(), "x.xml")
    extra = WMT_XML.replace('<seg id="2">Tschüss.</seg></p></hyp>', '<seg id="2">T.</seg><seg id="9">X</seg></p></hyp>')
    with pytest.raises(InputError, match="system 'sysA' has segment id\\(s\\) 9 that the document's source does not"):
        parse_wmt_xml(extra.encode(), "x.xml")
    twice = WMT_XML.replace(
        '</hyp>\n  </doc>\n  <doc id="d2"',
        '</hyp><hyp system="sysA"><p><seg id="1">a</seg><seg id="2">b</seg></p></hyp>\n  </doc>\n  <doc id="d2"',
    )
    with pytest.raises(InputError, match="document 'd1' of 'x.xml' has two <hyp system=\"sysA\"> elements"):
        parse_wmt_xml(twice.encode(), "x.xml")


def test_wmt_xml_segments_are_matched_by_id_not_position():
    swapped = WMT_XML.replace(
        '<hyp system="sysA" language="de"><p><seg id="1">Hallo &amp; willkommen.</seg><seg id="2">Tschüss.</seg></p></hyp>',
        '<hyp system="sysA" language="de"><p><seg id="2">Tschüss.</seg><seg id="1">Hallo &amp; willkommen.</seg></p></hyp>',
    )
    assert swapped != WMT_XML
    c = parse_wmt_xml(swapped.encode(), "x.xml")
    assert c.systems["sysA"] == ("Hallo & willkommen.", "Tschüss.", "Drittens.")


def test_wmt_xml_anonymous_references_and_systems_are_all_kept():
    """Two <ref> and two <hyp> without names: ref, ref2 and system, system2; BLEU equals sacrebleu's with both
    references (real en-cs lines)."""
    from xml.sax.saxutils import escape

    from sacrebleu.metrics import BLEU as SacreBLEU

    from ..conftest import TESTDATA, pair_files

    refs, systems = pair_files(TESTDATA / "en-cs")
    h1, h2 = list(systems.values())[:2]

    def block(tag, lines):
        segs = "".join(f'<seg id="{i + 1}">{escape(x)}</seg>' for i, x in enumerate(lines))
        return f"<{tag}><p>{segs}</p></{tag}>"

    xml = (
        "<dataset><doc id='d'>"
        + block("ref", refs[0])
        + block("ref", refs[1])
        + block("hyp", h1)
        + block("hyp", h2)
        + "</doc></dataset>"
    )
    c = parse_wmt_xml(xml.encode(), "anon.xml")
    assert c.reference_names == ("ref", "ref2") and c.system_names == ("system", "system2")
    got = score(c, "bleu")["bleu"].scores
    assert got["system"] == pytest.approx(SacreBLEU().corpus_score(h1, refs).score, abs=1e-9)
    assert got["system2"] == pytest.approx(SacreBLEU().corpus_score(h2, refs).score, abs=1e-9)


def test_single_file_dispatch():
    assert corpus_from_single(WMT_XML.encode(), "a.XML").system_names == ("sysA",)
    with pytest.raises(InputError, match="neither a .tsv nor a .xml"):
        corpus_from_single(b"abc", "a.txt")


def test_data_notes_name_the_same_lines_as_a_line_by_line_reading():
    """stream_warnings looks for each kind in the whole text at once; the lines it names are those a
    plain reading of every line names (the definition, written out here): blank lines as str.strip
    sees them (ideographic space, information separators), entities, zero-width characters, tabs,
    also when a line holds a newline or a Unicode line separator of its own."""
    import random
    import re

    from mtlens.readers.testset import stream_warnings

    entity = re.compile(r"&(amp|quot|lt|gt|apos|#\d+|#x[0-9a-fA-F]+);")
    pieces = ["a", "Wort", " ", "\u3000", "\x1c", "\t", "&amp;", "&#39;", "& x", "\u200b", "\ufeff", "\u2028", "\n", ""]

    def by_line(lines):
        empty = [i for i, x in enumerate(lines, 1) if not x.strip()]
        ent = [i for i, x in enumerate(lines, 1) if entity.search(x)]
        zw = [i for i, x in enumerate(lines, 1) if any(c in x for c in "\u200b\u200c\u200d\u2060\ufeff")]
        tab = [i for i, x in enumerate(lines, 1) if "\t" in x]
        return empty, ent, zw, tab

    rng = random.Random(5)
    for trial in range(400):
        lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 12))]
        if trial % 2:
            lines = [x.replace("\n", "") for x in lines]  # the usual case: no newline inside a line
        notes = " | ".join(stream_warnings("system", "S", lines))
        empty, ent, zw, tab = by_line(lines)
        for nums, said, kind in (
            (empty, "has {} empty line(s): {}", "empty line"),
            (ent, "HTML entities such as &amp; on {} line(s): {} ", "HTML entities"),
            (zw, "zero-width characters on {} line(s): {}", "zero-width"),
            (tab, "tabs inside {} line(s): {} ", "tabs inside"),
        ):
            if nums:
                shown = ", ".join(map(str, nums[:5])) + (f" and {len(nums) - 5} more" if len(nums) > 5 else "")
                assert said.format(len(nums), shown) in notes, (lines, notes)
            else:
                assert kind not in notes, (lines, notes)
