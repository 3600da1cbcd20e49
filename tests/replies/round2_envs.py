"""Round-two realistic replies (issue 26) for the six puzzles with their own reply formats.

``CASES`` maps each env id to a function returning its new reply cases, in the dict shape of
``build_corpus.case()`` plus ``class`` (``self-correction``, ``note-beside``, ``sign``,
``format-restated``, ``yes-no-context``, ``attributed-word``) and, where needed, ``meant``
(the move a careful human reads in a reply the policy re-prompts) and ``before`` (exact-format
moves played first). Moves come from benchmark configuration 0 (the oracle's first move and
other legal moves), so the cases regenerate deterministically.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    from build_corpus import case, first_moves
except ImportError:  # imported from outside tests/replies
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from build_corpus import case, first_moves

import gymnasium as gym

from mtp_gym.agents import make_agent
from mtp_gym.envs.word_guess import vocabulary_in
from mtp_gym.episode import public_info

__all__ = ["CASES"]

_TAG_RE = re.compile(r"^<([A-Za-z_]+)>(.*)</\1>$", re.DOTALL)


def c(
    cls: str,
    style: str,
    reply: str,
    move: str | None,
    *,
    meant: str | None = None,
    before: list[str] | None = None,
) -> dict[str, Any]:
    """A reply case of class ``cls`` (keys: style, class, reply, move[, meant][, before])."""
    out = {"style": style, "class": cls} | case(style, reply, move)
    if meant is not None:
        out["meant"] = meant
    if before is not None:
        out["before"] = list(before)
    return out


def _need(words: set[str], pool: set[str] | tuple[str, ...], what: str) -> None:
    missing = set(words) - set(pool)
    assert not missing, f"configuration 0 changed: {sorted(missing)} not among the {what}"


# ---------------------------------------------------------------------------- Word Guess
def word_guess() -> list[dict[str, Any]]:
    _, _, mv, obs = first_moves("MTP/WordGuess-v0")
    W = _TAG_RE.match(mv).group(2)  # the oracle's first word (STARE)
    w = W.lower()
    vocab = vocabulary_in(obs)
    _need({"TRADE", "RANGE", "PLANE", "PAINT", "MAYBE", "SMOKE"}, vocab, "vocabulary")
    spelled = "-".join(W)
    sc, nb, fr = "self-correction", "note-beside", "format-restated"
    return [
        # self-correction: a second tag that does not read as a move, or reads as another one
        c(
            sc,
            "second tag holds a sentence",
            f"<attempt>{W}</attempt>\n\nWait, <attempt>TRADE is better</attempt>",
            None,
        ),
        c(
            sc,
            "second word after reasoning",
            f"Let me open with <attempt>{W}</attempt>.\n\nHmm, actually no. RANGE tests N and G as well, "
            "which splits RENDS / RELAY / RABID better.\n\n<attempt>RANGE</attempt>",
            None,
        ),
        c(
            sc,
            "struck-out tag, revised tag with a note inside",
            f"**Attempt 1:** ~~<attempt>{W}</attempt>~~\n\n**Revised attempt 1:** <attempt>PLANE (covers L and N)</attempt>",
            None,
        ),
        c(sc, "Chinese correction", f"我先猜 <attempt>{W}</attempt>。\n等等，<attempt>TRADE 更好</attempt>", None),
        c(
            sc,
            "second final answer boxed inside the tag",
            f"Final Answer: <attempt>{W}</attempt>\n\nWait, let me redo this.\n\nFinal Answer: <attempt>$\\boxed{{TRADE}}$</attempt>",
            None,
        ),
        c(
            sc,
            "JSON, then a corrected tag in words",
            json.dumps({"guess": f"<attempt>{W}</attempt>"}) + "\n\nCorrection: <attempt>the word TRADE</attempt>",
            None,
        ),
        c(sc, "lower-case tags, 'no wait'", f"<attempt>{w}</attempt> no wait <attempt>trade</attempt>", None),
        c(
            sc,
            "back and forth, ends on the first word",
            f"<attempt>{W}</attempt>\n\nLet me reconsider: <attempt>TRADE</attempt> shares T, R, A, E and also tests D... "
            f"no, sticking with <attempt>{W}</attempt>.",
            None,
        ),
        c(
            sc,
            "second tag with a question mark",
            f"<attempt>{W}</attempt>? Hmm, or maybe <attempt>TRADE?</attempt>",
            None,
        ),
        c(
            sc,
            "same word restated in lower case",
            f"<attempt>{W}</attempt>\n\nHmm, let me double-check it's in the list... yes. Final: <attempt>{w}</attempt>",
            mv,
        ),
        c(
            sc,
            "same word restated in capitals",
            f"<attempt>{W.title()}</attempt> — wait, the vocabulary is in capitals, so:\n<attempt>{W}</attempt>",
            mv,
        ),
        c(
            sc,
            "same word restated in a code fence",
            f"<attempt>{W}</attempt>\n\nActually, let me restate it in the exact format:\n```\n<attempt> {W} </attempt>\n```",
            mv,
        ),
        c(
            sc,
            "same word restated in bold inside the tag",
            f"My guess: <attempt>{W}</attempt>. Correction — to be explicit: <attempt>**{W}**</attempt>",
            mv,
        ),
        c(
            sc,
            "same word spelled out with hyphens",
            f"<attempt>{W}</attempt>\n\nOops, let me spell it out: <attempt>{spelled}</attempt>",
            mv,
        ),
        # note-beside: remarks outside the tag name other words and numbers
        c(
            nb,
            "fallbacks after an em dash",
            f"<attempt>{W}</attempt> — if this comes back mostly grey, TRADE and RANGE are my fallbacks.",
            mv,
        ),
        c(
            nb,
            "other options in parentheses",
            f"<attempt>{W}</attempt>\n\n(Other options I weighed: PLANE, PAINT, TRADE.)",
            mv,
        ),
        c(
            nb,
            "bold label, italic note with 'skip'",
            f"**Guess:** <attempt>{W}</attempt> *(five common letters; I won't skip the vowels)*",
            mv,
        ),
        c(
            nb,
            "JSON with reasoning naming another word",
            json.dumps(
                {
                    "reasoning": f"{W} splits the 40 words best; TRADE is a close second",
                    "attempt": f"<attempt>{W}</attempt>",
                }
            ),
            mv,
        ),
        c(
            nb,
            "Chinese note naming other words",
            f"<attempt>{W}</attempt>\n这个词能排除很多候选，比如 TRADE 和 RANGE。",
            mv,
        ),
        c(nb, "ranked alternatives after", f"<attempt>{W}</attempt> (2nd choice: TRADE, 3rd: PLANE)", mv),
        c(
            nb,
            "final answer label with a trailing comment",
            f"Final Answer: <attempt>{W}</attempt>  // not MAYBE, not SMOKE",
            mv,
        ),
        c(
            nb,
            "code fence with a comment",
            f"```\n<attempt>{W}</attempt>  # next: TRADE or RANGE depending on the colours\n```",
            mv,
        ),
        c(
            nb,
            "numbers in the note",
            f"<attempt>{W}</attempt>\n\nNote: 40 words remain, 5 letters tested; I expect fewer than 10 left after this.",
            mv,
        ),
        c(
            nb,
            "boxed tag, another word kept in reserve",
            f"$\\boxed{{\\text{{<attempt>{W}</attempt>}}}}$\n\nI'll keep TRADE in reserve.",
            mv,
        ),
        c(nb, "note inside the tag corrects the word", f"<attempt>{W}, actually TRADE</attempt>", None),
        c(nb, "two words joined by 'or' in the tag", f"<attempt>{W} or TRADE</attempt>", None),
        c(nb, "correction after the tag", f"<attempt>{W}</attempt> — no wait, make that TRADE.", None),
        # format-restated: placeholders are ignored, a concrete vocabulary word is a second move
        c(
            fr,
            "the prompt's placeholder restated",
            f"The format is <attempt>Your guess</attempt>, so:\n\n<attempt>{W}</attempt>",
            mv,
        ),
        c(
            fr,
            "'word' placeholder",
            f"I need to reply as <attempt>word</attempt>. My first guess: <attempt>{W}</attempt>",
            mv,
        ),
        c(fr, "bracketed placeholder, arrow", f"<attempt>[word]</attempt> → <attempt>{W}</attempt>", mv),
        c(
            fr,
            "ellipsis placeholder in backticks",
            f"Format: `<attempt>...</attempt>`\n\nGuess: **<attempt>{W}</attempt>**",
            mv,
        ),
        c(
            fr,
            "curly-brace placeholder",
            f"Template: <attempt>{{guess}}</attempt>\nFilled in: <attempt>{W}</attempt>",
            mv,
        ),
        c(
            fr,
            "empty tag restated",
            f"I'll fill in the tag <attempt></attempt> with my word: <attempt>{W}</attempt>",
            mv,
        ),
        c(fr, "upper-case WORD placeholder", f"Answer format: <attempt>WORD</attempt>\n\n<attempt>{W}</attempt>", mv),
        c(
            fr,
            "'your guess here', lower case",
            f"<attempt>your guess here</attempt>\n\nok so: <attempt>{w}</attempt>",
            mv,
        ),
        c(
            fr,
            "single-letter placeholder",
            f"Each reply is <attempt>X</attempt> with X a vocabulary word.\n<attempt>{W}</attempt>",
            None,  # X is a word of letters, so a move: two moves named
            meant=mv,
        ),
        c(
            fr,
            "Chinese placeholder",
            f"格式是 <attempt>你的猜测</attempt>，所以我的猜测是 <attempt>{W}</attempt>",
            None,
            meant=mv,
        ),
        c(
            fr,
            "concrete vocabulary word as the format",
            f"The format is <attempt>MAYBE</attempt>; my guess: <attempt>{W}</attempt>",
            None,
        ),
        c(
            fr,
            "'for example' with a vocabulary word",
            f"Guesses look like this, for example <attempt>PAINT</attempt>. Here is mine:\n\n<attempt>{W}</attempt>",
            None,
        ),
        c(
            fr,
            "markdown e.g. with a vocabulary word",
            f"- format: e.g. `<attempt>PLANE</attempt>`\n- my guess: **<attempt>{W}</attempt>**",
            None,
        ),
        c(
            fr,
            "the prompt's PROOF example as the format",
            f"Like the example (PROOF against SPARK), the format is <attempt>PROOF</attempt>. My attempt: <attempt>{W}</attempt>",
            None,
        ),
        c(
            fr,
            "example is the same word",
            f"Format: <attempt>{W}</attempt> — and that is exactly my guess: <attempt>{W}</attempt>",
            mv,
        ),
    ]


# ---------------------------------------------------------------------------- Movie Rec
def _movie_final_stage() -> tuple[list[str], str, str, str]:
    """The oracle's ten questions of configuration 0, its final pick and two other new-set titles
    (the user's favourite and the runner-up, or the next best when one of them is the pick)."""
    env = gym.make("MTP/MovieRec-v0")
    obs, info = env.reset(options={"config_id": 0})
    agent = make_agent("oracle", "MTP/MovieRec-v0")
    agent.reset(seed=0)
    before = []
    for _ in range(10):
        move = agent.act(obs, public_info(info))
        before.append(move)
        obs, _, _, _, info = env.step(move)
    pick = _TAG_RE.match(agent.act(obs, public_info(info))).group(2)
    ranked = sorted(info["hidden"]["unseen_utilities"].items(), key=lambda kv: -kv[1])
    others = [t for t, _ in ranked if t != pick]
    return before, pick, others[0], others[1]


def movie_rec() -> list[dict[str, Any]]:
    env, _, mv, _ = first_moves("MTP/MovieRec-v0")
    a, b = re.match(r"<question>Would you prefer watching (.+) over (.+)\?</question>", mv).groups()
    titles = env.unwrapped._movies.seen_titles
    _need(
        {
            "Silver Desert",
            "The Hidden Fortress",
            "Light and Courage",
            "Broken Citadel",
            "Return to the Iron Mirror",
            "The Last Journey",
            "The Endless Island",
            "The Melody of Light",
            "The Secret Voyage",
        },
        titles,
        "library titles",
    )

    def q(x: str, y: str) -> str:
        return f"<question>Would you prefer watching {x} over {y}?</question>"

    before, f1, f2, f3 = _movie_final_stage()
    fin = f"<final_answer>{f1}</final_answer>"
    sc, nb, fr = "self-correction", "note-beside", "format-restated"
    return [
        # self-correction
        c(
            sc,
            "second question with 'or'",
            f"{mv}\n\nHmm, wait — that pair doesn't isolate Pace well. "
            "<question>Would you prefer watching Return to the Iron Mirror over The Last Journey, or The Endless Island?</question>",
            None,
        ),
        c(
            sc,
            "a different second question",
            f"{mv} Actually, let me instead ask {q('Silver Desert', 'The Hidden Fortress')}",
            None,
        ),
        c(sc, "order swapped in the correction", f"{mv}\n\n...no wait, I want the fast movie first:\n{q(b, a)}", None),
        c(
            sc,
            "edited question with a remark inside",
            f"**Question 1:** {mv}\n\n*Edit:* <question>Would you prefer watching {a} over {b} (the faster one)?</question>",
            None,
        ),
        c(
            sc,
            "Chinese correction to a Chinese question",
            f"我想问 {mv}，不对，换成 <question>你更喜欢 Light and Courage 还是 Broken Citadel？</question>",
            None,
        ),
        c(
            sc,
            "JSON with a revised question",
            json.dumps({"question": mv, "revised_question": q("Light and Courage", "Broken Citadel")}),
            None,
        ),
        c(
            sc,
            "second question adds a third movie",
            f"{mv}\nOn second thought: <question>Would you prefer watching {a} over {b} or Silver Desert?</question>",
            None,
        ),
        c(
            sc,
            "same question restated in lower case",
            f"{mv}\n\nLet me restate it cleanly: <question>would you prefer watching {a.lower()} over {b.lower()}?</question>",
            mv,
        ),
        c(
            sc,
            "same question restated with quoted titles",
            f'{mv} — correction, with the titles quoted: <question>Would you prefer watching "{a}" over "{b}"?</question>',
            mv,
        ),
        c(
            sc,
            "same question, spacing fixed",
            f"<question>Would you prefer watching  {a}  over {b} ?</question>\n\nFixing the spacing: {mv}",
            mv,
        ),
        c(
            sc,
            "two final answers",
            f"{fin}\n\nActually, given how much this user values Character Complexity... <final_answer>{f2}</final_answer>",
            None,
            before=before,
        ),
        c(
            sc,
            "second final answer with a year, another movie",
            f"{fin}\n\nWait — the user liked emotional films. Final answer: <final_answer>{f3} (2019)</final_answer>",
            None,
            before=before,
        ),
        c(
            sc,
            "same final answer restated with a year",
            f"{fin}\nTo be precise: <final_answer>{f1} (2021)</final_answer>",
            None,
            meant=fin,
            before=before,
        ),
        c(
            sc,
            "same final answer restated in lower case",
            f"My pick: {fin}\n\n…double-checked the table, keeping it: <final_answer>{f1.lower()}</final_answer>",
            fin,
            before=before,
        ),
        c(
            sc,
            "second final answer holds two titles",
            f"{fin} — hmm, or <final_answer>{f2} or {f3}</final_answer>",
            None,
            before=before,
        ),
        # note-beside
        c(
            nb,
            "attributes and a next pair in the note",
            f"{mv}\n\n{a} is heavy on Character Complexity (11) and {b} on Pace (11), so this separates those two "
            "weights. Next I might compare Light and Courage with Broken Citadel.",
            mv,
        ),
        c(
            nb,
            "fallback pair in parentheses",
            f'{mv} (if "No Preference", I\'ll try Silver Desert vs The Hidden Fortress next)',
            mv,
        ),
        c(
            nb,
            "markdown bullets naming other titles",
            f"**Q1**\n{mv}\n- tests: Character Complexity vs Pace\n- backup pair: The Melody of Light / The Secret Voyage",
            mv,
        ),
        c(
            nb,
            "Chinese note naming other titles",
            f"{mv}\n（这个问题区分角色复杂度和节奏；下一个问题可能比较 Light and Courage 和 Broken Citadel。）",
            mv,
        ),
        c(
            nb,
            "JSON with a notes field",
            json.dumps({"notes": "compare Silver Desert and The Hidden Fortress later", "question": mv}),
            mv,
        ),
        c(
            nb,
            "'skip' and a count in the note",
            f"Final Answer: {mv}\n\n10 questions left and I won't skip any of them.",
            mv,
        ),
        c(
            nb,
            "runner-up titles after the pick",
            f"{fin}\n\n{f1} fits the weights I inferred best; {f2} and {f3} were close runners-up.",
            fin,
            before=before,
        ),
        c(
            nb,
            "rank estimate and an alternative in parentheses",
            f"{fin} (expected rank: top 3; alternative: {f2})",
            fin,
            before=before,
        ),
        c(
            nb,
            "library titles named in the reasoning",
            f"The user preferred {a} over {b} and over The Last Dance, so complexity matters.\n\n{fin}",
            fin,
            before=before,
        ),
        c(nb, "'or' inside the final answer", f"<final_answer>{f1} or {f2}</final_answer>", None, before=before),
        c(
            nb,
            "second pair inside the question tag",
            f"<question>Would you prefer watching {a} over {b}? Or maybe Silver Desert over Broken Citadel?</question>",
            None,
        ),
        c(
            nb,
            "'actually' inside the final answer",
            f"<final_answer>{f1}, actually {f2}</final_answer>",
            None,
            before=before,
        ),
        # format-restated
        c(
            fr,
            "the env's X/Y placeholder",
            f"The format is <question>Would you prefer watching X over Y?</question>. My question:\n{mv}",
            mv,
        ),
        c(
            fr,
            "the prompt's $option placeholders",
            f'Each question must be "<question>Would you prefer watching $option_1 over $option_2?</question>".\n\n{mv}',
            mv,
        ),
        c(
            fr,
            "bracketed movie placeholders",
            f"Template: <question>Would you prefer watching [Movie A] over [Movie B]?</question>\n\nFilled in:\n{mv}",
            mv,
        ),
        c(fr, "ellipsis question tag", f"I'll ask one question per turn as <question>...</question>.\n\n{mv}", mv),
        c(
            fr,
            "'Movie title' placeholder",
            f"The answer must be formatted as <final_answer>Movie title</final_answer>, so:\n\n{fin}",
            fin,
            before=before,
        ),
        c(fr, "curly-brace title placeholder", f"<final_answer>{{title}}</final_answer> → {fin}", fin, before=before),
        c(fr, "empty final tag restated", f"Filling in <final_answer></final_answer>: {fin}", fin, before=before),
        c(
            fr,
            "example question with library titles",
            f"The format is {q('Silver Desert', 'Broken Citadel')}; my actual question is:\n{mv}",
            None,
        ),
        c(
            fr,
            "example final answer with a new-set title",
            f"e.g. <final_answer>{f3}</final_answer>\n\nMine: {fin}",
            None,
            before=before,
        ),
        c(
            fr,
            "example question with titles not in the library",
            f"For example: <question>Would you prefer watching Casablanca over Titanic?</question>\n\nNow mine:\n{mv}",
            None,
            meant=mv,
        ),
        c(fr, "example is the same question", f"Format: {mv}\nAnd that is the question I'm asking: {mv}", mv),
        c(
            fr,
            "Chinese, example title then the pick",
            f"格式示例：<final_answer>{f2}</final_answer>\n我的选择：{fin}",
            None,
            before=before,
        ),
    ]


# ---------------------------------------------------------------------------- Circuit Decoding
def circuit_decoding() -> list[dict[str, Any]]:
    _, info, mv, _ = first_moves("MTP/CircuitDecoding-v0")
    assert mv == "<query>A(0, 0, 1)</query>", mv  # the replies below spell this call out
    tables = [circ["truth_table"] for circ in info["hidden"]["circuits"]]
    assert len(tables) == 3 and all(len(t) == 8 for t in tables)
    ta, tb, tc = tables
    bits = "".join(tables)
    wrong_c = "00010111" if tc != "00010111" else "00000111"
    bits2 = ta + tb + wrong_c
    guess = f"<guess>{bits}</guess>"
    sc, nb, sg, fr = "self-correction", "note-beside", "sign", "format-restated"
    return [
        # self-correction
        c(
            sc,
            "second query after 'wait'",
            f"{mv}\n\nWait, I should start with all zeros: <query>A(0, 0, 0)</query>",
            None,
        ),
        c(sc, "second tag holds two calls", f"{mv} hmm, actually <query>A(0, 0, 1) and A(0, 1, 0)</query>", None),
        c(
            sc,
            "labelled second guess",
            f"{guess}\n\nCorrection after rechecking C:\n<guess>A: {ta}, B: {tb}, C: {wrong_c}</guess>",
            None,
        ),
        c(sc, "corrected guess", f"{guess}\n\nWait, I mis-typed circuit C. Corrected:\n<guess>{bits2}</guess>", None),
        c(sc, "Chinese correction", f"先查询 {mv}，不，改成 <query>B(0, 0, 1)</query>", None),
        c(
            sc,
            "second tag argues with itself",
            f"Final Answer: {mv}\n\nActually: <query>A(0, 0, 1)?? no, A(1, 1, 1)</query>",
            None,
        ),
        c(
            sc,
            "JSON with a correction field",
            json.dumps({"query": mv, "correction": "<query>C(0, 0, 1)</query>"}),
            None,
        ),
        c(
            sc,
            "second tag described in words",
            f"{mv}\n\nOn second thought <query>the same circuit with inputs 1, 0, 0</query>",
            None,
        ),
        c(sc, "boxed second guess", f"{guess}\n\nHmm, let me fix C:\n<guess>\\boxed{{{bits2}}}</guess>", None),
        c(sc, "same query restated without spaces", f"{mv}\n\n(Restating compactly: <query>A(0,0,1)</query>)", mv),
        c(sc, "same query restated in lower case", f"{mv} — to be precise, <query>a(0 0 1)</query>", mv),
        c(
            sc,
            "same guess restated grouped by circuit",
            f"{guess}\n\nSame thing, grouped per circuit for readability: <guess>{ta} {tb} {tc}</guess>",
            guess,
        ),
        c(
            sc,
            "same query restated in a code fence",
            f"My query is {mv}.\n\nWait, let me put it on its own line:\n```\n{mv}\n```",
            mv,
        ),
        # note-beside
        c(nb, "plan after an em dash", f"{mv} — if this is 1, A probably ORs in x3; then B(1, 1, 0) next.", mv),
        c(nb, "queries left in the note", f"{mv}\n\n(17 queries will remain; I plan about 6 per circuit.)", mv),
        c(nb, "HTML comment with another call", f"{mv} <!-- C(1,1,1) later -->", mv),
        c(
            nb,
            "markdown plan of untagged calls",
            f"**Plan**\n1. A(0, 0, 1)\n2. A(0, 1, 0)\n3. B(1, 1, 0)\n\n**Query now:** {mv}",
            mv,
        ),
        c(nb, "JSON with a plan field", json.dumps({"plan": "A(0,0,1), A(0,1,0), B(1,1,0)", "query": mv}), mv),
        c(nb, "Chinese note with other calls", f"{mv}\n（先测第三个输入；之后再查 B(1, 1, 0) 和 C(0, 1, 0)。）", mv),
        c(
            nb,
            "guess with expressions and an alternative",
            f"{guess}\n\nA = OR(x3, AND(x1, x2)), B and C = OR of all three inputs. Least sure about C (could be {wrong_c}).",
            guess,
        ),
        c(nb, "inputs explained in parentheses", f"{mv} (testing input 3 alone; inputs 1 and 2 held at 0)", mv),
        c(nb, "'skip' in the note", f"{mv}\nI won't skip circuit C either; it comes after A.", mv),
        c(nb, "'or' between two calls in the tag", "<query>A(0, 0, 1) or A(0, 1, 0)</query>", None),
        c(nb, "'actually' inside the tag", "<query>A(0, 0, 1), actually B(0, 0, 1)</query>", None),
        c(nb, "'no wait' inside the guess", f"<guess>{bits} — no wait, {bits2}</guess>", None),
        # sign: a dash right before a number is a minus; inputs are never negative
        c(sg, "Unicode minus before an input", "<query>A(0, 0, −1)</query>", None),
        c(sg, "en dash before an input", "<query>A(0, –1, 1)</query>", None),
        c(sg, "em dash before an input", "<query>A(0, 0, —1)</query>", None),
        c(sg, "non-breaking hyphen before an input", "<query>A(0, 0, ‑1)</query>", None),
        c(sg, "full-width hyphen-minus before an input", "<query>B(1, 1, －1)</query>", None),
        c(sg, "minus zero", "<query>A(−0, 0, 1)</query>", None),
        c(sg, "hyphen-minus before an input", "<query>C(-1, 0, 1)</query>", None),
        c(sg, "em dash and a count outside the tag", f"{mv} — 1 query down, 17 to go", mv),
        c(sg, "minus in prose outside the tag", f"{mv}\n\nΔ = −1 queries left after this.", mv),
        c(sg, "en dash note and a minus outside the tag", f"{mv} – the output is 0 or 1, never −1", mv),
        c(sg, "guess grouped with en dashes", f"<guess>{ta}–{tb}–{tc}</guess>", None, meant=guess),
        c(sg, "guess grouped with hyphens", f"<guess>{ta}-{tb}-{tc}</guess>", None, meant=guess),
        # format-restated
        c(
            fr,
            "single-letter call placeholder and 'bits'",
            f"Queries look like <query>X(a, b, c)</query> and the final answer like <guess>bits</guess>. First:\n{mv}",
            mv,
        ),
        c(fr, "ellipsis guess restated", f"At the end I'll send <guess>...</guess>. For now: {mv}", mv),
        c(
            fr,
            "bracketed placeholder with a digit",
            f"Final format: <guess>[24 bits]</guess>\n\nQuery: {mv}",
            None,
            meant=mv,
        ),
        c(fr, "letter inputs placeholder", f"The format is <query>A(x, y, z)</query>, so:\n\n{mv}", mv),
        c(fr, "'your bits here' placeholder", f"<guess>your bits here</guess> comes later.\n\n{mv}", mv),
        c(fr, "curly-brace placeholders", f"Template: <query>{{circuit}}({{inputs}})</query>\n{mv}", mv),
        c(fr, "'bits' placeholder before a real guess", f"Format: <guess>bits</guess>\n\n{guess}", guess),
        c(
            fr,
            "the prompt's A(0, 1, 1) example",
            f"Use the following format: <query>A(0, 1, 1)</query> (that's the prompt's example). My query: {mv}",
            mv,  # a copy of the env's own format example restates the format
        ),
        c(fr, "e.g. with another circuit", f"e.g. <query>B(1, 0, 1)</query>; mine: {mv}", None),
        c(
            fr,
            "all-zero guess as an example",
            f"The guess is 24 digits, like <guess>{'0' * 24}</guess>. Before that, a query: {mv}",
            None,
        ),
        c(fr, "example is the same query", f"Format: {mv}. So: {mv}", mv),
        c(fr, "Chinese, example query then the real one", f"格式例如 <query>C(1, 1, 1)</query>。我的查询：{mv}", None),
    ]


# ---------------------------------------------------------------------------- Twenty Questions
def twenty_questions() -> list[dict[str, Any]]:
    _, _, _, obs = first_moves("MTP/TwentyQuestions-v0")
    assert "First question: Is it a type of canine?" in obs  # the replies below answer this question
    Y, N = "yes", "no"
    yn, sc, nb, fr = "yes-no-context", "self-correction", "note-beside", "format-restated"
    return [
        # yes-no-context: idioms, mentions, the format restated are not answers
        c(yn, "'no worries' idiom", "No worries, yes.", Y),
        c(yn, "'no question about it' idiom", "No question about it, yes.", Y),
        c(yn, "'no doubt' after yes", "Yes, no doubt.", Y),
        c(yn, "mention of yes, then no", "I wouldn't say yes to that, no.", N),
        c(yn, "no, then 'wait, actually yes'", "No... wait, actually yes.", None),
        c(yn, "format restated, then yes", "You asked for yes or no: yes", Y),
        c(yn, "'no problem', then the answer", "no problem! the answer is no.", N),
        c(yn, "bold, 'no doubt about it'", "**No doubt about it — yes.**", Y),
        c(yn, "'yes/no question', bold no", "It's a yes/no question, so: **No**.", N),
        c(yn, "quoted options, then no", "Hmm, 'yes' or 'no'... I'll go with no.", N),
        c(yn, "'no problem' before yes", "No problem, happy to play. Yes.", Y),
        c(yn, "yes, no, 'it is not'", "Yes, no, it is not.", None),
        c(yn, "lower case, 'no doubt'", "yes, no doubt", Y),
        c(yn, "can't say yes, then no", "I can't say yes here. No.", N),
        c(yn, "'without a doubt'", "Without a doubt — no.", N),
        c(yn, "question restated, repeated no", "Is it a canine? No, no, no.", N),
        c(yn, "answer, then 'no worries'", "Honestly? No. And no worries, it's still early in the game.", N),
        c(yn, "'no question' after yes", "Yes — no question.", Y),
        c(yn, "answer label, 'no doubt' in parentheses", "Answer: no (no doubt)", N),
        c(yn, "answer tag, then 'no worries'", "<answer>yes</answer> — no worries, I'm keeping my word secret.", Y),
        c(yn, "no, then 'wait, yes'", "No — wait, yes.", None),
        c(yn, "yes, then corrected to no", "Yes. Hmm, no, actually it isn't.", None),
        c(yn, "'I'd have to say yes'", "I'd have to say yes.", Y),
        c(yn, "markdown heading, bold no", "### My answer\n\n**No.**", N),
        c(yn, "Chinese around yes", "是的，yes，毫无疑问。", Y),
        c(yn, "Chinese around no", "不是。No.", N),
        c(yn, "'no doubt you'll get it', then no", "No doubt you'll get it soon! But for now: no.", N),
        c(yn, "quoted options capitalised, then yes", "'Yes' or 'no'? Yes.", Y),
        c(yn, "'no need' idiom", "No need to overthink this one: yes.", Y),
        c(yn, "no, with a conditional 'say yes'", "No. I'd only say yes if my word were a dog, and it isn't.", N),
        c(yn, "'no problem' in brackets, Chinese label", "没问题 (no problem)! 答案：yes", Y),
        c(yn, "'yes/no' in backticks, lower case", "answering `yes/no` as asked → no", N),
        # self-correction
        c(
            sc,
            "two answer tags, the second with a note",
            "<answer>no</answer>\n\nWait, let me re-check the attributes... <answer>yes, it is</answer>",
            None,
        ),
        c(
            sc,
            "answer tag corrected with 'sorry'",
            "<answer>yes</answer> ... hmm, actually <answer>no, sorry</answer>",
            None,
        ),
        c(sc, "two answer labels", "Answer: no\nCorrection — Answer: yes", None),
        c(sc, "lower case, 'actually wait'", "no. actually wait, yes!", None),
        c(sc, "same answer restated in capitals", "<answer>no</answer> ... to confirm: <answer>NO</answer>", N),
        c(sc, "same answer after a double-check", "No.\n\nLet me double-check the list... No.", N),
        c(sc, "bold yes, then bold no", "**Yes**\n\nHmm, hold on. Checking the list again... **No**.", None),
        c(sc, "Chinese correction", "Yes。等等，其实是 no。", None),
        c(sc, "label, then a correction in prose", "Answer: yes\n\nOn reflection I should correct myself: no.", None),
        c(sc, "capitalised second tag", "<answer>no</answer>\nWait, actually <answer>Yes</answer>", None),
        c(sc, "JSON with a revised answer", json.dumps({"answer": "yes", "revised_answer": "no"}), None),
        c(sc, "same answer repeated with emphasis", "yes... yes, definitely yes.", Y),
        c(sc, "yes, no, 'I mean yes'", "Yes! Wait, no — I mean yes.", None),
        c(sc, "same answer in a tag and a label", "<answer>no</answer>\nAnswer: no", N),
        # note-beside
        c(nb, "no with a note about the next question", "No. (It's not a canine — maybe ask about animals next.)", N),
        c(
            nb,
            "tag with a note that mentions yes",
            "<answer>no</answer> — I'd have said yes for 'mammal', but not for canine.",
            N,
        ),
        c(nb, "label with a count and 'skip'", "Answer: no — that's 1 of 20 questions used; I won't skip any.", N),
        c(nb, "no with other animals named", "No. My word isn't a dog, wolf or fox.", N),
        c(nb, "bold yes, italic note", "**yes**\n\n_(I'll keep answering strictly by the attribute list.)_", Y),
        c(nb, "no with the questions left", "No — 19 questions left for you.", N),
        c(nb, "Chinese note", "no（它不是犬科动物）", N),
        c(
            nb,
            "yes with a note that says yes again",
            "Yes. Note: if you ask 'Is it a type of dog?', I'll also say yes.",
            Y,
        ),
        c(
            nb,
            "yes with words from the list in the note",
            "Yes — it's one of the animals on the list, along with heron and reindeer.",
            Y,
        ),
        c(nb, "'or rather'", "No, or rather yes — it's a type of canine.", None),
        c(nb, "label corrected on the same line", "Answer: no, actually yes", None),
        c(nb, "'no wait' after yes", "Yes - no wait, no.", None),
        # format-restated
        c(fr, "tag restating yes/no", "<answer>yes/no</answer>\n<answer>no</answer>", N),
        c(fr, "format line with a tag, then the tag", "Format: <answer>yes or no</answer>\n<answer>no</answer>", N),
        c(fr, "ellipsis tag restated", "<answer>...</answer> → <answer>yes</answer>", Y),
        c(fr, "the prompt's 'either yes or no'", "I should respond with either 'yes' or 'no'. 'no'.", N),
        c(fr, "'yes/no', bold no", "Answer with yes/no → **No**", N),
        c(
            fr,
            "rules restated, then no",
            "The rules say answer 'yes' or 'no' according to the attributes. Canine isn't among my word's attributes, so: no.",
            N,
        ),
        c(fr, "bracketed tag placeholder", "<answer>[yes|no]</answer>\n<answer>yes</answer>", Y),
        c(fr, "label restated as a question", "Answer: yes or no?\nAnswer: no", N),
        c(
            fr,
            "the prompt's dog example, then no",
            "For example, if my word were 'dog' and you asked 'Is it a type of object?', I'd say yes. Here: no.",
            None,
        ),
        c(
            fr,
            "concrete tag example, then the tag",
            "The format is <answer>yes</answer>; my answer: <answer>no</answer>",
            None,
        ),
        c(fr, "quoted example, then the answer", "e.g. 'yes'. My answer: 'no'", N),  # the label is the answer
        c(fr, "example identical to the answer", "Format: <answer>no</answer>. So: <answer>no</answer>", N),
        # seen from SmolLM2-135M (issue 26's real-model check): instructions that mention an answer
        c(
            yn,
            "real model: role switch, an instruction quoting 'no'",
            'You\'re correct, when I asked "Is it a type of object?" you should respond with "no" to the question.'
            "\n\nHowever, since we need to confirm that your chosen word is indeed something (the animal itself), "
            "I'll ask again: Is it a type of thing?",
            None,
        ),
        c(
            yn,
            "an instruction to say no",
            "You should say 'no', even though dogs are pets. Is it a type of thing?",
            None,
        ),
        c(yn, "a rule about answering yes", "Remember to answer 'yes' only when the attribute is listed.", None),
        c(yn, "'I would say' is an answer", "I would say yes: a dog is a canine.", Y),
    ]


# ---------------------------------------------------------------------------- Word Chain
def word_chain() -> list[dict[str, Any]]:
    _, info, mv, obs = first_moves("MTP/WordChain-v0")
    prev = info["chain"][-1]
    assert f"I'll start with '{prev}'." in obs
    legal = info["legal_moves"]
    s = mv.strip("'")
    _need({s, "spill", "shoot", "seaport", "snitch", "save", "soak", "sampled"}, legal, "legal words")
    assert prev == "access" and s == "spray", (prev, s)  # the replies below talk about these words

    def q(word: str) -> str:
        return f"'{word}'"

    S = q(s)
    aw, sc, nb, fr = "attributed-word", "self-correction", "note-beside", "format-restated"
    return [
        # attributed-word: the opponent's word quoted beside the reply's own
        c(
            aw,
            "the policy's example: own word bold, not quoted",
            f"You said '{prev}', so mine starts with s: **{s}**.",
            None,
            meant=S,
        ),
        c(aw, "previous word ends in s, own word quoted", f"'{prev}' ends in s, so I'll say '{s}'", S),
        c(aw, "'after' the previous word", f"After '{prev}', I'll go with '{s}'.", S),
        c(aw, "real model: the opponent's word restated", f"The next challenge I'll present is '{prev}'.", None),
        c(aw, "'your word'", f"Your word '{prev}' ends with an s. My word: '{s}'.", S),
        c(
            aw,
            "'you said', a quoted letter",
            f"You said '{prev}' — that ends in 's'. I choose 'seaport'.",
            q("seaport"),
        ),
        c(aw, "arrow chain", f"'{prev}' → 's' → '{s}'", S),
        c(
            aw,
            "own word not quoted after 'you started with'",
            f"Since you started with '{prev}', my word is {s}.",
            None,
            meant=S,
        ),
        c(
            aw,
            "double quotes, 'the last word was'",
            f'The last word was "{prev}", ending in S, so: "shoot"',
            q("shoot"),
        ),
        c(aw, "Chinese", f"你说的是 '{prev}'，以 s 结尾，所以我说 '{s}'。", S),
        c(
            aw,
            "compliment on the opener",
            f"Nice opener with '{prev}'! Following the s, here's mine: 'snitch'",
            q("snitch"),
        ),
        c(
            aw,
            "own candidates listed in quotes",
            f"Your '{prev}' was a good start. S-words I could use: 'save', 'soak', '{s}'... I'll pick '{s}'.",
            None,
        ),
        c(aw, "'(your word)' after the previous word", f"Following '{prev}' (your word), I play '{s}'.", S),
        c(aw, "backticked previous word", f"`{prev}` ends in s → I'll say '{s}'.", S),
        c(aw, "curly double quotes for both", f"You said “{prev}”, so I'll say “{s}”.", S),
        c(aw, "JSON with quoted keys", json.dumps({"previous": prev, "word": s}), None, meant=S),
        c(aw, "'is your word, not mine'", f"'{prev}' is your word, not mine. Mine is '{s}'.", S),
        c(aw, "repeat rule mentioned", f"I'd say '{prev}' again but repeats lose, so '{s}'.", S),
        c(aw, "labelled lines, own word in bold", f"Your word: '{prev}'\nMy word: **{s}**", None, meant=S),
        c(aw, "markdown table of the two words", f"| you | me |\n|---|---|\n| '{prev}' | '{s}' |", S),
        # self-correction
        c(sc, "'wait, no' to another word", f"'{s}'... wait, no — 'spill' is better.", None),
        c(sc, "'actually' to another word", f"I'll go with '{s}'. Hmm, actually 'shoot'.", None),
        c(sc, "same word restated capitalised", f"'{s}'\n\nOn second thought: '{s.capitalize()}'", S),
        c(sc, "same word restated in double quotes", f"'{s}' — let me restate: \"{s}\"", S),
        c(
            sc,
            "correction to an unquoted word",
            f"My word is '{s}'. Hmm, y-words might be scarce for me later... no wait, I'll switch to soak.",
            None,
        ),
        c(sc, "struck-out word, bold replacement", f"~~'{s}'~~ **'spill'**", None),
        c(sc, "Chinese correction", f"我选 '{s}'，不对，换成 'snitch'。", None),
        c(sc, "doubt, then the same word", f"'{s}'? No wait — '{s}' is fine. Final: '{s}'.", S),
        c(
            sc,
            "switch with 'instead'",
            f"Let me say 'sampled'. Hmm, d-words... Actually, let me go with '{s}' instead.",
            None,
        ),
        c(sc, "two labelled lines", f"word: '{s}'\ncorrected word: 'save'", None),
        c(sc, "upper case, then lower case", f"'{s.upper()}' – I mean '{s}', in lower case as in the list.", S),
        c(sc, "full stop inside the quotes, then another word", f"'{s}.' Wait, no — 'spill'.", None),
        # note-beside
        c(nb, "tactical note", f"'{s}' (ending in y should be tricky for you)", S),
        c(nb, "unquoted alternatives", f"I'll say '{s}'. Other s-words I considered: sampled, soak, shoot.", S),
        c(nb, "'skip' and the previous word unquoted", f"'{s}' — I won't skip my turn, and I won't repeat {prev}.", S),
        c(nb, "bold with a count", f"**'{s}'**\n\n_(20 words each; this is my 1st.)_", S),
        c(nb, "Chinese note", f"'{s}'，因为它以 y 结尾，对手很难接。", S),
        c(nb, "quoted letters in the note", f"My word: '{s}'. (starts with 's', ends with 'y')", S),
        c(
            nb,
            "final answer label with reasoning",
            f"Final Answer: '{s}'\n\nReasoning: s-words like seaport or shoot would also work.",
            S,
        ),
        c(nb, "code fence, then alternatives", f"```\n'{s}'\n```\nAlternatives: save, spill.", S),
        c(
            nb,
            "numbers in the note",
            f"'{s}' — {len(legal)} s-words were available, and 0 words on the list start with y.",
            S,
        ),
        c(nb, "'or maybe' a second quoted word", f"'{s}', or maybe 'spill'", None),
        c(nb, "'no wait' with an unquoted word", f"'{s}' - no wait, spill", None),
        c(nb, "'actually' a second quoted word", f"'{s}', actually 'soak'", None),
        # format-restated
        c(fr, "'word' placeholder", f"I must wrap my word in single quotes, like 'word'. So: '{s}'", S),
        c(fr, "angle-bracket placeholder in quotes", f"Format: '<word>'. Mine: '{s}'", S),
        c(fr, "ellipsis in quotes", f"'...' → '{s}'", S),
        c(fr, "square-bracket placeholder", f"Reply format: '[word]'\nMy reply: '{s}'", S),
        c(fr, "'your word here' placeholder", f"The answer goes in quotes ('your word here'), so: '{s}'", S),
        c(fr, "curly-brace placeholder", f"Template: '{{word}}' → '{s}'", S),
        c(fr, "e.g. a listed word", f"The format is a word in quotes, e.g. 'save'. My word: '{s}'.", None),
        c(fr, "'for example' another s-word", f"For example: 'seaport'. Mine: '{s}'", None),
        c(
            fr,
            "the prompt's example words",
            f"(Like the prompt's example: 'ant' then 'television'.) My word: '{s}'.",
            None,  # 'ant' and 'television' are words too: three named
            meant=S,
        ),
        c(fr, "example is the same word", f"Format: '{s}'. My word: '{s}'.", S),
        c(fr, "Chinese, example word then the real one", f"格式例如 'shoot'。我的词：'{s}'", None),
    ]


# ---------------------------------------------------------------------------- Turing Machine
def turing_machine() -> list[dict[str, Any]]:
    _, info, mv, _ = first_moves("MTP/TuringMachine-v0")
    b, y, p = re.findall(r"\d", mv)
    P = f"<CHOICE>: BLUE={b}, YELLOW={y}, PURPLE={p}"
    assert mv == P == "<CHOICE>: BLUE=1, YELLOW=1, PURPLE=2", mv  # the notes below talk about 1, 1, 2
    answer = info["hidden"]["answer"]
    assert answer == "551", answer
    sub = f"<CHOICE>: BLUE={answer[0]}, YELLOW={answer[1]}, PURPLE={answer[2]}"
    ask = [P]  # question stage
    deduce = [P, "<CHOICE>: SKIP"]  # deduce stage
    v0, v1, v2, v3, skip = (f"<CHOICE>: {x}" for x in ("0", "1", "2", "3", "SKIP"))
    sc, nb, sg, fr = "self-correction", "note-beside", "sign", "format-restated"
    return [
        # self-correction
        c(
            sc,
            "full proposal, then B/Y/P shorthand",
            f"{P}\n\nActually, better to test evens: <CHOICE>: B=2, Y=2, P=3",
            None,
        ),
        c(sc, "second full proposal", f"{P}\nWait — <CHOICE>: BLUE=2, YELLOW=4, PURPLE=1", None),
        c(sc, "same code restated as bare digits", f"{P}\n\nRestating compactly:\n<CHOICE>: {b}{y}{p}", P),
        c(sc, "lower case, then the exact line", f"<CHOICE>: blue={b}, yellow={y}, purple={p}\n...i.e.\n{P}", P),
        c(sc, "verifier changed", "<CHOICE>: 2\n\nHmm, verifier 0 first is better.\n<CHOICE>: 0", None, before=ask),
        c(sc, "verifier, then SKIP", "<CHOICE>: 1\nno wait\n<CHOICE>: SKIP", None, before=ask),
        c(
            sc,
            "same verifier in the env's wording",
            "<CHOICE>: 1\nCorrection (format): <CHOICE>: Verifier <1>",
            v1,
            before=ask,
        ),
        c(
            sc,
            "SKIP, then a submission",
            f"<CHOICE>: SKIP\n\nActually I'm confident enough:\n{sub}",
            None,
            before=deduce,
        ),
        c(sc, "same submission as bare digits", f"{sub}\nOr, equivalently:\n<CHOICE>: {answer}", sub, before=deduce),
        c(sc, "Chinese correction with Chinese colour names", f"{P}\n不对，改成 <CHOICE>: 蓝=3, 黄=2, 紫=1", None),
        c(sc, "second line with 'or'", "<CHOICE>: 3\n\nOn reflection,\n<CHOICE>: 3 or 2", None, before=ask),
        c(sc, "draft and final markers", f"{P} <- first draft\n<CHOICE>: BLUE=1, YELLOW=4, PURPLE=2 <- final", None),
        c(sc, "same verifier restated in bold", "<CHOICE>: 0\n\n...yes, keeping it: **<CHOICE>: 0**", v0, before=ask),
        c(sc, "submission, then B/Y/P shorthand", f"{sub}\n\nHmm, no: <CHOICE>: B=5, Y=5, P=2", None, before=deduce),
        # note-beside
        c(nb, "the policy's 'skip' note", "<CHOICE>: 2 - I will not skip this round", v2, before=ask),
        c(nb, "plan in parentheses", "<CHOICE>: 0 (then 1 and 3 if it passes)", v0, before=ask),
        c(nb, "comment naming another verifier", "<CHOICE>: 3  // even count; verifier 1 next", v3, before=ask),
        c(nb, "hypothesis note", f"{P} (tests BLUE<PURPLE; no 3s for verifier 1)", P),
        c(nb, "alternatives after an em dash", f"{P} — alternatives were 2,2,3 and 1,4,2", P),
        c(
            nb,
            "SKIP with untested verifiers",
            "<CHOICE>: SKIP - not enough info yet; verifiers 0 and 3 untested",
            skip,
            before=deduce,
        ),
        c(
            nb,
            "submission with a justification",
            f"{sub} (all 4 verifiers consistent; 552 would fail verifier 3)",
            sub,
            before=deduce,
        ),
        c(nb, "bold line, 'skip' later", "**<CHOICE>: 1** — checking the number of 3s, then I'll skip", v1, before=ask),
        c(
            nb,
            "'Verifier 2' with a reason",
            "<CHOICE>: Verifier 2, because BLUE vs PURPLE is the cheapest split; I'll skip 0 for now",
            v2,
            before=ask,
        ),
        c(nb, "Chinese note", "<CHOICE>: 2（先测蓝色和紫色的比较，不跳过）", v2, before=ask),
        c(
            nb,
            "reasoning label before the choice",
            f"<REASONING>: 112 has no 3s and one even digit; 223 was the other candidate.\n{P}",
            P,
        ),
        c(nb, "'actually' on the line", "<CHOICE>: 2, actually 3", None, before=ask),
        c(nb, "'no wait, SKIP'", "<CHOICE>: 2 - no wait, SKIP", None, before=ask),
        c(nb, "'or' on the line", "<CHOICE>: 0 or 1", None, before=ask),
        c(nb, "digit corrected on the line", f"{P}, actually PURPLE=3", None),
        # sign
        c(sg, "Unicode minus verifier", "<CHOICE>: −1", None, before=ask),
        c(sg, "en dash verifier", "<CHOICE>: –2", None, before=ask),
        c(sg, "em dash verifier", "<CHOICE>: —3", None, before=ask),
        c(sg, "Unicode minus in YELLOW", f"<CHOICE>: BLUE={b}, YELLOW=−{y}, PURPLE={p}", None),
        c(sg, "en dash in BLUE", f"<CHOICE>: BLUE=–{b}, YELLOW={y}, PURPLE={p}", None),
        c(sg, "em dash note with a count", "<CHOICE>: 2 — 1 verifier used so far", v2, before=ask),
        c(sg, "en dash note", "<CHOICE>: 0 – testing YELLOW vs 4", v0, before=ask),
        c(sg, "em dash 'final'", f"{sub} — final", sub, before=deduce),
        c(sg, "bare code with en dashes", f"<CHOICE>: {b}–{y}–{p}", None, meant=P),
        c(sg, "minus zero", "<CHOICE>: −0", None, before=ask),
        c(sg, "hyphen-minus verifier", "<CHOICE>: -1", None, before=ask),
        c(sg, "Unicode minus in PURPLE", f"<CHOICE>: BLUE={b}, YELLOW={y}, PURPLE=−{p}", None),
        c(
            sg,
            "minus in a submission",
            f"<CHOICE>: BLUE={answer[0]}, YELLOW={answer[1]}, PURPLE=−{answer[2]}",
            None,
            before=deduce,
        ),
        c(sg, "small hyphen-minus verifier", "<CHOICE>: ﹣1", None, before=ask),
        c(sg, "'Verifier' and a minus", "<CHOICE>: Verifier −2", None, before=ask),
        # format-restated
        c(fr, "response format restated", f"Response format: <CHOICE>: BLUE=X, YELLOW=Y, PURPLE=Z\n\n{P}", P),
        c(fr, "[your_choice] placeholder", "Format is\n<CHOICE>: [your_choice]\n<CHOICE>: 2", v2, before=ask),
        c(
            fr,
            "N placeholder",
            "I reply with the verifier number after the tag, like\n<CHOICE>: N\n<CHOICE>: 0",
            v0,
            before=ask,
        ),
        c(fr, "[your_choice], then SKIP", "<CHOICE>: [your_choice]\n<CHOICE>: SKIP", skip, before=deduce),
        c(
            fr,
            "placeholder with a digit-range note",
            f"<CHOICE>: BLUE=X, YELLOW=Y, PURPLE=Z (X, Y, Z from 1 to 5)\n{P}",
            P,
        ),
        c(
            fr,
            "format in backticks with a note, then bold",
            f"The required format is `<CHOICE>: BLUE=X, YELLOW=Y, PURPLE=Z`, where X, Y, Z are digits from 1 to 5.\n\n**{P}**",
            P,
        ),
        c(fr, "verifier_num placeholder", "<CHOICE>: verifier_num\n<CHOICE>: 3", v3, before=ask),
        c(fr, "Chinese, format restated", f"格式：<CHOICE>: BLUE=X, YELLOW=Y, PURPLE=Z\n我的提议：\n{P}", P),
        c(
            fr,
            "the prompt's 1,1,1 example",
            f"For example, <CHOICE>: BLUE=1, YELLOW=1, PURPLE=1 (that's the prompt's example).\n{P}",
            None,
        ),
        c(fr, "'such as <CHOICE>: 1'", "such as <CHOICE>: 1.\n<CHOICE>: 2", None, before=ask),
        c(
            fr,
            "SKIP example, then a verifier",
            "The prompt's example is <CHOICE>: SKIP; I will instead test\n<CHOICE>: 0",
            None,
            before=ask,
        ),
        c(
            fr,
            "example code, then SKIP",
            "e.g. <CHOICE>: BLUE=1, YELLOW=1, PURPLE=1\n<CHOICE>: SKIP",
            None,
            before=deduce,
        ),
        c(fr, "example equal to the move", "such as <CHOICE>: 1 — and indeed:\n<CHOICE>: 1", v1, before=ask),
    ]


CASES: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "MTP/WordGuess-v0": word_guess,
    "MTP/MovieRec-v0": movie_rec,
    "MTP/CircuitDecoding-v0": circuit_decoding,
    "MTP/WordChain-v0": word_chain,
    "MTP/TwentyQuestions-v0": twenty_questions,
    "MTP/TuringMachine-v0": turing_machine,
}


if __name__ == "__main__":
    from collections import Counter

    for env_id, build in CASES.items():
        counts = Counter(x["class"] for x in build())
        print(env_id, dict(sorted(counts.items())))
