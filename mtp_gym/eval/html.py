"""``report.html``: the report's tables and figures, then every episode as a conversation.

One self-contained file (no network, no CDN): the figures are embedded PNGs and the episodes
a gzip-compressed JSON block that the page's own script inflates with the browser's
``DecompressionStream``. Episodes can be filtered by task, agent, outcome and configuration;
each opens as a conversation (the env's messages and the agent's, re-prompts and corrections
marked, reasoning kept apart), with the hidden state revealed at the end, tokens and cost.

Everything a log holds is data, never markup: the tables are escaped here (the report's
tables as data, :func:`mtp_gym.eval.report.tables.to_html`; a plain Markdown text through
:func:`markdown_to_html`), and the page's script puts every episode field in as text
(``textContent`` / ``append``, never ``innerHTML``), so a shared log cannot run script.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from mtp_gym.eval.log import to_jsonable
from mtp_gym.eval.record import EpisodeRecord, task_name
from mtp_gym.eval.report.tables import inline_html, to_html

__all__ = ["write_html", "markdown_to_html", "message_kind"]

#: Env messages that re-prompt after a malformed action (the base class's wording).
REPROMPT = re.compile(r"^Invalid action:")
#: A slot of the page template (``{{tables}}``).
_SLOT = re.compile(r"\{\{(title|style|script|tables|figures|count|data)\}\}")
#: Counterfactual corrections (mtp_gym.wrappers.probes.counterfactual).
CORRECTION = re.compile(r"\bCorrection: my earlier reply\b")


def message_kind(role: str, text: str) -> str:
    """How the viewer marks a message: ``reprompt``, ``correction`` or ``""``."""
    if role == "assistant":
        return ""
    if REPROMPT.match(text):
        return "reprompt"
    if CORRECTION.search(text):
        return "correction"
    return ""


def markdown_to_html(text: str) -> str:
    """The report's Markdown (pipe tables, bullet lists, paragraphs) as HTML."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|"):
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            head, body = block[0], [r for r in block[1:] if not all(set(c) <= {"-", ":"} for c in r)]
            out.append("<div class='scroll'><table><thead><tr>")
            out += [f"<th>{inline_html(c)}</th>" for c in head]
            out.append("</tr></thead><tbody>")
            for r in body:
                out.append("<tr>" + "".join(f"<td>{inline_html(c)}</td>" for c in r) + "</tr>")
            out.append("</tbody></table></div>")
            continue
        if line.startswith("- "):
            out.append("<ul>")
            while i < len(lines) and lines[i].startswith("- "):
                out.append(f"<li>{inline_html(lines[i][2:])}</li>")
                i += 1
            out.append("</ul>")
            continue
        if line.strip():
            out.append(f"<p>{inline_html(line)}</p>")
        i += 1
    return "\n".join(out)


def _episode(
    r: EpisodeRecord, tasks: dict[str, int], agents: dict[str, int], prices: dict[str, tuple[float, float]]
) -> list[Any]:
    messages = []
    for m in r.transcript or []:
        role, text = m.get("role", "user"), str(m.get("content", ""))
        messages.append([1 if role == "assistant" else 0, text, message_kind(role, text), m.get("reasoning") or ""])
    cost = None
    if r.agent in prices:
        p_in, p_out = prices[r.agent]
        cost = (r.prompt_tokens * p_in + r.completion_tokens * p_out) / 1e6
    return [
        tasks.setdefault(task_name(r.task), len(tasks)),
        agents.setdefault(r.agent, len(agents)),
        r.outcome,
        r.config_id,
        r.sample,
        r.score,
        r.turns,
        r.format_errors,
        r.prompt_tokens,
        r.completion_tokens,
        cost,
        r.error,
        messages,
        r.hidden or {},
    ]


def write_html(
    markdown_text: str,
    records: Iterable[EpisodeRecord | Mapping[str, Any]],
    path: str | Path,
    figures: Iterable[str | Path] = (),
    prices: dict[str, tuple[float, float]] | None = None,
    title: str = "mtp-gym report",
) -> dict[str, int]:
    """Write the self-contained report page to ``path``; return its ``bytes`` and ``episodes``.

    ``records`` are full episode records (transcripts included, as :func:`load_runs` gives with
    ``slim=False``; or mappings in the record's JSON form); they are streamed into the page's
    compressed data block. ``markdown_text`` is the report (:func:`~mtp_gym.eval.report.write_report`'s
    text, whose tables are rendered from their data) or any Markdown text.
    """
    tasks: dict[str, int] = {}
    agents: dict[str, int] = {}
    episodes = [_episode(EpisodeRecord.from_json(r), tasks, agents, prices or {}) for r in records]
    data = {"tasks": list(tasks), "agents": list(agents), "episodes": episodes}
    packed = base64.b64encode(gzip.compress(json.dumps(to_jsonable(data), separators=(",", ":")).encode(), 6))
    images = []
    for fig in map(Path, figures):
        if fig.exists():
            b64 = base64.b64encode(fig.read_bytes()).decode()
            images.append(
                f"<figure><img alt='{html.escape(fig.stem)}' src='data:image/png;base64,{b64}'>"
                f"<figcaption>{html.escape(fig.name)}</figcaption></figure>"
            )
    blocks = getattr(markdown_text, "blocks", None)  # write_report's text: its tables as data
    assets = resources.files("mtp_gym.eval") / "assets"
    slots = {
        "title": html.escape(title),
        "style": (assets / "report.css").read_text(),
        "script": (assets / "pretty.js").read_text() + (assets / "report.js").read_text(),
        "tables": to_html(blocks) if blocks else markdown_to_html(markdown_text),
        "figures": "\n".join(images),
        "count": str(len(episodes)),
        "data": packed.decode(),
    }
    # One pass over the template: a slot's text (a log's agent name, say) is never searched for slots.
    page = _SLOT.sub(lambda m: slots[m.group(1)], (assets / "report.html").read_text())
    Path(path).write_text(page)
    return {"bytes": len(page.encode()), "episodes": len(episodes)}
