"""``report.html``: the report's tables and figures, then every episode as a conversation.

No network, no CDN: the figures are embedded PNGs; the page carries a compact index of the
episodes (task, agent, configuration, outcome, score, turns and where each one is stored: typed
columns, gzip-compressed, inflated with the browser's ``DecompressionStream``) and the episodes
themselves lie beside it in blocks (``report_episodes/<token>_000000.js``, a few thousand
episodes each, gzip-compressed JSON in base64 handed to the page's ``mtpBlock``): a ``<script>``
element loads one where ``fetch`` cannot (a page opened from ``file://``). The page lists and
filters every episode from the index (a million rows), loads a block when one of its episodes is
opened, and searches the conversations block by block (with progress, cancellable), never
holding all transcripts at once. Writing it streams: :class:`EpisodeBlocks` takes one record
at a time and writes each block when full.

Episodes can be filtered by task, agent, outcome and configuration, and searched; each opens
as a conversation (the env's messages and the agent's, re-prompts and corrections marked,
reasoning kept apart), with the hidden state revealed at the end, tokens and cost.

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
import os
import re
import zlib
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mtp_gym.eval.log import to_jsonable
from mtp_gym.eval.record import EpisodeRecord
from mtp_gym.eval.report.stream import INDEX_TYPES, PageIndex, ReportStream
from mtp_gym.eval.report.tables import inline_html, to_html

__all__ = [
    "BLOCK_BYTES",
    "BLOCK_EPISODES",
    "EpisodeBlocks",
    "blocks_dir",
    "markdown_to_html",
    "message_kind",
    "write_html",
    "write_page",
]

#: A block holds at most this many episodes ...
BLOCK_EPISODES = 2000
#: ... and at most about this many bytes of JSON (the browser inflates one block at a time).
BLOCK_BYTES = 8 << 20
#: The name of a block file: the write's token, the block's number.
BLOCK_FILE = re.compile(r"^[0-9a-f]{8}_[0-9]{6,}\.js$")
#: The columns of the page's index, in the order the page reads them (their types:
#: :data:`~mtp_gym.eval.report.stream.INDEX_TYPES`).
INDEX_COLUMNS = tuple(
    (name, INDEX_TYPES[name])
    for name in ("task", "agent", "outcome", "block", "offset", "config", "sample", "score", "turns")
)

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


def blocks_dir(page: str | Path) -> Path:
    """Where the episode blocks of the page ``page`` lie: ``<stem>_episodes`` beside it."""
    page = Path(page)
    return page.with_name(f"{page.stem}_episodes")


def _entry(r: EpisodeRecord, prices: dict[str, tuple[float, float]]) -> list[Any]:
    """What a block holds of one episode: what the index does not."""
    messages = []
    for m in r.transcript or []:
        role, text = m.get("role", "user"), str(m.get("content", ""))
        messages.append([1 if role == "assistant" else 0, text, message_kind(role, text), m.get("reasoning") or ""])
    cost = None
    if r.agent in prices:
        p_in, p_out = prices[r.agent]
        cost = (r.prompt_tokens * p_in + r.completion_tokens * p_out) / 1e6
    return [r.format_errors, r.prompt_tokens, r.completion_tokens, cost, r.error, messages, r.hidden or {}]


def _json(value: Any) -> bytes:
    """``value`` as compact JSON; a value that is not plain JSON (NaN, a set, a numpy scalar)
    goes through :func:`~mtp_gym.eval.log.to_jsonable` first."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()
    except (TypeError, ValueError):
        return json.dumps(to_jsonable(value), separators=(",", ":"), allow_nan=False).encode()


def _b64gzip(data: bytes) -> str:
    return base64.b64encode(gzip.compress(data, 6, mtime=0)).decode()


class EpisodeBlocks:
    """The episode blocks of the page ``page``, written as records stream in: :meth:`add` one
    record (its block and offset back), :meth:`close` when done. Blocks a previous write left
    in the directory are removed first."""

    def __init__(
        self,
        page: str | Path,
        prices: dict[str, tuple[float, float]] | None = None,
        episodes: int = BLOCK_EPISODES,
        max_bytes: int = BLOCK_BYTES,
    ) -> None:
        self.dir = blocks_dir(page)
        self.dir.mkdir(parents=True, exist_ok=True)
        for old in self.dir.iterdir():
            if BLOCK_FILE.match(old.name) and old.is_file():
                old.unlink()
        self.token = os.urandom(4).hex()
        self.prices = prices or {}
        self.episodes, self.max_bytes = max(1, episodes), max_bytes
        self.names: list[str] = []
        self._parts: list[bytes] = []
        self._size = 0

    def add(self, record: EpisodeRecord) -> tuple[int, int]:
        """Put ``record`` in the current block; return (block, offset)."""
        part = _json(_entry(record, self.prices))
        where = len(self.names), len(self._parts)
        self._parts.append(part)
        self._size += len(part)
        if len(self._parts) >= self.episodes or self._size >= self.max_bytes:
            self._flush()
        return where

    def _flush(self) -> None:
        if not self._parts:
            return
        name = f"{self.token}_{len(self.names):06d}.js"
        packed = _b64gzip(b"[" + b",".join(self._parts) + b"]")
        tmp = self.dir / (name + ".tmp")
        tmp.write_text(f'mtpBlock("{self.token}",{len(self.names)},"{packed}");\n')
        os.replace(tmp, self.dir / name)
        self.names.append(name)
        self._parts, self._size = [], 0

    def close(self) -> list[str]:
        """Write the last block; return the block files' names, in order."""
        self._flush()
        return self.names


