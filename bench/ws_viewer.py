"""A viewer session without a browser, for `make load` (bench/load_test.py, ``--ws-viewers``; issue #21).

One Debian Chromium tab per session costs more CPU than the server's work for it (40 tabs used 1,721 s of CPU
against the three replicas' 266 s on this 2-core machine), so the browser, not the app, was the limit of a
40-session run. :class:`ProtocolViewer` is one Streamlit session kept the way the browser keeps it, over the
same websocket (``/_stcore/stream``, subprotocol ``streamlit``) with Streamlit's own protobuf messages
(``streamlit.proto``), and without drawing anything:

* it loads the app like a tab does: GET ``/`` first (behind nginx this sets the sticky route cookie), then the
  websocket with that cookie, and a ``rerun_script`` BackMsg for the page; it reads every ForwardMsg until
  ``script_finished``;
* a page switch is a ``rerun_script`` naming the page's script hash (from the ``navigation`` message) with an
  empty query string, as the sidebar link does; an input change is a ``rerun_script`` for the same page with
  the widget's new value (a ``WidgetState`` on the widget's element id, found by its key);
* it keeps the address's query string as the browser does (``page_info_changed``: the app writes the scenario
  into ``?s=``), and when the socket drops (a killed replica) it reconnects with the same route cookie and
  reruns its page with that query string, as the browser does;
* it reads what each run drew: the text of every element with a ``body`` (markdown, headings, alerts,
  captions), widget elements by key, chart specs by key, and any ``exception`` element.

The server cannot tell it from a browser: the same session, script runs, widgets and caches. What it leaves
out is the browser's rendering, so its times are the server's answer plus the loopback network.
"""

from __future__ import annotations

import asyncio
import re
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench.cluster import ROUTE_COOKIE  # nginx's sticky route cookie


class SessionDropped(ConnectionError):
    """The websocket closed while a run was awaited (the replica went away)."""


@dataclass
class RunResult:
    """What one script run drew, in order."""

    seconds: float
    texts: list[str] = field(default_factory=list)
    widgets: dict[str, object] = field(default_factory=dict)  # widget element id -> its proto (slider, checkbox...)
    charts: dict[str, str] = field(default_factory=dict)      # plotly chart id -> its figure spec (JSON)
    exceptions: list[str] = field(default_factory=list)
    page: str = ""                                            # URL path of the page that ran ("" = home)

    def text(self, pattern: re.Pattern[str]) -> str | None:
        """The first text the run drew that ``pattern`` matches (Markdown's ** markers removed), or None."""
        for t in self.texts:
            plain = t.replace("**", "")
            if pattern.search(plain):
                return plain
        return None

    def widget(self, key: str):
        """The element of the widget with user key ``key`` (its id ends with ``-key``)."""
        for wid, proto in self.widgets.items():
            if wid.endswith(f"-{key}"):
                return proto
        raise KeyError(f"no widget with key {key!r} on {self.page or 'home'}")

    def chart(self, key: str) -> str:
        for cid, spec in self.charts.items():
            if cid.endswith(f"-{key}"):
                return spec
        raise KeyError(f"no chart with key {key!r} on {self.page or 'home'}")


def widget_value(proto) -> object:
    """The value a widget element shows: the session's value when the server sent one, else its default."""
    value = proto.value if getattr(proto, "set_value", False) else proto.default
    if hasattr(value, "__len__") and not isinstance(value, str):
        return list(value)
    return value


def widget_state(proto, value: object) -> WidgetState:
    """The WidgetState the browser sends for ``proto`` taking ``value`` (the field per widget kind is the one
    Streamlit's frontend sets: slider → double array, checkbox/toggle → bool, number input → int or double by
    its data type, button → trigger)."""
    state = WidgetState(id=proto.id)
    kind = proto.DESCRIPTOR.name
    if kind == "Slider":
        state.double_array_value.data.extend(value if isinstance(value, list) else [float(value)])
    elif kind == "Checkbox":
        state.bool_value = bool(value)
    elif kind == "NumberInput":
        if proto.data_type == proto.INT:
            state.int_value = int(value)
        else:
            state.double_value = float(value)
    elif kind == "Button":
        state.trigger_value = True
    else:
        raise NotImplementedError(f"widget kind {kind} (id {proto.id})")
    return state


