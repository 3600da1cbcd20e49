"""Shared plumbing of the ``examples/train_*.py`` scripts: train an SB3 model on a discrete
view, plot its learning curve, and evaluate it through the harness beside the random and
oracle agents on the same benchmark configurations.

Training uses *generated* configurations (fresh ones every episode, drawn by the env's own
generator), evaluation the fixed benchmark split, so the scores are on configurations the
model never saw.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

import mtp_gym  # noqa: F401  (registers the ids)
from mtp_gym.agents.sb3_agent import SB3Policy
from mtp_gym.eval.runner import evaluate, summarize


def parse_configs(text: str) -> list[int]:
    """``"50"`` -> configs 0-49; ``"10-19"`` -> 10..19; ``"0-399:10"`` -> every 10th of 0..399;
    ``"1,5,7"`` -> those (ranges allowed)."""
    text = text.strip()
    if text.isdigit():
        return list(range(int(text)))
    out: list[int] = []
    for part in text.split(","):
        span, _, step = part.partition(":")
        lo, _, hi = span.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1, int(step or 1)))
    return out


torch.set_num_threads(1)  # small MLPs: one thread is as fast and leaves the other core to the envs


def make_parser(description: str, timesteps: int, configs: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--timesteps", type=int, default=timesteps, help=f"training env steps (default {timesteps})")
    parser.add_argument(
        "--configs",
        default=configs,
        help=f"benchmark configurations to evaluate on: N (the first N), A-B, or a comma list (default {configs})",
    )
    parser.add_argument("--n-envs", type=int, default=4, help="parallel training envs (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs", help="folder for the learning-curve PNG and the model (default runs/)")
    return parser


class EpisodeLog(BaseCallback):
    """Records ``(timestep, episode return)`` of every finished training episode (Monitor info)
    and prints a progress line ``report_every`` steps (0: never)."""

    def __init__(self, report_every: int = 0) -> None:
        super().__init__()
        self.points: list[tuple[int, float]] = []
        self.report_every = report_every
        self._next_report = report_every
        self._start = time.perf_counter()

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", []):
            if "episode" in info:
                self.points.append((self.num_timesteps, float(info["episode"]["r"])))
        if self.report_every and self.num_timesteps >= self._next_report:
            self._next_report += self.report_every
            recent = [r for _, r in self.points[-200:]]
            mean = f"{np.mean(recent):.3f}" if recent else "-"
            print(
                f"  {self.num_timesteps:>8} steps  {len(self.points):>6} episodes  mean return (last 200) {mean}"
                f"  {time.perf_counter() - self._start:.0f} s",
                flush=True,
            )
        return True


def training_env(make_view: Callable[[], gym.Env], n_envs: int, seed: int) -> DummyVecEnv:
    """``n_envs`` monitored views in a DummyVecEnv (the views are cheap; processes are not)."""
    vec = DummyVecEnv([lambda: Monitor(make_view()) for _ in range(n_envs)])
    vec.seed(seed)
    return vec


def batch_size(buffer: int) -> int:
    """A minibatch size that divides the rollout buffer (a quarter of it when possible)."""
    return buffer // 4 if buffer % 4 == 0 else buffer


def train(model: Any, timesteps: int) -> tuple[EpisodeLog, float]:
    log = EpisodeLog(report_every=timesteps // 10 if timesteps >= 10_000 else 0)
    # SB3's default logger makes an empty SB3-<time> folder in the temp dir on every learn().
    model.set_logger(Logger(folder=None, output_formats=[]))
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps, callback=log)
    return log, time.perf_counter() - start


def curve_summary(log: EpisodeLog) -> str:
    """Mean training return over the first and the last tenth of the episodes."""
    r = np.array([p[1] for p in log.points])
    if len(r) < 10:
        return f"{len(r)} training episodes"
    tenth = max(len(r) // 10, 1)
    return (
        f"{len(r)} training episodes; mean return first 10%: {r[:tenth].mean():.3f}, last 10%: {r[-tenth:].mean():.3f}"
    )


def plot_curve(log: EpisodeLog, path: Path, title: str, baselines: dict[str, float] | None = None) -> None:
    """Rolling mean of the training returns against env steps, with horizontal reference lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    if log.points:
        steps = np.array([p[0] for p in log.points])
        returns = np.array([p[1] for p in log.points])
        window = max(1, min(100, len(returns) // 10))
        smooth = np.convolve(returns, np.ones(window) / window, mode="valid")
        ax.plot(steps[window - 1 :], smooth, label=f"training return (mean of {window} episodes)")
    for i, (name, value) in enumerate((baselines or {}).items()):
        ax.axhline(value, linestyle="--", color=f"C{i + 1}", label=f"{name} (benchmark eval)")
    ax.set_xlabel("env steps")
    ax.set_ylabel("episode score")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def compare(
    env_id: str,
    view: Callable[[gym.Env], gym.Env],
    model: Any,
    config_ids: list[int],
    env_kwargs: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, dict[str, float]]:
    """Harness rows on ``config_ids``: the trained model (greedy, and sampling its action
    distribution), random legal actions on the same view, the registered ``random`` agent,
    the ``oracle``, plus ``extra`` policies."""
    agents: dict[str, Any] = {
        "trained": SB3Policy(view, model, env_id, env_kwargs),
        "trained-sampled": SB3Policy(view, model, env_id, env_kwargs, deterministic=False),
        "view-random": SB3Policy(view, None, env_id, env_kwargs),
        "random": "random",
        "oracle": "oracle",
        **(extra or {}),
    }
    rows = {}
    for name, agent in agents.items():
        rows[name] = summarize(evaluate(env_id, agent, config_ids, env_kwargs=env_kwargs))
    return rows


def print_rows(rows: dict[str, dict[str, float]], title: str) -> None:
    print(f"\n{title}")
    print(f"{'agent':<16}{'episodes':>9}{'score':>9}{'+-ci95':>9}{'success':>9}{'turns':>8}{'fmt err':>9}")
    for name, r in rows.items():
        print(
            f"{name:<16}{r['episodes']:>9}{r['mean_score']:>9.3f}{r['ci95']:>9.3f}{r['success_rate']:>9.3f}"
            f"{r['mean_turns']:>8.1f}{r['format_errors']:>9.2f}"
        )


def train_and_compare(
    args: argparse.Namespace,
    *,
    env_id: str,
    view: Callable[[gym.Env], gym.Env],
    make_view: Callable[[], gym.Env],
    algo: Any,
    name: str,
    title: str,
    what: str,
    n_steps_max: int = 512,
    baselines: tuple[str, ...] = ("view-random", "random", "oracle"),
    extra: dict[str, Any] | None = None,
    **hyper: Any,
) -> dict[str, dict[str, float]]:
    """The examples' whole run: train ``algo`` (SB3 hyper-parameters ``hyper``) on
    ``make_view()`` envs, save the model as ``OUT/name``, evaluate it through the harness
    beside the baselines (:func:`compare`), plot ``OUT/name.png``; returns the rows."""
    vec = training_env(make_view, args.n_envs, args.seed)
    n_steps = max(16, min(n_steps_max, args.timesteps // args.n_envs))
    model = algo(
        "MlpPolicy",
        vec,
        n_steps=n_steps,
        batch_size=batch_size(n_steps * args.n_envs),
        n_epochs=10,
        seed=args.seed,
        device="cpu",
        verbose=0,
        **hyper,
    )
    log, seconds = train(model, args.timesteps)
    print(
        f"trained {algo.__name__} for {args.timesteps} steps in {seconds:.0f} s "
        f"({args.timesteps / seconds:.0f} steps/s); {curve_summary(log)}"
    )
    out = Path(args.out)
    model.save(out / name)
    rows = compare(env_id, view, model, parse_configs(args.configs), extra=extra)
    print_rows(rows, f"{env_id}, {what}")
    plot_curve(
        log,
        out / f"{name}.png",
        f"{title}: {algo.__name__} on the discrete view",
        {k: rows[k]["mean_score"] for k in baselines},
    )
    print(f"learning curve: {out / f'{name}.png'}")
    return rows
