"""The isomorphic probe's look-ups: a game's nouns and story in a domain, read from the game class.

Every query game carries its own telling next to its rules (``Game.domains``: domain ->
vocabulary, ``Game.story``: the rules retold); the shared domains, word lists and frames are in
:mod:`mtp_gym.games.domains`. A game's telling counts only on a class of the same ``name``: a
subclass that renames the game is another game and brings its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mtp_gym.core import check_choice
from mtp_gym.games.base import Game
from mtp_gym.games.domains import DOMAINS, Story
from mtp_gym.games.env import resolve_game
from mtp_gym.registration import GAME_IDS

__all__ = ["DOMAINS", "STORIES", "TEMPLATES", "domain_template", "domain_wording"]


def _own(game: type[Game], attr: str) -> Any:
    """``game``'s ``attr`` (``domains`` or ``story``) as set on a class named ``game.name``;
    ``None`` when it was set for another game (or not at all)."""
    for cls in game.__mro__:
        if attr in vars(cls):
            return vars(cls)[attr] if getattr(cls, "name", None) == game.name else None
    return None


def _registered() -> dict[str, type[Game]]:
    """Game name -> class, for every registered query game (imported when first asked)."""
    return {cls.name: cls for cls in map(resolve_game, GAME_IDS.values())}


def _game(game: type[Game] | str) -> type[Game]:
    """A game class, or the registered game of that name (``ValueError`` when there is none)."""
    if not isinstance(game, str):
        return game
    classes = _registered()
    if game not in classes:
        raise ValueError(f"isomorphic probe: no query game is named {game!r}; known: {sorted(classes)}")
    return classes[game]


class _ByGame(Mapping[str, Any]):
    """Registered game name -> ``attr`` of its class, read when asked (no game is imported
    before)."""

    def __init__(self, attr: str) -> None:
        self.attr = attr

    def __getitem__(self, name: str) -> Any:
        value = _own(_registered()[name], self.attr)
        if not value:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return (name for name, cls in _registered().items() if _own(cls, self.attr))

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: Game name -> domain -> vocabulary (``Game.domains`` of every registered game).
TEMPLATES: Mapping[str, dict[str, dict[str, str]]] = _ByGame("domains")
#: Game name -> :class:`~mtp_gym.games.domains.Story` (``Game.story`` of every registered game).
STORIES: Mapping[str, Story] = _ByGame("story")


def domain_template(game: type[Game] | str, domain: str) -> dict[str, str]:
    """The vocabulary of ``game`` (a ``Game`` class or a registered game's name) in ``domain``.

    Raises ``ValueError`` naming the game and the domain when there is no template, or when
    the template's keys do not match the game's vocabulary.
    """
    check_choice("domain", domain, DOMAINS)
    game = _game(game)
    table: dict[str, dict[str, str]] = _own(game, "domains") or {}
    if domain not in table:
        raise ValueError(
            f"isomorphic probe: game {game.name!r} has no template for domain {domain!r}; give its class "
            "`domains` (mtp_gym.games.domains.nouns)"
        )
    vocab = dict(table[domain])
    if set(game.vocabulary) != set(vocab):
        raise ValueError(
            f"isomorphic probe: the {domain!r} template of game {game.name!r} has keys {sorted(vocab)}, "
            f"the game's vocabulary has {sorted(game.vocabulary)}; update its `domains`"
        )
    return vocab


def domain_wording(game: type[Game] | str, domain: str) -> dict[str, Any]:
    """The ``wording`` (see ``Game.check_wording``) that tells ``game`` (a ``Game`` class or a
    registered game's name) as its story in ``domain``.

    Raises ``ValueError`` naming the game when it has no story, or the domain when unknown.
    """
    check_choice("domain", domain, DOMAINS)
    game = _game(game)
    story: Story | None = _own(game, "story")
    if story is None:
        raise ValueError(
            f"isomorphic probe: game {game.name!r} has no story; give its class a `story` (mtp_gym.games.domains.Story)"
        )
    return story.wording(domain)
