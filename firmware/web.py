"""A read-only scoreboard page for the room: ``ringside run --web HOST:PORT`` (and ``demo --web``).

The OLED panels are 128x64 pixels; the page shows the table's story on a phone
or a TV: every player's score and what their panel shows, the move list, the
last illegal move with its reason, the hints, the annotated camera view and,
at the end, the score sheet. Changes are pushed to open pages (Server-Sent
Events), never polled by reloading.

What is exposed, and nothing else (all GET, nothing changes the game):

* ``/``: the page;
* ``/state.json``: ``game``, ``players`` (name, score, panel), ``moves``, ``status`` and more;
* ``/record.json``: the game record, as ``ringside export`` writes it;
* ``/camera.jpg``: the annotated camera view of the last judged view;
* ``/panel/NAME.png``: what a panel shows (``centre`` for the central one);
* ``/events``: the stream of changes.

It is off unless asked for. Bound to a loopback address (the default: only
this machine) it needs no token; bound to anything else every request must
carry the access token (``?token=...``, or ``Authorization: Bearer ...``),
which is generated and printed at start-up unless the configuration gives one.

The server (aiohttp) runs in a thread of its own with its own event loop; the
referee's loop only hands it finished snapshots (`WebServer.publish`), so a
slow or stalled page never slows the frame loop.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import multiprocessing
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

__all__ = ["PAGE", "WebError", "WebServer", "is_loopback", "parse_address", "snapshot"]

#: Seconds between keep-alive comments on an idle event stream (proxies drop silent connections).
KEEPALIVE_S = 15.0


class WebError(ValueError):
    """A web address or token that cannot be used (one line)."""


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` -> (host, port); no host means 127.0.0.1 (this machine only).

    >>> parse_address("8080"), parse_address(":8080"), parse_address("0.0.0.0:80")
    (('127.0.0.1', 8080), ('127.0.0.1', 8080), ('0.0.0.0', 80))

    :raises WebError: for a port that is not a whole number from 1 to 65535.
    """
    host, _, port_text = text.strip().rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise WebError(f"--web takes HOST:PORT or PORT, e.g. 8080 or 0.0.0.0:8080, not {text!r}") from None
    if not 1 <= port <= 65535:
        raise WebError(f"--web: the port must be 1 to 65535, not {port}")
    return host, port


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class _Shared:
    """What the page shows now; written by the referee's thread, read by the server's."""

    version: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] | None = None
    panels: dict[str, bytes] = field(default_factory=dict)
    camera: bytes | None = None


def _token(host: str, token: str | None) -> str | None:
    if token is None and not is_loopback(host):
        token = secrets.token_urlsafe(12)
    if token is not None and not token.strip():
        raise WebError("the web access token is empty: give one, or leave it out to get a new one")
    return token


