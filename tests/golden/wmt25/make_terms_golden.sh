#!/usr/bin/env bash
# Makes tests/golden/wmt25/terms_surface.json: WMT25's own track 1 scorer (wmt-conference/wmt25-terminology,
# ranking/metric_track1/evaluate_track1.py at commit 3ac137d), run on ../shared/data/wmt25-terminology with its lemma
# half left out (stanza replaced by stanza_without_lemmas.py: every call lemmatises to a word no other call gives,
# so only the scorer's lower-cased substring half can match). Needs git, network access and sacrebleu; the
# scorer's code is CC BY-NC 4.0 and is fetched here, never copied into mtlens.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=${1:-$here/../../../../shared/data/wmt25-terminology}
work=$(mktemp -d)
git clone -q https://github.com/wmt-conference/wmt25-terminology "$work/repo"
git -C "$work/repo" checkout -q 3ac137d
mkdir -p "$work/repo/ranking/submissions" "$work/repo/ranking/references"
ln -s "$(cd "$data" && pwd)/submissions" "$work/repo/ranking/submissions/track1"
ln -s "$(cd "$data" && pwd)/references" "$work/repo/ranking/references/track1"
mkdir -p "$work/stub" && cp "$here/stanza_without_lemmas.py" "$work/stub/stanza.py"
(cd "$work/repo/ranking/metric_track1" && PYTHONPATH="$work/stub" python evaluate_track1.py > /dev/null)
python - "$work/repo/ranking/metric_track1/scores/track1_score_dict.json" "$here/terms_surface.json" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
out = {lang: {mode: {team: s["proper_term_success_rate"] for team, s in teams.items() if s}
              for mode, teams in modes.items()} for lang, modes in got.items()}
json.dump({"source": "wmt-conference/wmt25-terminology@3ac137d ranking/metric_track1/evaluate_track1.py, lemmas "
           "left out (stanza_without_lemmas.py)", "proper_term_success_rate": out}, open(sys.argv[2], "w"), indent=1)
PY
rm -rf "$work"
