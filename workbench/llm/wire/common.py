"""What the three wire styles share: the renderer protocol, request checks, JSON bodies.

A request body that is not what the API accepts (not an object, a required
field missing, a field of the wrong type) raises :class:`WireError`; the server
answers it with HTTP 400 in the style's own error shape, as the real API would.
Fields the mock does not know are ignored, as real agents send plenty of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web

from ..conversation import ChatRequest, Style, ToolDef
from ..ids import IdMaker
from ..reply import ApiError, Reply
from ..sse import Pacer, dumps


class WireError(Exception):
    """The request is not valid for this API; ``param`` names the offending field."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


@dataclass
class Output:
    """What a renderer needs besides the reply: pacing, ids and response headers."""

    pacer: Pacer
    ids: IdMaker
    headers: dict[str, str] = field(default_factory=dict)
    created: int = 0


class Wire(Protocol):
    """One API style: parse its requests, render replies and errors in its shapes."""

    style: Style

    def parse(self, body: Any) -> ChatRequest: ...

    def error_body(self, error: ApiError, request_id: str) -> dict[str, Any]: ...

    def body(self, chat: ChatRequest, reply: Reply, out: Output) -> dict[str, Any]:
        """The non-streaming response body."""
        ...

    async def send(
        self, request: web.Request, chat: ChatRequest, reply: Reply, out: Output
    ) -> web.StreamResponse:
        """Stream the reply (the server answers non-streaming requests with :meth:`body`)."""
        ...

    async def send_partial(self, request: web.Request, chat: ChatRequest, text: str, out: Output) -> None:
        """Start a reply, send ``text`` of it, and leave the caller to cut the connection."""
        ...

    def malformed_frame(self, raw: str) -> str:
        """The first SSE frame of a stream whose data is ``raw`` (not JSON)."""
        ...


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


def tool_def(name: Any, kind: str, schema: Any, where: str) -> ToolDef:
    """A tool definition; the schema is only read for its property names."""
    if not isinstance(name, str):
        raise WireError(f"{where}.name: Field required", f"{where}.name")
    props: frozenset[str] | None = None
    req: frozenset[str] = frozenset()
    if isinstance(schema, Mapping):
        p = schema.get("properties")
        props = frozenset(p) if isinstance(p, Mapping) else frozenset()
        r = schema.get("required")
        req = frozenset(x for x in r if isinstance(x, str)) if isinstance(r, list) else frozenset()
    return ToolDef(name, kind, props, req)


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
