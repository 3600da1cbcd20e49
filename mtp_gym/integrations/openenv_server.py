"""OpenEnv server and client for every env: a trainer on another machine drives them over HTTP.

Install with ``pip install "mtp-gym[openenv]"`` and start the server with
``mtp-gym serve-env`` (127.0.0.1:8000 by default). It speaks OpenEnv's protocol
(``/reset``, ``/step``, ``/state``, ``/schema``, ``/health`` and the ``/ws`` session socket;
each WebSocket session has its own env). One server exposes every registered id: a session
picks its env at reset (``reset(env_id="MTP/TuringMachine-v0", config_id=3,
env_kwargs={...})``), else the server's default.

* :class:`MTPAction`: ``message``, the model's reply text;
* :class:`MTPObservation`: ``text`` (the env's message), ``env_id``, ``config_id``, ``turn``,
  ``format_errors``, ``outcome`` and ``score`` (set at the end), ``info`` (the env's ``info``
  without the secret, as JSON: the structured feedback a scripted player reads), with
  OpenEnv's ``done`` and ``reward`` (the env's reward: the score on the last step, 0 before);
* :class:`MTPState`: the session's env id, configuration, step count, outcome and score;
* :class:`MTPEnvClient`: OpenEnv's client for these types (``async with`` or ``.sync()``).

The env stays the single source of rules, replies and scores: the server only forwards.

Clients are not trusted. ``reset`` takes only :data:`RESET_ARGS` (another name, such as
``configid``, is refused with the allowed ones), ``env_id`` must be a registered ``MTP/*`` id,
and ``env_kwargs`` (``probe_kwargs`` included) only the keys of :data:`NETWORK_KWARGS` /
:data:`PROBE_KWARGS`, each of its type and within its bounds: no ``game`` (no
``"module:Class"`` is ever imported for a client), no unbounded sizes. A refused request gets
a 4xx with a JSON ``detail`` naming the argument and the allowed values (over the WebSocket
session: OpenEnv's error message), never a bare 500. Requests whose ``Host`` or ``Origin``
does not name this server are refused (403, :class:`~mtp_gym.web.server.HostPolicy`).
"""

from __future__ import annotations

import json
import math
import os
import string
import uuid
from collections.abc import Callable
from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field

from mtp_gym.agents.llm.prompts import PROMPT_STYLES as PROMPT_STYLES_CHAT
from mtp_gym.eval.log import to_jsonable
from mtp_gym.integrations.session import ChatSettings, EnvSession, EpisodeOver, env_id_of
from mtp_gym.registration import ENV_IDS, GAME_ENTRY_POINT, GAME_IDS
from mtp_gym.turing_machine.env import SETUP_SOURCES
from mtp_gym.turing_machine.prompts import MODES, PROMPT_STYLES
from mtp_gym.turing_machine.rules import DIFFICULTIES
from mtp_gym.web.server import HostPolicy
from mtp_gym.wrappers.probes import DOMAINS, PROBES

__all__ = [
    "MTPAction",
    "MTPEnvClient",
    "MTPEnvironment",
    "MTPObservation",
    "MTPState",
    "NETWORK_KWARGS",
    "PROBE_KWARGS",
    "RESET_ARGS",
    "RequestRefused",
    "check_env_kwargs",
    "main",
    "make_app",
    "serve",
    "server_config",
]

DEFAULT_ENV = "MTP/WordGuess-v0"
#: The arguments ``reset`` takes from a client.
RESET_ARGS = ("env_id", "config_id", "seed", "env_kwargs", "episode_id", "prompt_style", "system_prompt", "max_history")
SEED_MAX = 2**64 - 1
#: Largest HTTP body / WebSocket message the server reads (a reply, or a reset's kwargs).
MAX_MESSAGE = 4 * 1024 * 1024


