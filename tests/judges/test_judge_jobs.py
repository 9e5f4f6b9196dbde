"""A judge's job in the background (issue 48), on the neural jobs' machinery: a process of its own whose row says
its progress, cancelled from the service the page calls, resumed without asking anything twice (its answers are
saved as they come), closing with what the run asked and cost; who may start it; the Rankings page's panel."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from mtlens.core.access import Visitor
from mtlens.core.corpus import Corpus
from mtlens.core.errors import InputError
from mtlens.judges.compute import finished_judges, judge_scores
from mtlens.judges.registry import identity
from mtlens.runtime.jobs import NICENESS
from mtlens.service import jobs, judging, rights
from mtlens.service.workspace import Workspace
from mtlens.storage.store import Store

from ..conftest import ROOT, SAMPLE
from .stub import Stub

N = 40


def _corpus() -> Corpus:
    read = lambda n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]  # noqa: E731
    a, b = read("UEdin"), read("Online-W")
    b[7] = a[7]  # one (source, translation) in both systems: one request
    return Corpus.build({"ref": read("ref")}, {"UEdin": a, "Online-W": b}, read("src"), language_pair="en-de")


def _wait(store, set_id, digest, until, timeout=120.0):
    end = time.time() + timeout
    while time.time() < end:
        job = store.job(set_id, digest)
        if job and until(job):
            return job
        time.sleep(0.05)
    raise AssertionError(f"the job did not get there: {store.job(set_id, digest)}")


def _niceness(pid: int) -> int:
    """A process's CPU priority (its ``nice``), from /proc."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def test_a_judge_job_runs_apart_is_cancelled_and_resumes_asking_nothing_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    store = Store(tmp_path)
    corpus = _corpus()
    set_id = store.save(corpus, "judged")
    with Stub(latency=0.15) as stub:
        judge = Workspace(store).add_judge(
            judging.Judge("j", stub.url, "m", "gemba-mqm", concurrency=2, price_in=1.0, price_out=1.0)
        )
        digest = identity(judge)
        started = jobs.start_job(store, set_id, jobs.judge_job("j"))  # the operator (local mode: every visitor is one)
        assert started.digest == digest and started.judge and started.metric == "judge:j"
        running = _wait(store, set_id, digest, lambda j: j["state"] == "running" and j["done"] > 0)
        assert _niceness(running["pid"]) == min(19, _niceness(os.getpid()) + NICENESS)  # the pages come first
        jobs.cancel_job(store, set_id, digest)
        job = _wait(store, set_id, digest, lambda j: j["state"] == "cancelled")
        first = len(stub.requests)
        assert 0 < first < 2 * N - 1, first
        assert [p.state for p in [p for p in jobs.status_for(store, set_id) if p.judge]] == ["cancelled"]
        jobs.start_job(store, set_id, jobs.judge_job("j"))  # resumes: only what is not saved is asked
        job = _wait(store, set_id, digest, lambda j: j["state"] in ("done", "failed"), timeout=240)
        assert job["state"] == "done", job
        asked = [r["body"]["messages"][-1]["content"] for r in stub.requests]
    assert len(asked) == len(set(asked)) == 2 * N - 1  # every distinct segment once, across the two runs
    assert job["done"] == job["total"] == 2 * N
    assert job["resumed_at"] > 0  # the second run started from the saved answers
    # the closing message: what this run asked and what it cost (the stub charges 100 + 10 tokens an answer)
    rest = 2 * N - 1 - first
    assert f"{rest:,} requests" in job["message"], job["message"]
    assert f"{100 * rest:,} prompt and {10 * rest:,} completion tokens, US$ {110 * rest / 1e6:.4f}" in job["message"]
    (offered,) = finished_judges(store, corpus)  # every page now offers it
    assert offered.name == "judge:j"
    assert jobs.start_job(store, set_id, jobs.judge_job("j")).state == "done"  # nothing new: no process, no request
    assert len(stub.requests) == 2 * N - 1


