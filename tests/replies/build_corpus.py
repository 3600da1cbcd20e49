"""Rebuild ``tests/replies/*.json``: replies in the styles real models write, per registered id.

Run: ``python tests/replies/build_corpus.py``. Tag-based envs get the styles below around a
legal move of benchmark configuration 0 (the oracle's first move) and a second, different
legal move; Twenty Questions, Word Chain and the Turing Machine have their own lists, written
from the papers' example replies and replies seen from real models. Round two (issue 26:
self-corrections, notes beside the move, signs, restated formats, yes/no in context, words
attributed to the opponent) comes from ``round2_envs.py`` and ``round2_games.py``; each of
those cases names its ``class``, and ``meant`` where the policy re-prompts a reply that makes
one clear move (a needless re-prompt, counted by ``tests/test_replies.py``). The JSON files are what
``tests/test_replies.py`` reads; this script only saves writing them by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import gymnasium as gym

import mtp_gym
from mtp_gym.agents import make_agent
from mtp_gym.envs.word_guess import vocabulary_in
from mtp_gym.episode import public_info
from mtp_gym.registration import GAME_IDS

HERE = Path(__file__).resolve().parent
LONG = "9" * 5000
_TAG_RE = re.compile(r"^<([A-Za-z_]+)>(.*)</\1>$", re.DOTALL)


def case(style: str, reply: str, move: str | None) -> dict[str, Any]:
    return {"style": style, "reply": reply, "move": move}


def tagged_styles(move: str, other: str, prose: str) -> list[dict[str, Any]]:
    """Replies around ``move`` (``<tag>content</tag>``); ``other`` is a different legal move,
    ``prose`` names it in words (no tag)."""
    tag, content = _TAG_RE.match(move).groups()
    upper = f"<{tag.upper()}>{content}</{tag.upper()}>"
    return [
        case("exact", move, move),
        case("upper-case tag", upper, move),
        case("mixed-case tag, spaces inside", f"< {tag.title()} >\n  {content}  \n</ {tag} >", move),
        case("markdown bold", f"**{move}**", move),
        case("code fence", f"Here is my move:\n```\n{move}\n```", move),
        case("final answer label", f"After weighing the options.\n\nFinal answer: {move}", move),
        case("other candidate named before", f"I also considered {prose}, but this is better:\n{move}", move),
        case("other candidate named after", f"{move}\n\nI chose this over {prose} because it tells me more.", move),
        case("same tag twice", f"{move}\n\nTo be clear, my move is {move}", move),
        case("two different tags", f"{move} or perhaps {other}", None),
        case("decoy tag in a think block", f"<think>Maybe {other}? No, too early.</think>\n{move}", move),
        case("reasoning cut off", f"<think>Let me see, {move} would", None),
        case("lone closing think tag", f"so {other} is out...</think>\n\n{move}", move),
        case("format restated", f"I must reply as <{tag}>...</{tag}>. So: {move}", move),
        case("5000-digit number", f"{move} ({LONG})", None),
        case("prose only", f"I think the best move now is {prose}.", None),
        case("unclosed tag", f"<{tag}>{content}", None),
        case("non-ASCII around", f"Voilà — {move} ✓", move),
    ]


def first_moves(env_id: str) -> tuple[gym.Env, dict[str, Any], str, str]:
    """The env at configuration 0, its reset info, the oracle's first move and the prompt."""
    env = gym.make(env_id)
    obs, info = env.reset(options={"config_id": 0})
    agent = make_agent("oracle", env_id)
    agent.reset(seed=0)
    return env, info, agent.act(obs, public_info(info)), obs


def game_corpus(env_id: str) -> list[dict[str, Any]]:
    env, _, move, _ = first_moves(env_id)
    game = env.unwrapped.game
    specs = {q.name: q for q in game.queries}
    others = [specs[name].example(args) for name, args in game.all_queries()]
    other = next(o for o in others if o != move)
    name, content = _TAG_RE.match(other).groups()
    prose = f"asking {name.removeprefix('query_')} of {content or 'nothing'}"
    cases = tagged_styles(move, other, prose)
    spec = game.queries[0]
    if spec.args:
        bad = spec.example(tuple(999 if t is int else "zz" for t in spec.args))
        cases.append(case("argument out of range", bad, None))
    cases.append(
        case("query and answer", f"{move} <answer>{game.format_answer(game.target(game.hidden))}</answer>", None)
    )
    return cases


