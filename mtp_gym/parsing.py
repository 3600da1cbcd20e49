"""Pure readers of model replies (no env state): tags, labels, quotes, signs, yes/no words.

Every reader is tolerant of surrounding reasoning text, letter case and whitespace, and runs
in time linear in the reply's length whatever its characters (replies of a model stuck in a
loop hold ``<answer>`` or ``<think>`` thousands of times): tags are found by one scan of the
opening and one of the closing tags, never by a lazy pattern searched from every start.

The reading policy these readers serve is stated in :mod:`mtp_gym.core`.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Collection
from functools import cache, lru_cache
from typing import NamedTuple

__all__ = [
    "DASHES",
    "MAX_DIGITS",
    "Tag",
    "corrects",
    "extract_all_labeled",
    "extract_all_tags",
    "extract_choice",
    "extract_labeled",
    "extract_quoted",
    "extract_tag",
    "INT_RE",
    "find_labeled",
    "find_tags",
    "ints",
    "last_match",
    "long_number",
    "negated",
    "normalize_dashes",
    "prepare_reply",
    "restates_format",
    "retracts",
    "strip_reasoning",
]

#: No move of any puzzle holds a longer run of digits (Python's ``int()`` refuses 4,300).
MAX_DIGITS = 1000

#: Characters read as a minus sign (or a hyphen) wherever they stand: hyphen, non-breaking
#: hyphen, figure dash, en dash, em dash, horizontal bar, minus sign, small and full-width
#: hyphen-minus, small em dash.
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_DASH_TABLE = str.maketrans(dict.fromkeys(DASHES, "-"))
_LONG_NUMBER_RE = re.compile(rf"\d{{{MAX_DIGITS + 1}}}")


class Tag(NamedTuple):
    """One complete ``<name>content</name>`` of a reply: ``name`` lower case, ``content``
    stripped of whitespace and of markdown code or emphasis marks around it, ``start``/``end``
    the span of the whole tag."""

    name: str
    content: str
    start: int
    end: int


@cache  # keyed by the tag-name patterns of the code, a handful: never by reply text
def _tag_scanner(names: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    return (
        re.compile(rf"<\s*({names})\s*>", re.IGNORECASE),
        re.compile(rf"<\s*/\s*({names})\s*>", re.IGNORECASE),
        re.compile(rf"<\s*(?P<open>{names})\s*>(?P<body>.*)<\s*/\s*(?P<close>{names})\s*>", re.IGNORECASE | re.DOTALL),
    )


def find_tags(text: str, names: str) -> list[Tag]:
    """Every complete tag whose name matches the regex ``names`` (e.g. ``"attempt"`` or
    ``"query_[a-z0-9_]+|answer"``), in order, as a lazy pattern would find them: an opening tag
    pairs with the first closing tag of the same name after it, and the scan goes on after
    that closing tag. An opening tag with no closing tag after it is skipped.

    One pass over the opening tags and one over the closing ones: linear in ``len(text)``.

    >>> [(t.name, t.content) for t in find_tags("<A> x </a> <b>y", "a|b")]
    [('a', 'x')]
    """
    angles = text.count("<")
    if not angles:
        return []
    opening, closing, pair = _tag_scanner(names)
    if angles == 2:  # at most one opening and one closing tag: one pattern finds the pair
        m = pair.search(text)
        if m is None or m["open"].lower() != m["close"].lower():
            return []
        return [Tag(m["open"].lower(), _tag_content(m["body"]), m.start(), m.end())]
    return _scan_tags(text, opening, closing)


def _tag_content(body: str) -> str:
    """A tag's content: its text without the spaces and markdown (`` ` ``, ``*``) around the move."""
    return body.strip().strip("`*").strip()