def test_only_the_operator_or_an_administrator_starts_a_judge(tmp_path):
    store = Store(tmp_path)
    owner = Visitor("browser:" + "a" * 32, "this browser")
    set_id = store.save(_corpus(), "judged", owner=owner.id)
    Workspace(store).add_judge(judging.Judge("j", "http://127.0.0.1:9/v1", "m", "gemba-mqm"))
    assert rights.may_start(store, set_id, None)
    assert rights.may_start(store, set_id, Visitor("admin", "admin", admin=True))
    assert not rights.may_start(store, set_id, owner)  # the set's owner, not the operator: it is not its money
    with pytest.raises(InputError, match="only the operator or an administrator"):
        jobs.start_job(store, set_id, jobs.judge_job("j"), owner)
    assert store.jobs(set_id) == []


def test_the_rankings_page_asks_a_judge_and_shows_its_job(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    store = Store(tmp_path)
    set_id = store.save(_corpus(), "judged")
    with Stub() as stub:
        Workspace(store).add_judge(
            judging.Judge("j", stub.url, "m", "gemba-mqm", concurrency=4, price_in=2.0, price_out=8.0)
        )
        at = AppTest.from_file(str(ROOT / "pages" / "1_Rankings.py"), default_timeout=120)
        at.query_params["set"] = set_id
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        # before asking (issue 61): what it will ask and, with the judge's prices, about what it costs; nothing asked
        at.toggle(key="judge_estimate").set_value(True).run()
        said = " ".join(c.value.replace("\\", "") for c in at.caption)
        assert "judge:j: 79 requests to ask (79 distinct segments x 1 samples, 0 answers cached)" in said, said
        assert "at the judge's prices" in said and not stub.requests
        at.button(key="judge_start").click().run()
        digest = identity(Workspace(store).judge("j"))
        _wait(store, set_id, digest, lambda j: j["state"] == "done")
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = [s.value.replace("\\", "") for s in at.success]  # markdown-escaped text
    done = [s for s in shown if "judge:j: done, 80 segments judged" in s]
    assert done and "79 requests" in done[0] and "7,900 prompt and 790 completion tokens" in done[0], shown
    tables = " ".join(f"{t.value.columns.tolist()} {t.value.to_string()}" for t in at.dataframe)
    assert "judge:j" in tables  # the finished judge is a metric of the page's tables
    # what its scores cost, per system: N - 1 answers of its own at 100 prompt and 10 completion tokens (the stub's)
    # and half the shared one (issue 58, D13: it was counted for both, so the systems summed to more than the total);
    # 3,950 x 2 + 395 x 8 = 11,060 per million
    (cost,) = [t.value for t in at.dataframe if "cost (US$)" in t.value.columns]
    assert cost.to_dict("records") == [
        {"system": s, "prompt tokens": 3950, "completion tokens": 395, "cost (US$)": pytest.approx(0.01106)}
        for s in ("UEdin", "Online-W")
    ]


def _named(answer: str) -> list[tuple[str, str]]:
    """The (category, severity) pairs of a GEMBA-MQM answer, read by hand: a header line names the severity, each
    line below it other than no-error is an error whose category is what precedes ' - "'."""
    out, severity = [], None
    for line in answer.split("\n"):
        if line.rstrip(":").lower() in ("critical", "major", "minor"):
            severity = line.rstrip(":").lower()
        elif line.strip() and line.strip() != "no-error" and severity:
            out.append((line.split(' - "')[0].strip(), severity))
    return out


def test_compare_two_systems_counts_the_errors_a_judge_named_by_category(tmp_path, monkeypatch):
    from collections import Counter

    from streamlit.testing.v1 import AppTest

    from mtlens.judges import gemba
    from mtlens.runtime import jobs

    from .stub import answer_for

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    store = Store(tmp_path)
    corpus = _corpus()
    set_id = store.save(corpus, "judged")
    with Stub() as stub:
        Workspace(store).add_judge(judging.Judge("j", stub.url, "m", "gemba-mqm", concurrency=4))
        assert jobs.run(store, set_id, "judge:j") == "done"  # as the command line runs it
    expected = {}
    for name in ("UEdin", "Online-W"):
        counted = Counter()
        for i, line in enumerate(corpus.systems[name]):
            counted.update(_named(answer_for(gemba.mqm_messages("English", "German", corpus.source[i], line))))
        expected[name] = counted
    assert sum(expected["UEdin"].values()) > 10  # the stub names errors of several kinds
    at = AppTest.from_file(str(ROOT / "pages" / "6_Compare_two_systems.py"), default_timeout=180)
    at.query_params["set"] = set_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    a, b = at.selectbox(key="cmp_a").value, at.selectbox(key="cmp_b").value
    (table,) = [t.value for t in at.dataframe if "category" in t.value.columns]
    for row in table.to_dict("records"):
        key = (row["category"], row["severity"])
        assert row[f"{a}: errors"] == expected[a][key] and row[f"{b}: errors"] == expected[b][key], row
        assert row[f"{a}: per 100 segments"] == pytest.approx(100 * expected[a][key] / N)
    assert {(r["category"], r["severity"]) for r in table.to_dict("records")} == set(expected[a]) | set(expected[b])


def test_sentences_toggles_each_source_of_error_spans(tmp_path, monkeypatch):
    """The TED excerpt's raters and a judge: both sources drawn; either one left out by the reader."""
    from streamlit.testing.v1 import AppTest

    from mtlens.runtime import jobs
    from mtlens.service.evaluation import evaluate_annotations, save
    from mtlens.ui.screens.sentences import HUMAN_MQM

    from ..conftest import TESTDATA

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    store = Store(tmp_path)
    path = TESTDATA / "mqm" / "mqm_ted_ende.excerpt.tsv"
    ev = save(store, evaluate_annotations(path.read_bytes(), path.name, "en-de"), "TED")
    with Stub() as stub:
        Workspace(store).add_judge(judging.Judge("j", stub.url, "m", "gemba-mqm", concurrency=8))
        assert jobs.run(store, ev.set_id, "judge:j") == "done"
    at = AppTest.from_file(str(ROOT / "pages" / "2_Sentences.py"), default_timeout=120)
    at.query_params["set"] = ev.set_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]

    def drawn() -> str:
        return " ".join(m.value for m in at.markdown)

    toggle = at.multiselect(key="sent_span_sources")
    assert toggle.value == ["judge:j", HUMAN_MQM]
    assert "judge\\:j error spans" in drawn() and "What human raters marked" in drawn()
    toggle.set_value([HUMAN_MQM]).run()
    assert "judge\\:j error spans" not in drawn() and "What human raters marked" in drawn()
    at.multiselect(key="sent_span_sources").set_value(["judge:j"]).run()
    assert "judge\\:j error spans" in drawn() and "What human raters marked" not in drawn()


