"""HTML for the sentence views. Every piece of user text is ``html.escape``d before it is
wrapped in markup; the result goes to ``st.markdown(..., unsafe_allow_html=True)`` (which
strips scripts and handlers anyway), never to ``components.html``.
"""

from __future__ import annotations

import itertools
import re
from html import escape

from ..analysis.highlight import NgramMatches
from ..exports.numbers import decimals, shown
from ..service.analyses import TERAlignment

COLORS = {
    "matched": "#c7e9c0",
    "unmatched": "#fdd0a2",
    "confirmed": "#a1d99b",
    "improving": "#9ecae1",
    "worsening": "#fcbba1",
    "missed": "#fee391",
    "substitution": "#fdae6b",
    "insertion": "#9ecae1",
    "deletion": "#fc9272",
    "shift": "#bcbddc",
    "match": "#e5f5e0",
    "err-minor": "#fff3b0",
    "err-major": "#ffc48a",
    "err-critical": "#ff8a8a",
}

#: every chip has a pale background and dark text (#1b1b1b), in both themes: text on a chip never takes the
#: theme's text colour (white on pale in dark mode); a test measures every chip's WCAG contrast in Chromium
STYLE = """
<style>
.mtl-line{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;line-height:2.1;font-size:0.95rem}
.mtl-tok{padding:2px 3px;margin:0 1px;border-radius:4px}
.mtl-tok[style*="background"],.mtl-legend span,[class*="mtl-err-"]{color:#1b1b1b}
.mtl-legend span{padding:2px 6px;margin-right:6px;border-radius:4px;font-size:0.85rem}
.mtl-shift{border-bottom:3px solid #756bb1}
.mtl-label{opacity:0.75;font-size:0.8rem;margin-right:6px}
.mtl-err-minor{background:#fff3b0}.mtl-err-major{background:#ffc48a}.mtl-err-critical{background:#ff8a8a}
.mtl-err-other{background:#ddd}
</style>
"""


def _span(text: str, color: str | None, title: str | None = None, extra_class: str = "") -> str:
    attrs = f' title="{escape(title, quote=True)}"' if title else ""
    style = f' style="background:{color}"' if color else ""
    return f'<span class="mtl-tok {extra_class}"{style}{attrs}>{escape(text)}</span>'


def legend(items: list[tuple[str, str]]) -> str:
    """A legend: (label, color key) pairs."""
    spans = "".join(f'<span style="background:{COLORS[key]}">{escape(label)}</span>' for label, key in items)
    return f'<div class="mtl-legend">{spans}</div>'


def ngram_hypothesis(m: NgramMatches, order: int, ref_names: list[str], sep: str = " ") -> str:
    """Hypothesis tokens; tokens inside a matched n-gram of ``order`` are green, others orange.
    The hover text names the references that matched each token's n-grams."""
    covered = m.hyp_token_matched(order)
    refs_of: list[set[int]] = [set() for _ in m.hyp_tokens]
    for s in m.hyp[order]:
        if s.matched:
            for i in range(s.start, s.start + s.order):
                refs_of[i].update(s.references)
    parts = []
    for i, tok in enumerate(m.hyp_tokens):
        if covered[i]:
            title = f"matched {order}-gram in: " + ", ".join(ref_names[r] for r in sorted(refs_of[i]))
            parts.append(_span(tok, COLORS["matched"], title))
        else:
            parts.append(_span(tok, COLORS["unmatched"], f"in no matched {order}-gram"))
    return f'<div class="mtl-line">{sep.join(parts)}</div>'


def ngram_reference(m: NgramMatches, order: int, ref: int, sep: str = " ") -> str:
    """Reference tokens: covered by the hypothesis (green) or missed (yellow)."""
    covered = m.ref_token_matched(order, ref)
    parts = [
        _span(
            tok, COLORS["matched"] if c else COLORS["missed"], None if c else f"missed by the hypothesis at n={order}"
        )
        for tok, c in zip(m.ref_tokens[ref], covered, strict=True)
    ]
    return f'<div class="mtl-line">{sep.join(parts)}</div>'


