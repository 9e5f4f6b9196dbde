"""One chat completion from an OpenAI-compatible endpoint (vLLM, llama.cpp's server, Ollama, LM Studio,
``transformers serve``, a commercial API), bounded and retried (issue 48; docs/decisions.md, "LLM judges").

- The key is read from the judge's environment variable when a request is made and goes only into the
  ``Authorization`` header: never stored, logged, printed or put in a sentence (a sentence names the variable).
- Every response is size-capped (read as it streams in) and time-bounded; a redirect is not followed.
- 429, 5xx, timeouts and refused connections are retried with exponential backoff, honouring ``Retry-After``;
  other statuses are one sentence.
- An answer cut by the token limit (``finish_reason: length``) is asked again once with twice the tokens.
"""

from __future__ import annotations

import email.utils
import json
import math
import os
import random
import time
from dataclasses import dataclass

import httpx

from ..core.errors import InputError
from ..core.limits import env_number
from ..core.secrets import redact

#: the largest response read, bytes (``MTLENS_JUDGE_MAX_RESPONSE_KB``)
DEFAULT_MAX_RESPONSE_KB = 1024
#: seconds one request may take (``MTLENS_JUDGE_TIMEOUT``)
DEFAULT_TIMEOUT = 120
#: attempts for a request the endpoint refuses for now (429, 5xx, timeouts)
ATTEMPTS = 6
#: the first backoff and the longest wait, seconds (a ``Retry-After`` is honoured up to the longest)
BACKOFF, LONGEST_WAIT = 0.5, 60.0
#: the tokens an answer may take (GEMBA asks 500 for MQM), and the most after doubling
MAX_TOKENS, MOST_TOKENS = 500, 4000
RETRIED = {408, 409, 425, 429, 500, 502, 503, 504}
#: seconds an answer already streaming in is still awaited after a stop is asked for (so that it is saved, not paid
#: for twice), before the request is dropped
STOP_GRACE = 3.0


@dataclass(frozen=True)
class Endpoint:
    """Where a judge is asked: the base URL (``http://host:port/v1``), the model, and the environment variable
    that holds the API key (None: no key)."""

    url: str
    model: str
    key_env: str | None = None


@dataclass(frozen=True)
class Reply:
    """An answer: its text, why it ended, the tokens it cost, and the requests it took (retries included)."""

    content: str
    finish: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int


def _key(endpoint: Endpoint) -> str | None:
    if not endpoint.key_env:
        return None
    value = os.environ.get(endpoint.key_env)
    if not value:
        raise InputError(f"the judge's API key is read from ${endpoint.key_env}, which is not set on this machine")
    return value


def _wait(response: httpx.Response | None, attempt: int) -> float:
    """Seconds before the next attempt: the endpoint's ``Retry-After`` (seconds or a date), else exponential."""
    if response is not None:
        value = response.headers.get("retry-after")
        if value:
            seconds = _retry_after(value)
            if seconds is not None:
                return max(0.0, min(seconds, LONGEST_WAIT))
    return min(LONGEST_WAIT, BACKOFF * 2**attempt) * (0.5 + random.random() / 2)


def _retry_after(value: str) -> float | None:
    """``Retry-After`` in seconds (a number or an HTTP date); None when it is neither (issue 58, G6: an unparseable
    one was an internal error): the exponential backoff then applies."""
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        return when.timestamp() - time.time() if when.tzinfo is not None else None
    return seconds if math.isfinite(seconds) else None


