"""The operator's LLM judges (issue 48): a judge's settings, checked (the URL one that can be used, a plain-text model,
bounded samples, concurrency and prices), registered in the store, and read back. Asking a judge is
:mod:`mtlens.judges.compute`."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..core.errors import InputError
from ..core.names import clean_name
from ..scores.sources import JUDGE_AGGREGATES, JUDGE_IDENTITY_PREFIX, JUDGE_PREFIX, JUDGE_PROTOCOLS
from . import gemba
from .client import Endpoint

#: bounds of a judge's settings
MAX_SAMPLES, MAX_CONCURRENCY = 20, 256


@dataclass(frozen=True)
class Judge:
    name: str
    url: str
    model: str
    protocol: str
    key_env: str | None = None
    samples: int = 1
    concurrency: int = 8
    price_in: float | None = None
    price_out: float | None = None
    #: ask about the set's references too, as systems (issue 50: is the reference the problem?)
    score_references: bool = False
    #: every sample's temperature; None: the first at 0, the others at votes.SAMPLE_TEMPERATURE (issue 61)
    temperature: float | None = None
    #: how a segment's samples become its score (JUDGE_AGGREGATES; mtlens.judges.votes)
    aggregate: str = "mean"

    @property
    def metric(self) -> str:
        """The judge as ``--metrics`` names it (``judge:NAME``), as a registered model's ``metric``."""
        return JUDGE_PREFIX + self.name

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint(self.url, self.model, self.key_env)

    def cost(self, prompt_tokens: float, completion_tokens: float) -> float | None:
        """US dollars for those tokens at the judge's prices per million (None without prices)."""
        if self.price_in is None and self.price_out is None:
            return None
        return (prompt_tokens * (self.price_in or 0.0) + completion_tokens * (self.price_out or 0.0)) / 1e6


#: the longest URL a judge may have (a base URL is short; 100,000 characters was accepted, then unusable)
MAX_URL = 2048
_URL_HELP = "--url must be an http(s) URL of an OpenAI-compatible API (e.g. http://127.0.0.1:8000/v1)"


def _url_parts(url: str):
    """The URL's parts, or one sentence when it could not be used (issue 58, G6: a port ``abc``, CR/LF, 100,000
    characters and ``http://[::1/v1`` were accepted by ``judges add`` and failed at every use)."""
    if not isinstance(url, str) or len(url) > MAX_URL:
        raise InputError(f"--url is at most {MAX_URL:,} characters")
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise InputError(f"{_URL_HELP}; it holds a space or a control character")
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port  # both raise ValueError on a bad host or port
    except ValueError as err:
        raise InputError(f"{_URL_HELP}; this one cannot be read ({str(err)[:80]})") from None
    if parts.scheme not in ("http", "https") or not host:
        raise InputError(_URL_HELP)
    return parts


def check_judge(judge: Judge) -> Judge:
    """A judge's settings, or one sentence naming what is wrong."""
    name = clean_name(judge.name, "judge name", empty="a judge needs a name").lower()  # metric names are lowercase
    parts = _url_parts(judge.url)
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        # the URL is stored and shown: a user, a password or a query (?api_key=...) would put a secret there
        raise InputError(
            "--url is the API's base URL alone, without a user, password or query: give the key's environment "
            "variable with --api-key-env"
        )
    if judge.protocol not in JUDGE_PROTOCOLS:
        raise InputError(f"--protocol takes {' or '.join(JUDGE_PROTOCOLS)}, not '{judge.protocol}'")
    if not judge.model.strip():
        raise InputError("--model names the endpoint's model")
    model = clean_name(judge.model, "model")  # printed and stored: plain text (issue 58, G10)
    if judge.key_env is not None and not judge.key_env.replace("_", "").isalnum():
        raise InputError("--api-key-env names an environment variable (letters, digits, _), not a key")
    if not 1 <= judge.samples <= MAX_SAMPLES:
        raise InputError(f"--samples must be from 1 to {MAX_SAMPLES}")
    if not 1 <= judge.concurrency <= MAX_CONCURRENCY:
        raise InputError(f"--concurrency must be from 1 to {MAX_CONCURRENCY}")
    if judge.temperature is not None and not (
        isinstance(judge.temperature, int | float) and math.isfinite(judge.temperature) and 0 <= judge.temperature <= 2
    ):
        raise InputError("--temperature must be from 0 to 2")
    if judge.protocol == "m-prometheus" and judge.score_references:
        raise InputError("m-prometheus reads the reference as its best answer: it cannot judge the references too")
    if judge.aggregate not in JUDGE_AGGREGATES:
        raise InputError(f"--aggregate takes {', '.join(JUDGE_AGGREGATES)}, not '{str(judge.aggregate)[:40]}'")
    for flag, price in (("--price-in", judge.price_in), ("--price-out", judge.price_out)):
        if price is not None and not (math.isfinite(price) and price >= 0):
            raise InputError(f"{flag} is US dollars per million tokens, at least 0")
    temperature = None if judge.temperature is None else float(judge.temperature)
    return Judge(name, judge.url.rstrip("/"), model, judge.protocol, judge.key_env, judge.samples,
                 judge.concurrency, judge.price_in, judge.price_out, bool(judge.score_references), temperature,
                 judge.aggregate)  # fmt: skip


def add_judge(store, judge: Judge) -> Judge:
    """Register a judge (the operator's: the faces check who asks)."""
    judge = check_judge(judge)
    store.put_judge(dict(judge.__dict__))
    return judge


def registered(store) -> list[Judge]:
    """The registered judges, by name."""
    return [_judge_of(row) for row in store.judges()]


def _judge_of(row) -> Judge:
    return Judge(**{k: (bool(row[k]) if k == "score_references" else row[k]) for k in Judge.__dataclass_fields__})


def get_judge(store, name: str) -> Judge:
    found = {j["name"]: j for j in store.judges()}
    if name not in found:
        known = ", ".join(found) or "none yet (python -m mtlens judges add NAME --url URL --model MODEL ...)"
        raise InputError(f"no judge is registered as '{name}'; the judges: {known}")
    return _judge_of(found[name])


def protocol_version(protocol: str) -> str:
    """The version of a protocol's prompts and reading (in its cache keys, jobs' keys and signature): GEMBA's for
    GEMBA-MQM and GEMBA-ESA, the template's own for M-Prometheus."""
    if protocol == "m-prometheus":
        from . import prometheus

        return prometheus.template()["version"]
    return gemba.VERSION


def identity(judge: Judge) -> str:
    """What a judge's answers depend on, as a digest (its jobs' key: a judge registered again with other
    settings is another job)."""
    parts = [protocol_version(judge.protocol), judge.url, judge.model, judge.protocol, judge.samples]
    if judge.temperature is not None or judge.aggregate != "mean":  # a judge registered before keeps its jobs' key
        parts += [judge.temperature, judge.aggregate]
    text = json.dumps(parts + (["references"] if judge.score_references else []))
    return JUDGE_IDENTITY_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()[:40]


def whole_tokens(tokens: float) -> int | float:
    """A system's share of tokens: a whole number where it is one (a shared answer's half may not be)."""
    return int(tokens) if float(tokens).is_integer() else round(tokens, 2)
