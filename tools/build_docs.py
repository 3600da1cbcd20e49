"""Write the documentation site's per-env pages (``docs/envs/<Name>.md``) and its navigation.

Gymnasium builds a page per env from the env class's docstring; so do we. Each page is made of
what the code and one committed table say, nothing typed twice:

* the env's facts: ``mtp_gym.puzzle_info(env_id)`` (paper, what success means, prompt styles,
  a query game's cell and levels) and the split size (``env.unwrapped.num_configs``);
* the docstring's Gymnasium sections (Description, Prompt Format, Action Format, Observation
  Space, Rewards, Starting State, Episode End, Information, Arguments, Version History); a
  query game's page starts with its ``Game`` class docstring, then the generic env's sections;
* a prompt example: the reset observation of benchmark configuration 0 (a reset, no play);
* the oracle and random scores: the env's row of the puzzle table in ``docs/puzzles.md``
  (measured by the ``benchmarks/`` scripts the table names; nothing is played at build time).

The pages are generated, never committed (``docs/envs/.gitignore``); the navigation block of
``mkdocs.yml`` between the ``BEGIN``/``END`` markers is rewritten to list them. Usage::

    python tools/build_docs.py             # write docs/envs/*.md and the nav block
    python tools/build_docs.py --check     # exit 1 if mkdocs.yml's nav block is stale
    mkdocs build --strict -d /tmp/site     # then build the site (mkdocs serve: live preview)
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import textwrap
from importlib import import_module
from pathlib import Path

import gymnasium as gym

import mtp_gym
from mtp_gym.registration import ENV_IDS, GAME_IDS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PUZZLE_TABLE = DOCS / "puzzles.md"
MKDOCS_YML = ROOT / "mkdocs.yml"
NAV_BEGIN = "# BEGIN env pages: written by tools/build_docs.py"
NAV_END = "# END env pages"

#: The Gymnasium docstring headings every env class carries (CONVENTIONS.md), in page order.
SECTIONS = (
    "Description",
    "Prompt Format",
    "Action Format",
    "Observation Space",
    "Rewards",
    "Starting State",
    "Episode End",
    "Information",
    "Arguments",
    "Version History",
)
TABLE_COLUMNS = ("configurations", "max turns", "score", "oracle", "random")


def page_name(env_id: str) -> str:
    """``MTP/WordGuess-v0`` -> ``WordGuess``."""
    return env_id.split("/", 1)[1].rsplit("-v", 1)[0]


def split_sections(doc: str) -> tuple[str, dict[str, str]]:
    """A Gymnasium-style docstring -> (the text before the first heading, heading -> body)."""
    preamble: list[str] = []
    sections: dict[str, list[str]] = {}
    current: list[str] = preamble
    for line in doc.splitlines():
        heading = re.fullmatch(r"([A-Z][A-Za-z ]+):\s*", line)
        if heading:
            current = sections.setdefault(heading.group(1), [])
        else:
            current.append(line)
    body = {name: textwrap.dedent("\n".join(lines)).strip() for name, lines in sections.items()}
    return "\n".join(preamble).strip(), body


def to_markdown(text: str) -> str:
    """Docstring text (reST-flavoured) -> Markdown: roles become code, ``<`` outside code is
    escaped (``<attempt>`` is a tag to a Markdown renderer), paragraphs keep their breaks."""
    text = re.sub(r":(?:class|func|meth|data|attr|mod):`~?([\w.]+)`", lambda m: f"`{m.group(1).split('.')[-1]}`", text)
    parts = re.split(r"(``.+?``|`[^`\n]+`)", text, flags=re.S)
    return "".join(p if i % 2 else p.replace("<", "&lt;") for i, p in enumerate(parts))


def puzzle_rows(path: Path = PUZZLE_TABLE) -> dict[str, dict[str, str]]:
    """The committed puzzle table of ``docs/puzzles.md``: env id -> column -> cell."""
    rows: dict[str, dict[str, str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `(MTP/[\w-]+)`", line)
        if match:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            rows[match.group(1)] = dict(zip(("env id", *TABLE_COLUMNS), cells))
    return rows


def docstrings(env_id: str) -> tuple[str, str]:
    """(the puzzle's own description, the env class docstring with the Gymnasium sections)."""
    env_doc = inspect.getdoc(mtp_gym.puzzle_class(env_id)) or ""
    if env_id in GAME_IDS:
        module, name = GAME_IDS[env_id].split(":")
        return inspect.getdoc(getattr(import_module(module), name)) or "", env_doc
    return "", env_doc


def fence(text: str, lang: str = "text") -> str:
    """A code fence longer than any backtick run in ``text``."""
    ticks = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def env_page(env_id: str, row: dict[str, str]) -> str:
    info = mtp_gym.puzzle_info(env_id)
    env = gym.make(env_id, disable_env_checker=True)
    try:
        observation, _ = env.reset(options={"config_id": 0})
        num_configs = env.unwrapped.num_configs  # type: ignore[attr-defined]
    finally:
        env.close()
    own_doc, env_doc = docstrings(env_id)
    preamble, sections = split_sections(env_doc)
    missing = [s for s in SECTIONS if s not in sections]
    if missing:
        raise SystemExit(f"{env_id}: the env class docstring lacks the section(s) {missing}")
    title = (own_doc or preamble).split("\n\n")[0].replace("\n", " ")
    split = f"{num_configs} configurations" + (
        f" per level ({len(info.levels)} levels: {num_configs * len(info.levels)} in all)" if info.levels else ""
    )
    facts = [
        ("id", f"`{env_id}`"),
        ("paper", info.paper),
        ("suite", info.suite),
        ("success", info.success_means.replace("|", "\\|")),
        ("benchmark split", split + " (`--split full`; `--split N` plays N of them)"),
    ]
    if info.levels:
        facts.append(("levels", f"`difficulty` {', '.join(map(str, info.levels))} (default {info.default_level})"))
    if info.prompt_styles:
        facts.append(("prompt styles", ", ".join(f"`{s}`" for s in info.prompt_styles) + " (`--prompt-style`)"))
    facts += [(column, row[column]) for column in TABLE_COLUMNS]
    out = [
        f"# {page_name(env_id)}",
        "",
        f"*{to_markdown(title)}*",
        "",
        "| fact | value |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in facts),
        "",
        "The oracle and random columns come from the puzzle table of [Puzzles](../puzzles.md)"
        " (measured on the full split by the `benchmarks/` scripts it names).",
        "",
        "```python",
        "import gymnasium as gym",
        "import mtp_gym  # registers every MTP/* id",
        "",
        f'env = gym.make("{env_id}")',
        'obs, info = env.reset(options={"config_id": 0})',
        "```",
        "",
        "```bash",
        f"mtp-gym eval --env {env_id} --agent oracle,random --split 20",
        "```",
        "",
    ]
    if own_doc:
        out += ["## The game", "", to_markdown(own_doc), ""]
        out += [
            "The sections below are those of the generic query-game env (`GameEnv`), shared by every query game.",
            "",
        ]
    for name in SECTIONS:
        out += [f"## {name}", "", to_markdown(sections[name]), ""]
        if name == "Prompt Format":
            level = f", level {info.default_level}, the default" if info.levels else ""
            out += [f"### Prompt example (benchmark configuration 0{level})", "", fence(observation), ""]
    return "\n".join(out).rstrip() + "\n"


def index_page(rows: dict[str, dict[str, str]]) -> str:
    out = [
        "# Environments",
        "",
        "One page per registered id, generated from the env class's docstring and facts by"
        " `tools/build_docs.py`. The full table, with the per-puzzle notes, is [Puzzles](../puzzles.md).",
        "",
        "| env | suite | configurations | oracle | random |",
        "|---|---|---|---|---|",
    ]
    for env_id in ENV_IDS:
        row = rows[env_id]
        out.append(
            f"| [{page_name(env_id)}]({page_name(env_id)}.md) | {mtp_gym.puzzle_info(env_id).suite} "
            f"| {row['configurations']} | {row['oracle']} | {row['random']} |"
        )
    return "\n".join(out) + "\n"


def nav_block() -> str:
    """The env pages' part of mkdocs.yml's nav, grouped by suite in registry order."""
    groups: dict[str, list[str]] = {}
    for env_id in ENV_IDS:
        groups.setdefault(mtp_gym.puzzle_info(env_id).suite, []).append(env_id)
    lines = [f"      {NAV_BEGIN}"]
    for suite, ids in groups.items():
        label = f"Query games: {suite}" if mtp_gym.puzzle_info(ids[0]).cell else suite
        lines.append(f'      - "{label}":')
        lines += [f"        - {page_name(i)}: envs/{page_name(i)}.md" for i in ids]
    lines.append(f"      {NAV_END}")
    return "\n".join(lines)


def with_nav(config: str) -> str:
    """mkdocs.yml's text with its env block replaced by :func:`nav_block`."""
    pattern = re.compile(rf"^[ \t]*{re.escape(NAV_BEGIN)}\n.*?^[ \t]*{re.escape(NAV_END)}$", re.M | re.S)
    if not pattern.search(config):
        raise SystemExit(f"mkdocs.yml lacks the lines {NAV_BEGIN!r} ... {NAV_END!r}")
    return pattern.sub(lambda _: nav_block(), config)


def build(out_dir: Path = DOCS / "envs") -> list[Path]:
    """Write one page per registered env and the index into ``out_dir``; return the env pages."""
    rows = puzzle_rows()
    missing = [env_id for env_id in ENV_IDS if env_id not in rows]
    if missing:
        raise SystemExit(f"docs/puzzles.md has no table row for {missing}")
    out_dir.mkdir(parents=True, exist_ok=True)
    pages = []
    for env_id in ENV_IDS:
        path = out_dir / f"{page_name(env_id)}.md"
        path.write_text(env_page(env_id, rows[env_id]), encoding="utf-8")
        pages.append(path)
    (out_dir / "index.md").write_text(index_page(rows), encoding="utf-8")
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that mkdocs.yml's nav block is current")
    args = parser.parse_args(argv)
    config = MKDOCS_YML.read_text(encoding="utf-8")
    if args.check:
        if with_nav(config) != config:
            print("mkdocs.yml: the env pages' nav block is stale; run python tools/build_docs.py", file=sys.stderr)
            return 1
        return 0
    pages = build()
    if with_nav(config) != config:
        MKDOCS_YML.write_text(with_nav(config), encoding="utf-8")
    print(f"wrote {len(pages)} env pages and docs/envs/index.md; mkdocs.yml nav current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
