"""Evaluation: play a policy over a benchmark split and summarize the papers' metrics."""

from mtp_gym.eval.runner import EpisodeResult, evaluate, run_episode, summarize

__all__ = ["EpisodeResult", "evaluate", "run_episode", "summarize"]
