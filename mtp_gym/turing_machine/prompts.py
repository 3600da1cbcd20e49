"""The TurnBench-MS prompts of the paper's appendix A, word for word (ASCII quotes and dashes).

Every prompt follows the appendix (A.1 classic, A.2 nightmare, OA and CoT), including the
nightmare CoT first-question prompt's "based on verifier result after <REASONING> tag". The
published harness's classic system prompt adds two sentences the appendix does not have
("A `<PASS>` confirms *only* ..." and "A `<FAIL>` indicates *only* ..."); they are in
:data:`HARNESS_SYSTEM`, which the env uses with ``harness_wording=True``.

``STAGE_PROMPTS[(mode, style)]`` holds every stage prompt for a mode (``classic`` |
``nightmare``) and style (``answer_only`` = the paper's OA, ``cot`` = CoT). Placeholders:
``{game_setup}``, ``{verifier_descriptions}``, ``{verifier_num}``, ``{verifier_result}``,
``{submitted_code}``, ``{answer}``, ``{is_correct}``. The game setup lists the verifiers the
way the published harness does: ``Verifier <i>: <card description>`` (``i`` from 0) followed
by one ``- Possible criteria: <criterion>`` line per criterion.
"""

from __future__ import annotations

CLASSIC_SYSTEM = """You are participating in a competitive logic deduction game called Turing Machine.
Your goal is to win first place by deducing a secret 3-digit code with minimal rounds and verifier usage, but accuracy takes priority over speed.

Game Objective:
- Deduce the secret 3-digit code made up of digits 1-5.
- BLUE = first digit, YELLOW = second digit, PURPLE = third digit.
- Each digit can be 1, 2, 3, 4, or 5 (digits may repeat).
- The code is the ONLY combination that satisfies the active criterion of ALL chosen verifiers.

Game Structure (Rounds):
1. Proposal: Design a 3-digit code to test (format: BLUE=X, YELLOW=Y, PURPLE=Z, where X, Y, Z are digits from 1 to 5).
2. Question: Sequentially choose 0 to 3 verifiers to test your proposed code each round. After each selection, you will see the result, and then you can decide whether to select the next one.
3. Deduce: Based on verifier results, you can submit a final answer or continue to the next round.
4. End Round: If you didn't submit a final answer, a new round begins.

Verifier Rules:
- Each verifier checks ONE specific property (criterion) about the code.
- Each verifier has multiple potential criteria, but for each game, only ONE is secretly selected as 'active'. You don't know which criterion is active for any given verifier.
- Focus of Verification: When testing your code against a verifier, it **exclusively** evaluates it against its **single, active criterion**. The verifier completely ignores all other potential criteria, including its own inactive ones.
- PASS Condition: A verifier returns `<PASS>` if and only if your code satisfies this single active criterion.{pass_extra}
- FAIL Condition: A verifier returns `<FAIL>` **if and only if** your code does not satisfy this single active criterion.{fail_extra}
- Non-Overlapping Information: The active criteria selected across different verifiers for a game will provide distinct information.


Winning Strategy:
- It is possible to deduce the solution through joint reasoning, utilizing the combined results of multiple verifiers along with system rules such as the existence of a unique solution and the principle that no two verifiers offer redundant information.
- Only submit a final guess when you have either tested all verifiers and received <PASS> for each, or when your reasoning clearly proves your code satisfies all possible active verifier criteria. Accuracy takes priority over speed.

Current Game Setup:
{game_setup}
"""

_HARNESS_EXTRA = {
    "pass_extra": " A `<PASS>` confirms *only* that this specific rule was met by the tested code.",
    "fail_extra": " A `<FAIL>` indicates *only* that this specific rule was violated by the tested code.",
}


def _fill(template: str, **fields: str) -> str:
    """``template`` with only ``fields`` filled (``{game_setup}`` stays a placeholder)."""
    for key, value in fields.items():
        template = template.replace("{" + key + "}", value)
    return template