def _scan_tags(text: str, opening: re.Pattern[str], closing: re.Pattern[str]) -> list[Tag]:
    """:func:`find_tags` of any text, by its opening and closing patterns."""
    closes: dict[str, tuple[list[int], list[int]]] = {}
    for m in closing.finditer(text):
        starts, ends = closes.setdefault(m.group(1).lower(), ([], []))
        starts.append(m.start())
        ends.append(m.end())
    if not closes:
        return []
    found, done = [], 0
    for m in opening.finditer(text):
        if m.start() < done:
            continue
        name = m.group(1).lower()
        pair = closes.get(name)
        if pair is None:
            continue
        i = bisect_left(pair[0], m.end())
        if i == len(pair[0]):
            continue
        found.append(Tag(name, _tag_content(text[m.end() : pair[0][i]]), m.start(), pair[1][i]))
        done = pair[1][i]
    return found


#: ``think`` or ``thinking`` in ASCII letters of either case (never a dotless ``ı`` or a Kelvin
#: sign, which a case-blind pattern takes for ``i`` and ``k``): so each reasoning tag holds
#: ``think`` once in the reply's ``lower()``, which is what :func:`strip_reasoning` counts.
_REASONING_NAMES = "(?-i:[Tt][Hh][Ii][Nn][Kk](?:[Ii][Nn][Gg])?)"
_REASONING_CLOSE_RE = re.compile(rf"<\s*/\s*(?:{_REASONING_NAMES})\s*>", re.IGNORECASE)
_REASONING_OPEN_RE = re.compile(rf"<\s*(?:{_REASONING_NAMES})\s*>", re.IGNORECASE)


def strip_reasoning(text: str) -> str:
    """``text`` without reasoning blocks: ``<think>…</think>`` (or ``<thinking>``) removed;
    text before a lone closing tag (a chat template that opened the block in the prompt) and
    after an unclosed opening tag (reasoning cut off) is reasoning too.

    >>> strip_reasoning("<think>maybe <a>x</a></think><a>y</a>")
    ' <a>y</a>'
    """
    start = text.find("<think>")
    if start >= 0:  # one block as chat templates write it: no tag in it, no reasoning tag around it
        end = text.find("</think>", start + 7)
        if (
            end >= 0
            and text.find("<", start + 7, end) < 0
            and "think" not in text[:start].lower()
            and "think" not in text[end + 8 :].lower()
        ):
            return text[:start] + " " + text[end + 8 :]
    low = text.lower()
    seen = low.count("think")
    if not seen:  # the common case: no reasoning tag at all
        return text
    if seen == 2:  # one block with a tag in it, and no other reasoning tag
        end = text.find("</think>", start)
        if 0 <= start < end:
            return text[:start] + " " + text[end + 8 :]
    elif seen == 1:  # the block's opening tag in the prompt
        end = text.find("</think>")
        if end >= 0:
            return text[end + 8 :]
    return _strip_blocks(text)


def _strip_blocks(text: str) -> str:
    """:func:`strip_reasoning` of any text (its shortcuts read the same where they apply)."""
    blocks = find_tags(text, _REASONING_NAMES)
    if blocks:
        parts, pos = [], 0
        for block in blocks:
            parts.append(text[pos : block.start])
            pos = block.end
        text = " ".join(parts) + " " + text[pos:]  # each block becomes one space
    closing = last_match(_REASONING_CLOSE_RE, text)
    if closing is not None:
        text = text[closing.end() :]
    opening = _REASONING_OPEN_RE.search(text)
    return text if opening is None else text[: opening.start()]


def normalize_dashes(text: str) -> str:
    """``text`` with every dash-like character (:data:`DASHES`) as an ASCII ``-``, so a
    Unicode minus before a number is a minus sign (``arith 4 −3`` reads as ``arith 4 -3``)."""
    return text if text.isascii() else text.translate(_DASH_TABLE)


def prepare_reply(text: str) -> str:
    """What a puzzle's reader sees of a reply: reasoning removed, dashes made ASCII."""
    return normalize_dashes(strip_reasoning(text))


#: An integer with its sign: a ``-`` counts as a minus unless it joins two numbers or words
#: (``8-9`` is a pair, ``-3`` and ``node -3`` are negative).
INT_RE = re.compile(r"(?:(?<![0-9A-Za-z])-)?\d+")


