"""Two small local web apps on the standard library's HTTP server (no framework, no CDN).

``mtp-gym serve``: a person picks an env and a configuration (a query game: also its level and
a probe) and plays it in the browser, with buttons and lists where the game allows
(:mod:`mtp_gym.web.controls`) and free text always; each finished game is appended to
``OUT/human_<name>/episodes.jsonl`` as agent ``human:<name>`` (:mod:`mtp_gym.eval.human`),
stamped with the env kwargs it was played with, so ``mtp-gym report OUT`` shows it.

``mtp-gym view DIR``: serves a report directory (``report.html`` and its files; nothing a
symlink points to outside it).

Both listen on 127.0.0.1 by default: the play API runs envs for whoever can reach it. Every
server here (and ``mtp-gym serve-env``, through :class:`HostPolicy`) answers only requests
whose ``Host`` names it (its address and port, or localhost / 127.0.0.1 / [::1]; when bound
to a non-loopback address, that address too, and for 0.0.0.0 this machine's names and IP
addresses) and whose ``Origin``, when sent, is such a page: a web page of another site
cannot drive it, by DNS rebinding or by cross-origin ``text/plain`` POSTs (403).

Resources are bounded: a few handler threads serve every connection (:class:`BoundedHTTPServer`:
idle connections wait in one selector thread, are dropped after ``IDLE_CONNECTION_SECONDS``,
and past ``MAX_CONNECTIONS`` a new one gets a 503); the play app holds at most
``max_sessions`` games and refuses a new one (503) rather than evict a game in play (only
games idle for ``IDLE_SECONDS`` and finished games are dropped).
"""

from __future__ import annotations

import ipaddress
import json
import queue
import secrets
import selectors
import socket
import sys
import threading
import time
from collections.abc import Iterable
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer, SimpleHTTPRequestHandler
from importlib import resources
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import gymnasium as gym

from mtp_gym import puzzle_class, puzzle_info
from mtp_gym.core import TextPuzzleEnv
from mtp_gym.episode import EpisodeResult, public_info
from mtp_gym.eval.catalog import env_table
from mtp_gym.eval.human import check_name, log_human_episode
from mtp_gym.eval.log import CONFIG_NAME, ConfigMismatch, RunLocked, to_jsonable
from mtp_gym.games.env import GameEnv
from mtp_gym.registration import ENV_IDS
from mtp_gym.web.controls import controls
from mtp_gym.wrappers.probes import PROBES

__all__ = [
    "BoundedHTTPServer",
    "HostPolicy",
    "PlayApp",
    "exposure_warning",
    "is_loopback",
    "make_play_server",
    "make_view_server",
    "run_until_interrupted",
]

STATIC = ("play.html", "play.js", "play.css", "pretty.js")
SHARED = "pretty.js"
#: Games idle longer than this are dropped; at most ``MAX_SESSIONS`` are held (a new game over
#: the cap is refused, never a game in play evicted).
IDLE_SECONDS = 2 * 3600
MAX_SESSIONS = 256
#: Handler threads of a server, connections it holds at once, and how long one may stay idle.
WORKERS = 8
MAX_CONNECTIONS = 512
IDLE_CONNECTION_SECONDS = 15.0
MAX_BODY = 1_000_000
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})


# ------------------------------------------------------------------ Host and Origin
def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is this machine only."""
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, what: str) -> str | None:
    """The warning to print when a server listens on ``host`` beyond this machine, else ``None``."""
    if is_loopback(host):
        return None
    return (
        f"warning: --host {host} is not a loopback address: anyone who can reach this machine can {what}, "
        "with no password. Requests must name this server in Host and pages of other sites are refused "
        "(403), but use --host 127.0.0.1 unless you mean to serve a network."
    )


def _split_host(value: str, default_port: int) -> tuple[str, int] | None:
    """``(name, port)`` of a Host header (``name``, ``name:port``, ``[v6]:port``), else ``None``."""
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port = rest[1:]
    else:
        name, _, port = value.partition(":")
    if not name or not all(c.isalnum() or c in ".-:_" for c in name) or (":" in name and not value.startswith("[")):
        return None
    if not port:
        return name, default_port
    if not port.isdigit() or len(port) > 5:
        return None
    return name, int(port)


def _split_origin(value: str) -> tuple[str, int] | None:
    """``(host, port)`` of an ``Origin`` header (http or https), else ``None`` (``null`` included)."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.hostname.lower(), port if port is not None else (443 if parts.scheme == "https" else 80)


