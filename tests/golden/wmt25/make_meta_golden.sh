#!/usr/bin/env bash
# Makes tests/golden/wmt25/meta_excerpt.json (the bundled WMT24 ESA en-ja excerpt, tests/data/esa) and, where
# ../shared/data/wmt24-esa is present, meta_en-ja.json (both waves, every rated system): the meta-evaluation's PDP,
# span precision/recall/F1 and criticality F1 computed by mt-metrics-eval's and WMT25's own code
# (make_meta_golden.py). Needs git, network access, numpy and scipy; both repositories are fetched here, never
# copied into mtlens.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../data/esa
shared=${1:-$here/../../../../shared/data/wmt24-esa}
work=$(mktemp -d)
git clone -q https://github.com/wmt-conference/wmt25-mteval "$work/wmt25-mteval"
git -C "$work/wmt25-mteval" checkout -q d1f6ab9
git clone -q https://github.com/google-research/mt-metrics-eval "$work/mt-metrics-eval"
git -C "$work/mt-metrics-eval" checkout -q 68a481a
python "$here/make_meta_golden.py" "$work/wmt25-mteval" "$work/mt-metrics-eval" "$data/en-ja" \
  "$here/meta_excerpt.json" "$data/esa_en-ja.excerpt.csv"
if [ -d "$shared" ]; then
  python "$here/make_meta_golden.py" "$work/wmt25-mteval" "$work/mt-metrics-eval" "$shared/system-outputs/en-ja" \
    "$here/meta_en-ja.json" "$shared/esa_generalMT2024_wave2.csv" "$shared/esa_generalMT2024_wave3.csv"
fi
rm -rf "$work"
