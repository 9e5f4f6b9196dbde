"""``score --metrics term --terms-match surface --terms REF.jsonl --terms-key proper`` on every team and mode of WMT25's
terminology track 1 (../shared/data/wmt25-terminology, CC BY-NC 4.0: read there, never bundled) equals WMT25's own
scorer with its lemma half left out. The golden numbers are that scorer's output: tests/golden/wmt25/make_terms_golden.sh
runs wmt-conference/wmt25-terminology's ``evaluate_track1.py`` (commit 3ac137d) with stanza replaced by a stand-in
whose lemmas never match, so only its lower-cased substring half decides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import ROOT, SHARED

pytestmark = pytest.mark.shared

DATA = SHARED / "wmt25-terminology"
GOLDEN = json.loads((ROOT / "tests" / "golden" / "wmt25" / "terms_surface.json").read_text())[
    "proper_term_success_rate"
]


def _lines(path: Path, key: str) -> list[str]:
    """One text line per JSONL line; WMT25's scorer strips every output, and 12 outputs hold a line break (the
    text files of a set cannot: it becomes a space, which no term contains)."""
    return [json.loads(x)[key].strip().replace("\n", " ") for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("lang", ["de", "es", "ru"])
def test_term_success_rate_equals_wmt25s_scorer_without_lemmas(tmp_path, capsys, lang):
    from mtlens.cli import main

    ref = DATA / "references" / f"full_data.en{lang}.jsonl"
    (tmp_path / "src.txt").write_text("\n".join(_lines(ref, "en")) + "\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("\n".join(_lines(ref, lang)) + "\n", encoding="utf-8")
    checked = 0
    for mode, teams in GOLDEN[lang].items():
        systems = []
        for team in teams:
            path = DATA / "submissions" / team / f"{team}.en{lang}.{mode}.jsonl"
            out = tmp_path / f"{team}.txt"
            out.write_text("\n".join(_lines(path, lang)) + "\n", encoding="utf-8")
            systems.append(str(out))
        argv = ["score", "--src", str(tmp_path / "src.txt"), "--ref", str(tmp_path / "ref.txt"), "--sys", *systems]
        argv += ["-l", f"en-{lang}", "--metrics", "term", "--terms-match", "surface", "--terms", str(ref)]
        argv += ["--terms-key", "proper", "--format", "json", "--data-dir", str(tmp_path / "ws")]
        assert main(argv) == 0
        got = {s["name"]: s["scores"]["term"] for s in json.loads(capsys.readouterr().out)["systems"]}
        for team, rate in teams.items():
            assert abs(got[team] / 100 - rate) < 1e-12, (lang, mode, team, got[team], rate)
            checked += 1
    assert checked == sum(len(t) for t in GOLDEN[lang].values()) >= 50
