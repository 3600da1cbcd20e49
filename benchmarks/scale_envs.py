"""Every env at scale: steps/s on a cycled split, level-5 generation, answer tables, vector env over raw env.

Run: ``python benchmarks/scale_envs.py [--configs 50] [--seconds 0.6] [--rounds 3] [--games A,B] [--skip-steps]``.
Four tables, each measured in this one process against a baseline measured in the same run:

1. **Steps/s with resets on a cycled split**, for every registered text env and every query
   game at every level: the random agent's actions are recorded once per configuration (the
   first ``--configs`` benchmark configurations; query games get ``configs_per_level=--configs``),
   then the raw env replays them, resetting to the next configuration of the cycle
   (``reset(options={"config_id": c})``) after each episode, ``--rounds`` times ``--seconds``/
   ``--rounds``, each round after a baseline timing of its own. Resets count in the time, not as
   steps. The baseline is a minimal ``gym.Env`` whose ``step`` returns a constant (``ratio`` = env
   steps/s over baseline steps/s). Each row prints the median, the rounds' range and the median
   ratio; the five slowest rows follow the table.
2. **Level-5 generation**: ms per configuration of ``Game.generate(5, config_rng(...))`` for every
   query game (the draw of a benchmark configuration, and of ``configs="generated"``), over
   20 configurations no other part of this run drew (CPU time: mean, median and max, the mean
   carrying the draws that retry and the machine's pauses); the baseline is ``config_rng`` alone.
   Beside it, the ms of a ``reset()`` of the env with ``configs="generated"`` at level 5
   (generation, rules text, ``info``).
3. **Vector env over raw env**: per env step, ``gym.make_vec(..., vectorization_mode="sync")``
   and ``mtp_gym.make_vec`` (the same batches, ``info`` merged column by column) with N = 1, 16, 64 envs against the raw env class stepped with the same scripted player
   (Word Guess: a random word of the episode's vocabulary; a query game at level 5: its legal
   queries in turn), with the default ``info`` and with ``info_secret=False`` (the secret left
   out of ``info``), and ``mtp_gym.make_vec`` batching only the ``info`` keys a training loop
   reads (``info_keys=("score", "outcome")``) or none (``info_keys=()``). Each cell times the
   vector env and the raw env in turn (5 alternations of ``--seconds``/5 each) and prints the
   median of the paired ratios with their range. A last row per env times the floor of a
   one-env step with those two keys: a step written by hand for that env alone, making only
   the arrays the vector env returns.
4. **Answer tables**: for every query game at level 5 (configuration 0), the seconds to answer
   every legal query in every candidate state through ``Game.candidate_answers`` (what the
   oracle's version space reads on its first turn and the necessity probe on each answer): a
   game's ``answer_columns`` against the plain loop of ``respond`` per state timed in the same
   run; games without answer columns read ``-``.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.episode import play
from mtp_gym.games import Game, resolve_game
from mtp_gym.games.base import config_rng
from mtp_gym.registration import ENV_IDS, GAME_IDS, game_ids

LEVELS = (1, 2, 3, 4, 5)
VECTOR_SIZES = (1, 16, 64)


class ConstantEnv(gym.Env):
    """The baseline: the cheapest gymnasium env that returns a text observation and an info dict."""

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        return "", {}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict]:
        return "", 0.0, False, False, {}


def timed(fn: Callable[[], int], seconds: float) -> float:
    """Units per second of ``fn()`` (which returns how many units it did), repeated for ``seconds``."""
    done, start = 0, time.perf_counter()
    while True:
        done += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def baseline_rate(seconds: float) -> float:
    env = ConstantEnv()
    env.reset(seed=0)
    step = env.step

    def run() -> int:
        for _ in range(1000):
            step("")
        return 1000

    return timed(run, seconds)


def record(env_id: str, kwargs: dict[str, Any], configs: int) -> tuple[gym.Env, list[tuple[int, list[Any]]]]:
    """The raw env and the random agent's actions on each of the first ``configs`` configurations."""
    env = gym.make(env_id, disable_env_checker=True, **kwargs).unwrapped
    agent = make_agent("random", env_id)
    n = min(configs, env.num_configs) if env.num_configs else configs
    episodes = []
    for c in range(n):
        actions = [s.action for s in play(env, agent, config_id=c)][1:]
        episodes.append((c, actions))
    return env, episodes


