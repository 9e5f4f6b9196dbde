"""COMET pitfalls at the command line and in the report (issue 39): a system of empty lines and one that
copies the source are named with their counts whenever a neural metric is scored (here comet scores read
from a file, so no model is needed), in the notes on stderr, in the JSON and in the HTML report; without a
neural metric nothing is said."""

from __future__ import annotations

import json

from mtlens.cli import main

from ..conftest import SAMPLE, read

N = 60


def _files(tmp_path):
    src, ref, good = (read(SAMPLE / f"{n}.txt")[:N] for n in ("src", "ref", "UEdin"))
    systems = {"good": good, "blank": [""] * N, "a<b>&copy": src, "english": src[1:] + src[:1]}
    for name, lines in {"src": src, "ref": ref, **systems}.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = ["system\tline\tcomet"] + [f"{s}\t{i + 1}\t0.5" for s in systems for i in range(N)]
    (tmp_path / "comet.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    sys_args = [str(tmp_path / f"{s}.txt") for s in systems]
    return ["--ref", str(tmp_path / "ref.txt"), "--src", str(tmp_path / "src.txt"), "--sys", *sys_args, "-l", "en-de"]


def test_score_names_the_flagged_systems_in_its_notes_and_json(tmp_path, capsys):
    data = _files(tmp_path)
    assert main(["score", *data, "--metrics", "bleu", "--data-dir", str(tmp_path / "ws")]) == 0
    assert "may score such lines well" not in capsys.readouterr().err  # no neural metric: nothing to say
    args = ["score", *data, "--scores", str(tmp_path / "comet.tsv"), "--data-dir", str(tmp_path / "ws")]
    assert main([*args, "--format", "json"]) == 0
    out = capsys.readouterr()
    assert f"system 'blank' has {N} empty of {N} lines" in out.err
    assert f"system 'a<b>&copy' has {N} copies of the source of {N} lines" in out.err
    assert "system 'good'" not in out.err
    assert "system 'english' has" in out.err and "in another language" in out.err
    doc = json.loads(out.out)["pitfalls"]
    assert doc["expected_language"] == "de" and doc["expected_how"] == "declared"
    assert doc["systems"]["blank"]["empty"] == N and doc["systems"]["a<b>&copy"]["copied_source"] == N
    assert doc["systems"]["good"] == {
        "empty": 0,
        "copied_source": 0,
        "wrong_language": 0,
        "lines": {"empty": [], "copied": [], "wrong_language": []},
    }
    assert main(args) == 0  # the table form lists them with the notes on the data
    assert f"- comet: system 'blank' has {N} empty of {N} lines" in capsys.readouterr().out


def test_the_report_has_the_section_with_escaped_names(tmp_path, capsys):
    data = _files(tmp_path)
    out = tmp_path / "r.html"
    args = [
        "report",
        *data,
        "--scores",
        str(tmp_path / "comet.tsv"),
        "-o",
        str(out),
        "--data-dir",
        str(tmp_path / "ws"),
    ]
    assert main(args) == 0
    html = out.read_text(encoding="utf-8")
    section = html[html.index("<h2>Before reading the neural scores</h2>") :]
    section = section[: section.index("<h2>", 5)]
    assert "<td class='name'>a&lt;b&gt;&amp;copy</td><td>0</td><td>60</td><td>0</td>" in section
    assert "<td class='name'>blank</td><td>60</td><td>0</td><td>0</td>" in section
    assert "a<b>&copy" not in html