class HostPolicy:
    """Which ``Host`` and ``Origin`` headers a local server answers.

    Allowed hosts: localhost, 127.0.0.1 and [::1], plus every address or name in ``hosts`` (the
    ones the server listens on); a wildcard (``0.0.0.0``, ``::``) adds this machine's host
    names and any IP address. With ``port``, the Host must carry it (no port: 80). An
    ``Origin``, when sent, must be an allowed host too, or the request's own Host (so a page
    this server sent by IP address may call it back). Names outside the list, as a DNS
    rebinding attack sends, and pages of other sites are refused.
    """

    def __init__(self, hosts: Iterable[str], port: int | None) -> None:
        names = set(LOOPBACK_NAMES)
        self.any_address = False
        for host in hosts:
            name = host.strip().strip("[]").lower()
            if name in WILDCARDS:
                self.any_address = True
                names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
            else:
                names.add(name)
        self.names = frozenset(names - {""})
        self.port = port

    def allows(self, name: str, port: int) -> bool:
        """Whether a request may name the server as ``name:port``."""
        if self.port is not None and port != self.port:
            return False
        if name in self.names:
            return True
        if self.any_address:
            try:
                ipaddress.ip_address(name)
                return True
            except ValueError:
                return False
        return False

    def describe(self) -> str:
        """The allowed hosts, for messages."""
        port = "" if self.port is None else f":{self.port}"
        shown = [f"[{n}]{port}" if ":" in n else f"{n}{port}" for n in sorted(self.names)]
        return ", ".join(shown) + (" or any IP address of this machine" if self.any_address else "")

    def refusal(self, hosts: list[str], origins: list[str]) -> str | None:
        """Why a request with these ``Host`` and ``Origin`` header values is refused, else ``None``."""
        if len(hosts) > 1 or len(origins) > 1:
            return "Host/Origin: a request may carry one Host and at most one Origin header"
        own = None
        if hosts:
            own = _split_host(hosts[0], 80)
            if own is None or not self.allows(*own):
                return (
                    f"Host: {hosts[0]!r} does not name this server (a page of another site, e.g. by DNS "
                    f"rebinding?); allowed: {self.describe()}"
                )
        if origins:
            origin = _split_origin(origins[0])
            if origin is None or not (origin == own or (origin[0] in self.names and self.allows(*origin))):
                return (
                    f"Origin: {origins[0]!r} is a page of another site, which may not use this server; "
                    f"allowed: pages of {self.describe()}"
                )
        return None