def ints(text: str) -> list[int]:
    """Every integer in ``text``, in order, signs kept (see :data:`INT_RE`); never a dropped
    minus, so a negative number where none is allowed is refused by the caller, not misread.

    >>> ints("edges 8-9, 1-2; answer -3")
    [8, 9, 1, 2, -3]
    """
    return [int(x) for x in INT_RE.findall(text)]


def long_number(text: str) -> bool:
    """Whether ``text`` holds a run of more than :data:`MAX_DIGITS` digits."""
    return len(text) > MAX_DIGITS and _LONG_NUMBER_RE.search(text) is not None


def last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``, or ``None``."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007 (the loop keeps the last match)
        pass
    return found


def extract_tag(text: str, tag: str, *, last: bool = True) -> str | None:
    """Content of ``<tag>…</tag>`` in ``text``, stripped; the last occurrence by default.
    Returns ``None`` when the tag is absent.

    >>> extract_tag("I think... <Attempt> proof </attempt>", "attempt")
    'proof'
    """
    found = find_tags(text, re.escape(tag))
    if not found:
        return None
    return found[-1 if last else 0].content


def extract_all_tags(text: str, tag: str) -> list[str]:
    """Contents of every ``<tag>…</tag>`` in order, stripped."""
    return [t.content for t in find_tags(text, re.escape(tag))]


_CHOICE_RE = re.compile(r"<\s*CHOICE\s*>[ \t]*:?[ \t]*([^\n]+)", re.IGNORECASE)


def extract_choice(text: str) -> str | None:
    """The rest of the line after the last ``<CHOICE>:`` marker (TurnBench format)."""
    found = last_match(_CHOICE_RE, text)
    return None if found is None else found.group(1).strip()


_QUOTED_RE = re.compile(r"'([^'\s]+)'|\"([^\"\s]+)\"|‘([^’\s]+)’|“([^”\s]+)”")


def extract_quoted(text: str) -> str | None:
    """The last single word in quotes (straight or curly, single or double)."""
    found = last_match(_QUOTED_RE, text)
    if found is None:
        return None
    return next(g for g in found.groups() if g is not None)


