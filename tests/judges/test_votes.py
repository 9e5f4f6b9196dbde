"""Issue 61: judges that vote. A judge registered with ``--samples 5 --temperature 0.7 --aggregate gemba-v2``
against a loopback endpoint that answers each prompt differently each time it is asked: five requests per distinct
segment, each at 0.7; the cost said before the run; each segment's score GEMBA-MQM V2's aggregate of its five
answers, computed by hand below; raising the samples to 7 asks 2 more per segment and no others."""

from __future__ import annotations

import json
import threading
from collections import Counter

import pytest

from mtlens.cli.main import main
from mtlens.core.corpus import Corpus
from mtlens.judges.votes import aggregate
from mtlens.storage.store import Store

from ..conftest import SAMPLE
from .stub import Stub

NO, MINOR, MAJOR = "no-error", 'fluency/grammar - "the"', 'accuracy/mistranslation - "the"'
#: what the endpoint answers a prompt the k-th time it is asked (GEMBA-MQM scores 0, -1, -5, 0, -1, 0, -25)
ANSWERS = [
    f"Critical:\n{NO}\nMajor:\n{NO}\nMinor:\n{NO}",
    f"Critical:\n{NO}\nMajor:\n{NO}\nMinor:\n{MINOR}",
    f"Critical:\n{NO}\nMajor:\n{MAJOR}\nMinor:\n{NO}",
    f"Critical:\n{NO}\nMajor:\n{NO}\nMinor:\n{NO}",
    f"Critical:\n{NO}\nMajor:\n{NO}\nMinor:\n{MINOR}",
    f"Critical:\n{NO}\nMajor:\n{NO}\nMinor:\n{NO}",
    f'Critical:\nnon-translation - "the"\nMajor:\n{NO}\nMinor:\n{NO}',
]
#: by hand: five answers 0, -1, -5, 0, -1: mean -1.4, standard deviation sqrt(17.2 / 5) = 1.855, so nothing lies
#: beyond 2 x 1.855 = 3.71 from the mean (-5 is 3.6 away); ranked most lenient first, 0, 0, -1, -1, -5 weigh
#: 1, 1/2, 1/3, 1/4, 1/5: (-1/3 - 1/4 - 1) / (1 + 1/2 + 1/3 + 1/4 + 1/5) = -1.58333 / 2.28333
FIVE = -(1 / 3 + 1 / 4 + 1) / (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5)
#: seven answers add 0 and -25: mean -32/7 = -4.571, standard deviation sqrt(505.71 / 7) = 8.500; -25 is 20.43
#: away, beyond 17.0: dropped; the six left, 0, 0, 0, -1, -1, -5, weigh 1 ... 1/6: (-1/4 - 1/5 - 5/6) / 2.45
SEVEN = -(1 / 4 + 1 / 5 + 5 / 6) / (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5 + 1 / 6)
N = 8


class Voter:
    """The endpoint's answer: the k-th answer to the k-th request with this prompt."""

    def __init__(self):
        self.asked: Counter = Counter()
        self.lock = threading.Lock()

    def __call__(self, messages):
        prompt = messages[-1]["content"]
        with self.lock:
            k = self.asked[prompt]
            self.asked[prompt] += 1
        return ANSWERS[k % len(ANSWERS)]


def _register(url, ws, samples):
    args = ["judges", "add", "v", "--url", url, "--model", "m", "--protocol", "gemba-mqm", "--samples", str(samples),
            "--temperature", "0.7", "--aggregate", "gemba-v2", "--concurrency", "3", "--price-in", "1",
            "--price-out", "2", "--data-dir", str(ws)]  # fmt: skip
    assert main(args) == 0


def _scores(ws, set_id, capsys) -> dict:
    capsys.readouterr()
    args = ["score", "--set", set_id, "--metrics", "judge:v", "--format", "json", "--sentence-level"]
    assert main([*args, "--data-dir", str(ws)]) == 0
    return json.loads(capsys.readouterr().out)