# ------------------------------------------------------------------ the bounded server
class BoundedHTTPServer(HTTPServer):
    """An ``HTTPServer`` with bounded threads and connections, that checks ``Host`` and ``Origin``.

    The accept loop hands each connection to one selector thread, which waits until the client
    sends something (dropping it after ``idle_seconds``) and then queues it for ``workers``
    handler threads; past ``max_connections`` open connections a new one gets a 503 at once.
    400 idle connections cost 400 descriptors, no thread. ``policy`` decides the allowed
    ``Host``/``Origin`` headers (default: the address and port it listens on).
    """

    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler] | partial,
        workers: int = WORKERS,
        max_connections: int = MAX_CONNECTIONS,
        idle_seconds: float = IDLE_CONNECTION_SECONDS,
    ) -> None:
        self.workers, self.max_connections, self.idle_seconds = workers, max_connections, idle_seconds
        self._lock = threading.Lock()
        self._open = 0
        self._new: list[tuple[socket.socket, Any]] = []
        self._jobs: queue.SimpleQueue[tuple[socket.socket, Any] | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        super().__init__(address, handler)  # binds (and closes itself when that fails)
        self.policy = HostPolicy([address[0], cast(str, self.server_address[0])], self.server_address[1])

    @property
    def open_connections(self) -> int:
        """Connections accepted and not yet closed."""
        return self._open

    def _start(self) -> None:
        with self._lock:
            if self._threads or self._closed:
                return
            self._threads = [threading.Thread(target=self._wait, name="http-wait", daemon=True)]
            self._threads += [
                threading.Thread(target=self._work, name=f"http-worker-{i}", daemon=True) for i in range(self.workers)
            ]
        for thread in self._threads:
            thread.start()

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"x")
        except OSError:  # the buffer is full: the selector thread wakes anyway
            pass

    def process_request(self, request: Any, client_address: Any) -> None:
        self._start()
        with self._lock:
            accept = self._open < self.max_connections and not self._closed
            if accept:
                self._open += 1
                self._new.append((request, client_address))
        if not accept:
            self._refuse(request)
            return
        self._wake()

    def _refuse(self, request: socket.socket) -> None:
        body = json.dumps(
            {"error": f"server busy: {self.max_connections} connections are open (the cap); try again in a moment"}
        ).encode()
        head = (
            "HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        try:
            request.setblocking(False)
            request.send(head.encode() + body)
        except OSError:
            pass
        self.shutdown_request(request)

    def _wait(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self._wake_r, selectors.EVENT_READ)
        since: dict[socket.socket, tuple[Any, float]] = {}
        while True:
            for key, _ in selector.select(timeout=min(1.0, self.idle_seconds)):
                if key.fileobj is self._wake_r:
                    try:
                        self._wake_r.recv(4096)
                    except OSError:
                        pass
                    continue
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                selector.unregister(sock)
                self._jobs.put((sock, since.pop(sock)[0]))
            with self._lock:
                new, self._new = self._new, []
                closed = self._closed
            now = time.monotonic()
            for sock, address in new:
                since[sock] = (address, now)
                selector.register(sock, selectors.EVENT_READ)
            expired = [s for s, (_, t) in since.items() if closed or now - t > self.idle_seconds]
            for sock in expired:
                selector.unregister(sock)
                del since[sock]
                self._drop(sock)
            if closed:
                selector.close()
                self._wake_r.close()
                self._wake_w.close()
                return

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            request, address = job
            try:
                self.finish_request(request, address)
            except Exception:
                self.handle_error(request, address)
            finally:
                self._drop(request)

    def _drop(self, request: socket.socket) -> None:
        self.shutdown_request(request)
        with self._lock:
            self._open -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # a client that went away is no error
            super().handle_error(request, client_address)

    def server_close(self) -> None:
        super().server_close()
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        if not threads:  # never served: no selector thread to close the wake-up pair
            self._wake_r.close()
            self._wake_w.close()
            return
        self._wake()
        for _ in threads[1:]:
            self._jobs.put(None)


class _Guarded(BaseHTTPRequestHandler):
    """A handler that refuses (403) requests whose ``Host`` or ``Origin`` the server's policy refuses."""

    server: BoundedHTTPServer
    timeout = IDLE_CONNECTION_SECONDS  # per read: a client that stops sending is dropped

    def log_message(self, format: str, *args: Any) -> None:  # quiet: one line per game, printed by the app
        pass

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        refusal = self.server.policy.refusal(self.headers.get_all("Host") or [], self.headers.get_all("Origin") or [])
        if refusal is not None:
            self.close_connection = True
            self._json(HTTPStatus.FORBIDDEN, {"error": refusal})
            return False
        return True

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


# ------------------------------------------------------------------ the play app
class BadRequest(ValueError):
    """A request the API refuses; the message says which field and what is allowed."""

    status = HTTPStatus.BAD_REQUEST


class Unavailable(RuntimeError):
    """A request the API cannot serve now (503); the message says why and what to do."""

    status = HTTPStatus.SERVICE_UNAVAILABLE


class _Session:
    def __init__(self, env_id: str, config_id: int, name: str, env_kwargs: dict[str, Any]) -> None:
        self.env_id, self.config_id, self.name, self.env_kwargs = env_id, config_id, name, env_kwargs
        self.env = gym.make(env_id, **env_kwargs)
        self.observation, self.info = self.env.reset(seed=config_id, options={"config_id": config_id})
        self.done = False
        self.started = self.touched = time.time()
        self.ended: float | None = None
        self.lock = threading.Lock()
        self.result: dict[str, Any] | None = None

    @property
    def puzzle(self) -> TextPuzzleEnv:
        """The text puzzle under gymnasium's wrappers."""
        return cast(TextPuzzleEnv, self.env.unwrapped)


class PlayApp:
    """The play API's state and logic (sessions, steps, logging), apart from HTTP.

    At most ``max_sessions`` games are held: a new one over the cap is refused (:class:`Unavailable`)
    unless games idle for ``idle_seconds`` or finished games can be dropped; a game in play is
    never evicted. A game is marked finished only once it is logged: when the log cannot be
    written, the step gets a 503 and the next step of that game writes it again.
    """

    def __init__(self, out: str | Path, max_sessions: int = MAX_SESSIONS, idle_seconds: float = IDLE_SECONDS) -> None:
        self.out = Path(out)
        self.max_sessions, self.idle_seconds = max_sessions, idle_seconds
        self.sessions: dict[str, _Session] = {}
        self.lock = threading.Lock()
        self._starting = 0
        self._envs: list[dict[str, Any]] | None = None

    def envs(self) -> list[dict[str, Any]]:
        """The menu: id, suite, split size; a query game's ``levels``, ``default_level`` and
        ``probes`` (empty for the other puzzles)."""
        if self._envs is None:
            self._envs = []
            for row in env_table():
                info = puzzle_info(row["id"])
                query_game = issubclass(puzzle_class(row["id"]), GameEnv)
                self._envs.append(
                    {
                        **{k: row[k] for k in ("id", "suite", "split")},
                        "levels": list(info.levels),
                        "default_level": info.default_level,
                        "probes": sorted(PROBES) if query_game else [],
                    }
                )
        return self._envs

    def _env_kwargs(self, row: dict[str, Any], name: str, body: dict[str, Any]) -> dict[str, Any]:
        """The env kwargs of a new game from the request's ``level`` and ``probe`` (the default
        level is left out, as the earlier logs of the page have it); refused when the player's
        log already holds this game with other kwargs (one setting per game and player)."""
        env_id, level, probe = row["id"], body.get("level"), body.get("probe")
        kwargs: dict[str, Any] = {}
        if level not in (None, ""):
            if isinstance(level, str) and level.isdecimal():
                level = int(level)
            if isinstance(level, bool) or level not in row["levels"]:
                allowed = row["levels"] or "none (it has no levels)"
                raise BadRequest(f"level: must be one of {allowed} for {env_id}, got {level!r}")
            if level != row["default_level"]:
                kwargs["difficulty"] = level
        if probe not in (None, ""):
            if probe not in row["probes"]:
                allowed = row["probes"] or "none (probes wrap the query games)"
                raise BadRequest(f"probe: must be one of {allowed} for {env_id}, got {probe!r}")
            kwargs["probe"] = probe
        config = self.out / f"human_{name}" / CONFIG_NAME
        try:
            logged = json.loads(config.read_text()).get("envs", {}).get(env_id)
        except (OSError, ValueError, AttributeError):
            logged = None
        if logged is not None and logged != to_jsonable(kwargs):
            raise BadRequest(
                f"level/probe: {name} has played {env_id} with env kwargs {logged} (in {config.parent}), "
                f"not {kwargs}; a player's log holds one setting per game: choose that level and probe, "
                "or play under another name"
            )
        return kwargs

    def _view(self, sid: str, s: _Session) -> dict[str, Any]:
        seen = [m["content"] for m in s.puzzle.transcript if m["role"] != "assistant"]
        return {
            "session": sid,
            "env_id": s.env_id,
            "config_id": s.config_id,
            "env_kwargs": s.env_kwargs,
            "observation": s.observation,
            "transcript": s.puzzle.transcript,
            "info": to_jsonable(public_info(s.info)),
            "done": s.done,
            "hint": s.puzzle.format_hint,
            "controls": [] if s.done else controls(s.env_id, seen),
            "result": s.result,
        }

    def start(self, body: dict[str, Any]) -> dict[str, Any]:
        env_id = body.get("env_id")
        if not isinstance(env_id, str) or env_id not in ENV_IDS:
            raise BadRequest(f"env_id: unknown {env_id!r}; allowed: {sorted(ENV_IDS)}")
        try:
            name = check_name(body.get("name"))
        except ValueError as err:
            raise BadRequest(str(err)) from None
        row = next(r for r in self.envs() if r["id"] == env_id)
        split = row["split"]
        config_id = body.get("config_id")
        if config_id in (None, ""):
            config_id = secrets.randbelow(split)
        if isinstance(config_id, str) and config_id.isdigit():
            config_id = int(config_id)
        if isinstance(config_id, bool) or not isinstance(config_id, int) or not 0 <= config_id < split:
            raise BadRequest(f"config_id: must be an int in [0, {split - 1}] for {env_id}, got {config_id!r}")
        env_kwargs = self._env_kwargs(row, name, body)
        with self.lock:
            self._expire()
            if len(self.sessions) + self._starting >= self.max_sessions:
                raise Unavailable(
                    f"sessions: {self.max_sessions} games are in play, the server's cap; no game is evicted. "
                    f"Finish one (games idle for {self.idle_seconds / 3600:g} h are dropped) and start again"
                )
            self._starting += 1
        try:
            session = _Session(env_id, config_id, name, env_kwargs)
        finally:
            with self.lock:
                self._starting -= 1
        sid = secrets.token_urlsafe(12)
        with self.lock:
            self.sessions[sid] = session
        return self._view(sid, session)

    def _expire(self) -> None:
        """Drop idle games, then finished ones (oldest first) while at the cap; never one in play."""
        now = time.time()
        for sid in [k for k, s in self.sessions.items() if now - s.touched > self.idle_seconds]:
            self.sessions.pop(sid).env.close()
        finished = sorted((s.touched, k) for k, s in self.sessions.items() if s.result is not None)
        for _, sid in finished[: max(0, len(self.sessions) + self._starting + 1 - self.max_sessions)]:
            self.sessions.pop(sid).env.close()

    def step(self, body: dict[str, Any]) -> dict[str, Any]:
        sid = body.get("session")
        session = self.sessions.get(sid) if isinstance(sid, str) else None
        if session is None or not isinstance(sid, str):
            raise BadRequest("session: unknown or expired; start a new game")
        action = body.get("action")
        if not isinstance(action, str) or not action.strip():
            raise BadRequest("action: must be non-empty text")
        with session.lock:
            if session.result is not None:
                raise BadRequest("session: this game is over; start a new one")
            session.touched = time.time()
            if not session.done:  # else: finished, not yet logged; this step logs it again
                obs, _, terminated, truncated, info = session.env.step(action)
                session.observation, session.info = obs, info
                if terminated or truncated:
                    session.done, session.ended = True, time.time()
            if session.done:
                session.result = self._finish(session)
            return self._view(sid, session)

    def _finish(self, s: _Session) -> dict[str, Any]:
        info = s.info
        result = EpisodeResult(
            env_id=s.env_id,
            config_id=s.config_id,
            outcome=info["outcome"],
            score=float(info["score"]),
            turns=info["turn"],
            format_errors=info["format_errors"],
            seconds=(s.ended or time.time()) - s.started,
            transcript=s.puzzle.transcript,
            seed=s.config_id,
            hidden=info.get("hidden", {}),
        )
        path = self.out / f"human_{s.name}" / "episodes.jsonl"
        try:
            record = log_human_episode(self.out, s.name, s.env_id, s.env_kwargs, result)
        except (RunLocked, ConfigMismatch, OSError) as err:
            raise Unavailable(
                f"log: the game is over ({result.outcome}) but {path} could not be written ({err}); "
                "send any move again to retry"
            ) from None
        return {
            "outcome": result.outcome,
            "score": result.score,
            "turns": result.turns,
            "format_errors": result.format_errors,
            "hidden": to_jsonable(result.hidden),
            "agent": record.agent,
            "sample": record.sample,
            "logged_to": str(path),
        }


class _PlayHandler(_Guarded):
    app: PlayApp

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        if path == "/api/envs":
            return self._json(200, self.app.envs())
        name = "play.html" if path in ("/", "/index.html") else path.removeprefix("/static/")
        if name not in STATIC:
            return self._json(404, {"error": f"not found: {path}"})
        if name == SHARED:  # the JSON pretty-printer report.html inlines
            data = (resources.files("mtp_gym.eval") / "assets" / name).read_bytes()
        else:
            data = (resources.files("mtp_gym.web") / "static" / name).read_bytes()
        kind = {"html": "text/html", "js": "text/javascript", "css": "text/css"}[name.rsplit(".", 1)[1]]
        self.send_response(200)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802
        routes = {"/api/start": self.app.start, "/api/step": self.app.step}
        handler = routes.get(self.path)
        if handler is None:
            return self._json(404, {"error": f"not found: {self.path}"})
        try:
            body = self._body()
            return self._json(200, handler(body))
        except (BadRequest, Unavailable) as err:
            retry = {"Retry-After": "1"} if err.status == HTTPStatus.SERVICE_UNAVAILABLE else None
            return self._json(err.status, {"error": str(err)}, retry)
        except Exception as err:  # a bug: say so in JSON rather than drop the connection
            return self._json(500, {"error": f"internal error: {type(err).__name__}: {err}"})

    def _body(self) -> dict[str, Any]:
        kind = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if kind != "application/json":
            raise BadRequest(f"Content-Type: must be application/json, got {kind or 'none'!r}")
        raw = self.headers.get("Content-Length") or "0"
        if not (raw.isascii() and raw.isdigit()):
            raise BadRequest(f"Content-Length: must be a non-negative int, got {raw!r}")
        if int(raw) > MAX_BODY:
            raise BadRequest(f"body: larger than {MAX_BODY} bytes")
        try:
            body = json.loads(self.rfile.read(int(raw)) or b"{}")
        except ValueError as err:  # not JSON, or not UTF-8
            raise BadRequest(f"body: not JSON ({err})") from None
        if not isinstance(body, dict):
            raise BadRequest("body: must be a JSON object")
        return body


def make_play_server(
    host: str, port: int, out: str | Path, max_sessions: int = MAX_SESSIONS, **bounds: Any
) -> BoundedHTTPServer:
    """The play app's server (not yet serving: call ``serve_forever``); ``bounds``: the keyword
    arguments of :class:`BoundedHTTPServer` (``workers``, ``max_connections``, ``idle_seconds``)."""
    handler = type("PlayHandler", (_PlayHandler,), {"app": PlayApp(out, max_sessions)})
    return BoundedHTTPServer((host, port), handler, **bounds)


# ------------------------------------------------------------------ the report viewer
class _ViewHandler(_Guarded, SimpleHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        if self.path.split("?", 1)[0] == "/":
            self.path = "/report.html"
        super().do_GET()

    def send_head(self) -> Any:
        root = Path(self.directory).resolve()
        try:
            target = Path(self.translate_path(self.path)).resolve()
        except (OSError, RuntimeError):
            target = None
        if target is None or not (target == root or root in target.parents):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found (outside the report directory)")
            return None
        return super().send_head()


def make_view_server(host: str, port: int, directory: str | Path, **bounds: Any) -> BoundedHTTPServer:
    """A static server of the report directory ``directory`` (``/`` is ``report.html``; symlinks
    that lead out of it are not followed)."""
    return BoundedHTTPServer((host, port), partial(_ViewHandler, directory=str(Path(directory).resolve())), **bounds)


def run_until_interrupted(server: HTTPServer) -> None:
    """Serve until Ctrl-C, then close the socket."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