NIGHTMARE_SYSTEM = """You are participating in a competitive logic deduction game called Turing Machine.
Your goal is to win first place by deducing a secret 3-digit code with minimal rounds and verifier usage, but accuracy takes priority over speed.

Game Objective:
- Deduce the secret 3-digit code made up of digits 1-5.
- BLUE = first digit, YELLOW = second digit, PURPLE = third digit.
- Each digit can be 1, 2, 3, 4, or 5 (digits may repeat).
- The code is the ONLY combination that satisfies the active criterion of ALL chosen verifiers.

Game Structure (Rounds):
1. Proposal: Design a 3-digit code to test (format: BLUE=X, YELLOW=Y, PURPLE=Z, where X, Y, Z are digits from 1 to 5).
2. Question: Sequentially choose 0 to 3 verifiers to test your proposed code each round. After each selection, you will see the result from an unknown verifier. The verifier identity will be hidden.
3. Deduce: Based on verifier results, you can submit a final answer or continue to the next round.
4. End Round: If you didn't submit a final answer, a new round begins.

Verifier Rules:
- Each verifier checks ONE specific property (criterion) about the code.
- Each verifier has multiple potential criteria, but for each game, only ONE is secretly selected as 'active'. You don't know which criterion is active for any given verifier.
- Focus of Verification: When testing your code against a verifier, it EXCLUSIVELY evaluates it against its SINGLE, ACTIVE criterion. The verifier completely ignores all other potential criteria, including its own inactive ones.
- In this game, you don't know which Verifier's result you're actually seeing -- the mapping between Verifiers and their displayed results is randomized and hidden from the player, though fixed for the entire game.
- PASS Condition: A verifier returns `<PASS>` if and only if your code satisfies the active criterion of the actual Verifier it is mapped to. For example, if Verifier 1 is secretly mapped to Verifier 2, then a <PASS> from Verifier 1 means your code met Verifier 2's hidden active rule.
- FAIL Condition: A verifier returns `<FAIL>` if and only if your code does not satisfy the active criterion of the actual Verifier it is mapped to. A <FAIL> simply means the mapped Verifier's rule was not met.
- Non-Overlapping Information: The active criteria selected across different verifiers for a game will provide distinct information.

Winning Strategy:
- It is possible to deduce the solution through joint reasoning, utilizing the combined results of multiple verifiers along with system rules such as the existence of a unique solution and the principle that no two verifiers offer redundant information.
- One possible strategy is to carefully modify your code across multiple rounds and observe how each Verifier's output changes. By analyzing the pattern of responses, you can infer the hidden mapping between Verifiers and their actual criteria.
- Only submit a final guess when you have either tested all verifiers and received <PASS> for each, or when your reasoning clearly proves your code satisfies all possible active verifier criteria. Accuracy takes priority over speed.

Current Game Setup:
{game_setup}
"""

_CODE_RULES = """**3-digit code rules**:
- BLUE = first digit (X), YELLOW = second digit (Y), PURPLE = third digit (Z).
- Each digit (X, Y, Z) can be 1, 2, 3, 4, or 5. Digits may repeat.
"""

_NIGHTMARE_THINK = (
    "- Think about what a <PASS> or <FAIL> would tell you, but you don't know which Verifier's result "
    "you're actually seeing -- the mapping between Verifiers and their displayed results is randomized "
    "and hidden from the player, though fixed for the entire game."
)

_PROPOSAL = (
    """You are now entering the **Proposal Stage** of this round.

**Stage Purpose**:
In this stage, you need to compose a 3-digit code to help you to gather information from the verifiers. The code {cannot} be changed in the subsequent stages of this round.

"""
    + _CODE_RULES
    + """
**Your Goal in This Stage**:
- Design a code that will test a specific hypothesis.
{think}
- Choose a code that lets you learn something meaningful from verifiers.

**What You Must Do Now**:
"""
)

_PROPOSAL_OA = """- Reply the code you want to use in this round with required response format. For example, <CHOICE>: BLUE=1, YELLOW=1, PURPLE=1
- DO NOT include any explanation, only follow the response format.

**Response format**:
<CHOICE>: BLUE=X, YELLOW=Y, PURPLE=Z
"""

_PROPOSAL_COT = """- Reply the code you want to use in this round with required response format. For example, <PROPOSAL>: BLUE=1, YELLOW=1, PURPLE=1
- Explain your reasoning step by step with <REASONING> tag, then provide your code.

**Response format**:
<REASONING>: [Explain your reasoning step by step for choosing this code]
<CHOICE>: BLUE=[X], YELLOW=[Y], PURPLE=[Z]
"""

_PROPOSAL_INVALID_OA = """You did not follow the required response format. Please try again with same code.

**What You Must Do Now**:
- Reply the code you want to use in this round with required response format. For example, <PROPOSAL>: BLUE=1, YELLOW=1, PURPLE=1
- DO NOT include any explanation, only follow the response format.

**Response format**:
<CHOICE>: BLUE=[X], YELLOW=[Y], PURPLE=[Z]
"""

_PROPOSAL_INVALID_COT = (
    """You did not follow the required response format. Please try again with same code.

**What You Must Do Now**:
"""
    + _PROPOSAL_COT
)

