"""Issue 52: documents and domains for a plain folder (``import FOLDER --docs FILE``), in both orders that exist:
mtlens's ``doc_id<TAB>domain`` and mt-metrics-eval's ``domain doc_id`` (its ``.docs`` files, which WMT24's are),
chosen by the file's name or by ``--docs-order``; the same reader for ``score`` and ``gate``."""

from __future__ import annotations

import pytest

from mtlens.cli import main
from mtlens.core.errors import InputError
from mtlens.readers.testset import read_documents
from mtlens.storage.store import Store

from ..conftest import SAMPLE, SHARED


def test_both_orders_and_the_choice_by_name_or_flag():
    mine = b"d1\tnews\nd1\tnews\nd2\tsocial\n"
    theirs = b"news d1\nnews d1\nsocial d2\n"
    want = (["d1", "d1", "d2"], ["news", "news", "social"])
    assert read_documents(mine, "docs.tsv", 3) == want
    assert read_documents(theirs, "en-ja.docs", 3) == want  # mt-metrics-eval's order, by the name
    assert read_documents(theirs, "docs.txt", 3, "domain-id") == want  # by the flag
    assert read_documents(b"d1\nd2\nd3\n", "x.docs", 3) == (["d1", "d2", "d3"], None)  # older years: doc alone
    with pytest.raises(InputError, match="line 1 of the documents file 'x.docs' is not 'domain doc_id'"):
        read_documents(b"a b c\nd e\nf g\n", "x.docs", 3)
    with pytest.raises(InputError, match="--docs-order takes id-domain or domain-id"):
        read_documents(mine, "docs.tsv", 3, "sideways")


def test_import_of_a_plain_folder_keeps_its_documents_and_domains(tmp_path, capsys):
    n = len((SAMPLE / "ref.txt").read_text(encoding="utf-8").splitlines())
    docs = tmp_path / "sample.docs"
    docs.write_text("".join(f"{'news' if k < 120 else 'social'} doc{k // 10}\n" for k in range(n)), encoding="utf-8")
    ws = ["--data-dir", str(tmp_path / "ws")]
    assert main(["import", str(SAMPLE), "--docs", str(docs), "--name", "with docs", *ws]) == 0
    set_id = capsys.readouterr().out.strip()
    corpus = Store(tmp_path / "ws").load(set_id).corpus
    assert corpus.documents[:11] == ("doc0",) * 10 + ("doc1",)
    assert corpus.domains[119] == "news" and corpus.domains[120] == "social"
    # the other order, named by the flag, on a file whose name says nothing
    flipped = tmp_path / "docs.txt"
    flipped.write_text("".join(f"doc{k // 10}\tnews\n" for k in range(n)), encoding="utf-8")
    assert main(["import", str(SAMPLE), "--docs", str(flipped), "--docs-order", "id-domain", *ws]) == 0
    corpus = Store(tmp_path / "ws").load(capsys.readouterr().out.strip()).corpus
    assert corpus.documents[0] == "doc0" and set(corpus.domains) == {"news"}
    # a wrong line count is one sentence naming the file, and nothing is saved
    short = tmp_path / "short.docs"
    short.write_text("news d1\n", encoding="utf-8")
    assert main(["import", str(SAMPLE), "--docs", str(short), *ws]) == 2
    assert f"the documents file '{short}' has 1 lines; the test set has {n}" in capsys.readouterr().err
    assert len(Store(tmp_path / "ws").list()) == 2


@pytest.mark.shared
def test_the_wmt24_en_ja_docs_file_gives_its_four_domains():
    folder = SHARED / "wmt24-esa"
    ids, domains = read_documents((folder / "en-ja.docs").read_bytes(), "en-ja.docs", 998)
    assert ids[0] == domains[0] == "canary"  # line 0 is the canary line
    assert set(domains) == {"canary", "literary", "news", "social", "speech"}
    assert ids[1] == "test-en-news_beverly_press.3585" and domains[1] == "news"