class RequestRefused(ValueError):
    """A request the server refuses (``status``: 400 a bad argument, 409 not now); the message
    names the argument and the allowed values."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# ------------------------------------------------------------------ what a client may pass
def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class Arg:
    """What one kwarg from a client must be: ``what`` (for messages) and a ``test`` of the value."""

    def __init__(self, what: str, test: Callable[[Any], bool], optional: bool = False) -> None:
        self.what = what + (" or null" if optional else "")
        self.test, self.optional = test, optional

    def check(self, name: str, value: Any) -> None:
        """A :class:`RequestRefused` naming ``name`` unless ``value`` is allowed."""
        if value is None and self.optional:
            return
        if not self.test(value):
            raise RequestRefused(f"{name}: must be {self.what}, got {_show(value)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(low: int, high: int, optional: bool = False) -> Arg:
    return Arg(f"an int in [{low}, {high}]", lambda v: _is_int(v) and low <= v <= high, optional)


def _number(low: float, high: float) -> Arg:
    def test(v: Any) -> bool:  # ints are compared as they are: a huge one does not fit a float
        return (_is_int(v) or (isinstance(v, float) and math.isfinite(v))) and low <= v <= high

    return Arg(f"a number in [{low:g}, {high:g}]", test)


def _bool() -> Arg:
    return Arg("true or false", lambda v: isinstance(v, bool))


def _choice(*values: str, optional: bool = False) -> Arg:
    return Arg(f"one of {list(values)}", lambda v: isinstance(v, str) and v in values, optional)


def _strings(max_items: int, max_len: int, choices: Any = None, optional: bool = False) -> Arg:
    what = f"a list of at most {max_items} " + (
        f"of {sorted(choices)}" if choices else f"strings of <= {max_len} chars"
    )

    def test(v: Any) -> bool:
        return (
            isinstance(v, list)
            and 0 < len(v) <= max_items
            and all(isinstance(x, str) and len(x) <= max_len and (choices is None or x in choices) for x in v)
        )

    return Arg(what, test, optional)


def _string_map(max_items: int, max_len: int) -> Arg:
    def test(v: Any) -> bool:
        return (
            isinstance(v, dict)
            and len(v) <= max_items
            and all(isinstance(x, str) and len(k) <= 64 and len(x) <= max_len for k, x in v.items())
        )

    return Arg(f"an object of at most {max_items} strings of <= {max_len} chars", test, optional=True)


def _plain_template(text: Any, max_len: int = 20_000) -> bool:
    """Whether ``text`` is a ``str.format`` template of plain ``{name}`` fields only (no attribute,
    index, conversion or format spec: those read objects or pad without bound)."""
    if not isinstance(text, str) or len(text) > max_len:
        return False
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return False
    return all(name is None or (name.isidentifier() and not spec and conv is None) for _, name, spec, conv in fields)


def _wording() -> Arg:
    def test(v: Any) -> bool:
        queries = v.get("queries", {}) if isinstance(v, dict) else None
        return (
            isinstance(v, dict)
            and set(v) <= {"rules", "queries"}
            and ("rules" not in v or _plain_template(v["rules"]))
            and isinstance(queries, dict)
            and len(queries) <= 64
            and all(_plain_template(t, 2_000) for t in queries.values())
        )

    return Arg(
        'an object {"rules": template, "queries": {name: template}} whose templates hold only plain {field}s',
        test,
        optional=True,
    )


_COMMON = {
    "max_turns": _int(1, 1000, optional=True),
    "configs": _choice("benchmark", "generated", optional=True),
    "max_format_errors": _int(1, 100),
    "info_secret": _bool(),
}
_SEED = {"seed": _int(0, 2**32 - 1)}
#: The env kwargs a client may pass, per entry point (every other kwarg of the env is refused:
#: see :data:`NOT_FROM_CLIENTS`). Bounds cap what one reset can cost; the env checks the rest.
NETWORK_KWARGS: dict[str, dict[str, Arg]] = {
    "mtp_gym.envs.word_guess:WordGuessEnv": {"vocab_size": _int(2, 2000), "word_length": _int(3, 10), **_COMMON},
    "mtp_gym.envs.movie_rec:MovieRecEnv": {
        "num_questions": _int(1, 1000),
        "n_seen": _int(2, 500),
        "n_unseen": _int(1, 500),
        "base_budget": _number(0, 1e6),
        "budget_delta": _number(0, 1e6),
        "attribute_min_credit": _number(0, 1e6),
        "seen_precision": _int(0, 6),
        "unseen_precision": _int(0, 6),
        "seen_sparse_fraction": _number(0, 1),
        "tie_tolerance": _number(0, 1e6),
        "weight_hint": _bool(),
        **_COMMON,
    },
    "mtp_gym.circuit_decoding.env:CircuitDecodingEnv": {
        "num_circuits": _int(1, 26, optional=True),
        "num_inputs": _int(1, 5, optional=True),
        "max_not": _int(0, 8),
        "num_queries": _int(0, 999, optional=True),
        **_COMMON,
    },
    "mtp_gym.envs.word_chain:WordChainEnv": {"opponent": _choice("random"), "lexicon_size": _int(2, 2000), **_COMMON},
    "mtp_gym.envs.twenty_questions:TwentyQuestionsEnv": {"lexicon_size": _int(2, 200, optional=True), **_COMMON},
    "mtp_gym.turing_machine.env:TuringMachineEnv": {
        "mode": _choice(*MODES),
        "difficulty": _choice(*DIFFICULTIES, optional=True),
        "setups": _choice(*SETUP_SOURCES),
        "prompt_style": _choice(*PROMPT_STYLES),
        "max_rounds": _int(1, 100),
        "setup_ids": _strings(300, 16, optional=True),
        "allow_non_unique": _bool(),
        "belief_prompt": _bool(),
        "harness_wording": _bool(),
        **_COMMON,
    },
    GAME_ENTRY_POINT: {
        "difficulty": _int(1, 5),
        "configs_per_level": _int(1, 1000),
        "vocabulary": _string_map(64, 100),
        "wording": _wording(),
        "probe": _choice(*PROBES, optional=True),
        "probe_kwargs": Arg("an object of the probe's kwargs", lambda v: isinstance(v, dict), optional=True),
        **_COMMON,
    },
}
#: The kwargs each probe takes from a client (``env_kwargs["probe_kwargs"]``).
PROBE_KWARGS: dict[str, dict[str, Arg]] = {
    "isomorphic": {"domain": _choice("random", *DOMAINS), **_SEED},
    "noise": {"rule_sentences": _int(0, 100), "reply_fragments": _int(0, 20), **_SEED},
    "boundary": {
        "source": _choice("oracle", "random"),
        "games": _strings(len(GAME_IDS), 64, choices=set(GAME_IDS), optional=True),
        "announce": _bool(),
        **_SEED,
    },
    "counterfactual": {"revise_query": _int(1, 100), **_SEED},
    "necessity": {"exact_limit": _int(1, 20_000_000), **_SEED},
}
#: Env kwargs no client may pass, and why.
NOT_FROM_CLIENTS = {
    "game": "the game is chosen by env_id; no 'module:Class' is imported for a client",
    "render_mode": "rendering is the client's business; the server does not render",
}


def _check_keys(where: str, given: Any, table: dict[str, Arg]) -> None:
    if not isinstance(given, dict):
        raise RequestRefused(f"{where}: must be a JSON object of {sorted(table)}, got {_show(given)}")
    for key, value in given.items():
        if key in NOT_FROM_CLIENTS:
            raise RequestRefused(f"{where}.{key}: not taken from clients ({NOT_FROM_CLIENTS[key]})")
        if key not in table:
            raise RequestRefused(f"{where}: unknown key {_show(key)}; allowed: {sorted(table)}")
        table[key].check(f"{where}.{key}", value)


def check_env_kwargs(env_id: str, env_kwargs: Any) -> dict[str, Any]:
    """``env_kwargs`` for ``env_id`` if a client may pass them, else a :class:`RequestRefused`
    naming the key and what is allowed (keys, types and bounds: :data:`NETWORK_KWARGS`)."""
    _check_keys("env_kwargs", env_kwargs, NETWORK_KWARGS[ENV_IDS[env_id]])
    probe, probe_kwargs = env_kwargs.get("probe"), env_kwargs.get("probe_kwargs")
    if probe_kwargs is not None:
        if probe is None:
            raise RequestRefused(
                f"env_kwargs.probe_kwargs: given without env_kwargs.probe; allowed probes: {sorted(PROBES)}"
            )
        _check_keys("env_kwargs.probe_kwargs", probe_kwargs, PROBE_KWARGS[probe])
    return dict(env_kwargs)


def _check_chat(prompt_style: Any, system_prompt: Any, max_history: Any) -> ChatSettings:
    _choice(*PROMPT_STYLES_CHAT).check("prompt_style", prompt_style)
    Arg("a string of <= 20000 chars", lambda v: isinstance(v, str) and len(v) <= 20_000, optional=True).check(
        "system_prompt", system_prompt
    )
    _int(1, 10_000, optional=True).check("max_history", max_history)
    return ChatSettings(prompt_style, system_prompt, max_history)


def _check_reset(env_id: Any, config_id: Any, seed: Any, episode_id: Any, unknown: dict[str, Any]) -> None:
    if unknown:
        raise RequestRefused(f"reset: unknown argument(s) {sorted(unknown)}; allowed: {list(RESET_ARGS)}")
    if env_id is not None and (not isinstance(env_id, str) or env_id not in ENV_IDS):
        raise RequestRefused(f"env_id: {_show(env_id)} is not registered; allowed: {sorted(ENV_IDS)}")
    _int(0, 2**31 - 1, optional=True).check("config_id", config_id)
    _int(0, SEED_MAX, optional=True).check("seed", seed)
    Arg("a string of <= 255 chars", lambda v: isinstance(v, str) and len(v) <= 255, optional=True).check(
        "episode_id", episode_id
    )


class MTPAction(Action):
    """The model's reply, played as the env's action."""

    message: str = Field(..., description="The model's reply text (the env reads its move from it)")


class MTPObservation(Observation):
    """The env's message and the episode's bookkeeping."""

    text: str = Field(default="", description="The env's message: the task at reset, then each reply")
    env_id: str = Field(default="", description="The registered env id")
    config_id: int | None = Field(default=None, description="The benchmark configuration")
    turn: int = Field(default=0, description="Actions played so far")
    format_errors: int = Field(default=0, description="Replies the env could not read")
    outcome: str | None = Field(default=None, description="success / failure / timeout / format_error at the end")
    score: float = Field(default=0.0, description="The env's score (final once done)")
    info: dict[str, Any] = Field(default_factory=dict, description="The env's info without the secret, as JSON")
    messages: list[dict[str, str]] = Field(
        default_factory=list,
        description="The request for the model's next reply as mtp-gym eval sends it (the reset's prompt_style "
        "suffix, system_prompt and max_history applied; a fresh context where the env starts one); empty once done",
    )


class MTPState(State):
    """The session's episode."""

    env_id: str = Field(default="")
    config_id: int | None = Field(default=None)
    outcome: str | None = Field(default=None)
    score: float = Field(default=0.0)
    done: bool = Field(default=False)