def cycled_rate(env: gym.Env, episodes: list[tuple[int, list[Any]]], seconds: float) -> float:
    """Steps/s replaying ``episodes`` in a cycle, one reset to its configuration per episode."""
    step, reset = env.step, env.reset
    cycle = itertools.cycle(episodes)

    def run() -> int:
        steps = 0
        for _ in range(len(episodes)):
            c, actions = next(cycle)
            reset(options={"config_id": c})
            for a in actions:
                steps += 1
                _, _, term, trunc, _ = step(a)
                if term or trunc:
                    break
        return steps

    return timed(run, seconds)


def steps_table(ids: list[str], configs: int, seconds: float, rounds: int) -> None:
    print(f"## Steps/s, resets on a cycled split of {configs} configurations\n")
    print(f"Each row: {rounds} rounds of {seconds / rounds:g} s, each after a baseline timing of its own; the")
    print("median steps/s with the rounds' range, and the median of the rounds' ratios to their baseline.\n")
    print("| env | level | steps/s | range | ratio to baseline |")
    print("|---|---|---|---|---|")
    slowest: list[tuple[float, str]] = []
    bases: list[float] = []
    for env_id in ids:
        levels = LEVELS if env_id in GAME_IDS else (None,)
        for level in levels:
            kwargs = {} if level is None else {"difficulty": level, "configs_per_level": configs}
            env, episodes = record(env_id, kwargs, configs)
            rates, ratios = [], []
            for _ in range(rounds):  # a slow spell of a shared machine lands on one round, not the row
                base = baseline_rate(seconds / rounds / 3)
                bases.append(base)
                rates.append(cycled_rate(env, episodes, seconds / rounds))
                ratios.append(rates[-1] / base)
            rate = statistics.median(rates)
            name = f"{env_id[4:-3]}" + ("" if level is None else f" L{level}")
            slowest.append((rate, name))
            print(
                f"| {env_id[4:-3]} | {level or '-'} | {rate:,.0f} | {min(rates):,.0f}-{max(rates):,.0f} "
                f"| {statistics.median(ratios):.4f} |",
                flush=True,
            )
    slowest.sort()
    print("\nSlowest (median steps/s): " + ", ".join(f"{name} {rate:,.0f}" for rate, name in slowest[:5]))
    print(f"Baseline: median {statistics.median(bases):,.0f} steps/s, range {min(bases):,.0f}-{max(bases):,.0f}\n")


def generation_table(ids: list[str], n: int = 20) -> None:
    start = time.perf_counter()
    for i in range(1000):
        config_rng("X", 5, i)
    base_ms = (time.perf_counter() - start) / 1000 * 1e3
    print(f"## Level-5 generation, ms per configuration (baseline config_rng {base_ms:.4f} ms)\n")
    print("| game | generate ms/config | median ms | max ms | ratio to baseline | generated reset ms |")
    print("|---|---|---|---|---|---|")
    for env_id in ids:
        cls = resolve_game(GAME_IDS[env_id])
        cls.generate(5, config_rng(cls.name, 5, 0))  # warm module-level caches
        times = []
        for i in range(n):
            rng = config_rng(cls.name, 5, 10_000 + i)  # not drawn before: no cache hit
            t = time.process_time()
            cls.generate(5, rng)
            times.append(time.process_time() - t)
        ms = float(np.mean(times)) * 1e3
        env = gym.make(env_id, difficulty=5, configs="generated", disable_env_checker=True).unwrapped
        env.reset(seed=0)
        start = time.process_time()
        for _ in range(n):
            env.reset()
        reset_ms = (time.process_time() - start) / n * 1e3
        print(
            f"| {env_id[4:-3]} | {ms:.3f} | {statistics.median(times) * 1e3:.3f} | {max(times) * 1e3:.3f} | "
            f"{ms / base_ms:.1f} | {reset_ms:.3f} |",
            flush=True,
        )
    print()


def timed_table(answers: Callable[..., Any], queries: list[tuple[str, tuple]]) -> float:
    """CPU seconds of ``answers(name, args)`` over every query."""
    start = time.process_time()
    for query in queries:
        answers(*query)
    return time.process_time() - start


def respond_loop(game: Game) -> Callable[[str, tuple], list[Any]]:
    """``candidate_answers`` as the base class first wrote it: ``respond`` state by state."""
    states = game.candidate_states()
    return lambda name, args: [game.respond(s, name, args) for s in states]


def answer_table(ids: list[str]) -> None:
    print("## Answer tables at level 5: every query in every candidate state, seconds\n")
    print("| game | states | queries | answer columns | plain respond loop | ratio |")
    print("|---|---|---|---|---|---|")
    for env_id in ids:
        cls = resolve_game(GAME_IDS[env_id])
        game = cls.benchmark(5, 0)
        if not game.enumerable:
            continue
        queries = game.all_queries()
        game.candidate_answers(*queries[0])  # builds a game's cached tables, once per level

        own = cls.answer_columns is not Game.answer_columns
        mine = timed_table(game.candidate_answers, queries)
        plain = timed_table(respond_loop(game), queries) if own else mine
        row = f"| {env_id[4:-3]} | {len(game.candidate_states())} | {len(queries)} | "
        cells = f"{mine:.4f} | {plain:.3f} | {plain / mine:,.0f}x |" if own else f"- | {plain:.3f} | - |"
        print(row + cells, flush=True)
    print()


