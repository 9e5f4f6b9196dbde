"""A judge's scores of a corpus (issue 48): every distinct (source, translation) asked once, K requests in flight,
each answer cached in the store by what determines it, so that identical inputs are asked once across systems,
sets and runs, and a second run asks nothing (docs/decisions.md, "LLM judges").

- **GEMBA-MQM**: one answer per sample, read as GEMBA reads it (0 to -25); an unparsed answer (error lines without
  a severity header) is asked again at a higher temperature, at most :data:`REASKS` times, then counted as
  unparsed and left without a score.
- **GEMBA-ESA**: the error spans, then a 0-100 score given them (GEMBA's two requests); a score that is not a
  number in 0-100 is asked again likewise.
- **Samples**: ``samples`` N answers per segment, at the judge's temperature, aggregated by its ``aggregate``
  (mean, median or GEMBA-MQM V2's: :mod:`mtlens.judges.votes`).
- **Cache key**: sha256 of the protocol's version, the endpoint's URL, the model, the protocol, the prompt's digest
  and the sample's index (and, for ESA's score, the spans it was given, in its prompt), and the judge's
  temperature where it has one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from ..core.amounts import usd
from ..core.errors import InputError
from ..scores.sources import JUDGE_PREFIX
from . import gemba, prometheus, votes
from .client import Stopped, chat, new_client
from .registry import Judge, protocol_version, registered, whole_tokens

#: the prefix of a judge's metric name: ``judge:NAME``
PREFIX = JUDGE_PREFIX
#: how a plan names a reference among the systems it asks about (a name no system can have)
REFERENCE = "\x00reference:"
#: how many times an unparsed answer is asked again (each at a temperature 0.1 higher)
REASKS = 5


def cache_key(judge: Judge, messages: list[dict], sample: int) -> str:
    parts = [protocol_version(judge.protocol), judge.url, judge.model, judge.protocol, gemba.digest(messages), sample]
    if judge.temperature is not None:  # a judge without one keeps the keys its answers were cached under
        parts.append(float(judge.temperature))
    text = json.dumps(parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Tally:
    """What a run of a judge did: requests made (retries and re-asks included), answers read from the cache,
    segments that shared another's request, unparsed answers, and tokens."""

    asked: int = 0
    cached: int = 0
    shared: int = 0
    unparsed: int = 0
    unplaced: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    in_flight_peak: int = 0
    per_system: dict[str, list[int]] = field(default_factory=dict)


class _NotCached(Exception):
    """An answer is not cached (and the caller asked for cached answers only)."""


class _Asker:
    """Answers through the cache: one request per key, re-asked while unparsed."""

    def __init__(self, store, judge: Judge, tally: Tally, should_stop, cached_only: bool = False):
        self.store, self.judge, self.tally = store, judge, tally
        self.client = None  # made by the first request (a page that finds everything cached makes none)
        self.in_flight = 0
        self.should_stop = should_stop
        self.cached_only = cached_only
        self.known: dict[str, dict] = {}  # answers read from the store in one query, before any request
        self.checked: set[str] = set()  # the keys that query looked for (a miss there is not asked of the store)
        self.lock = threading.Lock()

    def prefetch(self, keys: list[str]) -> None:
        self.known = self.store.judge_answers(keys)
        self.checked = set(keys)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()

    def ask(self, messages: list[dict], sample: int, parses: Callable[[str], bool], key: str | None = None) -> dict:
        key = key or cache_key(self.judge, messages, sample)
        if key in self.checked:
            found = self.known.get(key)
        else:  # GEMBA-ESA's second request: its prompt holds the first answer, so it could not be prefetched
            found = self.store.judge_answers([key]).get(key)
        if found is not None:
            with self.lock:
                self.tally.cached += 1
            return found
        if self.cached_only:
            raise _NotCached
        with self.lock:
            if self.client is None:
                self.client = new_client()
        reply = None
        spent = [0, 0]
        for k in range(REASKS + 1):
            if self.should_stop and self.should_stop():
                raise Stopped
            temperature = votes.ask_temperature(self.judge.temperature, sample, k)
            with self.lock:
                self.in_flight += 1
                self.tally.in_flight_peak = max(self.tally.in_flight_peak, self.in_flight)
            try:
                reply = chat(self.client, self.judge.endpoint, messages, temperature, should_stop=self.should_stop)
            finally:
                with self.lock:
                    self.in_flight -= 1
            spent[0] += reply.prompt_tokens
            spent[1] += reply.completion_tokens
            with self.lock:
                self.tally.asked += reply.attempts
                self.tally.prompt_tokens += reply.prompt_tokens
                self.tally.completion_tokens += reply.completion_tokens
            if parses(reply.content):
                break
        # the tokens of every answer this key took (re-asks of unparsed answers included: they were paid for, D13)
        row = {
            "answer": reply.content,
            "finish": reply.finish,
            "prompt_tokens": spent[0],
            "completion_tokens": spent[1],
            "temperature": temperature,
        }
        self.store.put_judge_answers([(key, reply.content, reply.finish, spent[0], spent[1], temperature)])
        return row


