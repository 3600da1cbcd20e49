"""Pure extractors for the tag formats the papers use (no env state).

Every extractor is tolerant of surrounding reasoning text, letter case and whitespace, and
returns ``None`` when nothing usable is found, so envs turn that into a re-prompt.
"""

from __future__ import annotations

import re
from functools import cache

__all__ = [
    "MAX_DIGITS",
    "extract_all_labeled",
    "extract_all_tags",
    "extract_choice",
    "extract_quoted",
    "extract_tag",
    "long_number",
    "strip_reasoning",
]

#: No move of any puzzle holds a longer run of digits (Python's ``int()`` refuses 4,300).
MAX_DIGITS = 1000

_REASONING_BLOCK_RE = re.compile(r"<\s*(think|thinking)\s*>.*?<\s*/\s*\1\s*>", re.IGNORECASE | re.DOTALL)
_REASONING_CLOSE_RE = re.compile(r"<\s*/\s*(?:think|thinking)\s*>", re.IGNORECASE)
_REASONING_OPEN_RE = re.compile(r"<\s*(?:think|thinking)\s*>", re.IGNORECASE)
_LONG_NUMBER_RE = re.compile(rf"\d{{{MAX_DIGITS + 1}}}")


def strip_reasoning(text: str) -> str:
    """``text`` without reasoning blocks: ``<think>…</think>`` (or ``<thinking>``) removed;
    text before a lone closing tag (a chat template that opened the block in the prompt) and
    after an unclosed opening tag (reasoning cut off) is reasoning too.

    >>> strip_reasoning("<think>maybe <a>x</a></think><a>y</a>")
    ' <a>y</a>'
    """
    if text.isascii() and "think" not in text.lower():  # the common case: no reasoning tag at all
        return text
    text = _REASONING_BLOCK_RE.sub(" ", text)
    closing = last_match(_REASONING_CLOSE_RE, text)
    if closing is not None:
        text = text[closing.end() :]
    opening = _REASONING_OPEN_RE.search(text)
    return text if opening is None else text[: opening.start()]


def long_number(text: str) -> bool:
    """Whether ``text`` holds a run of more than :data:`MAX_DIGITS` digits."""
    return len(text) > MAX_DIGITS and _LONG_NUMBER_RE.search(text) is not None


@cache
def last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``, or ``None``."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007 (the loop keeps the last match)
        pass
    return found


@cache
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
    return [content.strip() for content in _tag_pattern(tag).findall(text)]


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


def extract_all_labeled(text: str, labels: tuple[str, ...] = ("CHOICE",)) -> list[str]:
    """Every ``<LABEL>:`` line's rest, in order (see :func:`extract_labeled`)."""
    extract_labeled("", labels)  # builds and caches the pattern
    return [m.group(1).strip() for m in _LABELED_RE[labels].finditer(text)]
