"""Findings that make a scenario unable to pass as its author meant it, though every key is known.

* a tool ``timeout`` that is not a positive number of milliseconds (``timeout:
  fast``): the tool refuses it at run time, every time;
* a tool event expected to succeed whose required argument is missing, or a
  string argument written as a list, a number or a mapping (`writeFile: {path:
  [a, b]}`): the tool refuses it (checked where the loader still has the
  value's place, ``agent_harbor._check_text_arguments``);
* a screenshot label used for two different moments (other events between
  them): both compare against the one golden, so one of them fails unless the
  screen did not change.

They are :meth:`~workbench.scenario.diagnostics.Reporter.doubtful`: warnings in
`validate` and `run`, errors with `--ci`.
"""

from __future__ import annotations

from workbench.scenario import model as m
from workbench.scenario.diagnostics import Reporter


def check_cannot_pass(scenario: m.Scenario, reporter: Reporter) -> None:
    shots: dict[str, tuple[int, m.Screenshot]] = {}
    for index, event in enumerate(scenario.timeline):
        pieces = event.pieces if isinstance(event, m.LlmResponse) else (event,)
        for tool in (p for p in pieces if isinstance(p, m.ToolUse) and "timeout" in p.args):
            value = tool.args["timeout"]
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                reporter.doubtful(tool.pos, f"`{tool.tool_name}` has `timeout: {value}`; a timeout is a "
                                  "positive number of milliseconds, so the tool would refuse it")  # fmt: skip
        if isinstance(event, m.Screenshot):
            earlier = shots.get(event.label)
            moved = earlier is not None and any(
                not isinstance(e, m.Screenshot) for e in scenario.timeline[earlier[0] + 1 : index]
            )
            if earlier is not None and moved:
                first = earlier[1].pos
                reporter.doubtful(event.pos, f"screenshot `{event.label}` is also taken at line {first.line}, at "
                                  "another moment: both compare against one golden; give each moment its own label")  # fmt: skip
            shots[event.label] = (index, event)