def test_a_page_reads_a_finished_judge_without_rebuilding_the_others(tmp_path, monkeypatch):
    """Issue 58, D2: every page and ``score`` built every prompt and cache key of every registered judge (40,386 per
    load with six judges, 1.0 s -> 6.9 s). A judge never run on the corpus is known from two prompts; a finished
    one's answers are read without a thread pool, each key made once. Counted, not timed."""
    from mtlens.judges import compute, gemba

    store = Store(tmp_path)
    corpus = _corpus()
    with Stub() as stub:
        ran = Workspace(store).add_judge(judging.Judge("ran", stub.url, "m", "gemba-mqm"))
        judge_scores(store, ran, corpus)
    for k in range(5):  # registered, never run on this corpus (or failed: nothing cached)
        Workspace(store).add_judge(judging.Judge(f"idle{k}", "http://127.0.0.1:9/v1", f"m{k}", "gemba-mqm"))
    made, keys, pools = [], [], []
    real_messages, real_key = gemba.mqm_messages, compute.cache_key
    monkeypatch.setattr(gemba, "mqm_messages", lambda *a: made.append(1) or real_messages(*a))
    monkeypatch.setattr(compute, "cache_key", lambda *a: keys.append(1) or real_key(*a))
    monkeypatch.setattr(compute, "ThreadPoolExecutor", lambda *a, **k: pools.append(1) or (_ for _ in ()).throw(
        AssertionError("a thread pool to read cached answers")))  # fmt: skip
    (offered,) = finished_judges(store, corpus)
    assert offered.name == "judge:ran" and not pools
    distinct = 2 * N - 1
    # the finished judge: two probes, then its plan (one prompt and one key per request); each idle judge: two probes
    assert len(made) == 2 + distinct + 5 * 2, len(made)
    assert len(keys) == 2 + distinct + 5 * 2, len(keys)


