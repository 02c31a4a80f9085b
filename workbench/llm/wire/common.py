"""What the wire styles share: the renderer protocol, request checks, JSON bodies.

A request body that is not what the API accepts (not an object, a required
field missing, a field of the wrong type) raises :class:`WireError`; the server
answers it with HTTP 400 in the style's own error shape, as the real API would.
Fields the mock does not know are ignored, as real agents send plenty of them.
"""

from __future__ import annotations

import contextlib
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from workbench.scenario import model as m

from ..conversation import ChatRequest, Style, ToolDef
from ..ids import IdMaker
from ..reply import ApiError, Reply, estimate_tokens, shape
from ..sse import Pacer, dumps
from .heard import ReplyReader


class WireError(Exception):
    """The request is not valid for this API; ``param`` names the offending field
    (``status``: 400, or 408 for a body that did not arrive in time)."""

    def __init__(self, message: str, param: str | None = None, *, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status = status


@dataclass
class Output:
    """What a renderer needs besides the reply: pacing, ids and response headers."""

    pacer: Pacer
    ids: IdMaker
    headers: dict[str, str] = field(default_factory=dict)
    created: int = 0


@dataclass(frozen=True, slots=True)
class Route:
    """A path a wire serves. ``path`` is an aiohttp pattern (it may carry the
    model, as Google's `/v1beta/models/{model}:generateContent` does); ``kind``
    says what the server does there; ``params`` are passed to the wire with the
    path's own parameters (which API method the path names, say)."""

    method: str
    path: str
    kind: Literal["turn", "count", "models", "model"]
    params: tuple[tuple[str, str], ...] = ()


def prefixed(prefixes: tuple[str, ...], method: str, path: str, kind: Any, **params: str) -> list[Route]:
    """The same route under each version prefix (`/v1`, no prefix, ...)."""
    return [Route(method, prefix + path, kind, tuple(params.items())) for prefix in prefixes]


def status_type(table: Mapping[int, str], status: int, client: str, server: str) -> str:
    """The error type a style gives an HTTP status: its table, else its generic
    client (4xx) or server (5xx) type."""
    return table.get(status, client if status < 500 else server)


class Wire:
    """One API style: its routes, request parsing, ids, error shapes, failure
    injection and what it shows of thinking. Subclasses set the class attributes
    and the methods marked as theirs; the server only iterates the registered
    wires (:data:`workbench.llm.wire.WIRES`) and never asks which style it has."""

    style: Style
    title = ""  # for people: `workbench serve llm` lists the endpoints under it
    routes: tuple[Route, ...] = ()
    request_id_header = "x-request-id"
    fallback = False  # whose error shape a path nobody claims gets

    # ------------------------------------------------------------------ which requests are ours

    def claims(self, path: str, headers: Mapping[str, str]) -> bool:
        """Whether a request (matched or not) was meant for this API, for its error shape."""
        return False

    def credentials(self, environ: Mapping[str, str]) -> dict[str, str] | None:
        """The headers carrying the user's own credential for this API, from their environment (what
        `workbench record` sends upstream); None when the environment has none."""
        return None

    # ------------------------------------------------------------------ requests

    def parse(self, body: Any, params: Mapping[str, str] | None = None) -> ChatRequest:
        raise NotImplementedError

    def count_tokens(self, body: Any, params: Mapping[str, str] | None = None) -> dict[str, Any]:
        chat = self.parse(body, params)
        return {"input_tokens": estimate_tokens(chat.context_chars())}

    def call_id(self, chat: ChatRequest, name: str, ids: IdMaker, earlier: Sequence[str]) -> str:
        """The id of a tool call the reply makes (``earlier``: the names of the
        calls made before it in the same reply)."""
        return ids.call()

    # ------------------------------------------------------------------ replies

    def shape(self, reply: Reply, chat: ChatRequest) -> Reply:
        """The reply as this style shows it (thinking hidden or coalesced)."""
        return shape(reply, show_thinking=chat.thinking, coalesce=reply.coalesce_thinking)

    def body(self, chat: ChatRequest, reply: Reply, out: Output) -> Any:
        """The non-streaming response body."""
        raise NotImplementedError

    async def send(
        self, request: web.Request, chat: ChatRequest, reply: Reply, out: Output
    ) -> web.StreamResponse:
        """Stream the reply (the server answers non-streaming requests with :meth:`body`)."""
        raise NotImplementedError

    async def send_partial(self, request: web.Request, chat: ChatRequest, text: str, out: Output) -> None:
        """Start a reply, send ``text`` of it, and leave the caller to cut the connection."""
        raise NotImplementedError

    def malformed_frame(self, raw: str) -> str:
        """The first SSE frame of a stream whose data is ``raw`` (not JSON)."""
        return f"data: {raw}\n\n"

    # ------------------------------------------------------------------ replies as recorded (`workbench record`)

    def read_event(self, into: ReplyReader, at: float, name: str, event: Mapping[str, Any]) -> None:
        """Read one event of a streamed response of this style (``name``: the SSE event name, or
        empty) into ``into``: its thinking, text and tool calls, timed ``at`` their arrival."""
        raise NotImplementedError

    def read_body(self, into: ReplyReader, at: float, body: Mapping[str, Any]) -> None:
        """Read a whole (non-streaming) response body; by default, as one streamed event."""
        self.read_event(into, at, "", body)

    # ------------------------------------------------------------------ models

    def models_body(self, ids: Sequence[str]) -> dict[str, Any]:
        return {"object": "list", "data": [self.model_body(i) for i in ids]}

    def model_body(self, model: str) -> dict[str, Any]:
        return {"id": model, "object": "model", "created": 1735689600, "owned_by": "workbench"}

    # ------------------------------------------------------------------ errors

    def error(self, status: int, message: str) -> ApiError:
        """An error of this style for an HTTP status (404, 413, 500...)."""
        raise NotImplementedError

    def error_body(self, error: ApiError, request_id: str) -> dict[str, Any]:
        raise NotImplementedError

    def failure_error(self, failure: m.Fault) -> ApiError | None:
        """The HTTP error a scripted failure stands for (`auth_error`, `rate_limit`,
        `out_of_credits`); None for the wire-level ones (resets, cuts, bad JSON)."""
        return None


def json_response(body: Any, *, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(
        status=status, text=dumps(body), content_type="application/json", headers=dict(headers or {})
    )


def expect_object(body: Any) -> Mapping[str, Any]:
    if not isinstance(body, Mapping):
        raise WireError("the request body must be a JSON object")
    return body


def required(body: Mapping[str, Any], key: str) -> Any:
    if key not in body or body[key] is None:
        raise WireError(f"{key}: Field required", key)
    return body[key]


def opt_bool(body: Mapping[str, Any], key: str) -> bool:
    value = body.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise WireError(f"{key}: Input should be a valid boolean", key)
    return value


def opt_int(body: Mapping[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireError(f"{key}: Input should be a valid integer", key)
    return value


def type_tags(*unions: Any) -> frozenset[str]:
    """The ``type`` values a protocol library's union of block types allows, read from its types.

    Each member is a TypedDict (request params) or a pydantic model (blocks the API sends, which
    clients send back) whose ``type`` is a ``Literal``; unions may be nested or ``Annotated``."""
    found: set[str] = set()
    stack = list(unions)
    while stack:
        item = stack.pop()
        origin = typing.get_origin(item)
        if origin is typing.Annotated or (origin is not None and _is_required(origin)):
            stack.append(typing.get_args(item)[0])
        elif origin is typing.Union or origin is types.UnionType:
            stack.extend(typing.get_args(item))
        elif origin is typing.Literal:
            found.update(arg for arg in typing.get_args(item) if isinstance(arg, str))
        elif isinstance(item, type):
            fields = getattr(item, "model_fields", None)
            if isinstance(fields, Mapping) and "type" in fields:
                stack.append(fields["type"].annotation)
            elif "type" in getattr(item, "__annotations__", {}):
                with contextlib.suppress(NameError, TypeError):
                    stack.append(typing.get_type_hints(item, include_extras=True)["type"])
    return frozenset(found)


def _is_required(origin: Any) -> bool:
    return getattr(origin, "_name", "") in ("Required", "NotRequired") or str(origin).endswith(
        ("Required", "NotRequired")
    )


def opt_number(body: Mapping[str, Any], key: str, message: str) -> float | None:
    """An optional number (``message`` when it is another type)."""
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise WireError(message, key)
    return float(value)


def positive(body: Mapping[str, Any], key: str, message: str, minimum: int = 1) -> int | None:
    """An optional integer that must be at least ``minimum`` (token limits: the
    real APIs answer 400 to `max_tokens: -5`)."""
    value = opt_int(body, key)
    if value is not None and value < minimum:
        raise WireError(message, key)
    return value


def opt_list(body: Mapping[str, Any], key: str) -> list[Any]:
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise WireError(f"{key}: Input should be a valid list", key)
    return value


def opt_map(body: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = body.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise WireError(f"{key}: Input should be a valid dictionary", key)
    return value


def item_object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise WireError(f"{where}: Input should be a valid dictionary", where)
    return value


def tool_def(name: Any, kind: str, schema: Any, where: str, description: Any = "") -> ToolDef:
    """A tool definition; the schema is read for its property names (and kept whole, with the
    tool's description, for matching scenario tools by what they do)."""
    if not isinstance(name, str):
        raise WireError(f"{where}.name: Field required", f"{where}.name")
    props: frozenset[str] | None = None
    req: frozenset[str] = frozenset()
    if isinstance(schema, Mapping):
        p = schema.get("properties")
        props = frozenset(p) if isinstance(p, Mapping) else frozenset()
        r = schema.get("required")
        req = frozenset(x for x in r if isinstance(x, str)) if isinstance(r, list) else frozenset()
    text = description if isinstance(description, str) else ""
    return ToolDef(name, kind, props, req, schema if isinstance(schema, Mapping) else None, text)


def content_texts(content: Any, where: str) -> tuple[str, ...]:
    """Text parts of a string-or-parts content value (other part types are skipped)."""
    if content is None:
        return ()
    if isinstance(content, str):
        return (content,)
    if not isinstance(content, list):
        raise WireError(f"{where}: Input should be a valid string or list", where)
    out: list[str] = []
    for part in content:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
            out.append(part["text"])
    return tuple(out)


def schema_of(fmt: Any) -> tuple[Mapping[str, Any] | None, bool]:
    """(JSON schema, JSON mode) from a structured-output format object of any style."""
    if not isinstance(fmt, Mapping):
        return None, False
    kind = fmt.get("type")
    if kind == "json_schema":
        inner = fmt.get("json_schema")
        schema = inner.get("schema") if isinstance(inner, Mapping) else fmt.get("schema")
        return (schema if isinstance(schema, Mapping) else {}), False
    return None, kind == "json_object"