def _languages(corpus) -> tuple[str, str]:
    pair = corpus.language_pair or ""
    src, _, tgt = pair.partition("-")
    return gemba.language_name(src), gemba.language_name(tgt)


@dataclass
class Plan:
    """What a judge is asked about a corpus: each distinct (source, translation) once, with the lines it scores."""

    requests: list[tuple[str, str]]
    pairs: dict[tuple[str, str], list[tuple[str, int]]]
    first: list[list[dict]]  # each request's (first) messages
    languages: tuple[str, str]

    def keys(self, judge: Judge) -> list[str]:
        return [cache_key(judge, m, k) for m in self.first for k in range(judge.samples)]


def _pairs(judge: Judge, corpus) -> dict[tuple[str, str], list[tuple[str, int]]]:
    """Each distinct (source, translation) with the (system, line) it scores, in the systems' and lines' order."""
    pairs: dict[tuple[str, str], list[tuple[str, int]]] = {}
    source = corpus.source
    if judge.protocol == "m-prometheus":  # its prompt holds the reference too: one request per source and reference
        source = [prometheus.keyed(a, b) for a, b in zip(source, prometheus.reference_of(corpus), strict=True)]
    for s in corpus.system_names:
        for i, line in enumerate(corpus.systems[s]):
            pairs.setdefault((source[i], line), []).append((s, i))
    for name, lines in corpus.references.items() if judge.score_references else ():  # as systems (issue 50)
        for i, line in enumerate(lines):
            if line.strip():
                pairs.setdefault((corpus.source[i], line), []).append((REFERENCE + name, i))
    return pairs


def _first_messages(judge: Judge):
    return {"gemba-mqm": gemba.mqm_messages, "m-prometheus": prometheus.messages}.get(
        judge.protocol, gemba.esa_span_messages
    )


def plan(judge: Judge, corpus, pairs=None) -> Plan:
    """``pairs``: :func:`_pairs` of the corpus, when the caller has them already."""
    if corpus.source is None:
        raise InputError("an LLM judge reads the source: the set has none (add a source file)")
    src_lang, tgt_lang = _languages(corpus)
    pairs = _pairs(judge, corpus) if pairs is None else pairs
    requests = list(pairs)
    make = _first_messages(judge)
    return Plan(requests, pairs, [make(src_lang, tgt_lang, src, tgt) for src, tgt in requests], (src_lang, tgt_lang))


def surely_unfinished(store, judge: Judge, corpus, pairs=None) -> bool:
    """True when the first or the last request of the judge's plan has no cached answer (a judge never run, stopped
    or failed on this corpus): known from two prompts, without building the others (issue 58, D2: every page built
    every prompt and key of every registered judge, 40,386 per load with six judges)."""
    requests = list(_pairs(judge, corpus) if pairs is None else pairs)
    if not requests:
        return False
    src_lang, tgt_lang = _languages(corpus)
    make = _first_messages(judge)
    probes = {requests[0], requests[-1]}
    keys = [cache_key(judge, make(src_lang, tgt_lang, a, b), k) for a, b in probes for k in range(judge.samples)]
    return len(store.judge_answers(keys)) < len(set(keys))


def answered_segments(store, judge: Judge, corpus) -> tuple[int, int]:
    """``(segments whose first answers are all cached, segments)``: a job's progress before it asks anything
    (GEMBA-ESA's second request is not counted: its prompt needs the first answer)."""
    p = plan(judge, corpus)
    known = store.judge_answers(p.keys(judge))
    done = sum(
        _systems(p.pairs[r]) for r, m in zip(p.requests, p.first, strict=True)
        if all(cache_key(judge, m, k) in known for k in range(judge.samples))
    )  # fmt: skip
    return done, sum(_systems(v) for v in p.pairs.values())


