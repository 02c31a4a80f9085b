"""How the mock agent looks on a terminal: the lines a coding agent would print.

Pure functions from a step (and the real outcome of its tool) to text with SGR
colours, so the look is testable without a terminal and identical at every
speed. The layout follows the coding agents users know: `✻` thinking (dim),
`●` assistant text, `⏺ Tool(args)` calls with `⎿` result lines.

Lines are joined with CRLF because the agent switches the terminal's output
processing off (so the engine can count the bytes it must see; see
``workbench.agent.control``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from workbench.scenario.vocabulary import ALIASES, TITLES

CRLF = "\r\n"
RESET = "\x1b[0m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
ITALIC = "\x1b[3m"
RED = "\x1b[31m"
GREEN = "\x1b[32m"
YELLOW = "\x1b[33m"
CYAN = "\x1b[36m"

RESULT_LINES = 5
PROMPT = "> "

# titles by any spelling of a tool (one vocabulary for every layer: workbench.scenario.vocabulary)
_TOOL_TITLES = {name: TITLES[canon] for name, canon in ALIASES.items() if canon in TITLES}
_MAIN_ARG = (
    "cmd",
    "command",
    "path",
    "file_path",
    "notebook_path",
    "pattern",
    "query",
    "url",
    "description",
    "plan",
)


def lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def block(first_prefix: str, text: str, style: str = "", rest_prefix: str = "  ") -> str:
    """A paragraph whose first line has a marker and whose other lines are indented."""
    out = []
    for i, line in enumerate(lines(text)):
        prefix = first_prefix if i == 0 else rest_prefix
        out.append(f"{prefix}{style}{line}{RESET if style else ''}")
    return CRLF.join(out)


def thinking(text: str) -> str:
    return block(f"{DIM}✻ ", text, ITALIC + DIM)


def assistant(text: str) -> str:
    return block("● ", text)


def llm_error(status: int, error_type: str, message: str) -> str:
    return f"{RED}✗ API Error ({status} {error_type}): {message}{RESET}"


def tool_title(name: str, args: Mapping[str, Any]) -> str:
    title = _TOOL_TITLES.get(name, name)
    main = next((args[k] for k in _MAIN_ARG if k in args), None)
    if main is None and args:
        main = next(iter(args.values()))
    shown = "" if main is None else main if isinstance(main, str) else json.dumps(main, ensure_ascii=False)
    shown = shown.replace("\n", " ")
    if len(shown) > 60:
        shown = shown[:59] + "…"
    return f"{BOLD}⏺ {title}{RESET}({shown})"


def sub_line(text: str, style: str = "") -> str:
    return block(f"  ⎿  {style}", text, style, rest_prefix=f"     {style}") + (RESET if style else "")


def tool_result(status: str, result: Any) -> str:
    if result is not None and not isinstance(result, str):
        result = json.dumps(result)
    body = lines(result.rstrip("\n")) if result else []
    if not body or body == [""]:
        body = ["(no output)" if status == "ok" else "(failed)"]
    shown = body[:RESULT_LINES]
    more = len(body) - len(shown)
    style = RED if status != "ok" else ""
    text = "\n".join(shown) + (f"\n… +{more} lines" if more > 0 else "")
    return sub_line(text, style)


def mismatch(message: str) -> str:
    return f"  {RED}✗ {message}{RESET}"


def edit(path: str, added: int, removed: int) -> str:
    return f"{BOLD}⏺ Update{RESET}({path}) {GREEN}+{added}{RESET} {RED}-{removed}{RESET}"


def note(text: str) -> str:
    return f"{DIM}· {text}{RESET}"


def banner(name: str) -> str:
    return f"{CYAN}✻{RESET} {BOLD}Mock agent{RESET} {DIM}· {name}{RESET}"
