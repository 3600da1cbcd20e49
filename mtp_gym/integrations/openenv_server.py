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
"""

from __future__ import annotations

from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field

from mtp_gym.eval.log import to_jsonable
from mtp_gym.integrations.session import EnvSession, env_id_of

__all__ = ["MTPAction", "MTPEnvClient", "MTPEnvironment", "MTPObservation", "MTPState", "make_app", "serve"]

DEFAULT_ENV = "MTP/WordGuess-v0"


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
        **_: Any,
    ) -> MTPObservation:
        """Start benchmark ``config_id`` (or a generated configuration from ``seed``) of ``env_id``."""
        env_id = env_id_of(env_id) if env_id else self.default_id
        kwargs = self.default_kwargs if env_kwargs is None else dict(env_kwargs)
        session = self._session
        if session is None or session.env_id != env_id or session.env_kwargs != kwargs:
            if session is not None:
                session.close()
            session = self._session = EnvSession(env_id, kwargs)
        text = session.start(config_id, seed)
        self._state = MTPState(episode_id=episode_id, step_count=0, env_id=env_id, config_id=session.config_id)
        return self._observation(text)

    def step(self, action: MTPAction, timeout_s: float | None = None, **_: Any) -> MTPObservation:
        if self._session is None:
            raise RuntimeError("reset() first: no episode has started in this session")
        text = self._session.send(action.message)
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


def make_app(env_id: str = DEFAULT_ENV, env_kwargs: dict[str, Any] | None = None, max_sessions: int = 64) -> Any:
    """The FastAPI app serving every id (``env_id``/``env_kwargs``: the default at reset)."""
    env_id = env_id_of(env_id)

    def factory() -> MTPEnvironment:
        return MTPEnvironment(env_id, env_kwargs)

    return create_app(factory, MTPAction, MTPObservation, env_name="mtp_gym", max_concurrent_envs=max_sessions)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    env_id: str = DEFAULT_ENV,
    env_kwargs: dict[str, Any] | None = None,
    max_sessions: int = 64,
) -> None:
    """Run the server until interrupted (uvicorn)."""
    import uvicorn

    uvicorn.run(make_app(env_id, env_kwargs, max_sessions), host=host, port=port, log_level="warning")