_QUESTION_FIRST_HEAD = """You are now entering the **Verifier Questioning Stage** of this round.

{current}
{{verifier_descriptions}}

**Stage Purpose**:
In this stage, you can test your proposed 3-digit code using verifiers. Each verifier checks one hidden criterion. Use the test results to gather information and refine your deduction.

**Verifier Rules Summary**:
- Each verifier has ONE secretly selected active criterion.
{rules}
- Active rules do NOT overlap between verifiers.

**Your Goal in This Stage**:
- Choosing verifiers is optional; testing 0 verifiers is allowed. If you want to choose the verifier, you must choose verifiers **one at a time**. After each result, you may decide whether to test another. You may choose to test 0 to 3 verifiers **in total** during this round.
- **Passing all tested verifiers does NOT mean the code is correct.** To win, your code must satisfy the hidden criterion of **all verifiers**, whether tested or not.

**What You Must Do Now**:
- If you want to choose a verifier to test your proposed code, reply with verifier_num after <CHOICE> tag, such as <CHOICE>: 1.
- If you want to skip verifier testing for this round, reply with SKIP after <CHOICE> tag, such as <CHOICE>: SKIP.
"""

_CLASSIC_RULES = "- <PASS> means your code satisfies this rule; <FAIL> means it does not."
_NIGHTMARE_RULES = """- Each verifier shows results for a different, hidden verifier (the mapping is randomized but fixed for the entire game).
- <PASS> means your code satisfies the active criterion of the secretly mapped verifier. <FAIL> means your code does not satisfy that criterion."""

_OA_TAIL = """- DO NOT include any explanation, only follow the response format.

**Response format**:
<CHOICE>: [your_choice]
"""

_COT_FIRST_TAIL = """- Explain your reasoning step by step with <REASONING> tag, then provide your choice.

**Response format**:
<REASONING>: [Explain your reasoning step by step for choosing the verifier or skipping verifiers]
<CHOICE>: [your_choice]
"""

_COT_NEXT_TAIL = """- Explain your reasoning step by step based on verifier result after <REASONING> tag, then provide your choice.

**Response format**:
<REASONING>: [Explain your reasoning step by step for choosing the verifier or skipping verifiers]
<CHOICE>: [your_choice]
"""

_NEXT_CHOICES = """**What You Must Do Now**:
- If you want to choose the next verifier to test, reply with verifier_num after <CHOICE> tag, such as <CHOICE>: 1.
- If you want to skip verifier testing for this round, reply with SKIP after <CHOICE> tag, such as <CHOICE>: SKIP.
"""

_RESULT = "You chose Verifier <{verifier_num}> and the result is <{verifier_result}>.\n\n"

_NIGHTMARE_HINT = """**Hint**:
- `<PASS>` means your code satisfies the active criterion of the actual Verifier it is mapped to. For example, if Verifier 1 is secretly mapped to Verifier 2, then a <PASS> from Verifier 1 means your code met Verifier 2's hidden active rule.
- `<FAIL>` means your code does not satisfy the active criterion of the actual Verifier it is mapped to.

"""

_LAST = _RESULT + (
    "You have now tested the maximum number of three verifiers for this round. The next stage is the "
    "Deduce Stage. If you want to test more verifiers or new code, you can choose SKIP during the Deduce "
    "Stage to move on to the next round.\n"
)

_QUESTION_INVALID = (
    "You did not follow the required response format. Please try again with same choice.\n\n" + _NEXT_CHOICES
)
_VERIFIER_INVALID = (
    "You selected Verifier <{verifier_num}>, which is not a valid verifier number.\n\n"
    "Please choose a valid verifier or SKIP to next stage.\n\n" + _NEXT_CHOICES
)

_DEDUCE_HEAD = """You are now entering the **Deduce Stage** of this round.

**Stage Purpose**:
In this stage, you can analyze all the information gathered then decide whether to {purpose}.

**Hint**:
- Passing all tested verifiers does not mean the code is correct if not all verifiers were tested. To be correct, the code must satisfy the hidden criteria of all verifiers, not just the ones you tested.
- You may choose not to test some verifiers if you can clearly reason that your code meets their requirements. But you must ensure every verifier is either tested and passed, or clearly justified through reasoning. Testing and passing only part of the verifiers is not enough if others are ignored.
- This stage **is not for testing**, you don't have to submit an answer; you can proceed to the next round to continue gathering information.
- Accuracy takes priority over speed. If you submit, the game will end, and an incorrect guess will result in immediate failure.

**Your Goal in This Stage**:
"""