class ProtocolViewer:
    """One Streamlit session over the websocket protocol (see the module docstring)."""

    def __init__(self, url: str, timeout_s: float = 300.0):
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self.cookie: str | None = None
        self.replica = ""               # behind nginx: the X-Replica header of the last GET (upstream address)
        self.query_string = ""          # the address's query string, as the app last set it
        self.page = ""                  # URL path of the current page
        self.hashes: dict[str, str] = {}  # URL path -> page script hash
        self.last: RunResult | None = None
        self.reconnects: list[float] = []  # seconds from the drop to the first finished run on the new socket
        self._ws: Any = None

    # -- connection ------------------------------------------------------------------------------------------

    def _get(self, path: str) -> None:
        """A GET as the browser's page load; keeps the route cookie nginx sets (none without nginx)."""
        headers = {"Cookie": f"{ROUTE_COOKIE}={self.cookie}"} if self.cookie else {}
        with urllib.request.urlopen(urllib.request.Request(self.url + path, headers=headers), timeout=30) as resp:
            resp.read()
            self.replica = resp.headers.get("X-Replica", "")
            for value in resp.headers.get_all("Set-Cookie") or []:
                match = re.match(rf"{ROUTE_COOKIE}=([^;]+)", value)
                if match:
                    self.cookie = match.group(1)

    async def _open_socket(self) -> None:
        from websockets.asyncio.client import connect

        headers = {"Cookie": f"{ROUTE_COOKIE}={self.cookie}"} if self.cookie else {}
        self._ws = await connect(self.url.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit"],
                                 additional_headers=headers, max_size=None, open_timeout=self.timeout_s,
                                 ping_interval=None, compression=None)

    async def open(self, page: str = "", query_string: str = "") -> RunResult:
        """Load the app at ``/page?query_string`` in a new session (a new tab)."""
        await asyncio.to_thread(self._get, "/" + page)
        await self._open_socket()
        self.query_string = query_string
        return await self._run(page_hash="", page=page, states=(), query_string=query_string)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
            self._ws = None

    async def reconnect(self, dropped_at: float) -> RunResult:
        """After the socket dropped: a new socket with the same cookie (nginx sends it to a live replica) and a
        rerun of the current page with the address's query string, as the browser does."""
        await self.close()
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                await asyncio.to_thread(self._get, "/_stcore/health")
                await self._open_socket()
                result = await self._run(self.hashes.get(self.page, ""), self.page, (), self.query_string)
                break
            except (OSError, SessionDropped):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(1.0)  # Streamlit's frontend retries with a back-off of about a second
        self.reconnects.append(time.monotonic() - dropped_at)
        return result

    # -- runs ------------------------------------------------------------------------------------------------

    async def goto(self, page: str) -> RunResult:
        """A sidebar link: the page's script hash, no query string, no widget states."""
        return await self._run(self.hashes[page], page, (), "")

    async def set(self, key: str, value: object) -> RunResult:
        """Change one widget of the current page (by key) to ``value``; a button (value ignored) is clicked."""
        assert self.last is not None
        state = widget_state(self.last.widget(key), value)
        return await self._run(self.hashes.get(self.page, ""), self.page, (state,), self.query_string)

    async def _run(self, page_hash: str, page: str, states: tuple[WidgetState, ...], query_string: str) -> RunResult:
        from websockets.exceptions import ConnectionClosed

        msg = BackMsg()
        client = msg.rerun_script
        client.query_string = query_string
        client.page_script_hash = page_hash
        if not page_hash:
            client.page_name = page  # a first load of /page: the browser names the page by its URL path
        client.widget_states.SetInParent()
        client.widget_states.widgets.extend(states)
        t0 = time.perf_counter()
        result = RunResult(seconds=0.0, page=page)
        try:
            await self._ws.send(msg.SerializeToString())
            while True:
                raw = await asyncio.wait_for(self._ws.recv(), self.timeout_s)
                fwd = ForwardMsg()
                fwd.ParseFromString(raw)
                kind = fwd.WhichOneof("type")
                if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                    self._read_element(fwd.delta.new_element, result)
                elif kind == "navigation":
                    self.hashes = {p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages}
                    by_hash = {h: p for p, h in self.hashes.items()}
                    result.page = by_hash.get(fwd.navigation.page_script_hash, result.page)
                    result.texts.clear()  # a st.rerun or page switch inside the run starts its drawing again
                    result.widgets.clear()
                    result.charts.clear()
                elif kind == "page_info_changed":
                    self.query_string = fwd.page_info_changed.query_string
                elif kind == "page_not_found":
                    raise RuntimeError(f"page not found: {page!r}")
                elif kind == "script_finished":
                    status = fwd.script_finished
                    if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        continue
                    if status not in (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                        raise RuntimeError(f"script run on {page or 'home'} finished with status {status}")
                    break
        except ConnectionClosed as exc:
            raise SessionDropped(f"websocket closed: {exc}") from exc
        result.seconds = time.perf_counter() - t0
        self.page = result.page
        self.last = result
        if result.exceptions:
            raise RuntimeError(f"exception shown on {page or 'home'}: {result.exceptions[0][:160]}")
        return result

    @staticmethod
    def _read_element(element, result: RunResult) -> None:
        kind = element.WhichOneof("type")
        if kind is None:
            return
        proto = getattr(element, kind)
        if kind == "exception":
            result.exceptions.append(f"{proto.type}: {proto.message}")
            return
        if kind == "plotly_chart":
            result.charts[proto.id] = proto.spec
            return
        if kind == "metric":
            result.texts.append(f"{proto.label}: {proto.body}")
            return
        body = getattr(proto, "body", None)
        if isinstance(body, str) and body:
            result.texts.append(body)
        wid = getattr(proto, "id", None)
        if isinstance(wid, str) and wid.startswith("$$ID-"):
            result.widgets[wid] = proto
