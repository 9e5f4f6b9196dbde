"""The translation checks and the terms on the pages (issue 60), with AppTest: the checks table beside the metrics
on Rankings, the lines where one system fails and the other passes on Compare two systems, and a line's failing
checks on Sentences, for a saved set whose glossary was saved with it. The verdicts are the documented rules' (a
lost ``{0}`` fails check:placeholders; docs/checks.md)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from mtlens.core.corpus import Corpus

from ..conftest import ROOT, SAMPLE, read
from .conftest import no_errors, plain

N = 60
DROPPED = {0, 10, 20, 30, 40, 50}  # the lines where 'drops' loses its placeholder: 6 of 60, 10%


def _set(tmp_path, monkeypatch) -> str:
    from mtlens.ui import state

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    src, ref, out = (read(SAMPLE / f"{n}.txt")[:N] for n in ("src", "ref", "UEdin"))
    src, ref = [x + " {0}" for x in src], [x + " {0}" for x in ref]
    systems = {
        "keeps": [x + " {0}" for x in out],
        "drops": [x if i in DROPPED else x + " {0}" for i, x in enumerate(out)],
    }
    corpus = Corpus.build({"ref": ref}, systems, src, language_pair="en-de")
    glossary = ("g.tsv", b"police\tPolizei\n", "terms")
    return state.store().save(corpus, "checks", terms=[glossary])


def _page(path: str, sid: str, **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / path), default_timeout=180)
    at.query_params.update({"set": sid, **params})
    return at.run()


def _frame(element):
    value = element.value
    return value.data if hasattr(value, "data") else value


def test_rankings_show_the_checks_table_beside_the_metrics(tmp_path, monkeypatch):
    at = _page("1_Rankings.py", _set(tmp_path, monkeypatch), metrics="bleu,chrf")
    no_errors(at)
    table = next(_frame(d) for d in at.dataframe if "check:placeholders" in _frame(d).columns)
    got = {r["system"]: r["check:placeholders"] for _, r in table.iterrows()}
    assert got == {"keeps": 0.0, "drops": 10.0}
    assert "term" in table.columns  # the glossary saved with the set
    assert list(table["system"]) == ["keeps", "drops"]  # the fewest failures first
    # the checks are offered as metrics, not shown among the first columns
    main = _frame(at.dataframe[0])
    assert "check:placeholders" not in main.columns


def test_compare_lists_the_lines_where_one_fails_and_the_other_passes(tmp_path, monkeypatch):
    at = _page("6_Compare_two_systems.py", _set(tmp_path, monkeypatch), a="keeps", b="drops", metric="bleu")
    no_errors(at)
    box = at.selectbox(key="cmp_check")
    box.set_value("check:placeholders").run()
    no_errors(at)
    table = next(_frame(d) for d in at.dataframe if "fails" in _frame(d).columns)
    assert sorted(table["line"]) == sorted(i + 1 for i in DROPPED)
    assert set(table["fails"]) == {"drops"} and set(table["what"]) == {"{0}"}


def test_sentences_show_the_checks_a_line_fails(tmp_path, monkeypatch):
    sid = _set(tmp_path, monkeypatch)
    at = _page("2_Sentences.py", sid, a="drops", b="keeps", line="11", metric="bleu")
    no_errors(at)
    said = " ".join(plain(m.value) for m in at.markdown)
    assert "Translation checks on this line" in said
    assert "*drops* fails **check:placeholders**: lost {0}" in said
    at = _page("2_Sentences.py", sid, a="drops", b="keeps", line="12", metric="bleu")
    no_errors(at)
    assert any("every check passes on this line" in plain(c.value) for c in at.caption)


def test_rankings_list_the_terms_each_system_misses(tmp_path, monkeypatch):
    at = _page("1_Rankings.py", _set(tmp_path, monkeypatch), metrics="bleu")
    no_errors(at)
    table = next(_frame(d) for d in at.dataframe if "missed by drops" in _frame(d).columns)
    row = table.iloc[0]
    assert (row["source"], row["target"]) == ("police", "Polizei") and row["counted"] > 0


def test_the_documented_cases_give_their_verdicts_on_the_pages(tmp_path, monkeypatch):
    """docs/checks.md's cases, each check's table a set of its own (as tests/checks/test_documented_cases.py does on
    the command line): the Rankings' checks table gives the documented percent of failing lines, and Sentences names
    the check on a documented failing line and not on a passing one."""
    from mtlens.ui import state

    from ..checks.test_documented_cases import CASES

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    for check, rows in CASES.items():
        src, out = [s for s, _, _ in rows], [o for _, o, _ in rows]
        corpus = Corpus.build({"ref": out}, {"A": out, "B": src}, src, language_pair="en-de")
        sid = state.store().save(corpus, f"cases {check}")
        at = _page("1_Rankings.py", sid, metrics="bleu")
        no_errors(at)
        table = next(_frame(d) for d in at.dataframe if f"check:{check}" in _frame(d).columns)
        got = dict(zip(table["system"], table[f"check:{check}"], strict=True))
        want = 100 * sum(f for _, _, f in rows) / len(rows)
        assert abs(got["A"] - want) < 1e-9, check
        failing = next(k for k, (_, _, f) in enumerate(rows) if f)
        passing = next(k for k, (_, _, f) in enumerate(rows) if not f)
        for line, fails in ((failing, True), (passing, False)):
            at = _page("2_Sentences.py", sid, a="A", b="B", line=str(line + 1), metric="bleu")
            no_errors(at)
            said = " ".join(plain(m.value) for m in at.markdown)
            assert (f"*A* fails **check:{check}**" in said) == fails, (check, line)


def test_a_glossary_uploaded_on_the_home_page_is_scored_and_saved_with_the_set(app):
    from mtlens.ui import state

    def upload(key, *files):
        app.file_uploader(key=key).set_value(list(files))

    upload("up_refs", ("ref.txt", (SAMPLE / "ref.txt").read_bytes(), "text/plain"))
    upload("up_systems", ("A.txt", (SAMPLE / "UEdin.txt").read_bytes(), "text/plain"))
    upload("up_source", ("src.txt", (SAMPLE / "src.txt").read_bytes(), "text/plain"))
    upload("up_terms", ("bad.tsv", b"police\tPolizei\npolice\tPolizist\n", "text/tab-separated-values"))
    app.run()
    no_errors(app)
    assert any("gives the term 'police' with another target" in plain(e.value) for e in app.error)  # one sentence
    upload("up_terms", ("g.tsv", b"police\tPolizei\n", "text/tab-separated-values"))
    app.run()
    no_errors(app)
    sid = app.query_params["set"]
    assert state.store().load(sid).terms == (("g.tsv", b"police\tPolizei\n", "terms"),)
    app.switch_page("pages/1_Rankings.py").run()
    no_errors(app)
    table = next(_frame(d) for d in app.dataframe if "term" in _frame(d).columns)
    assert 0 < float(table["term"].iloc[0]) <= 100


def test_the_significance_page_tests_a_check_with_mcnemar(tmp_path, monkeypatch):
    at = _page("4_Significance.py", _set(tmp_path, monkeypatch), metric="check:placeholders")
    no_errors(at)
    said = " ".join(plain(c.value) for c in at.caption)
    assert "check:placeholders is a translation check: each pair is tested with exact McNemar test" in said
    assert "test:mcnemar-exact|ci:bootstrap" in said