def test_no_path_lets_a_set_owner_spend_the_operators_judge(tmp_path, monkeypatch):
    """Issue 58, G4: through the neural jobs' service path a set owner who is not the operator started an LLM judge
    job (6 requests reached the operator's endpoint). The judges' right is decided in the service whichever path
    asks: the neural jobs' start and cancel, and every face that names metrics (the gate, a history)."""
    from mtlens.service.gate import gate_set
    from mtlens.service.runs import history

    monkeypatch.setenv("MTLENS_DATA_DIR", str(tmp_path))
    store = Store(tmp_path)
    owner = Visitor("browser:" + "b" * 32, "this browser")
    set_id = store.save(_corpus(), "judged", owner=owner.id)
    with Stub() as stub:
        judge = Workspace(store).add_judge(judging.Judge("j", stub.url, "m", "gemba-mqm"))
        with pytest.raises(InputError, match="only the operator or an administrator may start"):
            jobs.start_job(store, set_id, "judge:j", owner)
        with pytest.raises(InputError, match="only the operator or an administrator may cancel"):
            jobs.cancel_job(store, set_id, identity(judge), owner)
        for ask in (
            lambda: gate_set(store, set_id, "UEdin", "Online-W", metrics="judge:j", visitor=owner),
            lambda: history(store, set_id, None, "judge:j", None, visitor=owner),
        ):
            with pytest.raises(InputError, match="has not scored this set yet"):
                ask()
        assert stub.requests == [] and store.jobs(set_id) == []
        # once the operator has run it, the owner reads its scores (nothing is asked again)
        judge_scores(store, judge, _corpus())
        asked = len(stub.requests)
        res = gate_set(store, set_id, "UEdin", "Online-W", metrics="judge:j", visitor=owner)
        assert [g.metric for g in res.metrics if g.family != "checks"] == ["judge:j"] and len(stub.requests) == asked


def test_a_link_reader_never_reads_the_operators_paths_and_endpoints(tmp_path):
    """Issue 58, G12: in owners mode a link reader saw a checkpoint's server path in a failed MetricX job's sentence
    on Rankings. The jobs' sentences are the operator's and an administrator's whole; anyone else reads them without
    the operator's folders and endpoints (decided in the service the panel calls)."""

    store = Store(tmp_path)
    reader = Visitor("browser:" + "d" * 32, "a link reader")
    set_id = store.save(_corpus(), "judged")
    Workspace(store).add_judge(judging.Judge("j", "http://10.1.2.3:8000/v1", "m", "gemba-mqm"))
    folder = "/srv/models/metricx-24-hybrid-xl"
    said = (f"the MetricX checkpoint '{folder}' could not be loaded on C:\\models\\x: out of memory; the judge at "
            "http://10.1.2.3:8000/v1 did not answer")  # fmt: skip
    store.claim_job(set_id, "d" * 40, "metricx:xl", lambda job: False)
    store.update_job(set_id, "d" * 40, state="failed", message=said)
    (whole,) = jobs.status_for(store, set_id, None)
    (admin,) = jobs.status_for(store, set_id, Visitor("admin", "admin", admin=True))
    (read,) = jobs.status_for(store, set_id, reader)
    assert whole.message == admin.message == said
    assert "/srv" not in read.message and "10.1.2.3" not in read.message and "C:\\" not in read.message
    assert read.message.startswith("the MetricX checkpoint '(the operator's)' could not be loaded")
    assert "out of memory" in read.message


def test_only_the_operator_registers_or_removes_a_scorer_through_the_service(tmp_path):
    """Who may register or remove a judge or a model (the acts that make the server call a URL or read a path) is
    decided in the service, without a face (issue 59's first part: only the pages checked it)."""
    from mtlens.service.workspace import Workspace

    store = Store(tmp_path)
    owner = Visitor("browser:" + "e" * 32, "a set owner")
    judge = judging.Judge("j", "http://127.0.0.1:9/v1", "m", "gemba-mqm")
    visitor = Workspace(store, owner)
    for act, said in (
        (lambda: visitor.add_judge(judge), "register a judge"),
        (lambda: visitor.add_model("m", str(tmp_path)), "register a model"),
        (lambda: visitor.remove_judge("j"), "remove a judge"),
        (lambda: visitor.remove_model("m"), "remove a model"),
    ):
        with pytest.raises(InputError, match=f"only the operator can {said}"):
            act()
    assert store.judges() == []
    operator = Workspace(store, None)
    operator.add_judge(judge)
    assert [j["name"] for j in store.judges()] == ["j"]
    Workspace(store, Visitor("admin", "admin", admin=True)).remove_judge("j")
    assert store.judges() == []