@cache  # keyed by the label tuples of the code, a handful
def _labeled_pattern(labels: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(re.escape(x) for x in labels)
    return re.compile(
        rf"(?:<[ \t]*(?:{names})[ \t]*>\**[ \t]*:?|(?:^|\n)[ \t*]*(?:{names})\**[ \t]*:)[ \t*]*([^\n]*)", re.IGNORECASE
    )


def extract_labeled(text: str, labels: tuple[str, ...] = ("CHOICE",)) -> str | None:
    """The rest of the line after the last ``<LABEL>:`` (or a bare ``LABEL:`` starting a
    line) for any of ``labels`` -- TurnBench's ``<CHOICE>:`` and the ``<PROPOSAL>:`` and
    ``CHOICE:`` spellings its own prompts also show. Markdown bold around the label is fine.

    >>> extract_labeled("<REASONING>: try 1\\n**<Choice>** : 2", ("CHOICE",))
    '2'
    """
    found = last_match(_labeled_pattern(labels), text)
    return None if found is None else found.group(1).strip()


def find_labeled(text: str, labels: tuple[str, ...] = ("CHOICE",)) -> list[Tag]:
    """Every ``<LABEL>:`` line's rest as a :class:`Tag` (``name`` empty, ``end`` the end of the
    line), in order (see :func:`extract_labeled`)."""
    return [Tag("", m.group(1).strip(), m.start(), m.end()) for m in _labeled_pattern(labels).finditer(text)]


def extract_all_labeled(text: str, labels: tuple[str, ...] = ("CHOICE",)) -> list[str]:
    """Every ``<LABEL>:`` line's rest, in order (see :func:`extract_labeled`)."""
    return [t.content for t in find_labeled(text, labels)]


#: Words a restated format is made of (besides single letters and the env's own format words).
PLACEHOLDER_WORDS = frozenset(
    "word words guess answer answers your my the here title movie name number numbers bits digits value "
    "values arg args argument arguments query question choice code final label input inputs output something "
    "etc letters letter text content move action option options num".split()
)
_TOKEN_RE = re.compile(r"\w+")
_PART_RE = re.compile(r"[^\W\d_]+")


def restates_format(content: str, format_words: Collection[str] = (), *, strict: bool = False) -> bool:
    """Whether a tag's content only restates the format instead of making a move: empty,
    punctuation (``...``), or words that are all placeholders (a single letter such as ``X``
    or ``N``, :data:`PLACEHOLDER_WORDS`, or ``format_words``: the env's own format text, lower
    case; an identifier such as ``option_1`` counts by its letters), with no number.
    ``value 6`` and ``SLATE is better`` are moves, not formats. ``strict``: for a content that
    reads as a move, only placeholder words count (not a single letter, not emptiness, which
    are moves of some puzzles).

    >>> restates_format("[your guess]"), restates_format("BLUE=X, YELLOW=Y", {"blue", "yellow"})
    (True, True)
    >>> restates_format("it must be 9"), restates_format("SLATE is better"), restates_format("$option_1")
    (False, False, True)
    """
    if len(content) > 200:
        return False
    tokens = _TOKEN_RE.findall(content)
    if strict and not tokens:
        return False
    for token in tokens:
        if token.isdigit():
            return False
        for part in _PART_RE.findall(token):
            low = part.lower()
            if len(part) == 1 and strict:
                return False
            if len(part) > 1 and low not in PLACEHOLDER_WORDS and low not in format_words:
                return False
    return True


@lru_cache(maxsize=256)
def format_restater(hint: str, extra_words: frozenset[str] = frozenset()) -> Callable[..., bool]:
    """The test ``(content, strict=False) -> bool`` of a restated format for an env whose
    format hint is ``hint``: a content that :func:`restates_format` with the hint's words (and
    ``extra_words``), or a non-empty copy of a tag content of the hint
    (``<attempt>WORD</attempt>``: ``WORD``), whatever its case."""
    words = frozenset(w.lower() for w in _PART_RE.findall(hint)) | extra_words
    examples = frozenset(t.content.lower() for t in find_tags(hint, r"[A-Za-z_]+")) - {""}
    return lambda content, strict=False: content.lower() in examples or restates_format(content, words, strict=strict)


_RETRACTION_RE = re.compile(
    r"\b(?:no,?\s+wait|wait\s*[,!.:-]|scratch\s+that|on\s+second\s+thoughts?|correction\s*:|i\s+mean\b|"
    r"make\s+(?:it|that)\b|change\s+(?:it|that|my\s+\w+)\s+to|instead(?!\s+of)|never\s*mind|nope|oops|"
    r"i\s+take\s+(?:it|that)\s+back|correct\s+myself|let\s+me\s+correct|revised?\b|actually,?\s+(?:no|make|change|"
    r"i'll|i\s+will|let|it's|it\s+is|the\s+answer|my|yes))",
    re.IGNORECASE,
)


def retracts(tail: str) -> bool:
    """Whether text written after a move takes the move back (``— no wait, make that TRADE``,
    ``On second thought: no``); then the reply names another move than the one it wrote first."""
    return _RETRACTION_RE.search(tail) is not None


_CORRECTION_RE = re.compile(
    r"\b(?:actually|wait|instead|rather|correction|corrected|scratch that|on second thought|i mean|"
    r"make (?:it|that)|change (?:it|that|to)|oops|sorry|nope|or)\b|\bno\s*[,!.]",
    re.IGNORECASE,
)


def corrects(note: str) -> bool:
    """Whether a note beside a move takes the move back or offers another (``actually 3``,
    ``or SKIP``, ``no, wait``): then the reply names two moves, and is re-prompted."""
    return _CORRECTION_RE.search(note) is not None


_NEGATION_RE = re.compile(r"\b(?:not|never|no|don't|dont|won't|wont|shouldn't|will not|do not|n't)\W*(?:\w+\W+)?$")


def negated(before: str) -> bool:
    """Whether the words just before a move word negate it (``I will not skip``)."""
    return _NEGATION_RE.search(before[-40:].lower()) is not None
