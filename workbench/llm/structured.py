"""Side requests: what an agent asks the model besides the conversation itself.

Most are recognised by their structure: a request for structured output (a
JSON schema or JSON mode) is one by definition, and the server treats a
tool-less request without model history, in a session that offers tools, as
one. A few are only told apart by a phrase of a known agent (its module's
``side_markers``). Claude Code's TUI asks for a session title (a JSON schema in
`output_config.format`), Codex asks for a task title (`text.format` with a
`json_schema`), and Claude Code runs a Bash "command prefix" policy check
before running shell commands in some modes; a request allowed a single token
is a probe (older Claude Code checks its quota that way). None of these is a
step of the scenario, so they are answered here, without consuming the timeline: with JSON
that validates against the requested schema (a title made from the user's
prompt, the smallest valid value elsewhere), or the short text the prompt asks
for. Requests that ask for structured output are side requests by definition.

Structured output may also come through a tool: a request whose ``tool_choice`` names
one tool must be answered with a call of it. When none of the scenario's tool calls
goes out as that tool, the request is a side request too (:func:`forced_call`: one
call, with the smallest arguments its schema allows); otherwise it is a turn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .agents import AGENTS
from .conversation import ChatRequest
from .reply import Reply, ToolCallBlock
from .sse import dumps

if TYPE_CHECKING:
    from .wire import Output, Wire


def _markers(kind: str) -> tuple[str, ...]:
    """The phrases known agents use for one kind of side request (see their modules)."""
    return tuple(p for agent in AGENTS.values() for p in agent.side_markers.get(kind, ()))


_BASH_PREFIX = _markers("bash-prefix")
_TITLE_TEXT = _markers("title")
_NEW_TOPIC = _markers("new-topic")
_SESSION = re.compile(r"<session>\s*(.*?)\s*</session>", re.S)
_USER_PROMPT = re.compile(r"User prompt:\s*(.+)\Z", re.S)
_COMMAND = re.compile(r"Command:\s*(.+?)\s*\Z", re.S)


@dataclass(frozen=True, slots=True)
class SideRequest:
    kind: str  # schema | json | bash-prefix | title | new-topic | probe
    text: str  # the answer


def side_request(chat: ChatRequest) -> SideRequest | None:
    """The answer to a side request, or None for a turn of the conversation."""
    user = chat.messages[-1].text if chat.messages else ""
    context = (
        chat.system + "\n" + "\n".join(m.text for m in chat.messages if m.role in ("system", "developer"))
    )
    title = title_from(chat)
    if chat.output_schema is not None:
        return SideRequest("schema", dumps(instance(chat.output_schema, title)))
    if chat.json_mode:
        return SideRequest("json", dumps({"title": title}) if "title" in (context + user).lower() else "{}")
    if any(marker in context or marker in user for marker in _BASH_PREFIX):
        found = _COMMAND.search(user)
        command = found.group(1).strip().splitlines()[0] if found else ""
        return SideRequest("bash-prefix", command.split()[0] if command.split() else "none")
    if any(marker in context for marker in _TITLE_TEXT):
        return SideRequest("title", dumps({"title": title}))
    if any(marker in context for marker in _NEW_TOPIC):
        return SideRequest("new-topic", dumps({"isNewTopic": False, "title": None}))
    if chat.max_tokens == 1:
        return SideRequest("probe", "ok")  # a quota or connectivity probe (older Claude Code sends "quota")
    return None


def forced_call(wire: Wire, chat: ChatRequest, name: str, out: Output) -> Reply:
    """One call of the offered tool ``name`` that the request's ``tool_choice`` forces, with the smallest
    arguments its schema allows (a string named `title` gets a title made from the prompt)."""
    schema = next((t.schema for t in chat.tools if t.name == name), None)
    args = instance(schema, title_from(chat)) if isinstance(schema, Mapping) else {}
    call_id = wire.call_id(chat, name, out.ids, ())
    return Reply((ToolCallBlock(call_id, name, args if isinstance(args, Mapping) else {}),))


TITLE_SOURCE_CHARS = 64 * 1024


def title_from(chat: ChatRequest) -> str:
    """A short, sentence-case title made from what the user asked."""
    text = chat.last_prompt() or (chat.messages[-1].text if chat.messages else "")
    text = text[:TITLE_SOURCE_CHARS]  # five words are wanted: a 32 MB prompt is not searched whole
    for pattern in (_SESSION, _USER_PROMPT):
        found = pattern.search(text)
        if found:
            text = found.group(1)
            break
    words = re.sub(r"[^\w\s.-]", " ", text).split()[:5]
    if not words:
        return "Mock session"
    title = " ".join(words)
    return title[0].upper() + title[1:]


def instance(
    schema: Mapping[str, Any], title: str = "Mock session", defs: Mapping[str, Any] | None = None
) -> Any:
    """The smallest value that validates against a JSON schema (strings named
    `title` get ``title``); good enough for the schemas agents send, and never
    an exception for schemas that make no sense."""
    if defs is None:
        defs = {**_map(schema.get("definitions")), **_map(schema.get("$defs"))}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref.rsplit("/", 1)[-1])
        return instance(target, title, {}) if isinstance(target, Mapping) and target is not schema else None
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options and isinstance(options[0], Mapping):
            return instance(options[0], title, defs)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if str(k).lower() != "null"), "null")
    if isinstance(kind, str):
        kind = kind.lower()  # Google's schemas say OBJECT, STRING, INTEGER
    if kind == "object" or (kind is None and "properties" in schema):
        props = _map(schema.get("properties"))
        required = schema.get("required")
        wanted = [n for n in required if isinstance(n, str)] if isinstance(required, list) else list(props)
        out: dict[str, Any] = {}
        for name in wanted:
            sub = _map(props.get(name))
            out[name] = (
                _string(sub, title)
                if name == "title" and str(sub.get("type")).lower() == "string"
                else instance(sub, title, defs)
            )
        return out
    if kind == "array":
        items = _map(schema.get("items"))
        return [instance(items, title, defs) for _ in range(min(_int(schema.get("minItems")), 100))]
    if kind == "string":
        return _string(schema, "mock")
    if kind in ("integer", "number"):
        if "minimum" not in schema and "exclusiveMinimum" not in schema:
            # 1, not 0: scores and counts behind a schema often say "from 1" only in prose (Gemini CLI's router)
            high = schema.get("maximum")
            return 1 if not isinstance(high, int | float) or isinstance(high, bool) or high >= 1 else high
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        low = low if isinstance(low, int | float) and not isinstance(low, bool) else 0
        value = low + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return {}


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _string(schema: Mapping[str, Any], text: str) -> str:
    fmt = schema.get("format")
    if fmt == "date-time":
        return "2026-01-01T00:00:00Z"
    if fmt == "date":
        return "2026-01-01"
    if fmt in ("uri", "url"):
        return "https://example.com/"
    if fmt == "email":
        return "mock@example.com"
    if fmt == "uuid":
        return "00000000-0000-4000-8000-000000000000"
    low, high = min(_int(schema.get("minLength")), 10_000), schema.get("maxLength")
    if isinstance(high, int) and not isinstance(high, bool) and high >= 0:
        text = text[:high].rstrip() or text[:high]
    if len(text) < low:
        text = text + "x" * (low - len(text))
    return text
