"""The README's examples run and show what the code really prints."""

from __future__ import annotations

from mtlens.cli import main

from .conftest import ROOT


def _blocks(lang: str) -> list[str]:
    """Fenced code blocks of the README whose opening fence names ``lang`` ("" for none)."""
    blocks, current, opened = [], None, None
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            if current is None:
                current, opened = [], line[3:].strip()
            else:
                if opened == lang:
                    blocks.append("\n".join(current) + "\n")
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def test_python_api_example_runs(capsys):
    (code,) = [b for b in _blocks("python") if "mtlens.Corpus.build" in b]
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:mtlens-" in out


def test_cli_example_output_is_current(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    shown = next(b for b in _blocks("") if b.startswith("system "))
    code = main(
        [
            "score",
            "--ref",
            "sample_data/ref.txt",
            "--ref",
            "sample_data/ref2.txt",
            "--sys",
            *[f"sample_data/{n}.txt" for n in ("VolcTrans-GLAT", "Online-W", "HuaweiTSC", "UEdin")],
            "--metrics",
            "bleu,chrf,bleu-c",
        ]
    )
    assert code == 0
    assert capsys.readouterr().out.strip() == shown.strip()