# ---------------------------------------------------------------------------------- vector envs
def word_guess_player() -> Callable[[Any, int], str]:
    def choose(env: Any, k: int) -> str:
        vocab = env.unwrapped.vocabulary
        return f"<attempt>{vocab[k % len(vocab)]}</attempt>"

    return choose


def query_player() -> Callable[[Any, int], str]:
    # The legal queries of each benchmark configuration, listed once: every reset builds a new
    # game object, and the id of a freed one is reused, so neither keys a configuration.
    cache: dict[int, list[str]] = {}

    def choose(env: Any, k: int) -> str:
        config_id = env.unwrapped._config_id
        actions = cache.get(config_id)
        if actions is None:
            game = env.unwrapped.game
            actions = cache[config_id] = [game.describe_query(q, a) for q, a in game.all_queries()]
        return actions[k % len(actions)]

    return choose


def raw_stepper(env_id: str, kwargs: dict[str, Any], choose: Callable[[Any, int], str]) -> Callable[[], int]:
    """A run of 4,096 raw env steps with the scripted player (resets included); returns the steps."""
    env = gym.make(env_id, disable_env_checker=True, **kwargs).unwrapped
    env.reset(seed=0)
    picks = np.random.default_rng(1).integers(1 << 20, size=4096).tolist()

    def run() -> int:
        for p in picks:
            _, _, term, trunc, _ = env.step(choose(env, p))
            if term or trunc:
                env.reset()
        return len(picks)

    return run


def one_env_floor(env_id: str, kwargs: dict[str, Any], choose: Callable[[Any], str]) -> Callable[[], int]:
    """The cheapest one-env vector step with ``info_keys=("score", "outcome")``, written out by
    hand for this env alone (no checks, no autoreset modes, no wrappers): the raw step, then the
    arrays such a step returns (reward, two ends, each key's values and mask); the next step
    after an end resets. A run of 4,096 steps, as :func:`raw_stepper`'s."""
    env = gym.make(env_id, disable_env_checker=True, **kwargs).unwrapped
    env.reset(seed=0)
    picks = np.random.default_rng(1).integers(1 << 20, size=4096).tolist()
    floats, bools, objects, true = np.zeros(1), np.zeros(1, np.bool_), np.empty(1, object), np.ones(1, np.bool_)

    ended = False

    def run() -> int:
        nonlocal ended
        for p in picks:
            if ended:
                _, info = env.reset()
                reward, term, trunc = 0.0, False, False
            else:
                _, reward, term, trunc, info = env.step(choose(env, p))
            rewards, terms, truncs = floats.copy(), bools.copy(), bools.copy()
            rewards[0] = reward
            ended = term or trunc
            if ended:
                terms[0], truncs[0] = term, trunc
            score, outcome = floats.copy(), objects.copy()
            score[0], outcome[0] = info["score"], info["outcome"]
            _ = (
                rewards,
                terms,
                truncs,
                {"score": score, "_score": true.copy(), "outcome": outcome, "_outcome": true.copy()},
            )
        return len(picks)

    return run


def gymnasium_sync(env_id: str, n: int, **kwargs: Any) -> Any:
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="sync", **kwargs)


VECTOR_MAKERS: dict[str, Callable[..., Any]] = {
    "gym.make_vec sync": gymnasium_sync,
    "mtp_gym.make_vec": mtp_gym.make_vec,
}
# what a training loop reads (the default info only): the end's score and outcome, or nothing
KEY_MAKERS: dict[str, Callable[..., Any]] = {
    'mtp_gym.make_vec, info_keys=("score", "outcome")': functools.partial(
        mtp_gym.make_vec, info_keys=("score", "outcome")
    ),
    "mtp_gym.make_vec, info_keys=()": functools.partial(mtp_gym.make_vec, info_keys=()),
}


