"""A recorded session as a scenario: the YAML, its goldens and the request sidecar.

The timeline follows the session in time order:

* ``userInputs`` with the keys the user typed, in key notation, each entry at
  its real offset (keys are joined until Enter: in real-agent mode an entry is
  one prompt, which the replay types and then submits), then an ``advanceMs``
  that covers them; keys typed after the agent did something start a new
  segment (an ``advanceMs`` before them), so they are typed after it, not beside it;
* one ``llmResponse`` per conversation request, with the thinking and text as
  they streamed (one item per read of the upstream, each with its real delay;
  ``--max-gap`` caps the delays), or the ``error`` the upstream answered;
* the reply's tool calls as tool events: the canonical word (``writeFile``,
  ``runCmd``...; of a known spelling, or what the tool's schema says it does) with
  paths made relative to the workspace when the agent's tool profile maps that
  canonical call back to exactly the call the agent got (the mapping is certain), else ``agentToolUse`` with the agent's own name and
  arguments; the result the agent sent back becomes its ``result`` (the longest
  part of it that holds no path, duration or id of this recording) and ``status``;
* at the end of each turn a ``screenshot`` (its golden written from the screen
  the user saw) and an ``assert`` for the files the turn created, changed or
  deleted.

Side requests (titles, routers, probes) are left out: the mock LLM server answers
them itself, by the same rules (:mod:`workbench.llm.structured`). Comments say
where each part came from. Everything written passes through the recording's
:class:`~.redact.Redactor`; the scenario is loaded and compiled before it is
written, so a recording is never a file that does not load.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.atomic import write_atomic
from workbench.llm.agents import detect_profile
from workbench.llm.checks import result_status
from workbench.llm.conversation import ChatRequest
from workbench.llm.drift import request_shape, sidecar_path, write_sidecar
from workbench.llm.intent import reverse
from workbench.llm.profiles import MapContext, canonical
from workbench.llm.structured import side_request
from workbench.llm.wire import WireError, wire_named
from workbench.names import DEFAULT_GOLDENS_DIR
from workbench.scenario.diagnostics import count
from workbench.scenario.names import folder_name
from workbench.scenario.vocabulary import EVENT_ARGUMENTS
from workbench.terminal.golden import GoldenStore
from workbench.terminal.keys import key_notation
from workbench.terminal.shot import Shot
from workbench.terminal.width import split_cells

from .exchange import Exchange
from .redact import Redactor
from .replies import Piece, RecordedReply, read_reply

SETTLE_MS = 300  # after the last key of an input group, as the app's recorder leaves
RESERVED = ("result", "status", "progress", "toolCallId", "toolExecution", "_meta", "meta")
COMMENT_CHARS = 100
HEADER = "# Recorded by `workbench record`"  # a recording's first line begins so
_DURATION = r"\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds?|minutes?)\b"
_ID = r"\b(?=[0-9a-f-]*[0-9])(?=[0-9a-f-]*[a-f])[0-9a-f-]{6,}\b"  # a hex id (a chunk, a session)
# a process id (a few hundred in a fresh container), a port, a timestamp; one digit (an exit code) stays
_NUMBER = r"\b\d{2,}\b"


@dataclass
class TurnMark:
    """The end of a turn: the screen the user saw and what the turn did to the workspace."""

    at: float
    label: str
    shot: Shot
    changed: list[str] = field(default_factory=list)  # created or modified, relative to the workspace
    deleted: list[str] = field(default_factory=list)
    json_files: dict[str, Any] = field(default_factory=dict)  # changed JSON files and their content


@dataclass
class Recording:
    name: str
    command: tuple[str, ...]  # as given, placeholders kept
    agent: str | None
    width: int
    height: int
    workspace: Path
    home: Path
    upstream: str
    masks: tuple[str, ...] = ()
    inputs: list[tuple[float, bytes]] = field(default_factory=list)
    marks: list[TurnMark] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    partial: bool = False
    max_gap_ms: int | None = None
    prompt_on_command_line: bool = False


@dataclass
class Written:
    scenario: Path
    goldens: list[Path]
    sidecar: Path
    replies: int
    requests: int
    replay: str  # the command that replays it, from where it was recorded
    unanswered: list[str | None] = field(default_factory=list)  # per model response: how it was no answer


@dataclass
class _Turn:
    exchange: Exchange
    chat: ChatRequest
    reply: RecordedReply


def conversation(exchanges: Sequence[Exchange]) -> list[_Turn]:
    """The exchanges that are turns of the conversation (side requests and other paths left out)."""
    out: list[_Turn] = []
    saw_tools = False
    for exchange in exchanges:
        if not exchange.is_turn or exchange.style is None:
            continue
        try:
            chat = wire_named(exchange.style).parse(exchange.json_body(), exchange.params)
        except (WireError, KeyError, TypeError, ValueError):
            continue
        if side_request(chat) is not None:
            continue
        if not chat.tools and saw_tools and not chat.has_model_history():
            continue  # a tool-less request beside a conversation with tools: a title, a router
        saw_tools = saw_tools or bool(chat.tools)
        out.append(_Turn(exchange, chat, read_reply(exchange)))
    return out


def write_recording(rec: Recording, out: Path, goldens_dir: Path, redactor: Redactor) -> Written:
    """Write the scenario, its goldens and its sidecar (see the module docstring)."""
    turns = conversation(rec.exchanges)
    earlier = goldens_of(out, goldens_dir) if is_recording(out) else []
    replay = replay_command(out, rec.agent, goldens_dir)
    text = redactor.text(_yaml(rec, turns, redactor, replay))
    _check_loads(text, out)
    store = GoldenStore(
        goldens_dir, folder_name(rec.name), f"{rec.width}x{rec.height}", ci=False, update=True
    )
    goldens = [store.accept(mark.label, _redacted_shot(mark.shot, redactor)) for mark in rec.marks]
    sidecar = sidecar_path(out)
    places = (str(rec.workspace), str(rec.workspace.resolve()), str(rec.home))
    shapes = [redactor.data(request_shape(t.chat, t.exchange.path, places)) for t in turns]
    write_sidecar(sidecar, shapes, lambda path, body: write_atomic(path, redactor.text(body)))
    write_atomic(out, text)
    for stale in set(earlier) - set(goldens):  # the replaced recording's, which the new one does not take
        for path in (stale, stale.with_name(stale.name.removesuffix(".golden") + ".style.json")):
            path.unlink(missing_ok=True)
    return Written(
        out, goldens, sidecar, len(turns), len(rec.exchanges), replay, [_unanswered(t) for t in turns]
    )


class WriterError(Exception):
    """The scenario the writer made does not load: a bug of the writer, never written."""


def _check_loads(text: str, out: Path) -> None:
    from workbench.timeline.prepare import prepare

    prepared = prepare(out, text=text)
    if not prepared.ok:
        raise WriterError(
            "the recorded scenario does not load: " + "; ".join(str(d) for d in prepared.errors)
        )


def _redacted_shot(shot: Shot, redactor: Redactor) -> Shot:
    rows = []
    for row in shot.rows:
        clean = redactor.text(row)
        if clean != row:
            cells = split_cells(clean)[: shot.width]
            clean = "".join(cells)
        rows.append(clean)
    return dataclasses.replace(shot, rows=tuple(rows), cells=())


# --------------------------------------------------------------------------- YAML


def _q(value: Any) -> str:
    """A YAML flow value: JSON, with every character YAML would not take as it is escaped."""
    text = json.dumps(value, ensure_ascii=False)
    return "".join(c if c.isprintable() or c == " " else _escape(c) for c in text)


def _escape(c: str) -> str:
    n = ord(c)
    return f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= COMMENT_CHARS else text[: COMMENT_CHARS - 1] + "…"


def _unanswered(turn: _Turn) -> str | None:
    """How the upstream did not answer ``turn`` as the API does (`HTTP 401`, `HTTP 200 text/html`), or None."""
    if turn.reply.error is not None:
        return f"HTTP {turn.reply.error.status}"
    if turn.reply.malformed is not None and not turn.reply.pieces:
        kind = turn.exchange.response_headers.get("content-type", "no content type").split(";")[0]
        return f"HTTP {turn.exchange.status} {kind}, not the API's answer"
    return None


def replay_command(out: Path, agent: str | None, goldens_dir: Path) -> str:
    """`workbench run OUT --mode real-agent --ci`, with the agent and the goldens folder it was recorded with."""
    words = ["workbench", "run", str(out), "--mode", "real-agent", "--ci", *(["--agent", agent] if agent else []),
             *([] if goldens_dir == DEFAULT_GOLDENS_DIR else ["--goldens", str(goldens_dir)])]  # fmt: skip
    return shlex.join(words)


def goldens_of(scenario: Path, goldens_dir: Path) -> list[Path]:
    """The goldens the scenario at ``scenario`` compares with under ``goldens_dir`` (none if it does not load)."""
    from workbench.scenario.diagnostics import ScenarioError
    from workbench.scenario.loader import load_scenario
    from workbench.scenario.model import Screenshot

    try:
        loaded = load_scenario(scenario, env={})
    except (ScenarioError, OSError):
        return []
    folder = goldens_dir / folder_name(loaded.name) / loaded.terminal.id
    return [folder / f"{e.label}.golden" for e in loaded.timeline if isinstance(e, Screenshot)]


def is_recording(path: Path) -> bool:
    """Whether ``path`` is a scenario this module wrote (its first line says so): one a new recording may
    replace, unlike a scenario written by hand."""
    try:
        with path.open(encoding="utf-8", errors="replace") as file:
            return file.readline().startswith(HEADER)
    except OSError:
        return False


def _yaml(rec: Recording, turns: list[_Turn], redactor: Redactor, replay: str) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [f"{HEADER} on {stamp} through a proxy in front of {rec.upstream}:",
             f"# {count(len(rec.exchanges), 'request')}, {len(turns)} of them "
             f"{'a turn' if len(turns) == 1 else 'turns'} of the conversation.",
             f"# Replay: {replay}"]  # fmt: skip
    if rec.partial:
        lines.append("# PARTIAL: the recording was interrupted; this is what was recorded until then.")
    lines += [f"name: {_q(rec.name)}", "mode: real-agent"]
    tags = ["recorded", *(["partial"] if rec.partial else [])]
    lines.append(f"tags: [{', '.join(tags)}]")
    if rec.agent is None:
        lines.append(f"command: [{', '.join(_q(w) for w in rec.command)}]")
    else:
        lines.append(f"# the agent: `--agent {rec.agent}` (its preset's command and HOME)")
    if (rec.width, rec.height) != (80, 24):
        lines.append(f"terminal: {{width: {rec.width}, height: {rec.height}}}")
    if rec.masks:
        lines.append(
            "# volatile text on the agent's screen, masked in goldens (its preset's masks and --mask)"
        )
        lines.append("masks:")
        lines += [f"  - {_q(mask)}" for mask in rec.masks]
    lines.append("timeline:")
    lines += ["  " + line if line else "" for line in _timeline(rec, turns, redactor)]
    return "\n".join(lines) + "\n"


def _timeline(rec: Recording, turns: list[_Turn], redactor: Redactor) -> list[str]:
    events: list[tuple[float, int, Any]] = []
    for group in _input_groups(rec, turns):
        events.append((group[0][0], 0, group))
    for n, turn in enumerate(turns):
        events.append((turn.exchange.started, 1, (n, turn)))
    for mark in rec.marks:
        events.append((mark.at, 2, mark))
    events.sort(key=lambda e: (e[0], e[1]))
    out: list[str] = []
    previous: float | None = None
    for at, kind, item in events:
        if kind == 0:
            if previous is not None:
                # a new segment: these keys come after what the agent did before them, not beside it
                out.append(f"- advanceMs: {max(1, _gap(int((at - previous) * 1000), rec))}")
            out += _inputs(item, at, rec)
        elif kind == 1:
            n, turn = item
            out += _reply(turn, turns[n + 1 :], rec, redactor)
        else:
            out += _mark(item)
        previous = at
    if not out:
        out.append("[]")
    return out


def _input_groups(rec: Recording, turns: list[_Turn]) -> list[list[tuple[float, str]]]:
    """Keys typed between two replies or screenshots, one group each; an entry per prompt (until Enter)."""
    cuts = sorted([t.exchange.started for t in turns] + [m.at for m in rec.marks])
    groups: list[list[tuple[float, str]]] = []
    current: list[tuple[float, str]] = []
    region = -1
    for at, data in rec.inputs:
        here = sum(1 for c in cuts if c <= at)
        if current and here != region:
            groups.append(current)
            current = []
        region = here
        text = data.decode("utf-8", "replace")
        if current and not current[-1][1].endswith("\r"):
            current[-1] = (current[-1][0], current[-1][1] + text)
        else:
            current.append((at, text))
    if current:
        groups.append(current)
    return groups


def _inputs(group: list[tuple[float, str]], at: float, rec: Recording) -> list[str]:
    start = group[0][0]
    out = [f"# {at:.2f} s: typed by the user" + (" (the prompt is also on the command line)"
                                                 if rec.prompt_on_command_line else ""),
           "- userInputs:"]  # fmt: skip
    last = 0
    for t, keys in group:
        offset = _gap(int((t - start) * 1000), rec)
        last = offset
        # A prompt's Enter is left to the replay, which submits it once the agent has drawn the text:
        # text and Enter in one write look like a paste to some TUIs (the Enter becomes a newline).
        out.append(f"    - [{offset}, {_q(key_notation(keys.removesuffix(chr(13))))}]")
    out.append(f"- advanceMs: {last + SETTLE_MS}")
    return out


def _gap(ms: int, rec: Recording) -> int:
    ms = max(0, ms)
    return ms if rec.max_gap_ms is None else min(ms, rec.max_gap_ms)


def _reply(turn: _Turn, later: list[_Turn], rec: Recording, redactor: Redactor) -> list[str]:
    ex, reply = turn.exchange, turn.reply
    first = ex.first_byte
    ttft = f", {(first - ex.started) * 1000:.0f} ms to the first byte" if first is not None else ""
    head = f"# request {ex.seq}: {ex.method} {ex.path} ({ex.style}){ttft}"
    if turn.chat.tools:
        names = turn.chat.tool_names
        head += f"; tools offered: {', '.join(names[:8])}" + (", …" if len(names) > 8 else "")
    out = [head]
    if reply.error is not None and not reply.pieces:
        e = reply.error
        out += [f"# the upstream answered HTTP {e.status}" + (f" ({ex.error})" if ex.error else ""),
                "- llmResponse:", "    - error:", f"        statusCode: {e.status}",
                f"        errorType: {_q(e.type)}", f"        message: {_q(e.message)}"]  # fmt: skip
        if e.retry_after is not None:
            out.append(f"        retryAfterSeconds: {e.retry_after}")
        return out
    if reply.cut:  # the agent met a broken stream: the replay breaks it the same way
        said = reply.text
        if ex.error and ex.error.startswith("unreachable"):
            out.append(f"# the upstream could not be reached ({ex.error}): the agent's connection was reset")
        else:
            out.append(f"# the upstream broke the stream ({ex.error}) after {len(said)} characters of text")
        out += ["- llmResponse:", "    - fault:"]
        if said:
            return [*out, "        type: partial_response", f"        partial_text: {_q(said)}"]
        return [*out, "        type: network_unreachable"]
    if reply.malformed is not None and not reply.pieces:
        kind = ex.response_headers.get("content-type", "no content type")
        out.append(f"# the upstream answered HTTP {ex.status} ({kind}) with what is not the API's answer: "
                   f"{_q(_clip(reply.malformed))}; the replay answers with nothing")  # fmt: skip
    body: list[str] = []
    previous = ex.started
    for piece in reply.pieces:
        if piece.kind == "tool":
            continue
        key = "think" if piece.kind == "think" else "assistant"
        body.append(f"    - {key}:")
        for at, text in piece.chunks:
            body.append(f"        - [{_gap(int((at - previous) * 1000), rec)}, {_q(text)}]")
            previous = at
    if body or not reply.tool_calls:
        out += ["- llmResponse:", *(body or ["    - assistant:", '        - [0, ""]'])]
    for call in reply.tool_calls:
        out += _tool(call, turn, later, rec)
    return out


def _tool(call: Piece, turn: _Turn, later: list[_Turn], rec: Recording) -> list[str]:
    args = call.args()
    name, written, certain = _canonical_call(call.name, args, turn.chat, rec.workspace)
    result = _result(call, turn, later)
    out = [f"# the agent's `{call.name}` call" + (f", written as `{name}` (its profile maps it back exactly)"
                                                  if certain else " (no certain canonical word: its own name)")]  # fmt: skip
    fields: list[str] = []
    if result is not None:
        text, is_error = result
        out.append(f"# it sent back ({'error' if is_error else 'ok'}): {_q(_clip(text))}")
        stable = stable_part(text, (str(rec.workspace), str(rec.home)))
        if stable is not None:
            fields.append(f"    result: {_q(stable)}")
        fields.append(f"    status: {'error' if is_error else 'ok'}")
    else:
        out.append("# the agent sent no result for it before the recording ended")
    if certain and name in EVENT_ARGUMENTS and set(written) <= set(EVENT_ARGUMENTS[name]):
        out.append(f"- {name}:")
        out += [f"    {key}: {_q(value)}" for key, value in written.items()]
        out += fields
    else:
        out += ["- agentToolUse:", f"    toolName: {_q(name)}", f"    args: {_q(written)}", *fields]
    return out


def _canonical_call(
    name: str, args: dict[str, Any], chat: ChatRequest, workspace: Path
) -> tuple[str, dict[str, Any], bool]:
    """(name, args, certain): the canonical call when the agent's profile maps it back to exactly this call
    (a known spelling's canonical form, else what the tool's schema says it does: :func:`reverse`)."""
    offered = {t.name: t for t in chat.tools}
    known = canonical(name, args)
    if known is not None:
        calls = [(known.name, dict(known.args))]
    else:
        calls = reverse(offered[name], args) if name in offered else []
    profile = detect_profile(chat.tools)
    cwd = chat.agent_cwd() or str(workspace)
    for canon, canon_args in calls:
        relative = _relative(canon_args, workspace)
        for candidate in (relative, {k: v for k, v in relative.items() if k not in ("cwd",) or v != "."}):
            back, _ = profile.map(canon, candidate, MapContext(offered, cwd))
            if back.name == name and dict(back.args) == args and not back.missing:
                return canon, candidate, True
    return name, args, False


def _relative(args: dict[str, Any], workspace: Path) -> dict[str, Any]:
    root = str(workspace)
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str) and (value == root or value.startswith(root + "/")):
            value = value[len(root) + 1 :] or "."
        out[key] = value
    return {k: v for k, v in out.items() if v is not None}


def _result(call: Piece, turn: _Turn, later: list[_Turn]) -> tuple[str, bool] | None:
    ids = [call.call_id] if call.call_id else []
    if turn.chat.style == "gemini":  # no ids on this API: the k-th call of a name (see the gemini wire)
        earlier = sum(1 for m in turn.chat.messages for c in m.tool_calls if c.startswith(call.name + "#"))
        same = [p for p in turn.reply.tool_calls if p.name == call.name]
        ids = [f"{call.name}#{earlier + same.index(call)}", f"{call.name}#{earlier + same.index(call) + 1}"]
    for nxt in later:
        found = nxt.chat.tool_results_by_id()
        for call_id in ids:
            if call_id in found:
                r = found[call_id]
                return r.text, result_status(r) == "error"
    return None


def stable_part(text: str, volatile: Sequence[str]) -> str | None:
    """The longest piece of ``text`` that holds nothing that changes from run to run (the given
    paths, durations, hex ids, numbers of two digits or more); None when no piece of at least 3
    characters is left."""
    words = [re.escape(v) for v in volatile if v] + [_DURATION, _ID, _NUMBER]
    pieces = re.split("|".join(words), text)
    best = max((p.strip() for p in pieces), key=len, default="")
    return best if len(best) >= 3 else None


def _mark(mark: TurnMark) -> list[str]:
    out = ["# the end of a turn: the screen the user saw", f"- screenshot: {_q(mark.label)}"]
    if mark.changed or mark.deleted or mark.json_files:
        out.append("# what the turn did to the workspace")
        out.append("- assert:")
        fs: list[str] = []
        if mark.changed:
            fs.append(f"      exists: [{', '.join(_q(p) for p in mark.changed)}]")
        if mark.deleted:
            fs.append(f"      notExists: [{', '.join(_q(p) for p in mark.deleted)}]")
        if fs:
            out += ["    fs:", *fs]
        if mark.json_files:
            out.append("    json:")
            out.append("      file:")
            for path, value in mark.json_files.items():
                out += [
                    f"        - path: {_q(path)}",
                    '          pointer: ""',
                    f"          equals: {_q(value)}",
                ]
    return out