def generic_corpus(env_id: str) -> list[dict[str, Any]]:
    """A new env-level puzzle without a builder of its own: the realistic styles around its
    oracle's first move, the random agent's first differing move as the other candidate. Its
    moves must be tagged (``<tag>content</tag>``); otherwise write a builder like those below."""
    env, _, move, obs = first_moves(env_id)
    if not _TAG_RE.match(move):
        raise SystemExit(f"{env_id}: the oracle's move {move!r} is not <tag>content</tag>; add a builder")
    for seed in range(50):
        agent = make_agent("random", env_id)
        agent.reset(seed=seed)
        other = agent.act(obs, public_info(env.reset(options={"config_id": 0})[1]))
        if other != move and _TAG_RE.match(other):
            return tagged_styles(move, other, "the other option")
    raise SystemExit(f"{env_id}: the random agent never plays a tagged move other than {move!r}; add a builder")


def word_guess() -> list[dict[str, Any]]:
    _, _, move, obs = first_moves("MTP/WordGuess-v0")
    word = _TAG_RE.match(move).group(2)
    other = next(w for w in vocabulary_in(obs) if w.upper() != word)
    cases = tagged_styles(move, f"<attempt>{other}</attempt>", other)
    cases += [
        case("lower-case word", f"<attempt>{word.lower()}</attempt>", move),
        case("quoted word in the tag", f"<attempt>'{word}'</attempt>", move),
        case("two words in one tag", f"<attempt>{word} {other}</attempt>", None),
    ]
    return cases


def movie_rec() -> list[dict[str, Any]]:
    env, _, move, _ = first_moves("MTP/MovieRec-v0")
    titles = env.unwrapped._movies.seen_titles
    other = f"<question>Would you prefer watching {titles[2]} over {titles[3]}?</question>"
    cases = tagged_styles(move, other, f"{titles[2]} against {titles[3]}")
    content = _TAG_RE.match(move).group(2)
    a, b = re.match(r"Would you prefer watching (.+) over (.+)\?", content).groups()
    cases += [
        case(
            "titles in lower case",
            f"<question>would you prefer watching {a.lower()} over {b.lower()}?</question>",
            move,
        ),
        case("unknown title", f"<question>Would you prefer watching Casablanca over {b}?</question>", None),
        case("final answer during questions", f"<final_answer>{titles[0]}</final_answer>", None),
    ]
    return cases


def circuit_decoding() -> list[dict[str, Any]]:
    env, info, move, _ = first_moves("MTP/CircuitDecoding-v0")
    cases = tagged_styles(move, "<query>B(1, 1, 0)</query>", "B with inputs 1, 1, 0")
    bits = "".join(c["truth_table"] for c in info["hidden"]["circuits"])
    cases += [
        case("no spaces in the call", "<query>A(0,0,1)</query>", move),
        case("lower-case label", "<query>a(0 0 1)</query>", move),
        case("several queries in one reply", f"{move}\n<query>A(0, 1, 0)</query>\n<query>A(1, 0, 0)</query>", None),
        case("query and guess", f"{move} <guess>{bits}</guess>", None),
        case("placeholder guess and a real query", f"Later I will send <guess>bits</guess>. Now: {move}", move),
        case("wrong number of inputs", "<query>A(0, 1)</query>", None),
    ]
    return cases


def twenty_questions() -> list[dict[str, Any]]:
    yes, no = "yes", "no"
    return [
        case("exact yes", "yes", yes),
        case("exact no", "no", no),
        case("capitalised with full stop", "Yes.", yes),
        case("first word, a 'no' later in the sentence", "Yes, there is no doubt.", yes),
        case("first word no, a 'yes' later", "No. I would not say yes to that.", no),
        case("markdown bold", "**No**", no),
        case("quoted", "'yes'", yes),
        case("answer tag", "<answer>no</answer>", no),
        case("answer tag after prose that says yes", "My word could be many things, yes... <answer>no</answer>", no),
        case("two different answer tags", "<answer>yes</answer> <answer>no</answer>", None),
        case("answer label", "Let me check the attributes of my word.\nAnswer: yes", yes),
        case("final answer label in bold", "Thinking about it.\n**Final answer:** no", no),
        case("all yes/no words agree", "I checked the list, and yes, it is.", yes),
        case("both words, neither first", "It is hard to say yes or no here.", None),
        case(
            "reasoning block with a decoy",
            "<think>The word is a fruit, so no... wait, it is a type of food.</think>\nYes",
            yes,
        ),
        case("reasoning cut off", "<think>The word is a fruit so the answer is yes", None),
        case("no answer at all", "Okay, I have chosen a secret word. Ask away!", None),
        case("'yesterday' is not yes", "I chose it yesterday.", None),
        case("non-ASCII", "Oui — yes ✓", yes),
        case("5000-digit number", f"yes {LONG}", None),
    ]


