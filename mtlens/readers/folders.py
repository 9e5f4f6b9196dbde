"""Reading whole test sets from disk for the workspace (``python -m mtlens import PATH``).

Layouts:
- a WMT XML (``.xml``) or TSV (``.tsv``) file holding everything;
- a plain folder: ``ref*.txt`` references (none: a reference-free set, which needs ``src.txt``), optional ``src.txt``, one ``<system>.txt`` per system,
  optional human score files ``human*.tsv`` (as in ``../shared/data/wmt/<pair>``);
- the mt-metrics-eval layout (google-research/mt-metrics-eval): ``sources/<pair>.txt``,
  ``references/<pair>.<ref>.txt``, ``system-outputs/<pair>/<system>.txt``,
  ``human-scores/<pair>.<name>.<level>.score`` (``SYSTEM SCORE`` lines; ``sys`` level one per system,
  ``seg`` level one per segment in order, ``None`` for unrated), one set per pair. Human scores are
  turned into mtlens' TSV form (``system [line] metric score``); ``domain`` and ``doc`` levels are
  left out (mtlens has no document-level view yet, and says so). Segment-level metric scores
  (``metric-scores/<pair>/<NAME>-<REF>.seg.score``) become imported metrics of the set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..core.corpus import Corpus
from ..core.errors import InputError
from .lines import decode_lines, read_bytes
from .testset import corpus_from_bytes, corpus_from_single

_PAIR_NAME = re.compile(r"^[a-z]{2,3}-[a-z]{2,3}$")


@dataclass(frozen=True)
class ImportedSet:
    """A test set read from disk: a suggested name, the corpus, human files and notes."""

    name: str
    corpus: Corpus
    human: tuple[tuple[str, bytes], ...] = ()
    notes: tuple[str, ...] = ()
    scores: tuple[tuple[str, bytes], ...] = ()


def read_path(path: str | Path, name: str | None = None) -> list[ImportedSet]:
    """Every test set found at ``path`` (see the module docstring)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"'{path}' does not exist")
    if p.is_file():
        return [ImportedSet(name or p.stem, corpus_from_single(read_bytes(p), str(p)))]
    if (p / "system-outputs").is_dir():
        return _mt_metrics_eval(p, name)
    return [_plain_folder(p, name)]


def _plain_folder(p: Path, name: str | None) -> ImportedSet:
    texts = sorted(f for f in p.glob("*.txt") if f.is_file())
    refs = [f for f in texts if f.stem.startswith("ref")]
    src = next((f for f in texts if f.stem in ("src", "source")), None)
    systems = [f for f in texts if f not in refs and f != src]
    if not refs and src is None:
        raise InputError(
            f"'{p}' has no reference file (ref.txt, ref2.txt, ...) and no src.txt (reference-free metrics such as "
            "CometKiwi need the source)"
        )
    if not systems:
        raise InputError(f"'{p}' has no system output file (<system>.txt)")
    corpus = corpus_from_bytes(
        [(f.name, read_bytes(f)) for f in refs],
        [(f.name, read_bytes(f)) for f in systems],
        (src.name, read_bytes(src)) if src else None,
    )
    human = tuple((f.name, read_bytes(f)) for f in sorted(p.glob("human*.tsv")))
    if _PAIR_NAME.match(p.name):  # a folder named like a pair (wmt/en-de) declares it
        corpus = corpus.with_language(p.name)
    return ImportedSet(name or p.name, corpus, human)


def _mt_metrics_eval(root: Path, name: str | None) -> list[ImportedSet]:
    out = []
    pairs = sorted(d.name for d in (root / "system-outputs").iterdir() if d.is_dir())
    if not pairs:
        raise InputError(f"'{root}/system-outputs' has no language pair folder")
    for pair in pairs:
        refs = sorted((root / "references").glob(f"{pair}.*.txt"))
        if not refs:
            raise InputError(f"mt-metrics-eval layout: no references/{pair}.<ref>.txt in '{root}'")
        systems = sorted((root / "system-outputs" / pair).glob("*.txt"))
        src = root / "sources" / f"{pair}.txt"
        ref_names = {f.name.split(".", 1)[1].rsplit(".", 1)[0] for f in refs}
        corpus = corpus_from_bytes(
            [(f.name.split(".", 1)[1], read_bytes(f)) for f in refs],
            [(f.name, read_bytes(f)) for f in systems if f.stem not in ref_names],
            (src.name, read_bytes(src)) if src.exists() else None,
        ).with_language(pair)
        human, notes = [], []
        corpus = _mme_documents(root / "documents" / f"{pair}.docs", corpus, notes)
        for f in sorted((root / "human-scores").glob(f"{pair}.*.score")):
            parts = f.name[len(pair) + 1 :].rsplit(".", 2)  # NAME.LEVEL.score
            if len(parts) != 3:
                continue
            kind, level = parts[0], parts[1]
            if level not in ("sys", "seg"):
                notes.append(f"{f.name}: {level}-level human scores are not used (no {level} view yet)")
                continue
            human.append((f.name, _mme_human_tsv(f, kind, level, corpus)))
        scores = tuple((f.name, read_bytes(f)) for f in sorted((root / "metric-scores" / pair).glob("*.seg.score")))
        out.append(ImportedSet(f"{name} {pair}" if name else pair, corpus, tuple(human), tuple(notes), scores))
    return out


def _mme_documents(path: Path, corpus: Corpus, notes: list[str]) -> Corpus:
    """mt-metrics-eval's ``documents/<pair>.docs``: one line per segment, ``domain doc`` (whitespace between),
    or ``doc`` alone in older years. A file that does not fit the test set is said, not used."""
    if not path.exists():
        return corpus
    from .lines import decode_lines

    lines = decode_lines(read_bytes(path), path.name)
    if len(lines) != corpus.n_lines:
        notes.append(f"{path.name}: {len(lines):,} lines for {corpus.n_lines:,} segments; documents not used")
        return corpus
    fields = [line.split() for line in lines]
    if any(len(f) not in (1, 2) for f in fields):
        notes.append(f"{path.name}: a line is not 'domain doc' or 'doc'; documents not used")
        return corpus
    docs = [f[-1][:200] for f in fields]
    domains = [f[0][:200] if len(f) == 2 else "" for f in fields]
    return corpus.with_documents(docs, domains)


def _mme_human_tsv(f: Path, kind: str, level: str, corpus: Corpus) -> bytes:
    """mt-metrics-eval ``SYSTEM SCORE`` lines as mtlens' human TSV (``None`` rows dropped)."""
    rows = ["system\tline\tmetric\tscore" if level == "seg" else "system\tmetric\tscore"]
    seen: dict[str, int] = {}
    for k, line in enumerate(decode_lines(read_bytes(f), str(f)), start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2:
            raise InputError(f"line {k} of '{f}' is not 'SYSTEM SCORE'")
        system, value = fields
        seen[system] = seen.get(system, 0) + 1
        if value == "None":
            continue
        if level == "seg":
            if seen[system] > corpus.n_lines:
                raise InputError(f"'{f}' has more than {corpus.n_lines} scores for system '{system}'")
            rows.append(f"{system}\t{seen[system]}\t{kind}\t{value}")
        else:
            rows.append(f"{system}\t{kind}\t{value}")
    return ("\n".join(rows) + "\n").encode("utf-8")