def ngram_pair(a: NgramMatches, b: NgramMatches, order: int, sep: str = " ") -> tuple[str, str]:
    """MT-ComparEval's view of two systems: for each hypothesis, tokens in n-grams matched by both
    systems ("confirmed"), only by this one (B: "improving", A: "worsening" of B), or by none."""

    def matched_types(m):
        return {m.hyp_tokens[s.start : s.start + s.order] for s in m.hyp[order] if s.matched}

    ta, tb = matched_types(a), matched_types(b)

    def line(m, mine, other, own_label):
        state = [None] * len(m.hyp_tokens)
        for s in m.hyp[order]:
            if not s.matched:
                continue
            g = m.hyp_tokens[s.start : s.start + s.order]
            kind = "confirmed" if g in other else own_label
            for i in range(s.start, s.start + s.order):
                if state[i] != "confirmed":
                    state[i] = kind
        parts = [_span(tok, COLORS[k] if k else None, k) for tok, k in zip(m.hyp_tokens, state, strict=True)]
        return f'<div class="mtl-line">{sep.join(parts)}</div>'

    return line(a, ta, tb, "worsening"), line(b, tb, ta, "improving")


def ter_alignment(a: TERAlignment) -> str:
    """Shifted words (underlined, hover: from where to where), substitutions, insertions and
    deletions coloured, against the best reference; two aligned rows."""
    shifted_orig = {}
    for k, s in enumerate(a.shifts, start=1):
        for p in s.original:
            shifted_orig[p] = (k, s)
    hyp_row, ref_row = [], []
    for op in a.ops:
        if op.op == "insertion":
            hyp_row.append(_span("∅", COLORS["insertion"], f"insert '{op.ref_word}'"))
            ref_row.append(_span(op.ref_word or "", COLORS["insertion"], "missing in the hypothesis"))
            continue
        title, cls = None, ""
        if op.original is not None and op.original in shifted_orig:
            k, s = shifted_orig[op.original]
            title = f"shift {k}: '{' '.join(s.words)}' moved from word {s.before + 1} to word {s.after + 1}"
            cls = "mtl-shift"
        if op.op == "deletion":
            hyp_row.append(_span(op.hyp_word or "", COLORS["deletion"], title or "not in the reference", cls))
            ref_row.append(_span("∅", COLORS["deletion"], f"delete '{op.hyp_word}'"))
        elif op.op == "substitution":
            hyp_row.append(
                _span(op.hyp_word or "", COLORS["substitution"], title or f"substitute '{op.ref_word}'", cls)
            )
            ref_row.append(_span(op.ref_word or "", COLORS["substitution"]))
        else:
            hyp_row.append(_span(op.hyp_word or "", COLORS["match"], title, cls))
            ref_row.append(_span(op.ref_word or "", COLORS["match"]))
    if not a.ops and a.shifted:
        hyp_row = [_span(w, None) for w in a.shifted]
    shifts = "".join(
        f"<li>{escape(' '.join(s.words))}: word {s.before + 1} → word {s.after + 1}</li>" for s in a.shifts
    )
    shifts_html = f"<ol>{shifts}</ol>" if shifts else "<p>No shift.</p>"
    return (
        '<div class="mtl-line"><span class="mtl-label">hypothesis (after shifts)</span>'
        + " ".join(hyp_row)
        + '</div><div class="mtl-line"><span class="mtl-label">reference</span>'
        + " ".join(ref_row)
        + "</div>"
        + shifts_html
    )


def plain(text: str) -> str:
    """A user line as escaped, monospace HTML."""
    return f'<div class="mtl-line">{escape(text)}</div>'


def char_hypothesis(line: str, references: list[str], order: int, lowercase: bool = False) -> str:
    """chrF-style highlighting: characters of the hypothesis inside a matched character n-gram
    (whitespace removed for matching, as chrF does) are green; spaces are shown as they are."""
    from ..service.analyses import char_matches

    m = char_matches(line, references, order, lowercase)
    covered = m.hyp_token_matched(order)
    text = line.lower() if lowercase else line
    out, k = [], 0
    for ch in text.rstrip():
        if ch.isspace():
            out.append(" ")
            continue
        ok = covered[k] if k < len(covered) else False
        k += 1
        out.append(_span(ch, COLORS["matched"] if ok else COLORS["unmatched"]).replace("mtl-tok", "mtl-ch"))
    return f'<div class="mtl-line">{"".join(out)}</div>'


_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$:=&\"'^@%/")


