"""The Corpus: references with one named orientation, systems, optional source.

References are *streams*: ``references["ref"]`` is the whole list of lines of
one reference translation, aligned line by line with every system. This is
the orientation of sacrebleu's ``corpus_score(hyps, [ref_stream_1, ref_stream_2])``,
made explicit by names so that nobody has to remember how to nest lists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .errors import InputError
from .names import check_names

#: the longest line accepted (characters). TER's shift search grows with the square of a line's
#: length: a 100,000-character line (about 15,000 words) takes ~10 s on its own, twice that ~35 s.
#: Real segments are far shorter (WMT's longest is under 2,000); documents must be split.
MAX_LINE_CHARS = 100_000


@dataclass(frozen=True)
class Corpus:
    """A validated evaluation set.

    Attributes:
        references: reference name -> lines (at least one reference).
        systems: system name -> lines (at least one system).
        source: the source lines, or None.
        warnings: notes about the data found while reading (not errors).
        language_pair: ``SRC-TGT`` when known (declared, read from the file, or ``und-TGT`` for a
            detected target), shown in every signature; None otherwise.
        documents: the document id of every line (WMT XML ``<doc id>``, a documents file), or None.
        domains: the domain of every line (``<doc domain>``; "" where a document names none), or None.

    Raises:
        InputError: no reference, no system, or streams of different lengths.

    Example:
        >>> c = Corpus.build(references={"ref": ["a b", "c"]}, systems={"A": ["a b", "d"]})
        >>> c.n_lines, c.reference_names, c.system_names
        (2, ('ref',), ('A',))
    """

    references: Mapping[str, tuple[str, ...]]
    systems: Mapping[str, tuple[str, ...]]
    source: tuple[str, ...] | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)
    language_pair: str | None = None
    documents: tuple[str, ...] | None = None
    domains: tuple[str, ...] | None = None

    @classmethod
    def build(
        cls,
        references: Mapping[str, Sequence[str]],
        systems: Mapping[str, Sequence[str]],
        source: Sequence[str] | None = None,
        warnings: Sequence[str] = (),
        language_pair: str | None = None,
        allow_no_reference: bool = False,
        documents: Sequence[str] | None = None,
        domains: Sequence[str] | None = None,
    ) -> Corpus:
        """Check and freeze the streams (the only constructor that should be used). A set made from human
        annotations alone has no reference (``allow_no_reference``): lexical metrics then say they need one."""
        if isinstance(references, (str, bytes)) or not isinstance(references, Mapping):
            raise InputError("references must be a mapping from a reference name to its list of lines")
        if isinstance(systems, (str, bytes)) or not isinstance(systems, Mapping):
            raise InputError("systems must be a mapping from a system name to its list of lines")
        if not references and not allow_no_reference:
            raise InputError("at least one reference is needed")
        if not systems:
            raise InputError("at least one system output is needed")
        check_names(references, "reference")  # one rule for names (mtlens.core.names): plain text, at most 200
        check_names(systems, "system")
        refs = {str(k): _freeze(k, v, "reference") for k, v in references.items()}
        syss = {str(k): _freeze(k, v, "system") for k, v in systems.items()}
        first_name, first = next(iter(refs.items())) if refs else next(iter(syss.items()))
        n = len(first)
        for kind, streams in (("reference", refs), ("system", syss)):
            for name, lines in streams.items():
                if len(lines) != n:
                    raise InputError(f"{kind} '{name}' has {len(lines)} lines, the reference '{first_name}' has {n}")
        src = None
        if source is not None:
            src = _freeze("source", source, "source")
            if len(src) != n:
                raise InputError(f"the source has {len(src)} lines, the reference '{first_name}' has {n}")
        docs = _labels(documents, "document id", n, first_name)
        doms = _labels(domains, "domain", n, first_name)
        if doms is not None and docs is None:
            raise InputError("domains come with documents: give each line its document id too")
        if doms is not None and not any(doms):
            doms = None  # no document names a domain
        return cls(refs, syss, src, tuple(warnings), language_pair, docs, doms)

    def with_documents(self, documents: Sequence[str] | None, domains: Sequence[str] | None = None) -> Corpus:
        """The same corpus with every line's document id (and domain), checked."""
        first_name, first = next(iter((self.references or self.systems).items()))
        docs = _labels(documents, "document id", len(first), first_name)
        doms = _labels(domains, "domain", len(first), first_name)
        if doms is not None and not any(doms):
            doms = None
        return dataclasses.replace(self, documents=docs, domains=doms)

    @property
    def document_count(self) -> int:
        return len(set(self.documents)) if self.documents is not None else 0

    def with_language(self, language_pair: str | None) -> Corpus:
        """The same corpus with its language pair set."""
        return dataclasses.replace(self, language_pair=language_pair)

    @property
    def n_lines(self) -> int:
        return len(next(iter((self.references or self.systems).values())))

    @property
    def reference_names(self) -> tuple[str, ...]:
        return tuple(self.references)

    @property
    def system_names(self) -> tuple[str, ...]:
        return tuple(self.systems)

    def reference_streams(self) -> list[tuple[str, ...]]:
        return list(self.references.values())

    def system_streams(self) -> list[tuple[str, ...]]:
        return list(self.systems.values())


def _labels(values, what: str, n: int, first_name: str) -> tuple[str, ...] | None:
    """Per-line labels (document ids, domains): text, one per line; None stays None."""
    if values is None:
        return None
    out = tuple(values)
    if len(out) != n:
        raise InputError(f"the {what}s have {len(out)} lines, the reference '{first_name}' has {n}")
    if not all(isinstance(v, str) and len(v) <= 200 for v in out):
        raise InputError(f"every {what} must be text of at most 200 characters")
    return out


def _freeze(name, lines, kind) -> tuple[str, ...]:
    if isinstance(lines, (str, bytes)):
        raise InputError(f"{kind} '{name}' must be a list of lines, not a single string")
    out = tuple(lines)
    if set(map(type, out)) <= {str} and max(map(len, out), default=0) <= MAX_LINE_CHARS:
        return out  # the common case, checked in C; otherwise the loop below names the first bad line
    for i, line in enumerate(out):
        if not isinstance(line, str):
            raise InputError(f"{kind} '{name}' line {i + 1} is not text ({type(line).__name__})")
        if len(line) > MAX_LINE_CHARS:
            raise InputError(
                f"{kind} '{name}' line {i + 1} has {len(line):,} characters; mtlens scores lines of up to "
                f"{MAX_LINE_CHARS:,} (TER's alignment time grows with the square of a line's length): "
                "split long documents into sentences"
            )
    return out