def _tokens(usage, key: str) -> int:
    """A token count of the answer's ``usage``, 0 where it is missing or not a count (a list, text, infinity, a
    negative or fractional number: junk from an endpoint is never an internal error, issue 58, G6)."""
    value = usage.get(key) if isinstance(usage, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return 0
    return int(value) if 0 <= value < 2**53 else 0


class Stopped(Exception):
    """The run was asked to stop while a request was in flight or waiting to be retried."""


class _TooSlow(httpx.TimeoutException):
    """The whole answer took longer than the timeout (an endpoint that drips a byte at a time)."""


def _read(response: httpx.Response, limit: int, where: str, deadline: float, should_stop=None) -> bytes:
    """The body, at most ``limit`` bytes and read by ``deadline`` (time.monotonic()): the timeout bounds the whole
    answer, not one read (issue 58, G3: a byte every 5 s defeated a 10 s timeout); ``should_stop()`` is asked after
    every chunk, so a cancelled run ends within one read."""
    body = bytearray()
    asked = None  # when a stop was first seen: an answer that is coming is awaited for STOP_GRACE seconds (paid for)
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > limit:
            raise InputError(
                f"{where} answered more than {limit // 1024:,} KB (MTLENS_JUDGE_MAX_RESPONSE_KB); not read"
            )
        if should_stop is not None and should_stop():
            asked = asked or time.monotonic()
            if time.monotonic() - asked > STOP_GRACE:
                raise Stopped
        if time.monotonic() > deadline:
            raise _TooSlow("the whole answer took longer than the timeout")
    return bytes(body)


def _pause(seconds: float, sleep, should_stop) -> None:
    """Wait before a retry, in steps of at most a second when a stop can be asked for."""
    if should_stop is None:
        sleep(seconds)
        return
    end = time.monotonic() + seconds
    while True:
        if should_stop():
            raise Stopped
        left = end - time.monotonic()
        if left <= 0:
            return
        sleep(min(1.0, left))


def chat(
    client: httpx.Client,
    endpoint: Endpoint,
    messages: list[dict],
    temperature: float = 0.0,
    max_tokens: int = MAX_TOKENS,
    sleep=time.sleep,
    should_stop=None,
) -> Reply:
    """The judge's answer to ``messages`` (OpenAI's chat completions: ``temperature``, ``top_p`` 1, one choice).
    ``should_stop()``: asked while the answer streams in and between retries; True raises :class:`Stopped`."""
    where = f"the judge's endpoint {redact(endpoint.url)}"
    limit = int(env_number("MTLENS_JUDGE_MAX_RESPONSE_KB", DEFAULT_MAX_RESPONSE_KB, 1) * 1024)
    seconds = _timeout(client)
    headers = {"Content-Type": "application/json"}
    key = _key(endpoint)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    attempts, tokens = 0, max_tokens
    retried_length = False
    while True:
        body = {
            "model": endpoint.model,
            "messages": messages,
            "temperature": temperature,
            "top_p": 1,
            "n": 1,
            "max_tokens": tokens,
        }
        for attempt in range(ATTEMPTS):
            attempts += 1
            response = None
            try:
                with client.stream(
                    "POST", endpoint.url.rstrip("/") + "/chat/completions", json=body, headers=headers
                ) as response:
                    if 300 <= response.status_code < 400:
                        raise InputError(f"{where} redirected the request (HTTP {response.status_code}); not followed")
                    if response.status_code in RETRIED:
                        if attempt + 1 < ATTEMPTS:
                            _pause(_wait(response, attempt), sleep, should_stop)
                            continue
                        raise InputError(f"{where} refused {ATTEMPTS} times (last: HTTP {response.status_code})")
                    if response.status_code != 200:
                        raise InputError(f"{where} answered HTTP {response.status_code}")
                    raw = _read(response, limit, where, time.monotonic() + seconds, should_stop)
                break
            except (httpx.TimeoutException, httpx.TransportError) as err:
                if attempt + 1 < ATTEMPTS:
                    _pause(_wait(None, attempt), sleep, should_stop)
                    continue
                raise InputError(f"{where} did not answer ({type(err).__name__}) after {ATTEMPTS} attempts") from None
        try:
            doc = json.loads(raw)
            choice = doc["choices"][0]
            content = choice["message"]["content"]
            finish = str(choice.get("finish_reason") or "stop")[:40]
            usage = doc.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
            raise InputError(f"{where} answered something that is not a chat completion") from None
        if not isinstance(content, str):
            raise InputError(f"{where} answered a chat completion without text")
        if finish == "length" and not retried_length and tokens * 2 <= MOST_TOKENS:
            retried_length, tokens = True, tokens * 2  # cut short: once more, with room
            continue
        if key and key in content:  # an endpoint that echoes the key: never stored or shown (issue 58)
            content = content.replace(key, "***")
        return Reply(
            content.strip(),
            finish,
            _tokens(usage, "prompt_tokens"),
            _tokens(usage, "completion_tokens"),
            attempts,
        )


def _timeout(client: httpx.Client) -> float:
    """The seconds a whole answer may take: the client's read timeout (``MTLENS_JUDGE_TIMEOUT``)."""
    read = getattr(client, "timeout", None)
    value = getattr(read, "read", None)
    return float(value) if isinstance(value, (int, float)) and value > 0 else float(DEFAULT_TIMEOUT)


def new_client(timeout: float | None = None) -> httpx.Client:
    """An HTTP client for the judges: no redirects followed, bounded time, no proxies from the environment's
    variables (a judge's endpoint is the operator's registered URL, nothing else)."""
    seconds = timeout if timeout is not None else env_number("MTLENS_JUDGE_TIMEOUT", DEFAULT_TIMEOUT, 1)
    return httpx.Client(timeout=httpx.Timeout(seconds), follow_redirects=False, trust_env=False)