def _url(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


class WebServer:
    """The scoreboard server. `start` it, `publish` snapshots from the referee's loop, `close` it.

    The server runs in a process of its own (on a Pi, on another core): pages being
    served never take the interpreter from the frame loop, which only hands over the
    newest snapshot (a thread of ours sends it; a slow page never blocks `publish`).

    :param token: required on every request when not None (the default for a
        non-loopback host is a fresh random token: read it from ``token``).
    :raises WebError: for a non-loopback host with an empty token.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 8080, token: str | None = None) -> None:
        self.host, self.port, self.token = host, port, _token(host, token)
        self._process: Any = None
        self._conn: Any = None
        self._pending: list[Any] | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._sender: threading.Thread | None = None
        self._closed = False

    @property
    def url(self) -> str:
        """The page's address (with the token when one is needed)."""
        return _url(self.host, self.port, self.token)

    def start(self) -> str:
        """Start the server process; returns `url`.

        :raises WebError: when the address cannot be bound (in use, not this machine's).
        """
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve_in_process, args=(self.host, self.port, self.token, child),
                                        name="ringside-web", daemon=True)
        self._process.start()
        child.close()
        if not self._conn.poll(60.0):
            self.close()
            raise WebError(f"the page's server on {self.host}:{self.port} did not start")
        kind, value = self._conn.recv()
        if kind != "ready":
            self.close()
            raise WebError(str(value))
        self.port = int(value)
        self._sender = threading.Thread(target=self._send, name="ringside-web-feed", daemon=True)
        self._sender.start()
        return self.url

    def publish(self, state: Mapping[str, Any], record: Mapping[str, Any] | None = None,
                panels: Mapping[str, bytes] | None = None,
                camera: bytes | Callable[[], bytes | None] | None = None) -> None:
        """Show a new snapshot (returns at once). Parts left as None keep what they were.

        ``camera`` is the JPEG of the camera view, or a function that makes it (called in
        the feeding thread, so that drawing and encoding it never delays the frame loop).
        Snapshots not yet sent are merged: the newest state, with the newest record,
        panels and camera view handed over since the last one sent.
        """
        with self._lock:
            old = self._pending
            self._pending = [dict(state),
                             dict(record) if record is not None else (old[1] if old else None),
                             dict(panels) if panels is not None else (old[2] if old else None),
                             camera if camera is not None else (old[3] if old else None)]
        self._wake.set()

    def _send(self) -> None:
        while not self._closed:
            self._wake.wait()
            self._wake.clear()
            with self._lock:
                pending, self._pending = self._pending, None
            if pending is None or self._closed:
                continue
            if callable(pending[3]):
                pending[3] = pending[3]()
            try:
                self._conn.send(("show", *pending))
            except (OSError, ValueError):  # the server process is gone: the referee goes on without it
                return

    def close(self) -> None:
        """Stop the server. Closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        self._wake.set()
        if self._conn is not None:
            try:
                self._conn.send(("stop",))
            except (OSError, ValueError):
                pass
        if self._process is not None:
            self._process.join(5.0)
            if self._process.is_alive():
                self._process.terminate()
                self._process.join(2.0)
            self._process = None
        if self._conn is not None:
            self._conn.close()

    def __enter__(self) -> WebServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _serve_in_process(host: str, port: int, token: str | None, conn: Any) -> None:
    """The server process: serve, and show every snapshot the referee's process sends."""
    server = _Server(host, port, token)
    try:
        server.start()
    except WebError as exc:
        conn.send(("error", str(exc)))
        return
    conn.send(("ready", server.port))
    try:
        while True:
            message = conn.recv()
            if message[0] != "show":
                break
            server.publish(*message[1:])
    except (EOFError, OSError, KeyboardInterrupt):
        pass
    finally:
        server.close()


