"""Tables as data, and one renderer per format.

A :class:`Table` is columns and rows of cell text (with an optional caption line above it); a
:class:`Note` a paragraph with optional bullet points under it. A report is a list of them
(:data:`Block`), rendered to Markdown (:func:`to_markdown`), HTML (:func:`to_html`: every cell
escaped, so a log's strings are never markup) or CSV (:func:`write_csv`, for tables of values).
"""

from __future__ import annotations

import csv
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Block", "Note", "Table", "inline_html", "to_html", "to_markdown", "write_csv"]


@dataclass
class Table:
    """Columns and rows (one value per column; text for Markdown and HTML, any value for CSV)."""

    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    #: A line said above the table (what it shows), or ``None``.
    caption: str | None = None


@dataclass
class Note:
    """A paragraph, and bullet points right under it."""

    text: str
    bullets: list[str] = field(default_factory=list)


Block = Table | Note


def _markdown_block(block: Block) -> str:
    if isinstance(block, Note):
        return "\n".join([block.text] + [f"- {b}" for b in block.bullets])
    lines = [] if block.caption is None else [block.caption, ""]
    lines += ["| " + " | ".join(block.columns) + " |", "|" + "---|" * len(block.columns)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in block.rows]
    return "\n".join(lines)


def to_markdown(blocks: Sequence[Block]) -> str:
    """Pipe tables and paragraphs, a blank line between blocks."""
    return "\n\n".join(_markdown_block(b) for b in blocks)


def inline_html(text: str) -> str:
    """``text`` escaped, ``**bold**`` kept as bold."""
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(text))


def _html_block(block: Block) -> list[str]:
    if isinstance(block, Note):
        out = [f"<p>{inline_html(block.text)}</p>"]
        if block.bullets:
            out += ["<ul>", *(f"<li>{inline_html(b)}</li>" for b in block.bullets), "</ul>"]
        return out
    out = [] if block.caption is None else [f"<p>{inline_html(block.caption)}</p>"]
    out.append("<div class='scroll'><table><thead><tr>")
    out += [f"<th>{inline_html(str(c).strip())}</th>" for c in block.columns]
    out.append("</tr></thead><tbody>")
    out += ["<tr>" + "".join(f"<td>{inline_html(str(c).strip())}</td>" for c in row) + "</tr>" for row in block.rows]
    out.append("</tbody></table></div>")
    return out


def to_html(blocks: Sequence[Block]) -> str:
    """The blocks as HTML (a scrolling ``<table>`` per table), every text escaped."""
    return "\n".join(line for b in blocks for line in _html_block(b))


def write_csv(table: Table, path: str | Path) -> None:
    """``table`` as a CSV file (header, then one line per row; ``None`` as an empty field)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(table.columns)
        w.writerows([["" if v is None else v for v in row] for row in table.rows])
