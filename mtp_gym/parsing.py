"""Pure extractors for the tag formats the papers use (no env state).

Every extractor is tolerant of surrounding reasoning text, letter case and whitespace, and
returns ``None`` when nothing usable is found, so envs turn that into a re-prompt.
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["extract_tag", "extract_all_tags", "extract_choice", "extract_quoted"]


@cache
def last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``, or ``None``."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007 (the loop keeps the last match)
        pass
    return found


def _tag_pattern(tag: str) -> re.Pattern[str]:
    name = re.escape(tag)
    return re.compile(rf"<\s*{name}\s*>(.*?)<\s*/\s*{name}\s*>", re.IGNORECASE | re.DOTALL)


def extract_tag(text: str, tag: str, *, last: bool = True) -> str | None:
    """Content of ``<tag>…</tag>`` in ``text``, stripped; the last occurrence by default.

    Models often restate the format in their reasoning before answering, so the last
    well-formed tag is the answer. Returns ``None`` when the tag is absent.

    >>> extract_tag("I think... <Attempt> proof </attempt>", "attempt")
    'proof'
    """
    pattern = _tag_pattern(tag)
    if last:
        found = last_match(pattern, text)
        return None if found is None else found.group(1).strip()
    match = pattern.search(text)
    return None if match is None else match.group(1).strip()


def extract_all_tags(text: str, tag: str) -> list[str]:
    """Contents of every ``<tag>…</tag>`` in order, stripped."""
    return [m.group(1).strip() for m in _tag_pattern(tag).finditer(text)]


_CHOICE_RE = re.compile(r"<\s*CHOICE\s*>\s*:?\s*(.+)", re.IGNORECASE)


def extract_choice(text: str) -> str | None:
    """The rest of the line after the last ``<CHOICE>:`` marker (TurnBench format)."""
    found = last_match(_CHOICE_RE, text)
    return None if found is None else found.group(1).strip().splitlines()[0].strip()


_QUOTED_RE = re.compile(r"'([^'\s]+)'|\"([^\"\s]+)\"|‘([^’\s]+)’|“([^”\s]+)”")


def extract_quoted(text: str) -> str | None:
    """The last single word in quotes (straight or curly, single or double)."""
    found = last_match(_QUOTED_RE, text)
    if found is None:
        return None
    return next(g for g in found.groups() if g is not None)


_LABELED_RE: dict[tuple[str, ...], re.Pattern[str]] = {}


def extract_labeled(text: str, labels: tuple[str, ...] = ("CHOICE",)) -> str | None:
    """The rest of the line after the last ``<LABEL>:`` (or a bare ``LABEL:`` starting a
    line) for any of ``labels`` -- TurnBench's ``<CHOICE>:`` and the ``<PROPOSAL>:`` and
    ``CHOICE:`` spellings its own prompts also show. Markdown bold around the label is fine.

    >>> extract_labeled("<REASONING>: try 1\\n**<Choice>** : 2", ("CHOICE",))
    '2'
    """
    pattern = _LABELED_RE.get(labels)
    if pattern is None:
        names = "|".join(re.escape(x) for x in labels)
        pattern = re.compile(
            rf"(?:<\s*(?:{names})\s*>\**\s*:?|(?:^|\n)[ \t*]*(?:{names})\**\s*:)[ \t*]*([^\n]*)", re.IGNORECASE
        )
        _LABELED_RE[labels] = pattern
    found = last_match(pattern, text)
    if found is None:
        return None
    return found.group(1).strip()
