"""Round-two replies (issue 26) for the hidden-state query games: ``cases(env_id)``.

Each case has the shape of ``build_corpus.case()`` (``style``, ``reply``, ``move``) plus
``class`` (``self-correction``, ``note-beside``, ``sign``, ``format-restated``) and, where the
reading policy re-prompts a reply that a careful human reads as one clear move, ``meant``.
Everything is built from benchmark configuration 0 as ``build_corpus.game_corpus()`` builds
its cases (the oracle's first move, other legal queries from ``game.all_queries()``, the true
answer and wrong answers from the game's candidate states), so the cases regenerate
deterministically. The wording of each case is drawn from a list of phrasings per class
(at least 10 per class), rotated by the game's position among the query games, so the family
as a whole holds many distinct replies.

Decisions follow the round-two reading policy:

* self-correction: a move, then another move or a tag that does not read as a move (``it must
  be 9``, ``the next one, 4``): re-prompt, no ``meant`` (the reply names two moves). The same
  move restated (case and whitespace aside) is the move.
* note-beside: a remark outside the tag is not a move; a remark inside the tag that adds
  another number is a re-prompt (``meant`` when the remark is plainly a note, none when it
  offers another candidate).
* sign: a dash-like character right before a number is a minus, never dropped: SequenceRule's
  ``arith a d`` / ``ramp a d s`` take negatives (the move, with an ASCII ``-``); everywhere else a
  negative number is a re-prompt. A range written ``1–18`` in a query that takes two numbers is
  therefore a re-prompt (``meant``: the range). A dash between the two nodes of an edge in an
  edge-list answer (``8–9``) is the answer format's own separator: the move.
* format-restated: a placeholder tag (``<answer>...</answer>``, ``<query_x>a, b</query_x>``,
  ``<answer>N</answer>``) beside the real move is ignored; a concrete example that is itself a
  legal move beside the real move is two moves: re-prompt, no ``meant`` (in HiddenOrder the
  env's own lettered example ``<answer>A, B, C, D, E</answer>`` reads as a move, so it is no
  placeholder there). HiddenOrder also gets the case issue 26 names: the answer in backticks
  inside the tag (`` <answer>`ACEBD`</answer> ``), read as the move.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import gymnasium as gym

import mtp_gym
from mtp_gym.agents import make_agent
from mtp_gym.episode import public_info

NOT_QUERY_GAMES = ("WordGuess", "MovieRec", "CircuitDecoding", "WordChain", "TwentyQuestions", "TuringMachine")
QUERY_GAMES = tuple(sorted(e for e in mtp_gym.ENV_IDS if e.split("/")[1].rsplit("-v", 1)[0] not in NOT_QUERY_GAMES))
#: Dash-like characters a model writes before a number (rotated per case; HiddenNumber also gets
#: an ASCII ``-``, which its ``int()`` reading accepted as a wrong answer).
DASHES = ("\u2212", "\u2013", "\u2014", "\u2012", "\uff0d", "\u2010", "\u2011", "\ufe63")
#: Query arguments of two numbers that name a range (a model may write ``1–18``).
RANGE_QUERIES = {"broken", "count", "arrived", "sum"}
#: Games whose edge-list answer joins the two nodes of an edge with ``-``.
EDGE_ANSWERS = {"BrokenLink", "HiddenEdges"}
_TAG_RE = re.compile(r"^<([A-Za-z_]+)>(.*)</\1>$", re.DOTALL)


def case(cls: str, style: str, reply: str, move: str | None, meant: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"style": style, "class": cls, "reply": reply, "move": move}
    if meant is not None:
        out["meant"] = meant
    return out


# ---------------------------------------------------------------------------- the game's material


@dataclass
class Material:
    """What the templates need of one game at configuration 0."""

    name: str
    index: int
    M: str  # the oracle's first move
    mtag: str
    margs: str
    Q: str  # a query with arguments (M when it has some)
    qtag: str
    qargs: str
    qspec_args: tuple[type, ...]
    R: str  # another legal query, preferably of another kind
    rtag: str
    rargs: str
    R2: str
    corr_tag: str  # a tag and other arguments for "the next one, ..." corrections
    corr_args: str
    EX: str  # a concrete legal query other than M (with a digit when the game has one)
    t: str  # the true answer's content
    w: str  # a wrong but well-formed answer
    w2: str
    vals: list[str]  # argument values of other queries, for prose
    ph: str  # a placeholder for Q's arguments
    ph_braced: str
    int_query: str | None  # a legal query with an int argument (M when it has one)
    int_qtag: str = ""
    int_qargs: tuple = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def T(self) -> str:
        return f"<answer>{self.t}</answer>"

    @property
    def W(self) -> str:
        return f"<answer>{self.w}</answer>"

    def prose(self, tag: str, args: str) -> str:
        name = tag.removeprefix("query_")
        return f"{name}({args})" if args else name

    @property
    def r_prose(self) -> str:
        return self.prose(self.rtag, self.rargs)

    @property
    def r2_prose(self) -> str:
        tag, args = _TAG_RE.match(self.R2).groups()
        return self.prose(tag, args)

    @property
    def m_prose(self) -> str:
        return self.prose(self.mtag, self.margs)

    def nums(self, k: int = 3) -> str:
        v = self.vals[:k]
        return ", ".join(v[:-1]) + f" and {v[-1]}" if len(v) > 1 else v[0]


def _placeholder(types: tuple[type, ...], braced: bool) -> str:
    ints = iter(("{i}", "{j}") if braced else ("a", "b"))
    strs = iter(("{X}", "{Y}") if braced else ("P", "Q"))
    if types == (int,):
        return "{n}" if braced else "N"
    return ", ".join(next(ints) if t is int else next(strs) for t in types)


def _parses(game: Any, tag: str, content: str) -> bool:
    try:
        if tag == "answer":
            game.parse_answer(content)
        else:
            game.parse_query(tag.removeprefix("query_"), content)
    except Exception:
        return False
    return True


@cache
def material(env_id: str) -> Material:
    env = gym.make(env_id)
    obs, info = env.reset(options={"config_id": 0})
    agent = make_agent("oracle", env_id)
    agent.reset(seed=0)
    move = agent.act(obs, public_info(info))
    game = env.unwrapped.game
    specs = {q.name: q for q in game.queries}
    legal = [(name, args, specs[name].example(args)) for name, args in game.all_queries()]
    mtag, margs = _TAG_RE.match(move).groups()
    mname = mtag.removeprefix("query_")

    with_args = [x for x in legal if x[1]]
    if specs[mname].args:
        Q, qname = move, mname
    else:  # an argument-less first move: the middle query that takes arguments
        qname, _, Q = with_args[len(with_args) // 2]
    qtag, qargs = _TAG_RE.match(Q).groups()

    others = [x for x in with_args if x[0] != mname] or [x for x in with_args if x[2] != move]
    R = others[len(others) // 2][2]
    R2 = next(x[2] for x in others[len(others) // 3 :] + others if x[2] not in (move, R))
    rtag, rargs = _TAG_RE.match(R).groups()
    same = [x for x in legal if x[0] == qname and x[2] != Q]
    corr = same[(len(same) // 2 + 1) % len(same)][2] if same else R
    corr_tag, corr_args = _TAG_RE.match(corr).groups()

    examples = [q.example(game.example_args(q.name)) for q in game.queries]
    examples += [x[2] for x in with_args]
    EX = next((e for e in examples if e != move and re.search(r"\d", e)), None)
    if EX is None:
        EX = next(e for e in examples if e != move)

    target = game.target(game.hidden)
    t = game.format_answer(target)
    wrongs: list[str] = []
    for state in game.candidate_states():
        text = game.format_answer(game.target(state))
        if text in wrongs or f"<answer>{text}</answer>" == game.answer_format or not _parses(game, "answer", text):
            continue
        if game.parse_answer(text) != game.parse_answer(t):
            wrongs.append(text)
        if len(wrongs) == 2:
            break

    vals: list[str] = []
    mvals = {str(a) for a in re.split(r"[,\s]+", margs) if a} | set(re.findall(r"\w+", t))  # not in the move or answer
    for _, args, _ in with_args[::-1]:
        for a in args:
            if str(a) not in mvals and str(a) not in vals:
                vals.append(str(a))
    vals = vals[:: max(1, len(vals) // 4)][:4]
    if len(vals) < 3:
        vals = (vals + ["2", "5", "7"])[:4]

    int_q = next((x for x in with_args if any(t is int for t in specs[x[0]].args) and x[2] == move), None)
    int_q = int_q or next((x for x in with_args if any(t is int for t in specs[x[0]].args)), None)

    ph = _placeholder(specs[qname].args, braced=False)
    ph_braced = _placeholder(specs[qname].args, braced=True)
    assert not _parses(game, qtag, ph) and not _parses(game, qtag, ph_braced), (env_id, ph)
    name = env_id.split("/")[1].rsplit("-v", 1)[0]
    return Material(
        name=name,
        index=QUERY_GAMES.index(env_id),
        M=move,
        mtag=mtag,
        margs=margs,
        Q=Q,
        qtag=qtag,
        qargs=qargs,
        qspec_args=specs[qname].args,
        R=R,
        rtag=rtag,
        rargs=rargs,
        R2=R2,
        corr_tag=corr_tag,
        corr_args=corr_args,
        EX=EX,
        t=t,
        w=wrongs[0],
        w2=wrongs[1],
        vals=vals,
        ph=ph,
        ph_braced=ph_braced,
        int_query=None if int_q is None else int_q[2],
        int_qtag="" if int_q is None else specs[int_q[0]].tag,
        int_qargs=() if int_q is None else int_q[1],
        extra={"specs": specs},
    )


# ---------------------------------------------------------------------------- self-correction


def _sc(c: Material) -> list[tuple[str, str, str | None, str | None]]:
    """(style, reply, move, meant) of every self-correction wording for this game."""
    corr = f"<{c.corr_tag}>the next one, {c.corr_args}</{c.corr_tag}>"
    spaced = f"< {c.mtag.upper()} > {c.margs} </ {c.mtag.upper()} >"
    return [
        (
            "answer, then an unreadable correction",
            f"{c.W}\n\n… on second thought: <answer>it must be {c.t}</answer>",
            None,
            None,
        ),
        (
            "query, then 'the next one' in a tag",
            f"Let me start with {c.Q}\n\nHmm, that overlaps with what the rules already tell me. Better:\n{corr}",
            None,
            None,
        ),
        (
            "the same move restated after a second thought",
            f"{c.M}\n\nOn second thought... no, my first choice stands:\n\n{spaced}",
            c.M,
            None,
        ),
        (
            "'No wait' and another legal query",
            f"**Move:** {c.Q}\n\nNo wait — {c.R} splits the candidates better. Going with that.",
            None,
            None,
        ),
        (
            "Chinese correction with a note in the tag",
            f"我先问这个：{c.Q}\n\n不对，刚才算错了。改成：<{c.rtag}>{c.rargs}（更正）</{c.rtag}>",
            None,
            None,
        ),
        (
            "JSON with a revised action",
            '```json\n{\n  "action": "'
            + c.Q
            + '",\n  "revised_action": "<answer>probably '
            + c.t
            + ' actually</answer>"\n}\n```',
            None,
            None,
        ),
        (
            "final answer, then a corrected final answer",
            f"Final Answer: {c.W}\n\nWait — I misread the reply to my last question.\n"
            f"Corrected final answer: <answer>{c.t}?</answer>",
            None,
            None,
        ),
        (
            "the same answer restated after re-checking",
            f"<answer>{c.t}</answer>\n\nActually, let me double-check against every reply so far... "
            f"{c.w} is ruled out, and so is {c.w2}. Same conclusion.\n\n**Final answer:** <Answer>  {c.t}  </Answer>",
            f"<answer>{c.t}</answer>",
            None,
        ),
        (
            "boxed answer, then a hedged answer tag",
            f"So the answer is $\\boxed{{{c.w}}}$, i.e. {c.W}.\n\nHmm, let me re-verify... no, that contradicts "
            f"the second reply. It's actually <answer>{c.t}, I think</answer>.",
            None,
            None,
        ),
        (
            "lower-case spaced tags, then 'i meant'",
            f"< {c.mtag} >{c.margs}</ {c.mtag} >\n\noh wait, scratch that — i meant "
            f"< {c.corr_tag} >{c.corr_args} instead</ {c.corr_tag} >",
            None,
            None,
        ),
        (
            "long reasoning, answer, then 'not X, Y' in a tag",
            f"Candidates still open after the replies:\n- {c.w}\n- {c.w2}\n- {c.t}\n\n"
            f"The first reply rules out nothing, so I'll go with {c.W}.\n"
            f"Hmm, but the last reply rules {c.w} out. Correction: <answer>not {c.w}, {c.t}</answer>",
            None,
            None,
        ),
        (
            "the same query repeated in a code fence",
            f"```\n{c.M}\n```\n(Repeating it so it is not missed: {c.M})",
            c.M,
            None,
        ),
        (
            "query, then an answer instead",
            f"{c.Q}\n\nActually, I already have enough information — no need to ask.\n\n{c.T}",
            None,
            None,
        ),
        (
            "struck-through query, then another",
            f"~~{c.Q}~~ → {c.R2}\n\n(changed my mind: {c.r2_prose} rules out more)",
            None,
            None,
        ),
    ]


# ---------------------------------------------------------------------------- note beside


def _notes_outside(c: Material) -> list[tuple[str, str, str | None, str | None]]:
    vals = c.nums()
    return [
        (
            "query, then a remark naming the follow-up query and numbers",
            f"{c.M}\n\n(If the reply is what I expect, I'll follow up with {c.r_prose}; {vals} would then be out.)",
            c.M,
            None,
        ),
        (
            "bold label, dash, why not another query",
            f"**Next query:** {c.M} — not {c.r_prose} yet, since that one only splits off {2 + c.index % 3} of the "
            f"{8 + c.index % 5} remaining candidates.",
            c.M,
            None,
        ),
        (
            "JSON with reasoning naming numbers",
            '{"reasoning": "'
            + f"{c.vals[0]} and {c.vals[1]} are already settled; {c.m_prose} is the best split"
            + '", "action": "'
            + c.M
            + '"}',
            c.M,
            None,
        ),
        (
            "Chinese remark naming another query",
            f"{c.M}\n\n（我也考虑过问 {c.r_prose}，但这个问题能排除更多候选：{vals}。）",
            c.M,
            None,
        ),
        (
            "final answer after ruled-out candidates",
            f"Ruled out: `{c.w}` and `{c.w2}` (both contradict the replies).\n\nFinal Answer: {c.T}",
            c.T,
            None,
        ),
        (
            "markdown table of candidates, then the answer",
            f"| candidate | status |\n|---|---|\n| {c.w} | ruled out by reply 2 |\n| {c.w2} | ruled out by reply 3 |\n"
            f"| {c.t} | consistent |\n\n{c.T}",
            c.T,
            None,
        ),
        (
            "code fence, then why other queries are skipped",
            f"```\n{c.M}\n```\nI skip {c.r_prose} and {c.r2_prose} — they would only tell me about {c.vals[-1]}.",
            c.M,
            None,
        ),
        (
            "bullet list of query splits, then the query",
            f"- {c.r_prose}: splits the candidates 4/5\n- {c.r2_prose}: splits 2/7\n- {c.m_prose}: splits 5/4 ← best\n\n"
            f"{c.M}",
            c.M,
            None,
        ),
        (
            "lower-case tag with an arrow note",
            f"<{c.mtag.lower()}>{c.margs}</{c.mtag.lower()}>   ← asking this rather than {c.r_prose} (tried {c.vals[1]} "
            f"in my head already)",
            c.M,
            None,
        ),
        (
            "boxed value in prose beside the answer tag",
            f"Only one candidate survives all replies, so the answer is $\\boxed{{{c.t}}}$ (not {c.w}).\n\n{c.T}",
            c.T,
            None,
        ),
        (
            "repeated answer with the runner-up named",
            f"{c.T}\n\nTo be explicit: my final answer is {c.T} — the runner-up was {c.w}, which reply 1 rules out.",
            c.T,
            None,
        ),
    ]


def _notes_inside(c: Material) -> list[tuple[str, str, str | None, str | None]]:
    return [
        (
            "remark inside the query tag naming an earlier query",
            f"<{c.qtag}>{c.qargs} (I already know the reply to {c.rargs})</{c.qtag}>",
            None,
            c.Q,
        ),
        (
            "remark inside the answer tag: a count",
            f"Final answer:\n<answer>{c.t} (double-checked {len(c.vals) + 1} times)</answer>",
            None,
            c.T,
        ),
        (
            "another candidate offered inside the answer tag",
            f"<answer>{c.t} (or possibly {c.w})</answer>",
            None,
            None,
        ),
        (
            "fallback query inside the tag",
            f"<{c.qtag}>{c.qargs}, or {c.corr_args} if that is not allowed</{c.qtag}>",
            None,
            None,
        ),
        (
            "comment inside the answer tag naming a ruled-out value",
            f"**Answer**\n\n<answer>{c.t}  # ruled out {c.vals[0]}</answer>",
            None,
            c.T,
        ),
    ]


# ---------------------------------------------------------------------------- signs


def _sign_sites(c: Material) -> list[tuple[str, Callable[[str], str], str | None, str | None]]:
    """(what, content builder from a dash, move, meant) of the game's places for a minus."""
    sites: list[tuple[str, Callable[[str], str], str | None, str | None]] = []
    specs = c.extra["specs"]
    if c.name == "SequenceRule":
        sites += [
            (
                "negative d of arith (allowed)",
                lambda d: "<answer>arith 4 " + d + "3</answer>",
                "<answer>arith 4 -3</answer>",
                None,
            ),
            (
                "negative d of ramp (allowed)",
                lambda d: "<answer>ramp 1 " + d + "2 5</answer>",
                "<answer>ramp 1 -2 5</answer>",
                None,
            ),
        ]
    if c.mtag.removeprefix("query_") in RANGE_QUERIES and c.margs.count(",") == 1:
        a, b = (x.strip() for x in c.margs.split(","))
        sites.append(
            (
                "a range written with a dash in a two-number query",
                lambda d: f"<{c.mtag}>{a}{d}{b}</{c.mtag}>",
                None,
                c.M,
            )
        )
    if c.name in EDGE_ANSWERS:
        sites.append(
            (
                "edge list joined with a typographic dash",
                lambda d: "<answer>" + c.t.replace("-", d) + "</answer>",
                c.T,
                None,
            )
        )
    if c.int_query is not None:
        args = list(c.int_qargs)
        k = next(i for i, t in enumerate(specs[c.int_qtag.removeprefix("query_")].args) if t is int)

        def neg_query(d: str, args: list = args, k: int = k) -> str:
            shown = [f"{d}{v}" if i == k else str(v) for i, v in enumerate(args)]
            return f"<{c.int_qtag}>{', '.join(shown)}</{c.int_qtag}>"

        sites.append(("negative query argument (not allowed)", neg_query, None, None))
    # the last non-zero number of the true answer (else of a wrong one): -0 would be no test
    text = next((a for a in (c.t, c.w, c.w2) if re.search(r"[1-9]", a)), c.t)
    numbers = [m for m in re.finditer(r"\d+", text) if int(m.group())]
    if numbers and c.name not in EDGE_ANSWERS and c.name != "SequenceRule":
        last = numbers[-1]

        def neg_answer(d: str, last: re.Match = last, text: str = text) -> str:
            return f"<answer>{text[: last.start()]}{d}{text[last.start() :]}</answer>"

        sites.append(("a negative number in the answer (not allowed)", neg_answer, None, None))
    elif c.name in EDGE_ANSWERS:
        sites.append(
            (
                "a negative node in the answer (not allowed)",
                lambda d: f"<answer>{d}{c.t}</answer>",
                None,
                None,
            )
        )
    if c.name == "SequenceRule":
        sites.append(
            ("negative term position (not allowed)", lambda d: f"<{c.mtag}>{d}{c.margs}</{c.mtag}>", None, None)
        )
    if c.name == "TagRule":  # atleast k / atmost k take a count of tags: never negative
        sites.append(("negative count of tags (not allowed)", lambda d: f"<answer>atleast {d}2</answer>", None, None))
    if c.name == "SequenceTransform":  # rotate r takes r from 1 to L-1
        sites.append(
            ("negative rotation (not allowed)", lambda d: f"<answer>rotate {d}1, map 020</answer>", None, None)
        )
    if c.name == "HiddenNumber":
        sites.append(("ASCII minus before the answer (not allowed)", lambda d: f"<answer>-{c.t}</answer>", None, None))
    return sites