_DEDUCE_CHOICES = """**What You Must Do Now**:
- If you want to continue to the next round, reply with SKIP after <CHOICE> tag, such as <CHOICE>: SKIP
- If you want to submit a final guess to end the game, reply with BLUE=X, YELLOW=Y, PURPLE=Z after <CHOICE> tag, such as <CHOICE>: BLUE=1, YELLOW=1, PURPLE=1.
"""

_DEDUCE_OA = (
    _DEDUCE_HEAD.format(purpose="continue to the next round or submit a final guess")
    + """- Decide whether to submit the final guess or continue to the next round. Submit the final guess will end the game, continue to the next round will help you gather more information.
- Submission is not mandatory, you must make this decision based on your own reasoning.

"""
    + _DEDUCE_CHOICES
    + _OA_TAIL
)

_DEDUCE_COT = (
    _DEDUCE_HEAD.format(purpose="submit a final guess or continue to the next round")
    + """- Analysis all information gathered.
- Decide whether to submit the final guess or continue to the next round.
- Submission is not mandatory, you must make this decision based on your own reasoning.

"""
    + _DEDUCE_CHOICES
    + """- Explain your reasoning step by step with <REASONING> tag, then provide your choice. If you want to submit a final guess, you must provide the reasons for not proceeding to the next round.

**Response format**:
<REASONING>: [Analysis and explain your reasoning step by step for continue to next round or submit final guess]
<CHOICE>: [your_choice]
"""
)

_DEDUCE_INVALID_OA = "You did NOT follow the response format. Please try again.\n\n" + _DEDUCE_CHOICES + _OA_TAIL
_DEDUCE_INVALID_COT = (
    "You did NOT follow the response format. Please try again.\n\n"
    + _DEDUCE_CHOICES
    + """- Explain your reasoning step by step with <REASONING> tag, then provide your choice.

**Response format**:
<REASONING>: [Analysis and explain your reasoning step by step for submitting the final guess or continue to next round]
<CHOICE>: [your_choice]
"""
)

DEDUCE_RESULT = "The final guess is {submitted_code}. The answer is {answer}, the guess is {is_correct}."


def _build(mode: str, style: str) -> dict[str, str]:
    nightmare = mode == "nightmare"
    cot = style == "cot"
    head = _QUESTION_FIRST_HEAD.format(
        current="**Current Verifiers**:" if nightmare or not cot else "Current Verifiers:",
        rules=_NIGHTMARE_RULES if nightmare else _CLASSIC_RULES,
    )
    hint = _NIGHTMARE_HINT if nightmare else ""
    return {
        "system": NIGHTMARE_SYSTEM if nightmare else CLASSIC_SYSTEM,
        "proposal": _PROPOSAL.format(
            cannot="cannot" if nightmare and cot else "can NOT",
            think=_NIGHTMARE_THINK if nightmare else "- Think about what a <PASS> or <FAIL> would tell you.",
        )
        + (_PROPOSAL_COT if cot else _PROPOSAL_OA),
        "proposal_invalid": _PROPOSAL_INVALID_COT if cot else _PROPOSAL_INVALID_OA,
        "question_first": head + ((_COT_NEXT_TAIL if nightmare else _COT_FIRST_TAIL) if cot else _OA_TAIL),
        "question_next": _RESULT + hint + _NEXT_CHOICES + (_COT_NEXT_TAIL if cot else _OA_TAIL),
        "question_last": _LAST,
        "question_invalid": _QUESTION_INVALID + (_COT_NEXT_TAIL if cot else _OA_TAIL),
        "verifier_invalid": _VERIFIER_INVALID + (_COT_NEXT_TAIL if cot else _OA_TAIL),
        "deduce": _DEDUCE_COT if cot else _DEDUCE_OA,
        "deduce_invalid": _DEDUCE_INVALID_COT if cot else _DEDUCE_INVALID_OA,
        "deduce_result": DEDUCE_RESULT,
    }


CLASSIC_SYSTEM_HARNESS = _fill(CLASSIC_SYSTEM, **_HARNESS_EXTRA)
CLASSIC_SYSTEM = _fill(CLASSIC_SYSTEM, pass_extra="", fail_extra="")
#: The system prompts as the published harness words them (``harness_wording=True``).
HARNESS_SYSTEM = {"classic": CLASSIC_SYSTEM_HARNESS, "nightmare": NIGHTMARE_SYSTEM}

MODES = ("classic", "nightmare")
PROMPT_STYLES = ("answer_only", "cot")
STAGE_PROMPTS: dict[tuple[str, str], dict[str, str]] = {(m, s): _build(m, s) for m in MODES for s in PROMPT_STYLES}
