"""Two small local web apps on the standard library's HTTP server (no framework, no CDN).

``mtp-gym serve``: a person picks an env and a configuration and plays it in the browser, with
buttons and lists where the game allows (:mod:`mtp_gym.web.controls`) and free text always;
each finished game is appended to ``OUT/human_<name>/episodes.jsonl`` as agent
``human:<name>`` (:mod:`mtp_gym.eval.human`), so ``mtp-gym report OUT`` shows it.

``mtp-gym view DIR``: serves a report directory (``report.html`` and its files).

Both listen on 127.0.0.1 by default: the play API runs envs for whoever can reach it.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium as gym

from mtp_gym.episode import EpisodeResult, public_info
from mtp_gym.eval.catalog import env_table
from mtp_gym.eval.human import check_name, log_human_episode
from mtp_gym.eval.log import to_jsonable
from mtp_gym.registration import ENV_IDS
from mtp_gym.web.controls import controls

__all__ = ["PlayApp", "make_play_server", "make_view_server", "run_until_interrupted"]

STATIC = ("play.html", "play.js", "play.css", "pretty.js")
SHARED = "pretty.js"
#: Sessions idle longer than this are dropped; at most ``MAX_SESSIONS`` are kept.
IDLE_SECONDS = 2 * 3600
MAX_SESSIONS = 256


class BadRequest(ValueError):
    """A request the API refuses; the message says which field and what is allowed."""


class _Session:
    def __init__(self, env_id: str, config_id: int, name: str) -> None:
        self.env_id, self.config_id, self.name = env_id, config_id, name
        self.env = gym.make(env_id)
        self.observation, self.info = self.env.reset(seed=config_id, options={"config_id": config_id})
        self.done = False
        self.started = self.touched = time.time()
        self.lock = threading.Lock()
        self.result: dict[str, Any] | None = None


class PlayApp:
    """The play API's state and logic (sessions, steps, logging), apart from HTTP."""

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        self.sessions: dict[str, _Session] = {}
        self.lock = threading.Lock()
        self._envs: list[dict[str, Any]] | None = None

    def envs(self) -> list[dict[str, Any]]:
        if self._envs is None:
            self._envs = [{k: r[k] for k in ("id", "suite", "split")} for r in env_table()]
        return self._envs

    def _view(self, sid: str, s: _Session) -> dict[str, Any]:
        seen = [m["content"] for m in s.env.unwrapped.transcript if m["role"] != "assistant"]
        return {
            "session": sid,
            "env_id": s.env_id,
            "config_id": s.config_id,
            "observation": s.observation,
            "transcript": s.env.unwrapped.transcript,
            "info": to_jsonable(public_info(s.info)),
            "done": s.done,
            "hint": s.env.unwrapped.format_hint,
            "controls": [] if s.done else controls(s.env_id, seen),
            "result": s.result,
        }

    def start(self, body: dict[str, Any]) -> dict[str, Any]:
        env_id = body.get("env_id")
        if env_id not in ENV_IDS:
            raise BadRequest(f"env_id: unknown {env_id!r}; allowed: {sorted(ENV_IDS)}")
        try:
            name = check_name(body.get("name"))
        except ValueError as err:
            raise BadRequest(str(err)) from None
        split = next(r["split"] for r in self.envs() if r["id"] == env_id)
        config_id = body.get("config_id")
        if config_id in (None, ""):
            config_id = secrets.randbelow(split)
        if isinstance(config_id, str) and config_id.isdigit():
            config_id = int(config_id)
        if isinstance(config_id, bool) or not isinstance(config_id, int) or not 0 <= config_id < split:
            raise BadRequest(f"config_id: must be an int in [0, {split - 1}] for {env_id}, got {config_id!r}")
        session = _Session(env_id, config_id, name)
        sid = secrets.token_urlsafe(12)
        with self.lock:
            self._expire()
            self.sessions[sid] = session
        return self._view(sid, session)

    def _expire(self) -> None:
        now = time.time()
        for sid in [k for k, s in self.sessions.items() if now - s.touched > IDLE_SECONDS]:
            self.sessions.pop(sid).env.close()
        while len(self.sessions) >= MAX_SESSIONS:
            oldest = min(self.sessions, key=lambda k: self.sessions[k].touched)
            self.sessions.pop(oldest).env.close()

    def step(self, body: dict[str, Any]) -> dict[str, Any]:
        sid = body.get("session")
        session = self.sessions.get(sid) if isinstance(sid, str) else None
        if session is None:
            raise BadRequest("session: unknown or expired; start a new game")
        action = body.get("action")
        if not isinstance(action, str) or not action.strip():
            raise BadRequest("action: must be non-empty text")
        with session.lock:
            if session.done:
                raise BadRequest("session: this game is over; start a new one")
            session.touched = time.time()
            obs, _, terminated, truncated, info = session.env.step(action)
            session.observation, session.info = obs, info
            if terminated or truncated:
                session.done = True
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
            seconds=time.time() - s.started,
            transcript=s.env.unwrapped.transcript,
            seed=s.config_id,
            hidden=info.get("hidden", {}),
        )
        record = log_human_episode(self.out, s.name, s.env_id, {}, result)
        return {
            "outcome": result.outcome,
            "score": result.score,
            "turns": result.turns,
            "format_errors": result.format_errors,
            "hidden": to_jsonable(result.hidden),
            "agent": record["agent"],
            "sample": record["sample"],
            "logged_to": str(self.out / f"human_{s.name}" / "episodes.jsonl"),
        }


class _PlayHandler(SimpleHTTPRequestHandler):
    app: PlayApp

    def log_message(self, format: str, *args: Any) -> None:  # quiet: one line per game, printed by the app
        pass

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

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
            length = int(self.headers.get("Content-Length") or 0)
            if length > 1_000_000:
                raise BadRequest("body: larger than 1 MB")
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise BadRequest("body: must be a JSON object")
            return self._json(200, handler(body))
        except (BadRequest, json.JSONDecodeError) as err:
            return self._json(HTTPStatus.BAD_REQUEST, {"error": str(err)})


def make_play_server(host: str, port: int, out: str | Path) -> ThreadingHTTPServer:
    """The play app's server (not yet serving: call ``serve_forever``)."""
    handler = type("PlayHandler", (_PlayHandler,), {"app": PlayApp(out)})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


class _ViewHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        if self.path.split("?", 1)[0] == "/":
            self.path = "/report.html"
        super().do_GET()


def make_view_server(host: str, port: int, directory: str | Path) -> ThreadingHTTPServer:
    """A static server of the report directory ``directory`` (``/`` is ``report.html``)."""
    server = ThreadingHTTPServer((host, port), partial(_ViewHandler, directory=str(directory)))
    server.daemon_threads = True
    return server


def run_until_interrupted(server: ThreadingHTTPServer) -> None:
    """Serve until Ctrl-C, then close the socket."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