class _Base64:
    """Bytes written as base64 text to ``write``, a few at a time (the index is never whole)."""

    def __init__(self, write: Callable[[str], Any]) -> None:
        self._write, self._rest = write, b""

    def __call__(self, data: bytes) -> None:
        data = self._rest + data
        cut = len(data) - len(data) % 3
        self._write(base64.b64encode(data[:cut]).decode())
        self._rest = data[cut:]

    def close(self) -> None:
        self._write(base64.b64encode(self._rest).decode())


def _write_index(index: PageIndex, blocks: EpisodeBlocks | None, write: Callable[[str], Any]) -> None:
    """Write the page's index to ``write``: a JSON header (names, block files, column layout) and
    the columns' bytes (each 8-byte aligned), gzip-compressed, in base64; each column streams
    through the compressor a chunk at a time (:meth:`PageIndex.read`)."""
    n = len(index)
    layout, at = [], 0
    for name, dtype in INDEX_COLUMNS:
        layout.append([name, dtype, at, n])
        size = np.dtype(dtype).itemsize * n
        at += size + (-size % 8)
    header = _json(
        {
            "tasks": index.tasks,
            "agents": index.agents,
            "outcomes": index.outcomes,
            "count": n,
            "token": blocks.token if blocks else "",
            "dir": blocks.dir.name if blocks else "",
            "blocks": blocks.names if blocks else [],
            "columns": layout,
        }
    )
    header += b" " * (-(len(header) + 4) % 8)
    gz = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: the gzip container
    out = _Base64(write)
    out(gz.compress(len(header).to_bytes(4, "little") + header))
    for name, dtype in INDEX_COLUMNS:
        size = 0
        for chunk in index.read(name):
            data = np.ascontiguousarray(chunk, dtype=dtype)
            size += data.nbytes
            out(gz.compress(data.data.cast("B")))
        out(gz.compress(b"\0" * (-size % 8)))
    out(gz.flush())
    out.close()


def write_page(
    markdown_text: str,
    index: PageIndex,
    blocks: EpisodeBlocks | None,
    path: str | Path,
    figures: Iterable[str | Path] = (),
    title: str = "mtp-gym report",
) -> dict[str, int]:
    """Write the page ``path`` over ``index`` (the episodes, stored by ``blocks``, closed); return
    its ``bytes``, ``episodes`` and ``blocks``."""
    images = []
    for fig in map(Path, figures):
        if fig.exists():
            b64 = base64.b64encode(fig.read_bytes()).decode()
            images.append(
                f"<figure><img alt='{html.escape(fig.stem)}' src='data:image/png;base64,{b64}'>"
                f"<figcaption>{html.escape(fig.name)}</figcaption></figure>"
            )
    text_blocks = getattr(markdown_text, "blocks", None)  # write_report's text: its tables as data
    assets = resources.files("mtp_gym.eval") / "assets"
    slots = {
        "title": html.escape(title),
        "style": (assets / "report.css").read_text(),
        "script": (assets / "pretty.js").read_text() + (assets / "report.js").read_text(),
        "tables": to_html(text_blocks) if text_blocks else markdown_to_html(markdown_text),
        "figures": "\n".join(images),
        "count": str(len(index)),
    }
    # One pass over the template: a slot's text (a log's agent name, say) is never searched for slots.
    template = (assets / "report.html").read_text()
    tmp = Path(path).with_name(Path(path).name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        at = 0
        for slot in _SLOT.finditer(template):
            f.write(template[at : slot.start()])
            if slot.group(1) == "data":
                _write_index(index, blocks, f.write)
            else:
                f.write(slots[slot.group(1)])
            at = slot.end()
        f.write(template[at:])
    size = tmp.stat().st_size
    os.replace(tmp, path)
    return {"bytes": size, "episodes": len(index), "blocks": len(blocks.names) if blocks else 0}


def write_html(
    markdown_text: str,
    records: Iterable[EpisodeRecord | Mapping[str, Any]],
    path: str | Path,
    figures: Iterable[str | Path] = (),
    prices: dict[str, tuple[float, float]] | None = None,
    title: str = "mtp-gym report",
    block_episodes: int = BLOCK_EPISODES,
) -> dict[str, int]:
    """Write the report page ``path`` and its episode blocks; return its ``bytes``, ``episodes``
    and ``blocks``.

    ``records`` (full episode records, transcripts included, as :func:`load_runs` gives with
    ``slim=False``; or mappings in the record's JSON form) are consumed one at a time, each
    shown in the order given; a few numbers of each go to a temporary file (memory does not
    grow with the records) until the page is written. ``markdown_text`` is the report
    (:func:`~mtp_gym.eval.report.write_report`'s text, whose tables are rendered from their
    data) or any Markdown text.
    """
    blocks = EpisodeBlocks(path, prices, block_episodes)
    with ReportStream(blocks.add, where=blocks.dir) as stream:
        stream.add_all(map(EpisodeRecord.from_json, records), table=False, dedup=False)
        blocks.close()
        return write_page(markdown_text, stream.page_index(), blocks, path, figures, title)