class _Server:
    """The page's aiohttp server in a thread with its own event loop (inside the server process)."""

    def __init__(self, host: str, port: int, token: str | None) -> None:
        self.host, self.port, self.token = host, port, token
        self._shared = _Shared()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._changed: asyncio.Condition | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._camera_version = 0
        self._payload: tuple[int, bytes] = (-1, b"")

    def start(self) -> str:
        """Serve in a background thread; returns the page's address.

        :raises WebError: when the address cannot be bound (in use, not this machine's).
        """
        self._thread = threading.Thread(target=self._serve, name="ringside-web", daemon=True)
        self._thread.start()
        self._started.wait(10.0)
        if self._error is not None:
            raise WebError(f"cannot serve the page on {self.host}:{self.port}: {self._error}") from None
        return _url(self.host, self.port, self.token)

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._open())
        except OSError as exc:
            self._error = OSError(exc.strerror or str(exc))
            self._started.set()
            loop.close()
            return
        self._started.set()
        try:
            loop.run_forever()
        finally:
            if self._runner is not None:
                loop.run_until_complete(self._runner.cleanup())
            loop.close()

    async def _open(self) -> None:
        self._changed = asyncio.Condition()
        app = web.Application(middlewares=[self._guard])
        app.router.add_get("/", self._page)
        app.router.add_get("/state.json", self._state)
        app.router.add_get("/record.json", self._record)
        app.router.add_get("/camera.jpg", self._camera)
        app.router.add_get("/panel/{name}.png", self._panel)
        app.router.add_get("/events", self._events)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        if self.port == 0:  # an ephemeral port (tests): read back the one the system chose
            server = getattr(site, "_server", None)
            sockets = getattr(server, "sockets", None) or []
            if sockets:
                self.port = int(sockets[0].getsockname()[1])

    def close(self) -> None:
        """Stop serving. Closing twice is harmless."""
        loop, self._loop = self._loop, None
        if loop is not None and loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None

    # -- what the referee hands over ---------------------------------------------------

    def publish(self, state: Mapping[str, Any], record: Mapping[str, Any] | None = None,
                panels: Mapping[str, bytes] | None = None, camera: bytes | None = None) -> None:
        """Show a new snapshot (thread-safe, returns at once). Parts left as None keep what they were."""
        shared = self._shared
        shared.state = dict(state)
        if record is not None:
            shared.record = dict(record)
        if panels is not None:
            shared.panels = dict(panels)
        if camera is not None:
            shared.camera = camera
            self._camera_version += 1
        shared.version += 1
        shared.state["version"] = shared.version
        shared.state["camera_version"] = self._camera_version
        loop = self._loop
        if loop is not None and loop.is_running():
            loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self._notify()))

    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()

    # -- requests ---------------------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            return web.Response(status=405, text="this page is read-only\n")
        if self.token is not None:
            given = request.query.get("token", "")
            auth = request.headers.get("Authorization", "")
            if auth.startswith("Bearer "):
                given = auth[7:]
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return web.Response(status=401, text="this page needs its access token (?token=...)\n")
        response: web.StreamResponse = await handler(request)
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html", charset="utf-8")

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(self._shared.state)

    async def _record(self, request: web.Request) -> web.Response:
        if self._shared.record is None:
            return web.json_response({"error": "no game has started yet"}, status=404)
        return web.json_response(self._shared.record)

    async def _camera(self, request: web.Request) -> web.Response:
        if self._shared.camera is None:
            return web.Response(status=404, text="no camera view yet\n")
        return web.Response(body=self._shared.camera, content_type="image/jpeg")

    async def _panel(self, request: web.Request) -> web.Response:
        image = self._shared.panels.get(request.match_info["name"])
        if image is None:
            return web.Response(status=404, text="no such panel\n")
        return web.Response(body=image, content_type="image/png")

    def _event(self) -> bytes:
        """The current state as one event, serialised once per version however many pages are open."""
        version = self._shared.version
        if self._payload[0] != version:
            self._payload = (version, f"data: {json.dumps(self._shared.state, separators=(',', ':'))}\n\n".encode())
        return self._payload[1]

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"})
        await response.prepare(request)
        assert self._changed is not None
        seen = -1
        try:
            while True:
                if self._shared.version != seen:
                    seen = self._shared.version
                    await response.write(self._event())
                    continue
                async with self._changed:
                    try:
                        await asyncio.wait_for(self._changed.wait(), KEEPALIVE_S)
                    except TimeoutError:
                        await response.write(b": still here\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return response


def snapshot(referee: Any, lost: str = "",
             cache: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """What the page shows of a `firmware.referee.Referee` now: the state JSON and the game record.

    Runs in the referee's thread (it reads the journal); the server only serves the result.
    ``cache`` (kept by the caller between calls) saves replaying a record that has not changed.
    """
    from firmware.referee import Mode

    live, table, game = referee.live, referee.table, referee.game
    try:
        record: dict[str, Any] | None = live.export()
    except Exception:  # noqa: BLE001 - before the first part there is no record yet
        record = None
    results: Mapping[str, Any] = {}
    if record is not None:
        key = json.dumps(record, sort_keys=True)
        if cache is not None and cache.get("key") == key:
            results = cache["results"]
        else:
            try:
                results = game.replay(record).data
            except Exception:  # noqa: BLE001 - an overridden illegal move still shows; its scores may not
                results = {}
            if cache is not None:
                cache.update(key=key, results=results)
    scores = results.get("scores") if isinstance(results.get("scores"), Mapping) else None
    state = referee.state
    to_move = game.current_player(state)
    moves: list[str] = []
    if record is not None:
        hands = record.get("hands")
        parts: list[Any] = hands if isinstance(hands, list) else [record]
        word = table.part_word
        for number, part in enumerate(parts, 1):
            prefix = f"{word} {number}: " if word and len(parts) > 1 else ""
            moves.extend(prefix + str(m) for m in part.get("moves", []))
    illegal = None
    if referee.mode is Mode.ILLEGAL and referee.pending is not None:
        reason = next(iter(referee.warnings.values()), referee.last_event)
        illegal = {"move": game.format_move(state, referee.pending), "reason": reason}
    central = referee.central()
    data: dict[str, Any] = {
        "game": game.name,
        "title": central.title,
        "unit": game.info.score_unit,
        "status": "camera lost" if lost else referee.mode.value,
        "turn": central.turn,
        "part": referee.part_number,
        "players": [
            {"name": name, "score": (scores or {}).get(name), "to_move": to_move == seat}
            for seat, name in enumerate(live.players)
        ],
        "moves": moves,
        "last_event": lost or referee.last_event,
        "hint": referee.hint,
        "illegal": illegal,
        "finished": referee.mode is Mode.GAME_OVER,
        "score_sheet": _sheet(game, record) if referee.mode is Mode.GAME_OVER and record is not None else "",
    }
    return data, record


def _sheet(game: Any, record: Mapping[str, Any]) -> str:
    try:
        return str(game.replay(record).text)
    except Exception:  # noqa: BLE001
        return ""


#: The page: plain HTML, CSS and a few lines of JavaScript, no outside files; phone width first.
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ringside</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#111;color:#eee}
header{padding:.6em 1em;background:#2a1a3a;display:flex;flex-wrap:wrap;gap:.5em 1.5em;align-items:baseline}
h1{font-size:1.3em;margin:0}#status{color:#fc6}main{display:grid;gap:1em;padding:1em;
grid-template-columns:repeat(auto-fit,minmax(300px,1fr))}section{background:#1d1d1d;border-radius:8px;padding:.8em}
h2{font-size:1em;margin:0 0 .5em;color:#aaa}table{border-collapse:collapse;width:100%}
td,th{padding:.25em .4em;text-align:left;border-bottom:1px solid #333}td.score{text-align:right;font-size:1.3em}
img.panel{image-rendering:pixelated;width:192px;max-width:100%;background:#000;border:1px solid #444}
img#camera{width:100%;border-radius:4px}#illegal{color:#f66}#hint{color:#8cf}
ol{max-height:16em;overflow:auto;margin:0;padding-left:2.2em}pre{white-space:pre-wrap;font-size:.85em}
.turn{color:#fc6}
</style></head><body>
<header><h1 id="title">Ringside</h1><span id="status">connecting...</span></header>
<main>
<section><h2>Players</h2><table id="players"></table></section>
<section><h2>The table</h2><p id="event"></p><p id="illegal"></p><p id="hint"></p>
<img class="panel" id="centre" alt="central panel"></section>
<section><h2>What the camera sees</h2><p id="nocamera">No view judged yet.</p>
<img id="camera" alt="the camera's view" hidden></section>
<section><h2>Moves</h2><ol id="moves"></ol></section>
<section id="sheet" hidden><h2>Score sheet</h2><pre id="sheettext"></pre></section>
</main>
<script>
const token = new URLSearchParams(location.search).get("token");
const q = token ? "?token=" + encodeURIComponent(token) : "";
const amp = token ? "&token=" + encodeURIComponent(token) : "";
const $ = id => document.getElementById(id);
function text(id, t) { $(id).textContent = t || ""; }
let cameraSeen = -1;
function show(s) {
  text("title", s.title || s.game);
  text("status", s.status + (s.turn ? " - " + s.turn : ""));
  text("event", s.last_event); text("hint", s.hint ? "Hint: " + s.hint : "");
  text("illegal", s.illegal ? "Illegal: " + s.illegal.move + " - " + s.illegal.reason : "");
  const rows = (s.players || []).map(p => {
    const src = "/panel/" + encodeURIComponent(p.name) + ".png?v=" + s.version + amp;
    return `<tr class="${p.to_move ? "turn" : ""}"><td>${p.to_move ? "&#9654; " : ""}${esc(p.name)}</td>` +
      `<td class="score">${p.score ?? ""}</td>` +
      `<td><img class="panel" alt="${esc(p.name)}'s panel" src="${src}"></td></tr>`;
  });
  $("players").innerHTML = "<tr><th>Player</th><th>" + esc(s.unit || "score") + "</th><th>Panel</th></tr>" + rows.join("");
  $("centre").src = "/panel/centre.png?v=" + s.version + amp;
  if (s.camera_version && s.camera_version !== cameraSeen) {
    cameraSeen = s.camera_version; $("camera").src = "/camera.jpg?v=" + cameraSeen + amp;
    $("camera").hidden = false; $("nocamera").hidden = true;
  }
  $("moves").innerHTML = (s.moves || []).map(m => `<li>${esc(m)}</li>`).join("");
  $("moves").scrollTop = $("moves").scrollHeight;
  $("sheet").hidden = !s.score_sheet; text("sheettext", s.score_sheet);
}
function esc(t) { return String(t).replace(/[&<>"']/g, c => "&#" + c.charCodeAt(0) + ";"); }
const events = new EventSource("/events" + q);
events.onmessage = e => show(JSON.parse(e.data));
events.onerror = () => text("status", "reconnecting...");
</script></body></html>
"""
