"""The command line's plain-text tables of ``analyze``: words vs characters, human correlation, the tBLEU sweep,
and two systems side by side (``--pair``), with the pages' decimals."""

from __future__ import annotations

from .numbers import UNIT_DECIMALS, decimals, shown


def _f(x) -> str:
    """A statistic (a correlation, kappa, a share) as the decimals rule shows it."""
    return shown(x, UNIT_DECIMALS)


def analysis_to_table(doc: dict) -> str:
    """Plain-text summary of the ``analyze`` command's results."""
    out = _words_chars(doc) if "best" in doc else [f"note: {n}" for n in doc.get("words_vs_chars_notes", [])]
    if "human_correlation" in doc:
        out.append("")
        out.append("== correlation with human judgments ==")
        out.append("metric   level    human    n      pearson          spearman         kendall")
        for r in doc["human_correlation"]:
            cells = []
            for k in ("pearson", "spearman", "kendall"):
                lo, hi = r[f"{k}_ci"]
                cells.append(f"{_f(r[k])} [{_f(lo)},{_f(hi)}]")
            out.append(f"{r['metric']:<8} {r['level']:<8} {r['human']:<8} {r['n']:<6} " + "  ".join(cells))
        for key, names in doc.get("missing", {}).items():
            if names:
                out.append(f"no human score ({key}) for: {', '.join(names)}")
        for note in doc.get("notes", []):
            out.append(f"note: {note}")
    if doc.get("meta_evaluation"):
        out += meta_table(doc["meta_evaluation"])
    if "tbleu_sweep" in doc:
        sw = doc["tbleu_sweep"]
        out.append("")
        out.append("== tBLEU threshold sweep ==")
        out.append("epsilon " + " ".join(f"{e:>6.2f}" for e in sw["epsilons"]))  # the option's grid, in its steps
        for name, vals in sw["scores"].items():
            out.append(f"{name[:7]:<7} " + " ".join(f"{shown(v, decimals('tbleu')):>6}" for v in vals))
        for h, corr in sw["correlation"].items():
            out.append(f"r({h[:5]}) " + " ".join(f"{_f(v):>6}" for v in corr["pearson"]))
    return "\n".join(out) + "\n"


def _words_chars(doc: dict) -> list[str]:
    out = [
        f"== words vs characters: BLEU_w{doc['word_order']} against BLEU_cM ==",
        "best M (pearson / kappa / analogical >= 90%):",
    ]
    for name, b in doc["best"].items():
        out.append(f"  {name}: {b['pearson']} / {b['kappa']} / {b['analogical']}")
    out.append("")
    out.append("M    pearson  kappa  analogical   (all systems pooled)")
    for r in doc["pooled"]:
        out.append(f"{r['char_order']:<4} {_f(r['pearson']):>7}  {_f(r['kappa']):>5}  {_f(r['analogical']):>10}")
    out.append("")
    m = doc["ranking_char_order"]
    out.append(
        f"system ranking: BLEU_w{doc['word_order']} vs BLEU_c{m} (agree: {'yes' if doc['rankings_agree'] else 'no'})"
    )
    for r in doc["ranking"]:
        out.append(
            f"  {r['rank_w']:>2}. {r['system']:<24} {shown(r['bleu_w'], decimals('bleu')):>6}   rank {r['rank_c']:>2} by "
            f"BLEU_c{m} {shown(r['bleu_c'], decimals('bleu-c')):>6}"
        )
    return out


#: the meta-evaluation's columns in the plain-text table (key, heading)
META_COLUMNS = (("pairwise_accuracy", "pair-acc"), ("spa", "SPA"), ("acc_eq", "acc_eq"), ("pdp", "PDP"),
                ("span_precision", "span-P"), ("span_recall", "span-R"), ("span_f1", "span-F1"),
                ("criticality_f1", "crit-F1"))  # fmt: skip


def meta_table(rows: list[dict]) -> list[str]:
    """The meta-evaluation as WMT25 measures it, one line per score source and human score type."""
    out = ["", "== meta-evaluation as WMT25 measures it (- : does not apply) =="]
    out.append(f"{'source':<28} {'human':<8} {'role':<14} " + " ".join(f"{h:>8}" for _, h in META_COLUMNS))
    for r in rows:
        cells = " ".join(f"{('-' if r[k] is None else _f(r[k])):>8}" for k, _ in META_COLUMNS)
        out.append(f"{r['metric'][:28]:<28} {r['human'][:8]:<8} {r['role']:<14} {cells}")
    return out


def _p_cell(r: dict) -> str:
    if r["p_value"] is None:
        return "too few lines"
    return f"{shown(r['p_value'], UNIT_DECIMALS)} ({shown(r['p_holm'], UNIT_DECIMALS)})"


def pair_to_table(doc: dict) -> str:
    """Plain-text summary of ``analyze --pair A B``, with the pages' decimals (the metric's own for scores,
    :data:`~mtlens.exports.numbers.UNIT_DECIMALS` for p-values: :func:`mtlens.exports.numbers.decimals`)."""
    bk = doc["buckets"]
    d = decimals(doc["metric"])  # the word F-measure (0-100) is shown as the metric beside it, as on the page
    out = [f"== {doc['a']} (A) vs {doc['b']} (B) =="]
    for kind, title in (
        ("length", f"{doc['metric']} by reference length"),
        ("frequency", "word F-measure by frequency"),
    ):
        out.append(f"{title}:")
        out.append(f"  {'bucket':<34} {'lines':>6} {'A':>7} {'B':>7} {'B - A':>7}  p (Holm)")
        for r in bk[kind]:
            star = " *" if r["significant"] else ""
            out.append(
                f"  {r['bucket']:<34} {r['lines']:>6} {r['a']:7.{d}f} {r['b']:7.{d}f} {r['delta']:7.{d}f}  "
                f"{_p_cell(r)}{star}"
            )
    out.append(
        f"* Holm-corrected p < {bk['alpha']:g} ({bk['resamples']:,} resamples); buckets with fewer than "
        f"{bk['min_lines']} lines are not tested. Frequencies from: {bk['frequency_source']}. p: {bk['p_value']}"
    )
    out.append(
        "matched n-grams per order (A / B): "
        + ", ".join(f"{r['n']}: {r['matched_a']} / {r['matched_b']}" for r in doc["ngrams"]["by_order"])
    )
    if "slices" in doc:
        sl = doc["slices"]
        out.append(f"slices by {sl['metric']}, largest differences first:")
        out.append(f"  {'slice':<48} {'lines':>6} {'A':>7} {'B':>7} {'B - A':>7}  p (Holm)")
        ds = decimals(sl["metric"])
        for r in sl["slices"]:
            star = " *" if r["significant"] else ""
            out.append(
                f"  {r['slice'][:48]:<48} {r['lines']:>6} {r['a']:7.{ds}f} {r['b']:7.{ds}f} {r['delta']:7.{ds}f}  "
                f"{_p_cell(r)}{star}"
            )
        out.append(
            f"* Holm-corrected p < {sl['alpha']:g} over the slices tested ({sl['resamples']:,} resamples); slices "
            f"under {sl['min_lines']} lines are not tested."
        )
    return "\n".join(out) + "\n"
