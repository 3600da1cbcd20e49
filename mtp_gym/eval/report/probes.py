"""The query games' tables as numbers: by level, by cell, each probe against the clean run,
and the interactive-reasoning paper's Table 3 (isomorphic drop per level), Table 7
(counterfactual drop over the revised episodes, with the vacuous share) and Table 8
(necessity: Complete Evidence, After Pruning, Pruning Ratio, optimal ratio, score), read from
each record's ``probe_result`` (``None``, shown "n/a", for logs written before it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mtp_gym.eval.record import task_name
from mtp_gym.eval.report.load import is_number
from mtp_gym.eval.report.stats import Row, mean, suite_of, task_order

__all__ = [
    "NECESSITY_SUCCESS",
    "OWN_TABLE_PROBES",
    "cell_rows",
    "counterfactual_rows",
    "isomorphic_level_rows",
    "level_rows",
    "necessity_rows",
    "probe_rows",
]

#: The necessity probe's success and score (mtp_gym.wrappers.probes.necessity).
NECESSITY_SUCCESS = (
    "the phase-2 answer right and the kept observations still determining it (After Pruning); "
    "score: removed / max removable observations on success, else 0"
)


def _flag(figures: dict[str, Any] | None, key: str) -> bool | None:
    """A boolean figure of a probe record, ``None`` when absent or not a boolean."""
    value = (figures or {}).get(key)
    return value if isinstance(value, bool) else None


def _ratio(figures: dict[str, Any] | None, key: str) -> float | None:
    """A figure in [0, 1] of a probe record, ``None`` when absent or not such a number."""
    value = (figures or {}).get(key)
    return float(value) if is_number(value) and 0 <= value <= 1 else None


def level_rows(rows: list[Row]) -> dict[str, dict[int, float]]:
    """Query games without a probe: agent -> level -> mean score over the games played at it."""
    out: dict[str, dict[int, list[float]]] = {}
    for r in rows:
        if r.level is not None and r.probe is None and r.episodes:
            out.setdefault(r.agent, {}).setdefault(r.level, []).append(r.mean_score)
    return {a: {lv: mean(v) for lv, v in sorted(by.items())} for a, by in out.items()}


def cell_rows(rows: list[Row]) -> dict[str, dict[str, float]]:
    """Query games without a probe: agent -> cell (structure × inference) -> mean score."""
    out: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        if r.level is not None and r.probe is None and r.episodes:
            out.setdefault(r.agent, {}).setdefault(suite_of(r.env)[1], []).append(r.mean_score)
    return {a: {c: mean(v) for c, v in sorted(by.items())} for a, by in out.items()}


#: Probes with a table of their own (:func:`necessity_rows`, :func:`counterfactual_rows`), left
#: out of :func:`probe_rows`: the necessity score is not a success rate, and a counterfactual
#: episode without a revision is the clean game.
OWN_TABLE_PROBES = ("counterfactual", "necessity")


def probe_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """Per agent and probe (but :data:`OWN_TABLE_PROBES`): the probed success rate against the
    same agent's clean one on the same games, levels and configurations, and the drop (clean -
    probed). (A query game's score is its success, so these are its scores too.)"""
    clean: dict[tuple[str, str, int | None], Row] = {
        (r.agent, r.env, r.level): r for r in rows if r.level is not None and r.probe is None
    }
    acc: dict[tuple[str, str], list[tuple[float, float]]] = {}
    tasks: dict[tuple[str, str], set] = {}
    for r in rows:
        base = clean.get((r.agent, r.env, r.level))
        if r.probe is None or r.probe in OWN_TABLE_PROBES or base is None:
            continue
        if not r.config_success or not base.config_success:
            continue
        both = sorted(set(r.config_success) & set(base.config_success))
        acc.setdefault((r.agent, r.probe), []).extend((base.config_success[c], r.config_success[c]) for c in both)
        if both:
            tasks.setdefault((r.agent, r.probe), set()).add((r.env, r.level))
    out = []
    for (agent, probe), pairs in sorted(acc.items()):
        if not pairs:
            continue
        c, p = mean([a for a, _ in pairs]), mean([b for _, b in pairs])
        out.append(
            {
                "agent": agent,
                "probe": probe,
                "tasks": len(tasks[(agent, probe)]),
                "configs": len(pairs),
                "clean": c,
                "probed": p,
                "drop": c - p,
            }
        )
    return out


def _clean_success(rows: list[Row]) -> dict[tuple[str, str, int | None], dict[int, float]]:
    """(agent, env, level) -> the success rate per configuration of the clean run."""
    return {
        (r.agent, r.env, r.level): r.config_success or {}
        for r in rows
        if r.level is not None and r.probe is None and r.episodes
    }


def _rate(values: list[Any]) -> float | None:
    """The mean of the known values (``None`` when none is known)."""
    known = [float(v) for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _pairs(episodes: list[dict[str, Any]], clean: Mapping[Any, float]) -> list[tuple[float, float]]:
    """(clean success rate of the episode's configuration, the episode's success) for every
    episode whose configuration the clean run played."""
    return [(clean[e["config_id"]], float(e["success"])) for e in episodes if e["config_id"] in clean]


def _probe_groups(rows: list[Row], probe: str) -> dict[str, list[tuple[Row, dict[int, float]]]]:
    """agent -> its rows under ``probe``, each with the clean per-configuration success rates of
    the same agent, game and level (empty when it has no clean run there)."""
    clean = _clean_success(rows)
    out: dict[str, list[tuple[Row, dict[int, float]]]] = {}
    for r in rows:
        if r.probe == probe and r.level is not None and r.episodes and r.probe_records is not None:
            out.setdefault(r.agent, []).append((r, clean.get((r.agent, r.env, r.level), {})))
    return out


def _complete_evidence(figures: dict[str, Any] | None) -> bool | None:
    """Whether the phase-1 answer was right: ``None`` for a log written before the figures, False
    for an episode of a newer log that never gave one (a context overflow, say)."""
    if figures is None:
        return None
    return _flag(figures, "full_success") if "full_success" in figures else False


def _necessity_figures(
    agent: str, task: str, episodes: list[dict[str, Any]], clean: Mapping[Any, float]
) -> dict[str, Any]:
    figures = [e["figures"] for e in episodes]
    # the graded score came with the optimal ratio: older logs scored success (1/0)
    graded = any(f is not None and "optimal_ratio" in f for f in figures)
    pairs = _pairs(episodes, clean)
    return {
        "agent": agent,
        "task": task,
        "episodes": len(episodes),
        "clean": _rate([c for c, _ in pairs]),
        "complete_evidence": _rate([_complete_evidence(f) for f in figures]),
        "after_pruning": _rate([e["success"] for e in episodes]),
        "pruning_ratio": _rate([_ratio(f, "pruning_ratio") for f in figures]),
        "optimal_ratio": _rate([_ratio(f, "optimal_ratio") for f in figures]),
        "score": _rate([e["score"] for e in episodes]) if graded else None,
    }


def necessity_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """The paper's Table 8 per agent, query game and level, then per agent over all its
    necessity episodes (task ``all``): ``clean`` (the agent's clean success rate on the same
    configurations, ``None`` without a clean run), ``complete_evidence`` (phase-1 answer right),
    ``after_pruning`` (the episode's success: phase-2 answer right and the kept observations
    still determine it), ``pruning_ratio``, ``optimal_ratio`` (the largest removable share) and
    ``score`` (the probe's score: removed / max removable on success). A figure the records do
    not carry (logs written before it) is ``None``."""
    out = []
    for agent, group in sorted(_probe_groups(rows, "necessity").items()):
        matched: list[dict[str, Any]] = []
        for r, clean in sorted(group, key=lambda g: task_order(g[0].task)):
            episodes = r.probe_records or []
            out.append(_necessity_figures(agent, task_name((r.env, r.level, None)), episodes, clean))
            matched += [{**e, "config_id": (r.env, r.level, e["config_id"])} for e in episodes]
        if len(group) > 1:
            clean_all = {(r.env, r.level, c): v for r, clean in group for c, v in clean.items()}
            out.append(_necessity_figures(agent, "all", matched, clean_all))
    return out


def _counterfactual_figures(
    agent: str, task: str, episodes: list[dict[str, Any]], clean: Mapping[Any, float]
) -> dict[str, Any]:
    flags = [_flag(e["figures"], "revision") for e in episodes]
    known = [f for f in flags if f is not None]
    revised = [e for e, f in zip(episodes, flags) if f]
    pairs = _pairs(revised, clean)
    clean_rate = _rate([c for c, _ in pairs])
    probed = _rate([p for _, p in pairs]) if pairs else _rate([e["success"] for e in revised])
    return {
        "agent": agent,
        "task": task,
        "episodes": len(episodes),
        "revised": len(revised) if known else None,
        "vacuous": (len(known) - len(revised)) / len(known) if known else None,
        "clean": clean_rate,
        "probed": probed,
        "drop": clean_rate - probed if clean_rate is not None and probed is not None else None,
        "all_episodes": _rate([e["success"] for e in episodes]),
    }


def counterfactual_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """The paper's Table 7 over the episodes where an answer was actually falsified, per agent,
    query game and level, then per agent over all (task ``all``): ``revised`` (episodes with a
    revision), ``vacuous`` (the share without one: the clean game, left out of the drop),
    ``clean`` (the agent's clean success rate on the revised episodes' configurations),
    ``probed`` (success rate of the revised episodes), ``drop`` (clean - probed) and
    ``all_episodes`` (success rate over every episode, vacuous ones included). Logs written
    before the probe recorded ``revision``: ``None`` (n/a)."""
    out = []
    for agent, group in sorted(_probe_groups(rows, "counterfactual").items()):
        matched: list[dict[str, Any]] = []
        for r, clean in sorted(group, key=lambda g: task_order(g[0].task)):
            episodes = r.probe_records or []
            out.append(_counterfactual_figures(agent, task_name((r.env, r.level, None)), episodes, clean))
            matched += [{**e, "config_id": (r.env, r.level, e["config_id"])} for e in episodes]
        if len(group) > 1:
            clean_all = {(r.env, r.level, c): v for r, clean in group for c, v in clean.items()}
            out.append(_counterfactual_figures(agent, "all", matched, clean_all))
    return out


def isomorphic_level_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """The paper's Table 3: per agent and level, the clean and the isomorphic success rate over
    the same games and configurations (pooled over the games played at the level) and the drop
    (clean - isomorphic)."""
    clean = _clean_success(rows)
    acc: dict[tuple[str, int], list[tuple[float, float]]] = {}
    games: dict[tuple[str, int], set[str]] = {}
    for r in rows:
        base = clean.get((r.agent, r.env, r.level))
        if r.probe != "isomorphic" or r.level is None or not base or not r.config_success:
            continue
        both = sorted(set(r.config_success) & set(base))
        if both:
            acc.setdefault((r.agent, r.level), []).extend((base[c], r.config_success[c]) for c in both)
            games.setdefault((r.agent, r.level), set()).add(r.env)
    out = []
    for (agent, level), pairs in sorted(acc.items()):
        c, p = mean([a for a, _ in pairs]), mean([b for _, b in pairs])
        out.append(
            {
                "agent": agent,
                "level": level,
                "games": len(games[(agent, level)]),
                "configs": len(pairs),
                "clean": c,
                "isomorphic": p,
                "drop": c - p,
            }
        )
    return out
