"""Every diagnostic a playbook can give, in one place so that each is tested as written.

They follow the pi harness's texts (consumed N of M, last consumed, next
expected, remaining) and add what it lacks: the turn of each action, and a
hint that says what to change.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.playbook.dsl import Action, Call, Turn

MAX_LISTED = 5


def _count(n: int, word: str = "action") -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _at(item: Action | Turn) -> str:
    """``, FILE:LINE`` where the action or turn was written, when known."""
    return f", {item.at}" if item.at else ""


def remaining_lines(left: Sequence[tuple[int, Action]]) -> list[str]:
    lines = [f"  - {action.describe()} (turn {turn}{_at(action)})" for turn, action in left[:MAX_LISTED]]
    if len(left) > MAX_LISTED:
        lines.append(f"  ... +{len(left) - MAX_LISTED} more")
    return lines


def exhausted(consumed: int, total: int, last: Action | None, last_turn: int, last_step: int,
              next_turn: Turn | None, left: Sequence[tuple[int, Action]]) -> str:  # fmt: skip
    lines = [
        "Playbook exhausted: the agent asked for another model response, but the playbook has none for this turn.",
        f"Consumed {consumed} of {_count(total)}.",
        f"Last consumed: {last.describe()} at step {last_step} (turn {last_turn}{_at(last)})" if last else "Last consumed: none",
        f"Next expected: {next_turn.describe()} (a new user turn{_at(next_turn)})" if next_turn else "Next expected: nothing (the playbook is done)",
        "Remaining:" if left else "Remaining: none",
        *remaining_lines(left),
        "The agent went on after the playbook's last response of the turn: add the actions it needs "
        "(a call it makes, then say(...) to end the turn), or check why it did not stop.",
    ]  # fmt: skip
    return "\n".join(lines)


def not_consumed(consumed: int, total: int, left: Sequence[tuple[int, Action]]) -> str:
    return "\n".join([
        "Playbook not fully consumed after the run.",
        f"Consumed {consumed} of {_count(total)}.",
        "Remaining:",
        *remaining_lines(left),
        "The agent stopped asking before the playbook's end: it ended a turn early, failed, "
        "or the test did not send every when() prompt.",
    ])  # fmt: skip


def turn_left_over(number: int, turn: Turn, left: Sequence[tuple[int, Action]]) -> str:
    return "\n".join([
        f"Turn {number} {turn.describe()}{f' ({turn.at})' if turn.at else ''} ended with {_count(len(left))} left:",
        *remaining_lines(left),
        "The agent started a new turn (a new user prompt) before the model's actions of this turn were "
        "served; they are dropped, never served to the next turn.",
    ])  # fmt: skip


def prompt_mismatch(number: int, turn: Turn, prompt: str) -> str:
    shown = prompt if len(prompt) <= 200 else prompt[:199] + "…"
    where = f" ({turn.at})" if turn.at else ""
    return f"Turn {number}: the agent's prompt does not contain the prompt of {turn.describe()}{where}; it was: {shown!r}"


def callback_failed(call: Call, step: int, turn: int, trace: str) -> str:
    return f"The .then() callback of {call.describe()} at step {step} (turn {turn}{_at(call)}) raised:\n{trace.rstrip()}"


def params_failed(call: Call, step: int, turn: int, trace: str) -> str:
    return (f"The params function of {call.describe()} at step {step} (turn {turn}{_at(call)}) raised, "
            f"so the call was not sent (the agent got an API error):\n{trace.rstrip()}")  # fmt: skip


def unknown_tool(call: Call, step: int, turn: int, offered: Sequence[str]) -> str:
    tools = ", ".join(offered) if offered else "none"
    return (f"{call.describe()} at step {step} (turn {turn}{_at(call)}) names a tool the agent does not have, "
            f"so the call was not sent (the agent got an API error).\nThe agent offers: {tools}")  # fmt: skip


def tool_error(step: int, turn: int, call: Call, trace: str) -> str:
    return (f'Error during tool execution at playbook step {step} (turn {turn}, call "{call.tool}"{_at(call)}):\n'
            f"{trace.rstrip()}\n"
            "To let the agent see the error as a tool result instead, use Playbook(..., propagate_errors=False).")  # fmt: skip