def vector_stepper(
    make: Callable[..., Any], env_id: str, kwargs: dict[str, Any], choose: Callable[[Any, int], str], n: int
) -> tuple[Callable[[], int], Any]:
    """A run of about 4,096 env steps of ``make(env_id, n)`` (returns the env steps) and the
    vector env (to close)."""
    envs = make(env_id, n, **kwargs)
    envs.reset(seed=0)
    subs = [e.unwrapped for e in envs.unwrapped.envs]  # the player reads the env as in the raw run
    picks = np.random.default_rng(1).integers(1 << 20, size=(max(1, 4096 // n), n)).tolist()

    def run() -> int:
        for row in picks:
            envs.step(tuple(map(choose, subs, row)))  # a generator expression costs 0.17 us more
        return len(picks) * n

    return run, envs


def paired_ratio(run: Callable[[], int], base: Callable[[], int], seconds: float, rounds: int = 5) -> tuple:
    """Seconds per unit of ``run`` and of ``base`` (medians), and the median and range of the
    ratio of the two timed in turn, ``rounds`` times ``seconds / rounds`` each: a slow spell
    of a shared machine lands on both sides of a round."""
    pairs = [(1 / timed(run, seconds / rounds), 1 / timed(base, seconds / rounds)) for _ in range(rounds)]
    ratios = sorted(a / b for a, b in pairs)
    return statistics.median(a for a, _ in pairs), statistics.median(b for _, b in pairs), ratios


def vector_table(seconds: float, secret_option: bool) -> None:
    cases = [
        ("MTP/WordGuess-v0", {}, word_guess_player),
        ("MTP/TreeRecursionRule-v0", {"difficulty": 5}, query_player),
    ]
    print("## Vector env (sync) per env step over the raw env's step\n")
    print("Each cell: the vector env's µs per env step, and its ratio to the raw env's step timed in turn")
    print("with it (median of 5 alternations; their range in brackets).\n")
    print("| env | info | vector env | raw us/step | " + " | ".join(f"N={n}" for n in VECTOR_SIZES) + " |")
    print("|---|---|---|---|" + "---|" * len(VECTOR_SIZES))
    variants: list[tuple[str, dict[str, Any]]] = [("default", {})]
    if secret_option:
        variants.append(("info_secret=False", {"info_secret": False}))
    for env_id, kwargs, player in cases:
        for label, extra in variants:
            kw = {**kwargs, **extra}
            raw = raw_stepper(env_id, kw, player())
            makers = {**VECTOR_MAKERS, **(KEY_MAKERS if not extra else {})}
            for maker, make in makers.items():
                cells, raws = [], []
                for n in VECTOR_SIZES:
                    run, envs = vector_stepper(make, env_id, kw, player(), n)
                    try:
                        vec, base, ratios = paired_ratio(run, raw, seconds)
                    finally:
                        envs.close()
                    raws.append(base)
                    cells.append(
                        f"{vec * 1e6:.2f} ({statistics.median(ratios):.2f}x; {ratios[0]:.2f}-{ratios[-1]:.2f})"
                    )
                row = f"| {env_id[4:-3]} | {label} | {maker} | {statistics.median(raws) * 1e6:.2f} | "
                print(row + " | ".join(cells) + " |", flush=True)
            if not extra:
                floor, base, ratios = paired_ratio(one_env_floor(env_id, kw, player()), raw, seconds)
                print(
                    f"| {env_id[4:-3]} | {label} | the floor: a one-env step written by hand, two keys' arrays "
                    f"| {base * 1e6:.2f} | {floor * 1e6:.2f} ({statistics.median(ratios):.2f}x; "
                    f"{ratios[0]:.2f}-{ratios[-1]:.2f}) | - | - |",
                    flush=True,
                )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=50, help="configurations in the cycled split")
    parser.add_argument("--seconds", type=float, default=0.6, help="timing per row (per vector cell)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of a steps/s row, each after its own baseline")
    parser.add_argument("--games", default="", help="comma list of query games (default: every game)")
    parser.add_argument("--skip-steps", action="store_true", help="skip the steps/s table")
    parser.add_argument("--skip-generation", action="store_true", help="skip the generation table")
    parser.add_argument("--skip-vector", action="store_true", help="skip the vector table")
    parser.add_argument("--skip-answers", action="store_true", help="skip the answer-table table")
    args = parser.parse_args()
    try:
        games = game_ids(args.games)
    except ValueError as err:
        parser.error(f"--games: {err}")
    others = [] if args.games else [e for e in ENV_IDS if e not in GAME_IDS]
    if not args.skip_steps:
        steps_table(others + games, args.configs, args.seconds, args.rounds)
    if not args.skip_generation:
        generation_table(games)
    if not args.skip_answers:
        answer_table(games)
    if not args.skip_vector:
        secret_option = "info_secret" in mtp_gym.core.TextPuzzleEnv.__init__.__code__.co_varnames
        vector_table(args.seconds, secret_option)


if __name__ == "__main__":
    main()
