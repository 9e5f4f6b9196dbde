"""The standalone HTML report: offline, complete, escaped; the LaTeX table writer."""

from __future__ import annotations

import re

from mtlens import Corpus, score
from mtlens.analysis.significance import compare
from mtlens.cli import main
from mtlens.exports.html import build_html_report
from mtlens.exports.tables import table_to_latex

from ..conftest import SAMPLE, pair_files


def test_report_is_offline_complete_and_escaped():
    refs, systems = pair_files(SAMPLE)
    evil = {"<script>alert(1)</script>": systems["UEdin"], "a&b <img src=x onerror=alert(2)>": systems["Online-W"]}
    corpus = Corpus.build({"ref": refs[0]}, evil)
    results = score(corpus, "bleu,chrf")
    comps = {m: compare(r, n=200) for m, r in results.items()}
    html = build_html_report(corpus, results, comps)
    assert not re.search(r"<script[^>]*\ssrc=", html)  # plotly.js is inline: opens offline
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)</script>" not in html and "<img src=x" not in html
    for r in results.values():
        assert r.signature in html
    assert "Significance clusters" in html and html.count("plotly-graph-div") >= 2


def test_report_command(tmp_path, capsys):
    out = tmp_path / "r.html"
    code = main(
        [
            "report",
            "--ref",
            str(SAMPLE / "ref.txt"),
            "--sys",
            str(SAMPLE / "UEdin.txt"),
            str(SAMPLE / "Online-W.txt"),
            "--metrics",
            "bleu,ter",
            "--n",
            "100",
            "-o",
            str(out),
        ]
    )
    assert code == 0 and out.stat().st_size > 1_000_000
    assert "wrote" in capsys.readouterr().out
    code = main(
        [
            "report",
            "--ref",
            str(SAMPLE / "ref.txt"),
            "--sys",
            str(SAMPLE / "UEdin.txt"),
            "-o",
            str(tmp_path / "missing" / "r.html"),
        ]
    )
    assert code == 2 and "cannot write" in capsys.readouterr().err


def test_table_to_latex_escapes_and_rounds():
    tex = table_to_latex(["system", "bleu"], [["a_b & c", 12.3456], ["x%", float("nan")]])
    assert r"a\_b \& c & 12.3 \\" in tex and r"x\% & -- \\" in tex and tex.startswith(r"\begin{tabular}{lr}")


def test_every_number_has_its_metrics_decimals_and_missing_values_a_dash():
    """BLEU/chrF/TER one decimal as sacrebleu prints them, NIST two, p-values and 0-1 statistics three."""
    from mtlens.exports.numbers import decimals

    assert [decimals(m) for m in ("bleu", "bleu-c", "chrf", "chrf++", "ter", "tbleu", "nist")] == [1] * 6 + [2]
    assert decimals("p (Holm)") == decimals("p") == 3 and decimals("chrf 95% CI ±") == 1
    assert decimals("comet:wmt22", [0.8123, 0.7991]) == 3 and decimals("metricx", [3.2, 12.5]) == 2
    tex = table_to_latex(
        ["system", "nist", "p", "pearson", "note"], [["A", 7.12345, 0.04567, 0.98765, None], ["B", 6.5, 0.5, -0.1, "x"]]
    )
    assert r"A & 7.12 & 0.046 & 0.988 & -- \\" in tex and r"B & 6.50 & 0.500 & -0.100 & x \\" in tex


def test_offline_report_never_offers_to_upload_a_chart():
    """plotly.js shows "Share chart - will be uploaded to Plotly Cloud" unless showSendToCloud is false."""
    refs, systems = pair_files(SAMPLE)
    corpus = Corpus.build({"ref": refs[0]}, systems)
    html = build_html_report(corpus, score(corpus, "bleu"), {})
    configs = re.findall(r"\{[^{}]*\"showSendToCloud\": (\w+)[^{}]*\}", html)
    assert configs and set(configs) == {"false"}
    assert html.count('"showSendToCloud": false') == html.count("Plotly.newPlot(")


def test_report_on_too_few_lines_says_why_there_are_no_tests():
    refs, systems = pair_files(SAMPLE)
    corpus = Corpus.build({"ref": refs[0][:10]}, {k: v[:10] for k, v in systems.items()})
    html = build_html_report(corpus, score(corpus, "bleu"), {})
    assert "No significance tests: they need at least 30 lines, this test set has 10" in html


def test_report_notes_on_the_data_are_folded_after_the_summary():
    from mtlens import Corpus, score
    from mtlens.exports.html import build_html_report
    from mtlens.readers.testset import with_warnings

    corpus = with_warnings(
        Corpus.build({"ref": ["a &amp; b", "c d"]}, {"A": ["a &amp; b", "c x"], "B": ["a b", "c d"]})
    )
    assert corpus.warnings  # reading found the HTML entity
    html = build_html_report(corpus, score(corpus, "bleu"))
    start = html.index("<h2>Dataset</h2>")
    notes = html.index("<details><summary>Notes on the data")
    assert start < notes < html.index("<h2>Ranking") and "class='note'" not in html


def test_the_report_has_the_scores_per_domain_and_document_and_every_chart_in_words():
    """Issue 51: the HTML report omitted documents and domains, and its charts had no text alternative. A set whose
    first 120 lines are 'news' and the rest 'social', in documents of 10 lines: each domain's and document's BLEU is
    sacrebleu's on those lines alone; each chart is a figure with a caption reading its bars (sacrebleu's scores)."""
    import html as html_lib

    from sacrebleu.metrics import BLEU

    refs, systems = pair_files(SAMPLE)
    two = {k: systems[k] for k in ("UEdin", "Online-W")}
    corpus = Corpus.build({"ref": refs[0]}, two).with_documents(
        [f"doc{k // 10}" for k in range(200)], ["news" if k < 120 else "social" for k in range(200)]
    )
    results = score(corpus, "bleu")
    page = build_html_report(corpus, results)
    assert "By domain (2 domains)" in page and "By document (20 documents)" in page
    for domain, lines in (("news", range(120)), ("social", range(120, 200))):
        row = re.search(rf"<tr><td class='name'>{domain}</td><td>{len(lines)}</td><td>bleu</td>(.*?)</tr>", page)
        assert row, domain
        cells = re.findall(r"<td>([^<]*)</td>", row.group(1))
        order = sorted(two, key=lambda s: results["bleu"].scores[s], reverse=True)
        for s, cell in zip(order, cells, strict=True):
            expected = BLEU().corpus_score([two[s][i] for i in lines], [[refs[0][i] for i in lines]]).score
            assert float(cell) == round(expected, len(cell.split(".")[1])), (domain, s)  # the page's decimals
    doc3 = re.search(r"<tr><td class='name'>doc3</td><td>10</td><td>bleu</td>(.*?)</tr>", page)
    first = sorted(two, key=lambda s: results["bleu"].scores[s], reverse=True)[0]
    expected = BLEU().corpus_score(two[first][30:40], [refs[0][30:40]]).score
    cell = re.findall(r"<td>([^<]*)</td>", doc3.group(1))[0]
    assert float(cell) == round(expected, len(cell.split(".")[1]))
    captions = [html_lib.unescape(c) for c in re.findall(r"<figcaption>(.*?)</figcaption>", page)]
    assert len(captions) == 1 and captions[0].startswith("Chart 'bleu', x axis: system, y axis: bleu. bars (2): ")
    for s, text in two.items():
        assert f"{s} {BLEU().corpus_score(text, [refs[0]]).score:.4g}" in captions[0]
