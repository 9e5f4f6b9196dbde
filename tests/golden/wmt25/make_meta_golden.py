"""Golden values of issue 61's meta-evaluation, computed by the sources' own code on the same inputs:
- PDP: google-research/mt-metrics-eval's ``stats.Correlation(...).Pearson(average_by='item', pdp=True)``;
- span precision, recall, F1: wmt-conference/wmt25-mteval's ``scripts/scoring/task2/scoring_esa.py``, ``get_char_f1``;
- criticality F1: the same repository's ``scripts/analysis/21-metrics_criticality.py``, its function ``f1`` (taken
  out of the script, which reads WMT25's own files at import, with ``ast``) applied as the script applies it.

Inputs: WMT24 ESA ratings (Appraise CSV) read by the publisher's procedure (the pair's rows; attention checks,
fillers, repeats and tutorials out; each rater's latest rating of an item; raters averaged), the human spans of each
item's first rating (end_i inclusive, so [start_i, end_i + 1)), and the span source of span_source.py.
Run by make_meta_golden.sh, which fetches both repositories at pinned commits."""

from __future__ import annotations

import ast
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from span_source import span_source

COLS = ["user", "system", "line", "item_type", "src", "tgt", "score", "doc", "unused", "spans", "start", "end"]


def ratings(csv_paths, pair=("eng", "jpn")):
    rows = []
    for p in csv_paths:
        with open(p, encoding="utf-8", newline="") as f:
            rows += [dict(zip(COLS, r, strict=True)) for r in csv.reader(f)]
    latest = {}
    for k, r in enumerate(rows):
        if (r["src"], r["tgt"]) != pair or r["item_type"] != "TGT" or "tutorial" in r["system"]:
            continue
        if r["doc"].endswith(("#bad", "#dup", "#incomplete")) or "tutorial" in r["doc"]:
            continue
        key = (r["user"], r["system"], int(r["line"]))
        if key not in latest or float(r["end"]) >= float(latest[key][1]["end"]):
            latest[key] = (k, r)
    by_item = defaultdict(list)
    for _, r in sorted(latest.values(), key=lambda x: x[0]):  # file order
        by_item[(r["system"], int(r["line"]))].append(r)
    return by_item


def main(repo25, mtme, texts, out, *csv_paths):
    sys.path.insert(0, str(Path(repo25) / "scripts" / "scoring" / "task2"))
    sys.path.insert(0, str(mtme))
    from mt_metrics_eval import stats
    from scoring_esa import get_char_f1

    tree = ast.parse((Path(repo25) / "scripts/analysis/21-metrics_criticality.py").read_text(encoding="utf-8"))
    ns: dict = {}
    exec(compile(ast.Module([n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f1"], []),
                 "21-metrics_criticality.py", "exec"), ns)  # fmt: skip
    crit_f1 = ns["f1"]

    items = ratings(csv_paths)
    texts = Path(texts)
    rated = sorted({s for s, _ in items if (texts / f"{s}.txt").exists()})
    names = [p.stem for p in sorted(texts.glob("*.txt")) if p.stem in rated]
    source = span_source(texts, names)
    lines = {s: (texts / f"{s}.txt").read_text(encoding="utf-8").split("\n")[:-1] for s in names}
    n = len(lines[names[0]])
    metric = {s: [seg["COMET"] for seg in source[f"{s}.txt"]] for s in names}
    human = {s: [None] * n for s in names}
    gold_spans, pred_spans, lengths = [], [], []
    for (s, i), rs in items.items():
        if s not in names:
            continue
        human[s][i] = sum(float(r["score"]) for r in rs) / len(rs)
        first = json.loads(rs[0]["spans"])
        gold_spans.append([{"start": sp["start_i"] if sp["start_i"] == "missing" else int(sp["start_i"]),
                            "end": sp["end_i"] if sp["start_i"] == "missing" else int(sp["end_i"]) + 1,
                            "severity": sp["severity"]} for sp in first])  # fmt: skip
        pred_spans.append([{"start": e["start"], "end": e["end"], "severity": e["severity"]}
                           for e in source[f"{s}.txt"][i]["errors"]])  # fmt: skip
        lengths.append(len(lines[s][i]))
    gold = [human[s][i] for s in names for i in range(n)]
    met = [metric[s][i] for s in names for i in range(n)]
    pdp = stats.Correlation(len(names), gold, met).Pearson(average_by="item", pdp=True)[0]
    p, r, f = get_char_f1(lengths, gold_spans, pred_spans, partial_credit=0.5)
    # criticality as the script computes it: items in segment-major order, (score, key) pairs
    data_yhum = [(human[s][i], (i, s)) for i in range(n) for s in names if human[s][i] is not None]
    data_ymet = [(metric[s][i], (i, s)) for i in range(n) for s in names if human[s][i] is not None]
    pos = {k for y, k in data_yhum if y < 10}
    neg = {k for y, k in data_yhum if y >= 10}
    crit = None
    if pos:
        data_ymet.sort(key=lambda x: x[0], reverse=False)
        bot = crit_f1(pos, neg, data_ymet)
        data_ymet.sort(key=lambda x: x[0], reverse=True)
        crit = max(bot, crit_f1(pos, neg, data_ymet))
    doc = {"source": "mt-metrics-eval@68a481a stats.Correlation.Pearson(average_by='item', pdp=True); "
               "wmt25-mteval@d1f6ab9 scoring_esa.get_char_f1 and 21-metrics_criticality.f1",
               "systems": names, "items": len(lengths), "pdp": pdp, "span_precision": p, "span_recall": r,
               "span_f1": f, "criticality_f1": crit}  # fmt: skip
    Path(out).write_text(json.dumps(doc, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
