"""M-Prometheus as a judge (issue 61; Pombal et al. 2025): an open multilingual judge prompted as Prometheus-2's
absolute grading, with the published MT prompt and its accuracy/fluency/style rubric (``prometheus.json``, with its
source), answering ``Feedback: ... [RESULT] n``, n from 1 to 5.

- **Prompt**: Prometheus-2's absolute-grading system turn, then the model card's MT prompt filled with the language
  names, the source, the translation and the reference (the rubric's "Score 5" answer). It reads a reference: a set
  without one is refused in one sentence; references are not judged as systems (a reference against itself).
- **Parse**: prometheus-eval's ``_parse_output_absolute`` (its parser.py): the last ``[RESULT] n`` (or ``[SCORE]``,
  ``Score:``, ``Result:``, ``score of``), optionally bracketed or followed by ``/5`` or ``out of 5``, at the very end
  of the answer; n must be 1 to 5, else the answer is unparsed (asked again warmer, as GEMBA's).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from ..core.errors import InputError

#: what separates the source from the reference in a request's key (one request per source, reference and
#: translation: a line repeated with another reference is another request)
SEP = "\x00reference\x00"
#: prometheus-eval's absolute-grading pattern (parser.py), its flags: case-insensitive, verbose
_RESULT = re.compile(
    r"""(?:\[RESULT\]|\[SCORE\]|Score:?|score:?|Result:?|\[Result\]:?|score\s+of)
        \s*(?:\(|\[|\s)*(\d+)
        (?:(?:\)|\]|\s|$)|(?:/\s*5|\s*out\s*of\s*5))?
        (?:\s*$)""",
    re.IGNORECASE | re.VERBOSE,
)


@functools.cache
def template() -> dict:
    return json.loads(Path(__file__).with_name("prometheus.json").read_text(encoding="utf-8"))


def keyed(source: str, reference: str) -> str:
    """The request's source key: the source and the reference the prompt gives with it."""
    return source + SEP + reference


def messages(source_lang: str, target_lang: str, source_key: str, target: str) -> list[dict]:
    """The chat messages for one segment (``source_key``: :func:`keyed`)."""
    source, _, reference = source_key.partition(SEP)
    t = template()
    user = t["user"].format(
        source_language=source_lang, target_language=target_lang, source=source, hypothesis=target,
        reference=reference,
    )  # fmt: skip
    return [{"role": "system", "content": t["system"]}, {"role": "user", "content": user}]


def parse(answer: str | None) -> int | None:
    """The score of an answer (1 to 5), or None when it has none (prometheus-eval's reading)."""
    if answer is None:
        return None
    m = _RESULT.search(answer)
    if m is None:
        return None
    digits = m.group(1).lstrip("0") or "0"
    value = int(digits) if len(digits) <= 6 else 0  # far beyond 5 (int() refuses thousands of digits)
    return value if 1 <= value <= 5 else None


def reference_of(corpus) -> tuple[str, ...]:
    """The reference M-Prometheus reads (the set's first), or one sentence when the set has none."""
    if not corpus.references:
        raise InputError("m-prometheus reads a reference (its rubric's 'Score 5' answer): the set has none")
    return next(iter(corpus.references.values()))