class MTPEnvironment(Environment[MTPAction, MTPObservation, MTPState]):
    """One session's env; the id and kwargs are chosen at reset (default: the server's)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, env_id: str = DEFAULT_ENV, env_kwargs: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.default_id, self.default_kwargs = env_id_of(env_id), dict(env_kwargs or {})
        self._session: EnvSession | None = None
        self._state = MTPState()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        env_id: str | None = None,
        config_id: int | None = None,
        env_kwargs: dict[str, Any] | None = None,
        prompt_style: str = "plain",
        system_prompt: str | None = None,
        max_history: int | None = None,
        **unknown: Any,
    ) -> MTPObservation:
        """Start benchmark ``config_id`` (or a generated configuration from ``seed``) of ``env_id``
        (a registered id; default: the server's, with its kwargs). ``seed`` with ``config_id``: the
        reset seed of ``mtp-gym eval``'s sample (:func:`~mtp_gym.eval.splits.episode_seed`).
        ``prompt_style``, ``system_prompt``, ``max_history``: how :attr:`MTPObservation.messages`
        is built, as ``mtp-gym eval``'s options. ``episode_id``: the client's, else a new UUID.
        Every argument comes from a client: a bad one is a :class:`RequestRefused` naming it."""
        _check_reset(env_id, config_id, seed, episode_id, unknown)
        chat = _check_chat(prompt_style, system_prompt, max_history)
        env_id = env_id or self.default_id
        if env_kwargs is not None:
            kwargs = check_env_kwargs(env_id, env_kwargs)
        else:
            kwargs = dict(self.default_kwargs) if env_id == self.default_id else {}
        try:
            session = self._session
            if session is None or session.env_id != env_id or session.given_kwargs != kwargs or session.chat != chat:
                if session is not None:
                    session.close()
                    self._session = None
                session = self._session = EnvSession(env_id, kwargs, chat)
            text = session.start(config_id, seed)
        except (ValueError, TypeError) as err:  # the env refused a value (out of its range, conflicting)
            raise RequestRefused(f"reset: {err}") from None
        episode_id = episode_id or str(uuid.uuid4())
        self._state = MTPState(episode_id=episode_id, step_count=0, env_id=env_id, config_id=session.config_id)
        return self._observation(text)

    def step(self, action: MTPAction, timeout_s: float | None = None, **_: Any) -> MTPObservation:
        if self._session is None:
            raise RequestRefused(
                "step: no episode in this session; reset first (over plain HTTP each request gets a new env: "
                "play through the /ws session, as MTPEnvClient does)",
                status=409,
            )
        try:
            text = self._session.send(action.message)
        except EpisodeOver as err:
            raise RequestRefused(str(err), status=409) from None
        self._state.step_count += 1
        obs = self._observation(text)
        self._state.outcome, self._state.score, self._state.done = obs.outcome, obs.score, obs.done
        return obs

    @property
    def state(self) -> MTPState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="mtp_gym",
            description="mtp-gym's multi-turn puzzles; pick one with reset(env_id=..., config_id=...)",
        )

    def close(self) -> None:
        if self._session is not None:
            self._session.close()

    def _observation(self, text: str) -> MTPObservation:
        session = self._session
        assert session is not None
        info = session.info
        return MTPObservation(
            text=text,
            env_id=session.env_id,
            config_id=session.config_id,
            turn=int(info["turn"]),
            format_errors=int(info["format_errors"]),
            outcome=info["outcome"] if session.done else None,
            score=float(info["score"]),
            info=to_jsonable(session.public_info),
            messages=[] if session.done else session.prompt(),
            done=session.done,
            reward=session.reward,
        )


class MTPEnvClient(EnvClient[MTPAction, MTPObservation, MTPState]):
    """OpenEnv's client for an mtp-gym server: ``reset(env_id=..., config_id=...)``, ``step(MTPAction(...))``."""

    def _step_payload(self, action: MTPAction) -> dict[str, Any]:
        return {"message": action.message}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[MTPObservation]:
        obs = MTPObservation(
            **payload.get("observation", {}), done=payload.get("done", False), reward=payload.get("reward")
        )
        return StepResult(observation=obs, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> MTPState:
        return MTPState(**payload)


class _Guard:
    """ASGI middleware: a request whose ``Host`` or ``Origin`` the policy refuses gets a 403 (a
    WebSocket handshake too), an HTTP body over :data:`MAX_MESSAGE` a 413, before the app sees it."""

    def __init__(self, app: Any, policy: HostPolicy) -> None:
        self.app, self.policy = app, policy

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = scope.get("headers", [])
            hosts = [v.decode("latin-1") for k, v in headers if k == b"host"]
            origins = [v.decode("latin-1") for k, v in headers if k == b"origin"]
            refusal, status = self.policy.refusal(hosts, origins), 403
            if refusal is None and scope["type"] == "http":
                refusal, status = _body_refusal(headers)
            if refusal is not None:
                if scope["type"] == "websocket":  # closed before accept: the client gets a 403
                    await send({"type": "websocket.close", "code": 1008, "reason": refusal[:120]})
                else:
                    await _send_json(send, status, {"detail": refusal})
                return
        await self.app(scope, receive, send)


def _body_refusal(headers: list[tuple[bytes, bytes]]) -> tuple[str | None, int]:
    length = [v for k, v in headers if k == b"content-length"]
    chunked = any(k == b"transfer-encoding" for k, _ in headers)
    if chunked and not length:
        return "Content-Length: required (chunked bodies are not read)", 411
    if length and not length[0].isdigit():
        return f"Content-Length: must be a non-negative int, got {length[0].decode('latin-1')[:20]!r}", 400
    if length and int(length[0]) > MAX_MESSAGE:
        return f"body: larger than {MAX_MESSAGE} bytes", 413
    return None, 200


async def _send_json(send: Any, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def make_app(
    env_id: str = DEFAULT_ENV,
    env_kwargs: dict[str, Any] | None = None,
    max_sessions: int = 64,
    host: str = "127.0.0.1",
    port: int | None = None,
) -> Any:
    """The FastAPI app serving every id (``env_id``/``env_kwargs``: the default at reset; the
    server's own, trusted). ``host``/``port``: where it listens, for the ``Host``/``Origin``
    check (``port=None``: any port)."""
    from fastapi import Request
    from fastapi.responses import JSONResponse

    env_id = env_id_of(env_id)

    def factory() -> MTPEnvironment:
        return MTPEnvironment(env_id, env_kwargs)

    app = create_app(factory, MTPAction, MTPObservation, env_name="mtp_gym", max_concurrent_envs=max_sessions)

    async def refused(request: Request, err: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(err)}, status_code=getattr(err, "status", 400))

    async def failed(request: Request, err: Exception) -> JSONResponse:
        return JSONResponse({"detail": f"internal error: {type(err).__name__}: {err}"}, status_code=500)

    app.add_exception_handler(RequestRefused, refused)
    app.add_exception_handler(Exception, failed)
    app.add_middleware(_Guard, policy=HostPolicy([host], port))
    return app


def server_config(
    host: str = "127.0.0.1",
    port: int = 8000,
    env_id: str = DEFAULT_ENV,
    env_kwargs: dict[str, Any] | None = None,
    max_sessions: int = 64,
    log_level: str = "warning",
) -> Any:
    """uvicorn's config of :func:`serve` (the app, its address, the WebSocket message cap)."""
    import uvicorn

    app = make_app(env_id, env_kwargs, max_sessions, host, port)
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, ws_max_size=MAX_MESSAGE)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    env_id: str = DEFAULT_ENV,
    env_kwargs: dict[str, Any] | None = None,
    max_sessions: int = 64,
) -> None:
    """Run the server until interrupted (uvicorn); ``SystemExit`` when it cannot listen."""
    import uvicorn

    server = uvicorn.Server(server_config(host, port, env_id, env_kwargs, max_sessions))
    server.run()
    if not server.started:
        raise SystemExit(f"mtp-gym: error: --host/--port: cannot listen on {host}:{port} (see above)")


def main() -> None:
    """The entry point of the OpenEnv package (``examples/openenv``: ``server.app:main``, its
    ``Dockerfile``): :func:`serve` on ``$HOST:$PORT`` (default ``0.0.0.0:8000``; inside a
    container the published port is the way in), ``$MTP_ENV`` the default env id."""
    serve(
        os.environ.get("HOST", "0.0.0.0"), int(os.environ.get("PORT", "8000")), os.environ.get("MTP_ENV", DEFAULT_ENV)
    )


def __getattr__(name: str) -> Any:
    # ``app``: the ASGI app ``openenv.yaml`` names (``uvicorn mtp_gym.integrations.openenv_server:app``),
    # built on first use (for any Host: a container is reached by whatever name routes to it).
    if name == "app":
        return make_app(os.environ.get("MTP_ENV", DEFAULT_ENV), host=os.environ.get("HOST", "0.0.0.0"))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    main()