#: GFM's autolink literals (``www.``, ``https://``) are found in the text *after* escapes are resolved (remark-gfm's
#: ``findAndReplace`` on text nodes), so escaping cannot stop them: a WORD JOINER (U+2060, invisible, not a space)
#: inside each trigger does. E-mail addresses are left as GFM makes them: a ``mailto:`` link opens the reader's
#: own mail program, and a visitor's own address (the login's label) stays as they typed it
_AUTOLINK = re.compile(r"(?i)(www)(?=\.)|(https?|ftp|mailto|xmpp)(?=:)")
WORD_JOINER = "\u2060"


def md(text: str) -> str:
    r"""User text made inert inside Streamlit markdown: every ASCII punctuation mark is
    backslash-escaped (CommonMark allows it), so no link, emphasis, HTML, LaTeX ($) or
    Streamlit directive (:red[...]) can be formed from it, and GFM's autolink literals are broken by an
    invisible word joiner (issue 51: a set named after a URL or a file ``www.evil.example.txt`` was a link).

    >>> md("see www.x.org") == "see www" + WORD_JOINER + "\\.x\\.org"
    True
    """
    text = _AUTOLINK.sub(lambda m: (m.group(0) or "") + WORD_JOINER, str(text))
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text).replace("\n", " ")


SEVERITIES = ("minor", "major", "critical")


_MQM_RANK = {"critical": 3, "major": 2, "minor": 1}


def mqm_line(text: str, errors) -> str:
    """A hypothesis with the errors one rater marked (MQM): every run of characters covered by the same
    errors is one span, coloured by the most severe of them (``mtl-err-major``...), its title naming each
    error's severity, category, rater and comment. Escaped throughout.

    >>> from mtlens.scores.spans import Span
    >>> mqm_line("a <b> c", [Span(2, 5, "Major", "Fluency/Grammar", by="r1")])
    '<div class="mtl-line">a <span class="mtl-tok mtl-mqm mtl-err-major" title="Major Fluency/Grammar (r1)">&lt;b&gt;</span> c</div>'
    """
    marks = [e for e in errors if e.start is not None and e.end is not None and 0 <= e.start < e.end <= len(text)]
    bounds = sorted({0, len(text), *(e.start for e in marks), *(e.end for e in marks)})
    out = []
    for a, b in itertools.pairwise(bounds):
        cover = [e for e in marks if e.start <= a and b <= e.end]
        piece = escape(text[a:b])
        if not cover:
            out.append(piece)
            continue
        worst = max(cover, key=lambda e: _MQM_RANK.get(e.severity.lower(), 0)).severity.lower()
        cls = f"mtl-err-{worst}" if worst in _MQM_RANK else "mtl-err-other"
        title = "; ".join(
            f"{e.severity} {e.category} ({e.by})" + (f": {e.comment}" if e.comment else "") for e in cover
        )
        out.append(f'<span class="mtl-tok mtl-mqm {cls}" title="{escape(title, quote=True)}">{piece}</span>')
    return '<div class="mtl-line">' + "".join(out) + "</div>"


def error_spans(text: str, spans) -> str:
    """A hypothesis with error spans (xCOMET's, an ESA rater's, an LLM judge's) coloured by severity (hover: the
    severity, the category where the source names one, the confidence where it has one).
    Every piece of text and every attribute is escaped; overlapping spans keep the first."""
    out, pos = [], 0
    for sp in sorted(spans, key=lambda s: (s.start, -s.end)):
        if sp.start < pos or sp.end > len(text) or sp.end <= sp.start:
            continue
        sev = sp.severity if sp.severity in SEVERITIES else "other"
        out.append(escape(text[pos : sp.start]))
        sure = sp.confidence == sp.confidence  # a human's span has no confidence (NaN)
        said = ", ".join([sp.severity, *([sp.category] if getattr(sp, "category", "") else [])])
        title = escape(
            f"{said}, confidence {shown(sp.confidence, decimals('confidence'))}" if sure else said, quote=True
        )
        out.append(f'<span class="mtl-tok mtl-err-{sev}" title="{title}">{escape(text[sp.start : sp.end])}</span>')
        pos = sp.end
    out.append(escape(text[pos:]))
    return '<div class="mtl-line">' + "".join(out) + "</div>"
