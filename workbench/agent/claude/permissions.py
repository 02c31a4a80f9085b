"""May a tool call run without asking? Claude Code's order of decisions, in print mode.

Print mode cannot ask, so a call that would need a prompt is refused: the model
gets Claude Code's refusal as an error tool result and the call is listed in
the result's ``permission_denials``. The order (Claudeless's, which follows
Claude Code's):

1. ``--dangerously-skip-permissions`` or mode ``bypassPermissions``: allowed;
2. the rules' ``tool_execution.tools.<Tool>.auto_approve = true``: allowed;
3. a ``deny`` rule (``--disallowedTools``, settings ``permissions.deny``): refused;
4. an ``allow`` rule (``--allowedTools``, settings ``permissions.allow``): allowed;
5. the mode: read-only tools always run; ``acceptEdits`` also allows file edits;
   ``plan`` and ``dontAsk`` refuse the rest, and so does ``default`` (no one to ask).

A rule is a tool name, optionally with a specifier: ``Bash(npm test)`` (that
exact command), ``Bash(git:*)`` (commands starting with ``git``), ``Edit(*.md)``
(a path glob), ``mcp__server`` (every tool of that MCP server).

Settings come from ``--settings`` (a file or inline JSON), the user's
``settings.json`` in the config folder, and the project's
``.claude/settings.json`` and ``.claude/settings.local.json``.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

READ_ONLY = frozenset({"Read", "Glob", "Grep", "LS", "TodoWrite", "Task", "TaskOutput", "BashOutput", "KillShell",
                       "AskUserQuestion", "ExitPlanMode", "EnterPlanMode", "WebSearch", "Skill", "MCPSearch"})  # fmt: skip
EDITS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
_COMMAND_KEYS = ("command", "cmd")
_PATH_KEYS = ("file_path", "path", "notebook_path")


def refusal(tool: str) -> str:
    """Claude Code's tool result for a call print mode could not ask about."""
    return f"Claude requested permissions to use {tool}, but you haven't granted it yet."


def load_settings(
    cwd: Path, config_dir: Path, settings: str | None
) -> tuple[list[str], list[str], str | None]:
    """(allow rules, deny rules, defaultMode) from every settings source; unreadable ones are skipped."""
    allow: list[str] = []
    deny: list[str] = []
    mode: str | None = None
    docs: list[Any] = []
    for path in (config_dir / "settings.json", cwd / ".claude" / "settings.json",
                 cwd / ".claude" / "settings.local.json"):  # fmt: skip
        docs.append(_read_json(path))
    if settings:
        text = settings.strip()
        docs.append(_parse(text) if text.startswith("{") else _read_json(Path(settings)))
    for doc in docs:
        perms = doc.get("permissions") if isinstance(doc, dict) else None
        if not isinstance(perms, dict):
            continue
        allow += [r for r in perms.get("allow") or [] if isinstance(r, str)]
        deny += [r for r in perms.get("deny") or [] if isinstance(r, str)]
        if isinstance(perms.get("defaultMode"), str):
            mode = perms["defaultMode"]
    return allow, deny, mode


def _read_json(path: Path) -> Any:
    try:
        return _parse(path.read_text(encoding="utf-8"))
    except OSError:
        return None


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def decide(
    tool: str,
    tool_input: Mapping[str, Any],
    *,
    mode: str,
    skip: bool,
    auto_approve: bool | None,
    allow: Iterable[str],
    deny: Iterable[str],
) -> bool:
    """True when the call may run without asking."""
    if skip or mode == "bypassPermissions":
        return True
    if auto_approve is True:
        return True
    if any(matches_rule(rule, tool, tool_input) for rule in deny):
        return False
    if any(matches_rule(rule, tool, tool_input) for rule in allow):
        return True
    if tool in READ_ONLY:
        return True
    return mode == "acceptEdits" and tool in EDITS


def matches_rule(rule: str, tool: str, tool_input: Mapping[str, Any]) -> bool:
    name, _, spec = rule.partition("(")
    name = name.strip()
    if name != tool and not (tool.startswith("mcp__") and tool.startswith(name + "__") and not spec):
        return False
    if not spec:
        return True
    spec = spec[:-1] if spec.endswith(")") else spec
    if tool == "Bash":
        command = next((str(tool_input[k]) for k in _COMMAND_KEYS if k in tool_input), "")
        if spec.endswith(":*"):
            prefix = spec[:-2]
            return command == prefix or command.startswith(prefix + " ") or command.startswith(prefix)
        return command == spec
    target = next((str(tool_input[k]) for k in _PATH_KEYS if k in tool_input), None)
    if target is not None:
        return fnmatch.fnmatchcase(target, spec) or fnmatch.fnmatchcase(Path(target).name, spec)
    return spec in json.dumps(dict(tool_input))
