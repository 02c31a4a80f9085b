"""Authoring by recording: what a person types into the program becomes scenario steps.

The app's record mode hands every key to the program under test and to an
:class:`InputRecorder`. Keys become ``userInputs`` entries in key notation with
the delays the person really took (a quick burst, such as a paste, stays one
entry); a screenshot request closes the inputs so far with an ``advanceMs`` long
enough for them and adds a ``screenshot`` step. The YAML is what a person would
write, so the recording can be edited like any other scenario. In real-agent
mode the recorder also reads the run's request log as keys arrive: each request
of the agent that no step answered closes the keys before it with an
``llmResponse`` placeholder at its place (:mod:`workbench.engine.agent_requests`). No Textual here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from workbench.engine.agent_requests import AgentRequest, RequestLogReader
from workbench.terminal.keys import key_notation

BURST_MS = 60  # keys closer together than this are one entry (a paste, a held key)
SETTLE_MS = 300  # time left after the last key before a screenshot, for the program to draw


@dataclass
class Segment:
    inputs: list[tuple[int, str]] = field(default_factory=list)  # (ms from the segment's start, keys)
    replies: list[AgentRequest] = field(default_factory=list)  # the agent's requests after the keys
    screenshot: str | None = None  # the screenshot that closes the segment

    @property
    def closed(self) -> bool:
        return bool(self.replies) or self.screenshot is not None


@dataclass
class InputRecorder:
    """Collects typed keys and screenshot requests; :meth:`yaml` writes them as steps."""

    shots: int = 0  # screenshots so far (labels are `recorded-<n>`, n counting on from here)
    now: Callable[[], float] = time.monotonic
    label_prefix: str = "recorded"
    requests: RequestLogReader | None = None  # real-agent mode: the run's request log
    # real-agent mode: each `userInputs` item is a prompt the driver submits, so keys join until Enter
    prompts: bool = False
    segments: list[Segment] = field(default_factory=lambda: [Segment()])
    _start: float | None = None
    _last: float | None = None

    def _catch_up(self) -> None:
        """The agent's requests logged since the last look go after the keys typed so far."""
        if self.requests is None:
            return
        self.segments[-1].replies += [r for r in self.requests.new_requests() if r.needs_reply]

    def typed(self, data: bytes) -> None:
        self._catch_up()
        at = self.now()
        if self.segments[-1].closed:
            self.segments.append(Segment())
            self._start = self._last = None
        if self._start is None:
            self._start = at
        segment = self.segments[-1]
        offset = int((at - self._start) * 1000)
        text = data.decode("utf-8", errors="replace")
        joins = self.prompts and not segment.inputs[-1][1].endswith("\r") if segment.inputs else False
        if joins or (segment.inputs and self._last is not None and (at - self._last) * 1000 < BURST_MS):
            ms, keys = segment.inputs[-1]
            segment.inputs[-1] = (ms, keys + text)
        else:
            segment.inputs.append((offset, text))
        self._last = at

    def screenshot(self) -> str:
        """Close the keys so far with a screenshot step; returns its label."""
        self._catch_up()
        self.shots += 1
        label = f"{self.label_prefix}-{self.shots}"
        self.segments[-1].screenshot = label
        self.segments.append(Segment())
        self._start = self._last = None
        return label

    def steps(self) -> list[str]:
        """The steps as YAML list items (one string each, unindented)."""
        self._catch_up()
        out: list[str] = []
        for segment in self.segments:
            if segment.inputs:
                base = segment.inputs[0][0]
                entries = "\n".join(
                    f"    - [{ms - base}, {json.dumps(key_notation(keys), ensure_ascii=False)}]"
                    for ms, keys in segment.inputs
                )
                out.append(f"- userInputs:\n{entries}")
                last = segment.inputs[-1][0] - base
                out.append(f"- advanceMs: {last + SETTLE_MS}")
            out += [request.step() for request in segment.replies]
            if segment.screenshot is not None:
                out.append(f"- screenshot: {segment.screenshot}")
        return out

    def yaml(self, indent: int = 2) -> str:
        """The steps indented by ``indent`` spaces, ending with a newline ("" when nothing was recorded)."""
        pad = " " * indent
        lines = [pad + line for step in self.steps() for line in step.splitlines()]
        return "\n".join(lines) + "\n" if lines else ""