def test_five_votes_then_seven(tmp_path, capsys):
    assert aggregate([0, -1, -5, 0, -1], "gemba-v2") == pytest.approx(FIVE, abs=1e-15)
    read = lambda n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:N]  # noqa: E731
    a, b = read("UEdin"), read("Online-W")
    b[2] = a[2]  # one segment shared by both systems: asked once
    corpus = Corpus.build({"ref": read("ref")}, {"A": a, "B": b}, read("src"), language_pair="en-de")
    ws = tmp_path / "ws"
    set_id = Store(ws).save(corpus, "votes")
    distinct = 2 * N - 1
    voter = Voter()
    with Stub(answer=voter) as stub:
        _register(stub.url, ws, 5)
        capsys.readouterr()
        assert main(["judges", "run", "v", "--set", set_id, "--data-dir", str(ws)]) == 0
        err = capsys.readouterr().err
        assert f"{5 * distinct:,} requests to ask ({distinct} distinct segments x 5 samples, 0 answers cached)" in err
        assert "at the judge's prices" in err  # priced before anything was asked
        assert sorted(voter.asked.values()) == [5] * distinct  # five requests per distinct segment
        assert {r["body"]["temperature"] for r in stub.requests} == {0.7}
        doc = _scores(ws, set_id, capsys)
        for system in doc["systems"]:
            assert system["sentences"]["judge:v"] == pytest.approx([FIVE] * N, abs=1e-12)
        sig = doc["signatures"]["judge:v"]
        assert "samples:5|temperature:0.7|aggregate:gemba-v2" in sig, sig
        # seven samples: two more per segment, the five cached ones never asked again
        _register(stub.url, ws, 7)
        capsys.readouterr()
        assert main(["judges", "run", "v", "--set", set_id, "--data-dir", str(ws)]) == 0
        assert f"{2 * distinct:,} requests to ask ({distinct} distinct segments x 7 samples, {5 * distinct} answers " \
               "cached)" in capsys.readouterr().err  # fmt: skip
        assert sorted(voter.asked.values()) == [7] * distinct
        assert len(stub.requests) == 7 * distinct
        doc = _scores(ws, set_id, capsys)
        for system in doc["systems"]:
            assert system["sentences"]["judge:v"] == pytest.approx([SEVEN] * N, abs=1e-12)
        assert "samples:7|temperature:0.7|aggregate:gemba-v2" in doc["signatures"]["judge:v"]


def test_a_temperature_above_1_is_the_temperature_of_every_ask_and_re_ask(tmp_path):
    """A judge registered at 1.5 asks at 1.5, and asks an unparsed answer again at 1.5 too (a re-ask is warmer, up
    to 1 or the judge's own temperature: before, every ask was cooled to 1 whatever the signature said)."""
    asked: Counter = Counter()

    def answer(messages):
        prompt = messages[-1]["content"]
        asked[prompt] += 1
        return 'accuracy/mistranslation - "the"' if asked[prompt] == 1 else ANSWERS[0]  # no header: unparsed

    read = lambda n: (SAMPLE / f"{n}.txt").read_text(encoding="utf-8").split("\n")[:3]  # noqa: E731
    corpus = Corpus.build({"ref": read("ref")}, {"A": read("UEdin")}, read("src"), language_pair="en-de")
    ws = tmp_path / "ws"
    set_id = Store(ws).save(corpus, "warm")
    with Stub(answer=answer) as stub:
        args = ["judges", "add", "hot", "--url", stub.url, "--model", "m", "--protocol", "gemba-mqm",
                "--temperature", "1.5", "--concurrency", "1", "--data-dir", str(ws)]  # fmt: skip
        assert main(args) == 0
        assert main(["score", "--set", set_id, "--metrics", "judge:hot", "--data-dir", str(ws)]) == 0
        assert len(stub.requests) == 6  # each of 3 segments: an unparsed answer, then a parsed one
        assert {r["body"]["temperature"] for r in stub.requests} == {1.5}
