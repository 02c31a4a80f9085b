"""The API styles the mock LLM server speaks, one module each; :data:`WIRES` is
the registry the server iterates (an extension point: one module, one line here;
a module elsewhere calls :func:`register_wire`)."""

from collections.abc import Awaitable, Callable, Mapping, Sequence

from aiohttp import web

from .anthropic import AnthropicWire
from .common import Output, Route, Wire, WireError
from .gemini import GeminiWire
from .openai_chat import ChatWire
from .openai_responses import ResponsesWire

BUILT_IN: tuple[Wire, ...] = (AnthropicWire(), ChatWire(), ResponsesWire(), GeminiWire())
"""The styles this package brings: what a worker process that parses large requests knows."""
WIRES: list[Wire] = list(BUILT_IN)
"""Every registered style, the built-in ones first."""


def register_wire(wire: Wire) -> Wire:
    """Add an API style (a wire module outside this package calls it: the style is that module)."""
    if any(w.style == wire.style for w in WIRES):
        raise ValueError(f"API style `{wire.style}` is registered already")
    WIRES.append(wire)
    return wire


def wire_named(style: str) -> Wire:
    """The registered wire of a style (`anthropic`, `openai-chat`, ...)."""
    for wire in WIRES:
        if wire.style == style:
            return wire
    raise KeyError(f"unknown API style `{style}`; known: {', '.join(w.style for w in WIRES)}")


def wire_for(path: str, headers: Mapping[str, str], among: Sequence[Wire] = WIRES) -> Wire:
    """The wire a request was meant for, among ``among``: the first that claims
    it, else the fallback (OpenAI's shape), else the first."""
    for wire in among:
        if wire.claims(path, headers):
            return wire
    return next((w for w in among if w.fallback), among[0])


RouteHandler = Callable[[web.Request, Wire, Route, dict[str, str]], Awaitable[web.StreamResponse]]


def add_routes(router: web.UrlDispatcher, wires: Sequence[Wire], handle: RouteHandler) -> None:
    """Every route of ``wires`` on ``router``, each answered by ``handle(request, wire, route, params)``;
    a path several styles share (`GET /v1/models`) goes to the wire the request means (:func:`wire_for`).
    ``params`` are the route's own and the path's (Gemini's model)."""
    shared: dict[tuple[str, str], list[tuple[Wire, Route]]] = {}
    for wire in wires:
        for route in wire.routes:
            shared.setdefault((route.method, route.path), []).append((wire, route))
    for (method, path), entries in shared.items():
        router.add_route(method, path, _dispatch(entries, handle))


def _dispatch(
    entries: list[tuple[Wire, Route]], handle: RouteHandler
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    by_wire = {id(w): r for w, r in entries}
    wires = [w for w, _ in entries]

    async def dispatch(request: web.Request) -> web.StreamResponse:
        wire = wire_for(request.path, request.headers, wires) if len(wires) > 1 else wires[0]
        route = by_wire[id(wire)]
        return await handle(request, wire, route, {**dict(route.params), **request.match_info})

    return dispatch


__all__ = [
    "BUILT_IN",
    "WIRES",
    "AnthropicWire",
    "ChatWire",
    "GeminiWire",
    "Output",
    "ResponsesWire",
    "Route",
    "Wire",
    "WireError",
    "add_routes",
    "register_wire",
    "wire_for",
    "wire_named",
]