_SIGN_FRAMES: list[tuple[str, Callable[[str], str]]] = [
    ("bare", lambda x: x),
    ("label", lambda x: ("Final Answer: " if x.startswith("<answer>") else "Next query: ") + x),
    ("code fence", lambda x: f"```\n{x}\n```"),
    ("markdown bold", lambda x: f"**{x}**"),
    ("after reasoning", lambda x: f"Based on the replies so far, my move is:\n\n{x}"),
    ("JSON object", lambda x: '{"action": "' + x + '"}'),
    ("Chinese lead-in", lambda x: f"我的回答：{x}"),
    ("think block before", lambda x: f"<think>careful with the sign here</think>\n{x}"),
    ("blockquote", lambda x: f"> {x}"),
    ("upper-case tag", lambda x: re.sub(r"</?([a-z_]+)>", lambda m: m.group(0).upper(), x)),
    ("step of a plan", lambda x: f"Step 3 of my plan:\n{x}\nThat should settle it."),
]


def _signs(c: Material, count: int) -> list[dict[str, Any]]:
    sites = _sign_sites(c)
    out = []
    for j in range(max(count, len(sites))):
        what, build, move, meant = sites[j % len(sites)]
        frame_name, frame = _SIGN_FRAMES[(c.index * 3 + j) % len(_SIGN_FRAMES)]
        dash = DASHES[(c.index + 2 * j) % len(DASHES)]
        if "range" in what:
            dash = ("\u2013", "\u2014", "\u2212")[(c.index + j) % 3]
        if "edge list" in what:
            dash = ("\u2013", "\u2212", "\u2011")[(c.index + j) % 3]
        if "ASCII" in what:
            dash = "-"
        reply = frame(build(dash))
        out.append(case("sign", f"{what}, U+{ord(dash):04X}, {frame_name}", reply, move, meant))
    return out


