"""A playbook as an Agent Harbor scenario: the one schedule both front-ends share.

Each turn becomes a `userInputs` event (the prompt), then one `llmResponse` per
model response (thinking, text and `agentToolUse` pieces in the playbook's
order), then `advanceMs` so the next turn's prompt starts a new segment (and is
typed only once the agent has answered). The engine walks that schedule as it
walks any scenario; the playbook responder serves the responses with the live
Python semantics (late-bound params, ``.then``) and tells the engine which
responses went out through :func:`response_events`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import yaml

from workbench.playbook.dsl import LATE_BOUND, Call, Playbook, Say, Think, UiRule

TURN_GAP_MS = 1


class _Dumper(yaml.SafeDumper):
    """Text of several lines (file contents, long answers) as a literal block, the way a person writes it."""


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text and not text.startswith((" ", "\n")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _str)


def timeline(playbook: Playbook) -> tuple[list[dict[str, Any]], list[list[int]]]:
    """The timeline events, and for each turn the event index of each of its responses."""
    events: list[dict[str, Any]] = []
    responses: list[list[int]] = []
    for turn in playbook.turns:
        events.append({"userInputs": [[0, turn.prompt]]})
        indices = []
        for response in turn.responses():
            pieces: list[dict[str, Any]] = []
            for action in response:
                if isinstance(action, Think):
                    pieces.append({"think": [[0, action.text]]})
                elif isinstance(action, Say):
                    pieces.append({"assistant": [[0, action.text]]})
                elif isinstance(action, Call):
                    params = action.params
                    args = {} if callable(params) else json.loads(json.dumps(dict(params), default=str))
                    pieces.append({"agentToolUse": {"toolName": action.tool, "args": args}})
            indices.append(len(events))
            events.append({"llmResponse": pieces})
        responses.append(indices)
        events.append({"advanceMs": TURN_GAP_MS})
    return events, responses


def scenario_data(playbook: Playbook, command: Sequence[str] | None = None,
                  terminal: tuple[int, int] | None = None) -> dict[str, Any]:  # fmt: skip
    data: dict[str, Any] = {"name": playbook.name}
    if terminal is not None:
        data["terminal"] = {"width": terminal[0], "height": terminal[1]}
    if command is not None:
        data["command"] = list(command)
    if playbook.mock_ui.rules:
        data["onScreen"] = [on_screen_rule(rule) for rule in playbook.mock_ui.rules]
    data["timeline"] = timeline(playbook)[0]
    return data


def on_screen_rule(rule: UiRule) -> dict[str, Any]:
    """A playbook's ``mock_ui`` rule as an `onScreen` rule of the scenario."""
    out: dict[str, Any] = {"regex" if rule.regex else "match": rule.match, "keys": rule.keys}
    out["times"] = "every" if rule.times is None else rule.times
    return out


def scenario_yaml(playbook: Playbook, command: Sequence[str] | None = None,
                  terminal: tuple[int, int] | None = None) -> str:  # fmt: skip
    """The scenario as YAML text; late-bound params are named in a comment (they exist only at run time)."""
    late = [
        f"#   turn {n}: {a.describe()}" for n, a in playbook.actions if isinstance(a, Call) and a.late_bound
    ]
    head = f"# Written from the Python playbook `{playbook.name}` (workbench.playbook).\n"
    if late:
        head += f"# These calls have params computed at run time ({LATE_BOUND}); here their args are empty:\n"
        head += "\n".join(late) + "\n"
    body = yaml.dump(scenario_data(playbook, command, terminal), Dumper=_Dumper, sort_keys=False,
                     allow_unicode=True, default_flow_style=None, width=100)  # fmt: skip
    return head + body
