"""A light visitor for the load test (benchmarks/bench_load.py): it asks the server for a page the way a new
browser session does and receives what the browser would receive, without drawing anything.

A dashboard page: the page's HTML, the scripts and style sheets that HTML names (once per visitor, as a
browser's cache keeps them), Streamlit's health and host-config requests, then a WebSocket session on
``/_stcore/stream`` that sends the same first message a browser sends (``rerun_script`` with the page's
name and query string) and reads every message the script run sends back (Streamlit's protobuf
``ForwardMsg``) until the run finishes. Its time to the first table is the arrival of the first
``dataframe`` or ``table`` element. A quick view (``/quick/...``) is one HTTP request; its first table is
the whole response holding a ``<table``.

Errors: an HTTP status other than 200, an exception or an error alert on the page, a run that ends in
any other way than finishing (a closed socket, a compile error), a page without a table, a step over its
time limit. What it does not do: run the page's JavaScript, draw charts, or load the scripts a browser
loads later on demand (the table and chart components).
"""

from __future__ import annotations

import asyncio
import gzip
import re
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect

TABLE_ELEMENTS = ("dataframe", "table")
_ASSET = re.compile(r'(?:src|href)="\./(static/[^"]+)"')


@dataclass
class Visit:
    """What one page visit saw: seconds to its first table and to the end of the script run (None when
    they did not come), the tables' Arrow data (dashboard pages), the errors in one sentence each."""

    first_table_s: float | None = None
    finished_s: float | None = None
    tables: list[bytes] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Visitor:
    """One visitor: HTTP requests run in ``pool`` (threads), the WebSocket in the event loop."""

    def __init__(self, url: str, pool: ThreadPoolExecutor, timeout: float):
        self.url, self.pool, self.timeout = url, pool, timeout
        self.assets_loaded = False

    async def _get(self, path: str) -> bytes:
        def get() -> bytes:
            request = urllib.request.Request(f"{self.url}/{path}", headers={"Accept-Encoding": "gzip"})
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read()
                return gzip.decompress(body) if response.headers.get("Content-Encoding") == "gzip" else body

        return await asyncio.get_running_loop().run_in_executor(self.pool, get)

    async def quick(self, path: str) -> Visit:
        """A quick view (plain HTML drawn on the server)."""
        visit, t = Visit(), time.perf_counter()
        try:
            body = await asyncio.wait_for(self._get(path), self.timeout)
        except (OSError, urllib.error.HTTPError, asyncio.TimeoutError) as err:
            visit.errors.append(f"{path}: {type(err).__name__}: {err}"[:200])
            return visit
        if b"<table" in body:
            visit.first_table_s = visit.finished_s = time.perf_counter() - t
        else:
            visit.errors.append(f"{path}: no table in the page")
        return visit

    async def page(self, name: str, query: str) -> Visit:
        """A dashboard page (``Rankings``, ``Sentences``...) with its query string (``set=ID``)."""
        visit, t = Visit(), time.perf_counter()
        try:
            await asyncio.wait_for(self._run(visit, name, query, t), self.timeout)
        except asyncio.TimeoutError:
            visit.errors.append(f"{name}: no end of the script run within {self.timeout:.0f} s")
        except Exception as err:  # HTTP errors, a refused or closed socket (websockets' own classes)
            visit.errors.append(f"{name}: {type(err).__name__}: {err}"[:200])
        if visit.finished_s is not None and visit.first_table_s is None:
            visit.errors.append(f"{name}: the page showed no table")
        return visit

    async def _run(self, visit: Visit, name: str, query: str, t: float) -> None:
        html = (await self._get(f"{name}?{query}")).decode("utf-8", "replace")
        if not self.assets_loaded:
            await asyncio.gather(*(self._get(a) for a in dict.fromkeys(_ASSET.findall(html))))
            self.assets_loaded = True
        await self._get("_stcore/health")
        await self._get("_stcore/host-config")
        stream = self.url.replace("http://", "ws://", 1) + "/_stcore/stream"
        async with connect(stream, subprotocols=["streamlit"], origin=self.url, max_size=None) as ws:
            first = BackMsg()
            first.rerun_script.query_string = query
            first.rerun_script.page_name = name
            await ws.send(first.SerializeToString())
            async for raw in ws:
                msg = ForwardMsg()
                msg.ParseFromString(raw)
                kind = msg.WhichOneof("type")
                if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                    self._element(visit, name, msg.delta.new_element, t)
                elif kind == "page_not_found":
                    visit.errors.append(f"{name}: page not found")
                elif kind == "script_finished":
                    visit.finished_s = time.perf_counter() - t
                    if msg.script_finished != ForwardMsg.FINISHED_SUCCESSFULLY:
                        visit.errors.append(f"{name}: the script run ended with status {msg.script_finished}")
                    return
        visit.errors.append(f"{name}: the server closed the session before the page was complete")

    @staticmethod
    def _element(visit: Visit, name: str, element, t: float) -> None:
        kind = element.WhichOneof("type")
        if kind in TABLE_ELEMENTS:
            if visit.first_table_s is None:
                visit.first_table_s = time.perf_counter() - t
            visit.tables.append(getattr(element, kind).arrow_data.data)
        elif kind == "exception":
            visit.errors.append(f"{name}: the page shows an exception")
        elif kind == "alert" and element.alert.format == Alert.ERROR:
            visit.errors.append(f"{name}: the page shows an error: {element.alert.body[:120]}")
