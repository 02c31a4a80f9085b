"""Render Claudeless response rules as the table `workbench timeline` prints for them.

A Claudeless scenario has no timeline to compile: it answers each prompt with the
first rule that matches, so there is no time axis to show. What a reader needs
instead is the matching order: one row per rule (its pattern, a summary of its
reply - text, tool calls, failure, delay, usage -, how often it may match, its
line), its turns indented below it, then the default reply, then one line with
the dialect and the tool settings.
"""

from __future__ import annotations

from workbench.scenario import model as m
from workbench.scenario.diagnostics import Pos

from .table import EVENT_WIDTH

_PATTERN_WIDTH = 40
_REPLY_TEXT_WIDTH = 40


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def pattern_text(pattern: m.Pattern) -> str:
    """`any`, or the pattern's type and text: `contains 'fix the bug'`."""
    return "any" if pattern.type == "any" else f"{pattern.type} '{_clip(pattern.text, _PATTERN_WIDTH)}'"


def reply_text(reply: m.Reply | None) -> str:
    """What the reply does, in order of importance: failure, text, tool calls, delay, usage."""
    if reply is None:
        return "(no reply)"
    parts: list[str] = []
    if reply.failure is not None:
        params = ", ".join(f"{k}={v}" for k, v in reply.failure.params.items())
        parts.append(f"fail {reply.failure.type}" + (f"({params})" if params else ""))
    if reply.text:
        parts.append(f"'{_clip(reply.text, _REPLY_TEXT_WIDTH)}'")
    parts += [f"{call.tool}()" for call in reply.tool_calls]
    if reply.delay_ms is not None:
        parts.append(f"after {reply.delay_ms} ms")
    if reply.usage:
        parts.append(f"{reply.usage.get('input_tokens', 0)}/{reply.usage.get('output_tokens', 0)} tokens")
    summary = "; ".join(parts) or "(empty reply)"
    return summary if len(summary) <= EVENT_WIDTH else summary[: EVENT_WIDTH - 1] + "…"


def _tool_text(name: str, setting: m.ToolSetting) -> str:
    notes = []
    if setting.auto_approve is not True:
        notes.append("asks")
    if setting.error is not None:
        notes.append("fails")
    if setting.result is not None:
        notes.append("canned result")
    if setting.answers:
        count = len(setting.answers)
        notes.append(f"{count} answer{'' if count == 1 else 's'}")
    return name + (f" ({', '.join(notes)})" if notes else "")


def rules_table(scenario: m.Scenario) -> str:
    """The rules of a Claudeless scenario, in matching order, as plain text."""
    rules = scenario.rules or m.RuleSet()
    header = ("#", "when the prompt matches", "reply", "max", "line")
    rows: list[tuple[str, str, str, str, str]] = []
    for i, rule in enumerate(rules.rules, start=1):
        limit = str(rule.max_matches) if rule.max_matches is not None else ""
        rows.append((str(i), pattern_text(rule.pattern), reply_text(rule.reply), limit, _line(rule.pos)))
        for j, turn in enumerate(rule.turns, start=1):
            rows.append(
                (
                    f"{i}.{j}",
                    "  then " + pattern_text(turn.expect),
                    reply_text(turn.reply),
                    "",
                    _line(turn.pos),
                )
            )
    if rules.default_reply is not None:
        rows.append(
            ("*", "(no rule matches)", reply_text(rules.default_reply), "", _line(rules.default_reply.pos))
        )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    right = {0, 3, 4}

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(cells)
        ).rstrip()

    out = [line(header), line(tuple("-" * w for w in widths)), *(line(r) for r in rows), ""]
    turns = sum(len(rule.turns) for rule in rules.rules)
    summary = f"{scenario.name}: Claudeless v{rules.format_version}, {len(rules.rules)} rules"
    summary += f" ({turns} turns)" if turns else ""
    summary += ", a default reply" if rules.default_reply is not None else ", no default reply"
    tools = ", ".join(_tool_text(name, s) for name, s in rules.tools.items())
    summary += f"; tools {rules.tool_mode}" + (f": {tools}" if tools else "")
    out.append(summary)
    return "\n".join(out) + "\n"


def _line(pos: Pos | None) -> str:
    return str(pos.line) if pos is not None else ""