# ---------------------------------------------------------------------------- format restated


def _placeholders(c: Material) -> list[tuple[str, str, str | None, str | None]]:
    empty_answer = "<answer></answer>" if c.margs else "<answer>...</answer>"
    slot, slot_word = (
        ("<N>", "with N a number") if c.qspec_args == (int,) else ("<args>", "with the arguments for <args>")
    )
    return [
        (
            "query format with letters, then the query",
            f"The required format is <{c.qtag}>{c.ph}</{c.qtag}>, so here goes:\n\n{c.M}",
            c.M,
        ),
        (
            "answer format with an ellipsis, then a query",
            f"I have to answer in the form `<answer>...</answer>` — but not yet. First:\n{c.M}",
            c.M,
        ),
        (
            "answer format with N, then the final answer",
            f"Format reminder: <answer>N</answer>\n\nFinal Answer: {c.T}",
            c.T,
        ),
        (
            "bracketed answer placeholder, then a query",
            f"<answer>[your answer]</answer> is how I'll submit once I'm sure. For now: **{c.M}**",
            c.M,
        ),
        (
            "braced placeholders in a template, then the query",
            f"Using the template `<{c.qtag}>{c.ph_braced}</{c.qtag}>` → {c.M}",
            c.M,
        ),
        (
            "Chinese: format with an ellipsis character, then the answer",
            f"格式是 <answer>…</answer>。我的答案：{c.T}",
            c.T,
        ),
        (
            "JSON with a format field and the move",
            '{"format": "<answer>answer</answer>", "move": "' + c.M + '"}',
            c.M,
        ),
        (
            "empty answer tag and a placeholder query, then the move in a fence",
            f"Each turn I may send one <{c.qtag}>{c.ph}</{c.qtag}> or one {empty_answer}. This turn:\n```\n{c.M}\n```",
            c.M,
        ),
        (
            "lower-case spaced placeholder tag, then the query",
            f"< answer >your answer here</ answer > comes later.\n\n< {c.mtag} >{c.margs}</ {c.mtag} >",
            c.M,
        ),
        (
            "angle-bracket placeholder inside the tag, then the query",
            f"(Reply format: <{c.qtag}>{slot}</{c.qtag}> {slot_word}.)\n{c.M}",
            c.M,
        ),
        (
            "answer placeholder word 'number', then the answer in bold",
            f"Rules say: submit <answer>number</answer> at the end. I'm ready:\n\n**{c.T}**",
            c.T,
        ),
    ]