def _systems(owners) -> int:
    return sum(not s.startswith(REFERENCE) for s, _ in owners)


def run_summary(judge: Judge, tally: Tally) -> str:
    """One sentence on what a run asked and what it cost (a job's closing message)."""
    cost = judge.cost(tally.prompt_tokens, tally.completion_tokens)
    return (
        f"{PREFIX}{judge.name}: {tally.asked:,} requests (at most {tally.in_flight_peak} at once), {tally.cached:,} "
        f"answers from the cache, {tally.shared:,} segments sharing another's request; this run: "
        f"{tally.prompt_tokens:,} prompt and {tally.completion_tokens:,} completion tokens"
        + (f", {usd(cost)}" if cost is not None else "")
    )


def judge_scores(store, judge: Judge, corpus, progress=None, should_stop=None, cached_only: bool = False):
    """``(scores, tally)``: the judge's scores of every system's lines as a metric
    (:class:`mtlens.scores.results.ImportedScores` named ``judge:NAME``, its errors placed as spans) and what the
    run did (:class:`Tally`); ``cached_only``: None unless every answer is cached already (what a page offers
    without asking anything). ``should_stop()``, asked before each request, ends the run with
    :class:`Stopped` (the answers received are saved)."""
    import numpy as np

    from ..scores.results import ImportedScores

    pairs = _pairs(judge, corpus) if corpus.source is not None else None  # once, for the probe and the plan
    if cached_only and pairs is not None and surely_unfinished(store, judge, corpus, pairs):
        return None
    p = plan(judge, corpus, pairs)
    src_lang, tgt_lang = p.languages
    systems = list(corpus.system_names)
    pairs, requests, first = p.pairs, p.requests, p.first
    tally = Tally()
    tally.shared = sum(len(v) - 1 for v in pairs.values())
    mqm = judge.protocol == "gemba-mqm"
    asker = _Asker(store, judge, tally, should_stop, cached_only)
    keys = p.keys(judge)  # request i's sample k: keys[i * samples + k]
    asker.prefetch(keys)

    def one(index: int, sample: int):
        messages = first[index]
        if judge.protocol == "m-prometheus":
            row = asker.ask(
                messages, sample, lambda a: prometheus.parse(a) is not None, keys[index * judge.samples + sample]
            )
            value = prometheus.parse(row["answer"])
            return (None if value is None else float(value)), (), row
        if mqm:
            row = asker.ask(messages, sample, lambda a: gemba.parse_mqm(a).parsed, keys[index * judge.samples + sample])
            parsed = gemba.parse_mqm(row["answer"])
            return parsed.score if parsed.parsed else None, parsed.errors, row
        spans_row = asker.ask(messages, sample, lambda a: True, keys[index * judge.samples + sample])
        src, tgt = requests[index]
        second = gemba.esa_score_messages(src_lang, tgt_lang, src, tgt, spans_row["answer"])
        row = asker.ask(second, sample, lambda a: gemba.parse_number(a) is not None)
        value = gemba.parse_number(row["answer"])
        errors = gemba.parse_mqm(spans_row["answer"]).errors
        merged = {k: row[k] + spans_row[k] for k in ("prompt_tokens", "completion_tokens")}
        return (None if value is None else float(value)), errors, {**row, **merged}

    results: dict[tuple[int, int], tuple] = {}
    jobs = [(i, k) for i in range(len(requests)) for k in range(judge.samples)]
    done = 0
    if cached_only:  # answers read, nothing asked: no thread pool (D2)
        if any(key not in asker.known for key in asker.checked):
            return None
        try:
            results = {(i, k): one(i, k) for i, k in jobs}
        except _NotCached:  # GEMBA-ESA's second answer missing
            return None
    else:
        try:
            with ThreadPoolExecutor(max_workers=judge.concurrency) as pool:
                futures = {pool.submit(one, i, k): (i, k) for i, k in jobs}
                try:
                    for f in as_completed(futures):
                        results[futures[f]] = f.result()
                        done += 1
                        if progress:
                            progress(done, len(jobs))
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
        finally:
            asker.close()
    scores = {s: np.full(corpus.n_lines, np.nan) for s in systems}
    spans = {s: [[] for _ in range(corpus.n_lines)] for s in systems}
    tokens = {s: [0, 0] for s in systems}
    categories: dict[str, Counter] = {s: Counter() for s in systems}
    rated = Counter()
    references = {r: np.full(corpus.n_lines, np.nan) for r in corpus.references}
    for i, (src, tgt) in enumerate(requests):
        values = []
        errors = ()
        for k in range(judge.samples):
            value, errs, row = results[(i, k)]
            if value is None:
                tally.unparsed += 1
            else:
                values.append(value)
            if k == 0:
                errors = errs
            owners = pairs[(src, tgt)]  # a shared answer's tokens split among the lines it scores (D13)
            for s, _ in owners:
                if s in tokens:
                    tokens[s][0] += row["prompt_tokens"] / len(owners)
                    tokens[s][1] += row["completion_tokens"] / len(owners)
        placed, unplaced = gemba.place(errors, tgt)
        for s, line in pairs[(src, tgt)]:
            if s.startswith(REFERENCE):  # a reference's score: what the judge thinks of it as a translation
                if values:
                    references[s[len(REFERENCE) :]][line] = votes.aggregate(values, judge.aggregate)
                continue
            if values:
                scores[s][line] = votes.aggregate(values, judge.aggregate)
            spans[s][line] = [dataclasses.replace(e, start=a, end=b, text=tgt[a:b]) for a, b, e in placed]
            tally.unplaced += unplaced
            if values:  # the errors of a scored line, by category (unplaced ones too)
                rated[s] += 1
                categories[s].update((e.category, e.severity) for e in errors)
    tally.per_system = tokens
    notes = [
        f"{judge.name}: {tally.asked:,} requests, {tally.cached:,} answers from the cache, {tally.shared:,} segments "
        f"sharing another's request",
    ]
    if tally.unparsed:
        notes.append(f"{judge.name}: {tally.unparsed:,} answers could not be read after {REASKS} re-asks (no score)")
    if tally.unplaced:
        notes.append(f"{judge.name}: {tally.unplaced:,} errors quote no text of their line (kept, not placed)")
    prompt = sum(r[2]["prompt_tokens"] for r in results.values())  # each answer once, however many segments share it
    completion = sum(r[2]["completion_tokens"] for r in results.values())
    cost = judge.cost(prompt, completion)
    notes.append(
        f"{judge.name}: the answers behind these scores{' (the references included)' if judge.score_references else ''}"
        f", re-asks included: {prompt:,} prompt and {completion:,} completion tokens"
        + (f", {usd(cost)} at the judge's prices" if cost is not None else "")
        + " (what asking them cost, whichever run or judge of the same endpoint, model and protocol asked them: "
        "answers are shared through the cache)"
    )
    for s in systems:  # per system: its share (a shared answer split among the lines it scores: they sum to the total)
        cost_s = judge.cost(*tokens[s])
        notes.append(
            f"{judge.name}: {s}: {tokens[s][0]:,.0f} prompt and {tokens[s][1]:,.0f} completion tokens"
            + (f", {usd(cost_s)}" if cost_s is not None else "")
        )
    model = (
        ("judge", judge.name),
        ("model", judge.model),
        ("protocol", judge.protocol),
        ("version", protocol_version(judge.protocol)),
        *votes.signature(judge.samples, judge.temperature, judge.aggregate),
    )
    metric = ImportedScores(
        PREFIX + judge.name, True, scores, judge.name, spans, tuple(notes), model,
        categories={s: dict(c) for s, c in categories.items()}, rated=dict(rated),
        usage={s: {"prompt_tokens": whole_tokens(tokens[s][0]), "completion_tokens": whole_tokens(tokens[s][1]),
                   "cost_usd": judge.cost(*tokens[s])} for s in systems},
        reference_scores=references,
    )  # fmt: skip
    return metric, tally


def finished_judges(store, corpus) -> list:
    """The metrics of the registered judges whose every answer for ``corpus`` is cached (what a page offers
    without asking anything)."""
    out = []
    if store is None or corpus.source is None or not corpus.language_pair:
        return out
    for judge in registered(store):
        try:
            got = judge_scores(store, judge, corpus, cached_only=True)
        except InputError:
            continue
        if got is not None:
            out.append(got[0])
    return out
