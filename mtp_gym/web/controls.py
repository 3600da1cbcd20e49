"""Buttons and inputs for a person playing in the browser, read from what the player has seen.

A control is ``{"label", "template", "fields": [{"name", "options"}]}``: the page offers one
input per field (a list where ``options`` is given) and sends ``template`` with the fields
filled in, exactly the text a model would write. Free text is always available too.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["controls"]

DIGITS = ["1", "2", "3", "4", "5"]


def _field(name: str, options: list[str] | None = None) -> dict[str, Any]:
    return {"name": name, "options": options}


def _titles(text: str) -> list[list[str]]:
    """The first column of every Markdown table with a ``Title`` column, table by table."""
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("| Title |"):
            current = []
            tables.append(current)
        elif current is not None and line.startswith("|") and not line.startswith("|---"):
            current.append(line.strip("|").split("|")[0].strip())
        elif not line.startswith("|"):
            current = None
    return tables


def controls(env_id: str, seen: list[str]) -> list[dict[str, Any]]:
    """The controls for ``env_id`` given the env's messages so far (``seen``, oldest first)."""
    text = "\n".join(seen)
    if env_id == "MTP/WordGuess-v0":
        m = re.search(r"vocabulary: ([A-Z, ]+)\.", seen[0] if seen else "")
        words = [w.strip() for w in m.group(1).split(",")] if m else None
        return [{"label": "Guess", "template": "<attempt>{word}</attempt>", "fields": [_field("word", words)]}]
    if env_id == "MTP/TuringMachine-v0":
        verifiers = sorted(set(re.findall(r"Verifier <(\d+)>:", text)), key=int)
        code = "BLUE={blue}, YELLOW={yellow}, PURPLE={purple}"
        return [
            {
                "label": "Propose / submit code",
                "template": "<CHOICE>: " + code,
                "fields": [_field(c, DIGITS) for c in ("blue", "yellow", "purple")],
            },
            {"label": "Test verifier", "template": "<CHOICE>: {verifier}", "fields": [_field("verifier", verifiers)]},
            {"label": "Skip", "template": "<CHOICE>: SKIP", "fields": []},
        ]
    if env_id == "MTP/MovieRec-v0":
        tables = _titles(text)
        out = []
        if tables:
            library = tables[0]
            out.append(
                {
                    "label": "Ask",
                    "template": "<question>Would you prefer watching {first} over {second}?</question>",
                    "fields": [_field("first", library), _field("second", library)],
                }
            )
        if len(tables) > 1:
            out.append(
                {
                    "label": "Recommend",
                    "template": "<final_answer>{title}</final_answer>",
                    "fields": [_field("title", tables[-1])],
                }
            )
        return out
    if env_id == "MTP/TwentyQuestions-v0":
        return [{"label": answer, "template": f"<answer>{answer}</answer>", "fields": []} for answer in ("Yes", "No")]
    if env_id == "MTP/WordChain-v0":
        return [{"label": "Play word", "template": "'{word}'", "fields": [_field("word")]}]
    return []