def word_chain() -> list[dict[str, Any]]:
    _, info, move, _ = first_moves("MTP/WordChain-v0")
    word = move.strip("'")
    other = next(w for w in info["legal_moves"] if w != word)
    exact = f"'{word}'"
    return [
        case("exact", exact, exact),
        case("the paper's opening style", f"Okay, I'll start with '{word}'", exact),
        case("the env's own reply style", f"Ok, my word is: '{word}'.", exact),
        case("double quotes", f'I pick "{word}"', exact),
        case("curly quotes", f"I pick ‘{word}’", exact),
        case("capitalised with a full stop inside the quotes", f"My word: '{word.capitalize()}.'", exact),
        case("the same word twice", f"'{word}'! Yes, '{word}'.", exact),
        case("a quoted letter is not a word", f"I'll say '{word}' since it starts with '{word[0]}'", exact),
        case("two different quoted words", f"I'll go with '{word}', since '{other}' is worse.", None),
        case(
            "the opponent's word named beside the move", "I'll go with 'sacred', since 'access' ends in s.", "'sacred'"
        ),
        case("markdown bold", f"**'{word}'**", exact),
        case("code fence", f"```\n'{word}'\n```", exact),
        case("decoy in a think block", f"<think>Maybe '{other}'? No.</think>\n'{word}'", exact),
        case("reasoning cut off", f"<think>I could say '{word}'", None),
        case("no quotes", f"I say {word}", None),
        case("non-ASCII around", f"Voilà: '{word}' ✓", exact),
        case("5000-digit number", f"'{word}' {LONG}", None),
    ]


def turing_machine() -> list[dict[str, Any]]:
    env, _, move, _ = first_moves("MTP/TuringMachine-v0")
    code = re.findall(r"\d", move)
    b, y, p = code
    proposal = f"<CHOICE>: BLUE={b}, YELLOW={y}, PURPLE={p}"
    other = f"<CHOICE>: BLUE={p}, YELLOW={b}, PURPLE={y}" if (p, b, y) != (b, y, p) else "<CHOICE>: 555"
    ask = [proposal]
    return [
        case("exact proposal", proposal, proposal),
        case("bare digits", f"<CHOICE>: {b}{y}{p}", proposal),
        case("the paper's PROPOSAL label", f"<PROPOSAL>: BLUE={b}, YELLOW={y}, PURPLE={p}", proposal),
        case("markdown bold label", f"**<CHOICE>**: BLUE={b}, YELLOW={y}, PURPLE={p}", proposal),
        case("bare CHOICE line", f"I will test this code.\nCHOICE: BLUE={b}, YELLOW={y}, PURPLE={p}", proposal),
        case(
            "format restated, then the choice",
            f"I answer as <CHOICE>: BLUE=X, YELLOW=Y, PURPLE=Z.\n{proposal}",
            proposal,
        ),
        case("two different proposals", f"{proposal}\n{other}", None),
        case("decoy in a think block", f"<think>{other}</think>\n{proposal}", proposal),
        case("belief tag on the same line", f"**{proposal}** <BELIEF>: 0=?", f"{proposal} <BELIEF>: 0=?"),
        case("verifier in angle brackets", "<CHOICE>: <1>", "<CHOICE>: 1") | {"before": ask},
        case("the env's own 'Verifier <n>' wording", "<CHOICE>: Verifier <2>", "<CHOICE>: 2") | {"before": ask},
        case("SKIP in angle brackets", "<CHOICE>: <SKIP>", "<CHOICE>: SKIP") | {"before": ask},
        case("two different verifiers", "<CHOICE>: 1\n<CHOICE>: 2", None) | {"before": ask},
        case("a verifier that does not exist", "<CHOICE>: 9", None) | {"before": ask},
        case("code in the question stage", f"<CHOICE>: BLUE={b}", None) | {"before": ask},
        case("no choice", "I am not sure yet.", None),
        case("5000-digit number", f"<CHOICE>: {LONG}", None),
        case("reasoning cut off", f"<think>{proposal}", None),
    ]


def main() -> None:
    builders = {
        "MTP/WordGuess-v0": word_guess,
        "MTP/MovieRec-v0": movie_rec,
        "MTP/CircuitDecoding-v0": circuit_decoding,
        "MTP/TwentyQuestions-v0": twenty_questions,
        "MTP/WordChain-v0": word_chain,
        "MTP/TuringMachine-v0": turing_machine,
    }
    from round2_envs import CASES as ROUND2_ENVS
    from round2_games import cases as round2_game_cases

    for env_id in sorted(mtp_gym.ENV_IDS):
        if env_id in builders:
            cases = builders[env_id]()
        else:
            cases = game_corpus(env_id) if env_id in GAME_IDS else generic_corpus(env_id)
        if env_id in ROUND2_ENVS:
            cases += ROUND2_ENVS[env_id]()
        elif env_id in GAME_IDS:
            cases += round2_game_cases(env_id)
        data = {"env_id": env_id, "env_kwargs": {}, "config_id": 0, "replies": cases}
        name = env_id.split("/")[1].rsplit("-v", 1)[0]
        (HERE / f"{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{env_id}: {len(cases)} replies")


if __name__ == "__main__":
    main()
