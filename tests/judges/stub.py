"""A loopback stand-in of an OpenAI-compatible chat-completions endpoint for the judges' tests: it records every
request, answers each translation with a fixed GEMBA-MQM or ESA answer chosen from the text (so the test knows it),
and misbehaves on request: 429 (with Retry-After), 500, a truncated answer, junk, a huge body, a redirect, a pause.
Nothing leaves 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def answer_for(messages: list[dict]) -> str:
    """The stub judge's answer: GEMBA-MQM's format, errors quoting words of the translation it was given."""
    last = messages[-1]["content"]
    if "Score (0-100)" in last:  # GEMBA-ESA's second request
        return str(40 + len(last) % 60)
    target = last.split("translation:\n```", 1)[1].split("```", 1)[0] if "translation:\n```" in last else ""
    words = [w for w in target.split() if w.isalpha()]
    if not words:
        return "Critical:\nno-error\nMajor:\nno-error\nMinor:\nno-error"
    if len(words) % 3 == 0:
        return f'Critical:\nno-error\nMajor:\naccuracy/mistranslation - "{words[0]}"\nMinor:\nfluency/grammar - "{words[-1]}"'
    if len(words) % 3 == 1:
        return f'Critical:\nnon-translation - "{words[1 % len(words)]}"\nMajor:\nno-error\nMinor:\nno-error'
    return f'Major:\nstyle/awkward - "{words[-1]}"\nMinor:\nfluency/punctuation - "nowhere-in-the-line"'


class Stub:
    """``with Stub() as s:`` a server on 127.0.0.1; ``s.url`` its base URL (``.../v1``); ``s.requests`` what came;
    ``s.plan``: a list of misbehaviours to serve first (``"429"``, ``"500"``, ``"length"``, ``"junk"``, ``"huge"``,
    ``"redirect"``, ``"slow"``, ``"drip"``: a byte every ``s.drip`` seconds; ``("raw", status, body, headers)``: exactly
    that), one per request; ``s.answer``: a function of the messages."""

    def __init__(self, answer=answer_for, latency: float = 0.0):
        self.requests: list[dict] = []
        self.plan: list[str] = []
        self.answer = answer
        self.latency = latency
        self.lock = threading.Lock()
        self.in_flight = self.peak = 0
        self.drip = 0.2  # seconds between two bytes of a "drip" answer
        self.stopped = threading.Event()

    def __enter__(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with stub.lock:
                    stub.requests.append({"headers": dict(self.headers), "body": body, "path": self.path})
                    step = stub.plan.pop(0) if stub.plan else None
                    stub.in_flight += 1
                    stub.peak = max(stub.peak, stub.in_flight)
                try:
                    self._answer(step, body)
                finally:
                    with stub.lock:
                        stub.in_flight -= 1

            def _answer(self, step, body):
                if stub.latency:
                    time.sleep(stub.latency)
                if step == "429":
                    return self._send(429, b'{"error": "slow down"}', {"Retry-After": "0"})
                if step == "500":
                    return self._send(500, b"oops")
                if step == "redirect":
                    return self._send(307, b"", {"Location": "http://127.0.0.1:1/elsewhere"})
                if step == "junk":
                    return self._send(200, b"<html>not json</html>")
                if step == "huge":
                    return self._send(200, b"x" * (3 * 1024 * 1024))
                if step == "slow":
                    time.sleep(3)
                if step == "drip":  # a byte every stub.drip seconds, for ever (until the client hangs up)
                    return self._drip()
                if isinstance(step, tuple):  # ("raw", status, body bytes, headers): exactly that
                    return self._send(step[1], step[2], step[3] if len(step) > 3 else None)
                content = stub.answer(body["messages"])
                finish = "stop"
                if step == "length":
                    content, finish = content[: len(content) // 2], "length"
                doc = {
                    "id": "x",
                    "object": "chat.completion",
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}
                    ],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
                }
                return self._send(200, json.dumps(doc).encode())

            def _drip(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                try:
                    for _ in range(10_000):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        if stub.stopped.wait(stub.drip):
                            return
                except OSError:  # the client hung up
                    return

            def _send(self, code, data, headers=None):
                self.send_response(code)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.server.shutdown()
        self.server.server_close()
