"""Evaluation: play a policy over a benchmark split and summarize the papers' metrics.

* :func:`run_episode`, :func:`evaluate`, :func:`summarize`: in-process, no files.
* :func:`run_eval` with an :class:`AgentConfig`: the ``mtp-gym eval`` harness (concurrent
  episodes, a resumable JSONL log per agent); :mod:`mtp_gym.eval.report` makes the tables and
  figures of ``mtp-gym report``.

By concern: :mod:`~mtp_gym.eval.record` (:class:`~mtp_gym.eval.record.EpisodeRecord`, the one
shape of a logged episode, read and written there), :mod:`~mtp_gym.eval.splits` (which
configurations a run plays, episode seeds), :mod:`~mtp_gym.eval.log` (the run directory:
lines, lock, resume), :mod:`~mtp_gym.eval.harness` (playing the episodes),
:mod:`~mtp_gym.eval.report` (load, stats, tables, figures), :mod:`~mtp_gym.eval.html`
(``report.html``), :mod:`~mtp_gym.eval.human` (people's games, logged like an agent's).
"""

from mtp_gym.eval.harness import AgentConfig, run_eval
from mtp_gym.eval.runner import INFRA_ERROR, EpisodeResult, evaluate, run_episode, summarize

__all__ = ["AgentConfig", "EpisodeResult", "INFRA_ERROR", "evaluate", "run_episode", "run_eval", "summarize"]
