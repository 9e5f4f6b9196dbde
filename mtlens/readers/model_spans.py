"""A model's error spans placed in the lines they mark (xCOMET's, computed in place or read from comet-score's
JSON): the one rule for both (docs/decisions.md, "xCOMET spans"), on the package's one span
(:class:`mtlens.scores.spans.Span`) and its one rule for quoted text."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..scores.spans import Span, place_quote


def place_span(e, mt: str, line: str | None = None) -> tuple[Span | None, int]:
    """An xCOMET error span placed in the line: the one rule for spans computed in place and for spans read
    from comet-score's JSON (docs/decisions.md, "xCOMET spans").

    COMET's offsets are into ``mt``, the line as the model read it (stripped by comet-score); some fall on
    the sentence-start token or a leading space (COMET issue #179), so the span's ``text`` decides: at its
    offsets it is kept there; elsewhere it is looked for near them, then anywhere in ``mt``
    (:func:`mtlens.scores.spans.place_quote`) (repaired, second value 1); not found, the span is dropped (None). A span without
    text keeps offsets inside ``mt``. The placed offsets are into ``line`` (the text as uploaded: its
    leading white space added back)."""
    try:
        start, end = int(e["start"]), int(e["end"])
        text = str(e.get("text", "") or "")
        severity = str(e.get("severity", "minor")).lower()
        confidence = float(e.get("confidence", float("nan")))
    except (KeyError, TypeError, ValueError, OverflowError):
        return None, 0
    lead = len(line) - len(line.lstrip()) if line is not None else 0
    if not text:
        if 0 <= start < end <= len(mt):
            return Span(start + lead, end + lead, severity, text=mt[start:end], confidence=confidence), 0
        return None, 0
    if 0 <= start <= end <= len(mt) and mt[start:end] == text:
        return Span(start + lead, end + lead, severity, text=text, confidence=confidence), 0
    found = place_quote(text, mt, near=start)
    if found is None:
        return None, 0
    return Span(found + lead, found + lead + len(text), severity, text=text, confidence=confidence), 1


@dataclass
class SpanTally:
    """What placing a file's (or a model's) spans did: how many were repaired, which lines lost one."""

    repaired: int = 0
    unplaced: list[str] = field(default_factory=list)

    def place(self, errors, mt: str, line: str | None, where: str) -> list[Span]:
        """One line's spans placed by :func:`place_span`, counted; ``where`` names the line in a note."""
        out = []
        for e in errors or []:
            span, fixed = place_span(e, mt, line)
            self.repaired += fixed
            if span is None:
                self.unplaced.append(where)
            else:
                out.append(span)
        return out

    def notes(self, source: str) -> list[str]:
        return span_notes(source, self.repaired, self.unplaced)


def span_notes(source: str, repaired: int, unplaced: list[str]) -> list[str]:
    """What placing the spans did, as notes (:func:`place_span`)."""
    notes = [f"{source}: {repaired} xCOMET span offset(s) repaired against the text"] if repaired else []
    if unplaced:
        notes.append(
            f"{source}: {len(unplaced)} xCOMET span(s) could not be placed in the text (text not found in the "
            f"line) and are not shown: {', '.join(unplaced[:5])}{' ...' if len(unplaced) > 5 else ''}"
        )
    return notes
