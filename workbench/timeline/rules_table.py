"""Render Claudeless response rules as the table `workbench timeline` prints for them.

A Claudeless scenario has no timeline: it answers each prompt with the first rule
that matches. The table lists the rules in matching order, each with its pattern,
its reply (text, tool calls, failure), its limits and turns, and its line.
"""

from __future__ import annotations

from workbench.scenario import model as m

from .table import EVENT_WIDTH

_CLIP = EVENT_WIDTH - 16


def _clip(text: str, width: int = _CLIP) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def pattern_text(pattern: m.Pattern) -> str:
    return "any" if pattern.type == "any" else f"{pattern.type} {pattern.text!r}"


def reply_text(reply: m.Reply | None) -> str:
    if reply is None:
        return "(no reply)"
    parts = []
    if reply.failure is not None:
        params = ", ".join(f"{k}={v}" for k, v in reply.failure.params.items())
        parts.append(f"fail {reply.failure.type}" + (f"({params})" if params else ""))
    if reply.text:
        parts.append(repr(_clip(reply.text, 40)))
    parts += [f"{call.tool}()" for call in reply.tool_calls]
    if reply.delay_ms is not None:
        parts.append(f"after {reply.delay_ms} ms")
    return "; ".join(parts) or "(empty reply)"


def rules_table(scenario: m.Scenario) -> str:
    rules = scenario.rules or m.RuleSet()
    header = ("#", "when the prompt matches", "reply", "line")
    rows: list[tuple[str, str, str, str]] = []
    for i, rule in enumerate(rules.rules, start=1):
        limit = f" (at most {rule.max_matches}x)" if rule.max_matches is not None else ""
        rows.append((str(i), pattern_text(rule.pattern) + limit, reply_text(rule.reply), _line(rule.pos)))
        for j, turn in enumerate(rule.turns, start=1):
            rows.append(
                (f"{i}.{j}", "  then " + pattern_text(turn.expect), reply_text(turn.reply), _line(turn.pos))
            )
    if rules.default_reply is not None:
        rows.append(
            ("*", "(no rule matches)", reply_text(rules.default_reply), _line(rules.default_reply.pos))
        )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.rjust(widths[i]) if i in (0, 3) else c.ljust(widths[i]) for i, c in enumerate(cells)
        ).rstrip()

    out = [line(header), line(tuple("-" * w for w in widths)), *(line(r) for r in rows), ""]
    tools = ", ".join(
        f"{name}{'' if s.auto_approve is not False else ' (ask)'}" for name, s in rules.tools.items()
    )
    out.append(
        f"{scenario.name}: Claudeless v{rules.format_version}, {len(rules.rules)} rules, tools {rules.tool_mode}"
        + (f" ({tools})" if tools else "")
    )
    return "\n".join(out) + "\n"


def _line(pos: object) -> str:
    return str(getattr(pos, "line", "")) if pos is not None else ""
