"""Turing Machine code breaking (TurnBench-MS, sections 3-4 and appendix A).

The env class :class:`TuringMachineEnv` carries the documentation (Gymnasium headings).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from mtp_gym.core import (
    PAPERS,
    FormatRestated,
    InvalidAction,
    PuzzleInfo,
    Reply,
    TextPuzzleEnv,
    check_choice,
    check_int,
    control_field,
    refuse_retraction,
)
from mtp_gym.parsing import corrects, find_labeled, negated
from mtp_gym.turing_machine import rules
from mtp_gym.turing_machine.prompts import HARNESS_SYSTEM, MODES, PROMPT_STYLES, STAGE_PROMPTS

SETUP_SOURCES = ("published", "generated")
ROUND_MAX_MOVES = 5  # proposal + 3 queries + deduce, or proposal + <=2 queries + SKIP + deduce
MAX_QUERIES_PER_ROUND = 3

BELIEF_PROMPT = """
Optional belief report (scored by the environment, never shown to change the game): in any reply you may add
<BELIEF>: 0=[criteria], 1=[criteria], ...
listing for each verifier number the criteria of that verifier's card you still consider possible, separated by |
(criterion text, its function name, #k for the k-th criterion listed from 0, or a comparison such as B<Y, P=4, B+Y>6), or ? for no conclusion."""

NIGHTMARE_MAPPING_PROMPT = """In nightmare mode you may also add <MAPPING>: 0=[j], 1=[j], ... naming the verifier whose criterion answers each verifier."""

_CODE_ITEM_RE = re.compile(r"\b(BLUE|YELLOW|PURPLE)\b\s*[=:]\s*\[?\s*(-?\d+)\s*\]?[\s,;]*(?:and\s+)?", re.IGNORECASE)
_BARE_CODE_RE = re.compile(r"[\[(\s]*(-?\d)\s*,?\s*(-?\d)\s*,?\s*(-?\d)(?![\d.]\d)[\])]*")
_SKIP_RE = re.compile(r"\bSKIP\b", re.IGNORECASE)
_NUMBER_RE = re.compile(r"-?\d+")
# Words that may stand before a verifier number on a choice line ("I choose verifier #2").
_VERIFIER_LEAD_RE = re.compile(
    r"(?:[\s*_`'\"\[(#:.,]|\b(?:verifier|number|num|no|query|ask|test|check|i|choose|pick|select|will|let's|lets|"
    r"my|choice|is|the|go|with|to)\b)*",
    re.IGNORECASE,
)
# What may follow a choice on its line: the optional report tags.
_AFTER_CHOICE_RE = re.compile(r"<\s*(?:BELIEF|MAPPING|REASONING)\b.*$", re.IGNORECASE)
# The optional reports after the choice (their free text is not a note on the move).
_AFTER_REPORTS_RE = re.compile(r"<\s*(?:BELIEF|MAPPING)\b.*", re.IGNORECASE | re.DOTALL)
_REASONING_RE = re.compile(r"<\s*REASONING\s*>|(?:^|\n)[ \t*]*REASONING\**\s*:", re.IGNORECASE)
FORMAT_WORDS = frozenset({"blue", "yellow", "purple", "verifier"})
# The code format restated with letters or brackets for digits: BLUE=X, YELLOW=[Y], PURPLE=Z.
_CODE_PLACEHOLDER_RE = re.compile(r"\W*BLUE\s*[=:]\s*\[?\s*[A-Za-z_]\w*", re.IGNORECASE)


def read_code(choice: str) -> tuple[tuple[int, ...] | None, int, int]:
    """The code that a choice line starts with: ``(code or None, start, end)``.

    ``BLUE=1, YELLOW=2, PURPLE=3`` (any order or case, ``=`` or ``:``) or ``123``, after a
    lead-in without digits (``I propose BLUE=1, ...``); ``code`` is ``None`` (a malformed
    choice) when a colour is missing or repeated, or a digit is not 1-5 (a sign is never
    dropped: ``BLUE=-1`` is malformed). ``start``/``end`` span the code, ``-1`` if none. A
    line that restates the format (``BLUE=X, ...``) raises :class:`FormatRestated`.
    """
    if _CODE_PLACEHOLDER_RE.match(choice):
        raise FormatRestated(f"{choice.strip()[:60]!r} restates the format")
    first = _CODE_ITEM_RE.search(choice)
    if first is not None and not any(c.isdigit() for c in choice[: first.start()]):
        values: dict[str, int] = {}
        pos = first.start()
        while len(values) < 3 and (m := _CODE_ITEM_RE.match(choice, pos)) is not None:
            values.setdefault(m.group(1).upper(), int(m.group(2)))
            pos = m.end()
        code = tuple(values.get(c, 0) for c in ("BLUE", "YELLOW", "PURPLE"))
        return (code if all(1 <= v <= 5 for v in code) else None), first.start(), pos
    lead_in = re.match(r"\D*", choice)
    assert lead_in is not None  # \D* matches every string
    lead = lead_in.end()
    bare = None
    if not re.search(r"[=:]", choice[:lead]) and not choice[:lead].endswith("-"):  # "-123": a sign, never dropped
        bare = _BARE_CODE_RE.match(choice, lead)
    if bare is None:
        return None, -1, -1
    code = tuple(int(g) for g in bare.groups())
    return (code if all(1 <= v <= 5 for v in code) else None), bare.start(), bare.end()


def parse_code(choice: str) -> tuple[int, ...] | None:
    """``"BLUE=1, YELLOW=2, PURPLE=3"`` (any order/case, ``=`` or ``:``) or ``"123"`` ->
    ``(1, 2, 3)``; ``None`` unless every digit is 1-5 (see :func:`read_code`)."""
    try:
        return read_code(choice)[0]
    except FormatRestated:
        return None


def game_setup_text(card_ids: Sequence[int]) -> str:
    """The verifier list of the system prompt, formatted as the published harness does."""
    table = rules.cards()
    blocks = []
    for i, cid in enumerate(card_ids):
        card = table[cid]
        lines = [f"Verifier <{i}>: {card.description}"]
        lines += [f"- Possible criteria: {c.description}" for c in card.criteria]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


@lru_cache(maxsize=4096)  # every benchmark setup, and the latest generated ones
def _setup_facts(setup: rules.Setup) -> tuple[str, tuple[int, ...], dict[str, Any]]:
    """What a reset shows and keeps of ``setup``: its verifier list, its verifiers' masks, and
    its hidden facts (``mapping`` None: a nightmare game sets it), never changed in place."""
    check = rules.check_setup(setup)
    hidden = {
        "setup_id": setup.setup_id,
        "difficulty": setup.difficulty,
        "answer": rules.code_str(setup.answer),
        "criteria": [
            {"verifier": i, "card": c.card, "criterion": c.index, "function": c.function, "description": c.description}
            for i, c in enumerate(setup.criteria)
        ],
        "mapping": None,
        "unique": check.unique,
        "redundant_verifiers": list(check.redundant_slots),
    }
    return game_setup_text(setup.cards), setup.masks, hidden


@lru_cache(maxsize=4096)
def _instructions_text(system: str, setup_text: str, reports: str, proposal: str) -> str:
    """The first observation: the system prompt around the verifier list, then the proposal prompt."""
    return system.format(game_setup=setup_text) + reports + "\n" + proposal


def published_split(
    difficulty: str | None = None, setup_ids: Sequence[str] | None = None, allow_non_unique: bool = False
) -> tuple[rules.Setup, ...]:
    """The benchmark split for these kwargs (see :class:`TuringMachineEnv` for the order)."""
    if setup_ids is not None:
        if difficulty is not None:
            raise ValueError("setup_ids and difficulty: give one of them, not both")
        chosen = [rules.published_setup(s) for s in setup_ids]
        if not chosen:
            raise ValueError("setup_ids: give at least one published setup id")
    else:
        chosen = [s for s in rules.published_setups() if difficulty in (None, s.difficulty)]
    bad = [s for s in chosen if not rules.check_setup(s).unique]
    if bad and setup_ids is not None and not allow_non_unique:
        details = "; ".join(
            f"{s.setup_id} ({len(rules.check_setup(s).solutions)} codes satisfy its active criteria)" for s in bad
        )
        raise ValueError(
            f"setup_ids: published setup {details} has no unique code; pass allow_non_unique=True to play it anyway"
        )
    if setup_ids is not None:
        return tuple(chosen)
    good = [s for s in chosen if s not in bad]
    return tuple(good + bad) if allow_non_unique else tuple(good)


class TuringMachineEnv(TextPuzzleEnv):
    """Turing Machine code breaking (TurnBench-MS, sections 3-4 and appendix A).

    Description:
        Deduce a secret 3-digit code (BLUE, YELLOW, PURPLE; digits 1-5) from 4-6 verifiers. Each
        verifier is one of the 48 cards of the Turing Machine board game with one hidden active
        criterion (183 criteria in all, ``mtp_gym.turing_machine.rules``). Every round has three
        stages: a **proposal** (a code, fixed for the round), up to three **verifier queries**
        one at a time (each answers PASS or FAIL for the proposal), and a **deduce** step
        (SKIP to the next round, or submit a code, which ends the game). In ``nightmare`` mode
        the verifiers are secretly permuted: querying verifier ``i`` answers with the card and
        criterion of verifier ``mapping[i]`` (fixed for the game, unknown to the player).

    Prompt Format:
        The paper's appendix A prompts word for word (``mtp_gym.turing_machine.prompts``), OA
        (``prompt_style="answer_only"``) or CoT (``"cot"``), classic or nightmare. The first
        observation is the system prompt, whose game setup lists the verifiers as the published
        harness does (``Verifier <0>: <card description>`` then ``- Possible criteria: ...``
        lines; verifiers are numbered from 0 as in the harness), followed by the first proposal
        prompt. Each reply is the next stage's prompt: the questioning prompt after a proposal,
        ``You chose Verifier <i> and the result is <PASS>.`` (+ next instructions) after a query,
        the deduce prompt after SKIP or the third query, the proposal prompt after a deduce SKIP,
        and ``The final guess is 551. The answer is 551, the guess is True.`` after a submission.
        ``belief_prompt=True`` appends a short paragraph that documents the ``<BELIEF>`` tag;
        ``harness_wording=True`` uses the published harness's classic system prompt, which has
        two sentences the appendix does not (see ``mtp_gym.turing_machine.prompts``).

    Action Format:
        ``<CHOICE>: BLUE=X, YELLOW=Y, PURPLE=Z`` (proposal; also ``<PROPOSAL>:`` which the
        paper's own prompts show, a bare ``CHOICE:`` line, or three digits like ``<CHOICE>: 245``),
        ``<CHOICE>: n`` or ``<CHOICE>: SKIP`` (question), ``<CHOICE>: SKIP`` or a code (deduce).
        Case, markdown bold, surrounding text and angle brackets around the value
        (``<CHOICE>: <1>``, ``<CHOICE>: Verifier <2>``, ``<CHOICE>: <SKIP>``) are fine; a
        choice line that does not parse (e.g. the format restated in the reasoning) is ignored,
        and two choice lines that make different moves get a re-prompt naming both.
        In CoT style a ``<REASONING>`` tag is required, as in the published harness. A malformed
        reply gets the paper's stage re-prompt and an invalid verifier number the paper's "not a
        valid verifier number" re-prompt; neither changes the game nor costs a turn, and
        ``max_format_errors`` (default 3, as every env) in a row end the episode with outcome
        ``format_error``.

        Optional, any stage (beyond the paper): ``<BELIEF>: 0=B<Y, 1=blue_eq_1|blue_gt_1, 2=?``
        states, per verifier number, the criteria of that verifier's own card still held
        possible (function name, description, ``#k`` position on the card, or a comparison such
        as ``B<Y``, ``P=4``, ``B+Y>6`` matched by truth table; ``?`` = no conclusion). In
        nightmare mode ``<MAPPING>: 0=2, 1=0`` states which verifier's card answers each query.

    Observation Space:
        ``Text`` over printable ASCII, up to 16,384 characters.

    Rewards:
        0 per step; the terminal reward is the score: 1 for a correct submitted code, else 0.

    Starting State:
        ``setups="published"``: the TurnBench setups of ``assets/turnbench/setups.json`` (MIT,
        (c) 2025 Yiran Zhang), in file order (90 easy, 90 medium, 90 hard), filtered by
        ``difficulty``. Two published setups are not well-posed (B42VD9: 11 codes satisfy its
        active criteria, B4BSHV: 3); they are left out unless ``allow_non_unique=True``, and then
        placed at the END of the split, so config ids 0..267 (0..87 for medium) name the same
        setups either way. The default split therefore has 268 setups per mode (easy 90, medium
        88, hard 90); 18 published setups have a redundant verifier (kept; ``info["hidden"]``
        lists it). ``setup_ids=[...]`` restricts the split to the given ids (e.g.
        ``rules.paper_eval_subsets()["classic_model_eval_45"]``, in the order given; not together
        with ``difficulty``); naming a non-unique setup raises ``ValueError`` unless
        ``allow_non_unique=True``. ``setups="generated"``: a fresh
        setup from ``rules.generate_setup`` with ``self.np_random`` (unique code, no redundant
        verifier, verifier count uniform over the difficulty's range, as ambiguous on average
        as the published setups, nightmare mapping a derangement; difficulty drawn uniformly
        when ``None``).

    Episode End:
        Terminated when a code is submitted (``success`` if it equals the answer, else
        ``failure``) or after ``max_format_errors`` malformed replies in a row
        (``format_error``). Truncated (outcome ``timeout``, score 0: a capped game is a loss)
        when the deduce step of round ``max_rounds`` ends without a submission. A legal move
        (proposal, query, SKIP, deduce choice) costs one turn; a round takes at most 5, so
        ``max_turns`` defaults to ``5 * max_rounds`` and never binds before the round cap.

    Information:
        The common keys. ``feedback``: ``stage`` of the move (``proposal`` | ``question`` |
        ``deduce``), ``round``, ``code`` (the round's proposal, ``"BYP"``), ``verifier`` and
        ``result`` (``"PASS"``/``"FAIL"``) for a query (absent otherwise), ``skip``,
        ``submitted`` and ``correct`` on a submission, ``next_stage``, cumulative ``rounds`` and
        ``verifier_queries`` (SKIP excluded, as the paper counts VER); ``beliefs`` /
        ``mapping_beliefs`` (per stated verifier: the criteria read and a status ``correct`` |
        ``include`` | ``incorrect`` | ``none`` | ``unreadable``, the paper's judge categories
        computed exactly), and at the end ``belief_log`` (every graded belief with its round).
        On a malformed reply ``feedback`` is ``{"error": ...}``. ``hidden``: ``setup_id``,
        ``difficulty``, ``answer`` (``"BYP"``), ``criteria`` (per verifier: card, criterion
        index, function, description), ``mapping`` (nightmare; ``None`` in classic),
        ``unique``, ``redundant_verifiers``.

    Arguments:
        ``mode`` (``"classic"`` | ``"nightmare"``), ``difficulty`` (``None`` | ``"easy"`` |
        ``"medium"`` | ``"hard"``), ``setups`` (``"published"`` | ``"generated"``),
        ``prompt_style`` (``"answer_only"`` | ``"cot"``), ``max_rounds`` (20, the published
        harness), ``setup_ids`` (``None`` or published ids), ``allow_non_unique`` (False),
        ``belief_prompt`` (False), ``harness_wording`` (False), ``max_turns`` (``5 * max_rounds``), ``configs`` (``None`` |
        ``"benchmark"`` | ``"generated"``; ``setups="generated"`` implies ``"generated"``),
        ``max_format_errors`` (3), ``render_mode``, ``info_secret`` (``False``: no ``info["hidden"]``).

    Version History:
        v0: initial release; the classic system prompt follows the appendix (the harness's
        two extra sentences behind ``harness_wording=True``).
    """

    puzzle = PuzzleInfo(PAPERS[1], "the secret code submitted (score the same)", prompt_styles=PROMPT_STYLES)

    @classmethod
    def play_controls(cls, seen: list[str]) -> list[dict[str, Any]]:
        """Only the moves legal at the round's current stage, read from the latest message that
        names one (a re-prompt restates its stage; one that does not leaves the stage as it was):
        a code at the proposal, a verifier or SKIP at the questioning, SKIP (next round) or a
        final code at the deduce step. Every control while the stage is unknown."""
        verifiers = sorted(set(re.findall(r"Verifier <(\d+)>:", "\n".join(seen))), key=int)
        digits = [str(d) for d in range(1, 6)]
        code: dict[str, Any] = {
            "template": "<CHOICE>: BLUE={BLUE}, YELLOW={YELLOW}, PURPLE={PURPLE}",
            "fields": [control_field(c, digits) for c in ("BLUE", "YELLOW", "PURPLE")],
        }
        by_stage: dict[str, list[dict[str, Any]]] = {
            "proposal": [{"label": "Propose code", **code}],
            "question": [
                {
                    "label": "Test verifier",
                    "template": "<CHOICE>: {verifier}",
                    "fields": [control_field("verifier", verifiers)],
                },
                {"label": "Stop testing (SKIP)", "template": "<CHOICE>: SKIP", "fields": []},
            ],
            "deduce": [
                {"label": "Next round (SKIP)", "template": "<CHOICE>: SKIP", "fields": []},
                {"label": "Submit final code", **code},
            ],
        }
        markers = (  # deduce first: the third query's reply ends with the deduce prompt
            ("deduce", ("**Deduce Stage**", "submit a final guess to end the game")),
            ("proposal", ("**Proposal Stage**", "try again with same code")),
            ("question", ("**Verifier Questioning Stage**", "choose the next verifier")),
        )
        for message in reversed(seen):
            for stage, words in markers:
                if any(w in message for w in words):
                    return by_stage[stage]
        return [c for controls in by_stage.values() for c in controls]

    obs_max_length = 16_384
    format_words = FORMAT_WORDS

    def __init__(
        self,
        mode: str = "classic",
        difficulty: str | None = None,
        setups: str = "published",
        prompt_style: str = "answer_only",
        max_rounds: int = 20,
        setup_ids: Sequence[str] | None = None,
        allow_non_unique: bool = False,
        belief_prompt: bool = False,
        harness_wording: bool = False,
        max_turns: int | None = None,
        configs: str | None = None,
        max_format_errors: int = 3,
        render_mode: str | None = None,
        info_secret: bool = True,
    ) -> None:
        check_choice("mode", mode, MODES)
        check_choice("difficulty", difficulty, [*rules.DIFFICULTIES, None])
        check_choice("setups", setups, SETUP_SOURCES)
        check_choice("prompt_style", prompt_style, PROMPT_STYLES)
        check_int("max_rounds", max_rounds)
        if setups == "generated":
            if configs == "benchmark":
                raise ValueError(
                    "configs='benchmark' conflicts with setups='generated'; allowed: configs=None or 'generated'"
                )
            configs = "generated"
        if isinstance(setup_ids, str):
            setup_ids = [setup_ids]
        self.mode = mode
        self.difficulty = difficulty
        self.setups = setups
        self.prompt_style = prompt_style
        self.max_rounds = max_rounds
        self.allow_non_unique = bool(allow_non_unique)
        self.belief_prompt = bool(belief_prompt)
        self._split = published_split(difficulty, setup_ids, self.allow_non_unique)
        self._prompts = STAGE_PROMPTS[(mode, prompt_style)]
        if harness_wording:
            self._prompts = {**self._prompts, "system": HARNESS_SYSTEM[mode]}
        self.harness_wording = bool(harness_wording)
        super().__init__(
            max_turns=ROUND_MAX_MOVES * max_rounds if max_turns is None else max_turns,
            configs=configs,
            max_format_errors=max_format_errors,
            render_mode=render_mode,
            info_secret=info_secret,
        )
        self._setup: rules.Setup | None = None
        self._masks: tuple[int, ...] = ()
        self._stage = "proposal"
        self._round = 1
        self._code: tuple[int, int, int] | None = None
        self._round_queries = 0
        self._queries = 0
        self._belief_log: list[dict[str, Any]] = []
        self._hidden_state: dict[str, Any] = {}
        self._setup_text = ""

    # ------------------------------------------------------------------ configurations
    @property
    def num_configs(self) -> int:
        return len(self._split)

    @property
    def nightmare(self) -> bool:
        return self.mode == "nightmare"

    def config_strata(self) -> dict[str, list[Any]]:
        return {"difficulty": [s.difficulty for s in self._split]}

    def _setup_benchmark(self, config_id: int) -> None:
        self._start(self._split[config_id])

    def _setup_generated(self) -> None:
        difficulty = self.difficulty or rules.DIFFICULTIES[int(self.np_random.integers(len(rules.DIFFICULTIES)))]
        self._start(rules.generate_setup(self.np_random, difficulty))

    def _start(self, setup: rules.Setup) -> None:
        self._setup = setup
        self._stage, self._round, self._code = "proposal", 1, None
        self._round_queries = self._queries = 0
        self._belief_log = []
        self._setup_text, self._masks, self._hidden_state = _setup_facts(setup)
        if self.nightmare:
            self._hidden_state = {**self._hidden_state, "mapping": list(setup.mapping)}

    def _hidden(self) -> dict[str, Any]:
        h = dict(self._hidden_state)
        h["criteria"] = [dict(c) for c in h.get("criteria", [])]
        if h.get("mapping") is not None:
            h["mapping"] = list(h["mapping"])
        h["redundant_verifiers"] = list(h.get("redundant_verifiers", []))
        return h

    # ------------------------------------------------------------------ text
    def _instructions(self) -> str:
        reports = ""
        if self.belief_prompt:
            reports = BELIEF_PROMPT + ("\n" + NIGHTMARE_MAPPING_PROMPT if self.nightmare else "") + "\n"
        return _instructions_text(self._prompts["system"], self._setup_text, reports, self._prompts["proposal"])

    # ------------------------------------------------------------------ moves
    def _parse(self, action: str) -> tuple[str, Any, str]:
        stage = self._stage
        invalid = self._prompts[f"{stage}_invalid"]
        if self.prompt_style == "cot" and not _REASONING_RE.search(action):
            raise InvalidAction(invalid)
        labels = ("CHOICE", "PROPOSAL") if stage == "proposal" else ("CHOICE",)
        lines = find_labeled(action, labels)
        if not lines:
            raise InvalidAction(invalid)
        refuse_retraction(_AFTER_REPORTS_RE.sub("", action[lines[-1].end :]))
        choices = [_AFTER_CHOICE_RE.sub("", t.content).replace("<", " ").replace(">", " ") for t in lines]
        kind, value = self.read_one(
            choices,
            lambda choice: self._read_choice(stage, choice, invalid),
            "choices",
            show=lambda m: "SKIP" if m[1] is None else m[1],
        )
        return kind, value, action

    def _read_choice(self, stage: str, choice: str, invalid: str) -> tuple[str, Any]:
        """The move a ``<CHOICE>:`` line makes: what stands first on it (after a lead-in such
        as ``Verifier``); the rest is a note, unless it corrects the move (``2, actually 3``).
        A malformed line raises ``InvalidAction(invalid)``."""
        skip = next((m for m in _SKIP_RE.finditer(choice) if not negated(choice[: m.start()])), None)
        if stage == "proposal":
            start = end = -1
            code, start, end = read_code(choice)
            move: tuple[str, Any] | None = None if code is None else ("propose", code)
        elif stage == "question":
            number = _NUMBER_RE.search(choice)
            start = end = -1
            move = None
            if number is not None and _VERIFIER_LEAD_RE.fullmatch(choice[: number.start()]):
                n = int(number.group())
                if number.group().startswith("-") or not 0 <= n < len(self._masks):  # -0 too: a sign is kept
                    raise InvalidAction(self._prompts["verifier_invalid"].format(verifier_num=number.group()[:12]))
                move, start, end = ("query", n), number.start(), number.end()
        else:
            code, start, end = read_code(choice)
            move = None if code is None else ("submit", code)
        if skip is not None and stage != "proposal" and (move is None or skip.start() < start):
            move, end = ("skip", None), skip.end()
        if move is None:
            raise InvalidAction(invalid)
        if corrects(choice[end:]):
            raise InvalidAction(
                f"the choice {choice.strip()[:80]!r} corrects itself; give exactly one choice. " + invalid
            )
        return move

    def _play(self, move: tuple[str, Any, str]) -> Reply:
        kind, value, action = move
        setup = self._setup
        assert setup is not None
        stage = self._stage
        code = value if kind == "propose" else self._code
        feedback: dict[str, Any] = {
            "stage": stage,
            "round": self._round,
            "code": None if code is None else rules.code_str(code),
            "skip": kind == "skip",
        }
        feedback.update(self._grade_beliefs(action, stage))
        text, outcome, score = "", None, None
        if kind == "propose":
            self._code, self._round_queries = value, 0
            self._stage = "question"
            text = self._prompts["question_first"].format(verifier_descriptions=self._setup_text)
        elif kind == "query":
            target = setup.mapping[value] if self.nightmare else value
            assert self._code is not None  # a query follows the round's proposal
            passed = bool(self._masks[target] >> rules.code_index(self._code) & 1)
            result = "PASS" if passed else "FAIL"
            self._round_queries += 1
            self._queries += 1
            feedback.update(verifier=value, result=result)
            if self._round_queries >= MAX_QUERIES_PER_ROUND:
                self._stage = "deduce"
                text = self._prompts["question_last"].format(verifier_num=value, verifier_result=result)
                text += "\n" + self._prompts["deduce"]
            else:
                text = self._prompts["question_next"].format(verifier_num=value, verifier_result=result)
        elif stage == "question":  # SKIP
            self._stage = "deduce"
            text = self._prompts["deduce"]
        elif kind == "skip":  # deduce SKIP
            if self._round >= self.max_rounds:
                outcome, score = "timeout", 0.0
                text = (
                    f"The round limit ({self.max_rounds} rounds) has been reached without a final guess. "
                    f"The game is over. The answer is {rules.code_str(setup.answer)}."
                )
            else:
                self._round += 1
                self._stage, self._code = "proposal", None
                text = self._prompts["proposal"]
        else:  # submit
            correct = tuple(value) == setup.answer
            outcome, score = ("success", 1.0) if correct else ("failure", 0.0)
            feedback.update(submitted=rules.code_str(value), correct=correct)
            text = self._prompts["deduce_result"].format(
                submitted_code=rules.code_str(value), answer=rules.code_str(setup.answer), is_correct=correct
            )
        feedback.update(next_stage=None if outcome else self._stage, rounds=self._round, verifier_queries=self._queries)
        if outcome is not None:
            feedback["belief_log"] = [dict(e) for e in self._belief_log]
        return Reply(text, feedback, outcome, score)

    def _grade_beliefs(self, action: str, stage: str) -> dict[str, Any]:
        setup = self._setup
        assert setup is not None
        out: dict[str, Any] = {}
        stated = rules.parse_beliefs(action, setup.cards)
        if stated:
            graded = {}
            for slot, (text, criteria) in sorted(stated.items()):
                status = rules.score_belief(criteria, setup.active[slot])
                graded[slot] = {
                    "stated": text,
                    "criteria": None if criteria is None else list(criteria),
                    "status": status,
                }
                self._belief_log.append({"round": self._round, "stage": stage, "verifier": slot, **graded[slot]})
            out["beliefs"] = graded
        if self.nightmare:
            mapping = rules.parse_mapping(action, len(setup.cards))
            if mapping:
                out["mapping_beliefs"] = {
                    slot: {"stated": j, "status": "correct" if setup.mapping[slot] == j else "incorrect"}
                    for slot, j in sorted(mapping.items())
                }
        return out

    def _timeout(self) -> Reply:
        answer = rules.code_str(self._setup.answer) if self._setup else "?"
        return Reply(f"The turn limit has been reached. The game is over. The answer is {answer}.", {}, "timeout", 0.0)