def _examples(c: Material) -> list[tuple[str, str, str | None, str | None]]:
    return [
        (
            "a concrete example query, then the real query",
            f"For example, {c.EX} would be a legal question. My actual move: {c.M}",
            None,
        ),
        (
            "format with N, a concrete example, then 'value' and the answer",
            f"The format is `<answer>N</answer>`, e.g. `<answer>{c.w}</answer>`; so: `<answer>value {c.t}</answer>`",
            None,
        ),
        (
            "queries look like an example, then mine",
            f"Queries look like {c.EX}. Mine:\n\n{c.M}",
            None,
        ),
        (
            "a concrete example answer, then the final answer",
            f"As the rules show, <answer>{c.w}</answer> is how an answer is given.\n\nFinal Answer: {c.T}",
            None,
        ),
        (
            "Chinese: an example, then the question",
            f"举个例子：{c.EX}。我的问题：{c.M}",
            None,
        ),
        (
            "JSON with an example and the action",
            '{"example": "' + c.EX + '", "action": "' + c.M + '"}',
            None,
        ),
    ]


# ---------------------------------------------------------------------------- assembly


def _rotate(items: list, start: int, count: int) -> list:
    return [items[(start + j) % len(items)] for j in range(count)]


def cases(env_id: str) -> list[dict[str, Any]]:
    """The round-two cases of one query game (benchmark configuration 0)."""
    c = material(env_id)
    i = c.index
    out: list[dict[str, Any]] = []
    for style, reply, move, meant in _rotate(_sc(c), 4 * i, 4):
        out.append(case("self-correction", style, reply, move, meant))
    for style, reply, move, meant in _rotate(_notes_outside(c), 3 * i, 3):
        out.append(case("note-beside", style, reply, move, meant))
    for style, reply, move, meant in _rotate(_notes_inside(c), 2 * i, 2):
        out.append(case("note-beside", style, reply, move, meant))
    out += _signs(c, 3) if c.name != "HiddenOrder" else []
    for style, reply, move in _rotate(_placeholders(c), 3 * i, 3):
        out.append(case("format-restated", style, reply, move))
    for style, reply, move in _rotate(_examples(c), 2 * i, 2):
        out.append(case("format-restated", style, reply, move))
    if c.name == "HiddenOrder":
        out += [
            case(
                "format-restated",
                "issue 26: the answer in backticks inside the tag, the comma dropped",
                f"<answer>`{c.t.replace(',', '')}`</answer>",
                c.T,
            ),
            case(
                "format-restated",
                "issue 26: the answer in backticks inside the tag, comma-separated",
                f"The order is settled.\n\n<answer>`{c.t}`</answer>",
                c.T,
            ),
            case(
                "format-restated",
                "a lettered example answer, then the real answer",
                f"The rules ask for <answer>A, B, C, D, E</answer>-style lists. Mine: {c.T}",
                c.T,
            ),
        ]
    return out


if __name__ == "__main__":
    for env_id in QUERY_GAMES:
        for x in cases(env_id):
            print(env_id, x["class"], repr(x["reply"])[:150], x["move"], x.get("meant", ""))
