"""OpenAI Responses: `POST /v1/responses`, JSON and the real SSE event sequence.

Every event has an `event:` line, a `type` and a growing `sequence_number`:
`response.created`, `response.in_progress`, then per output item
`response.output_item.added` ... `response.output_item.done` with, inside,
`response.reasoning_summary_part.added` / `reasoning_summary_text.delta` /
`.done` / `reasoning_summary_part.done` for reasoning items,
`response.content_part.added` / `output_text.delta` / `output_text.done` /
`content_part.done` for messages, `response.function_call_arguments.delta` /
`.done` for function calls; finally `response.completed` (or
`response.incomplete` when cut by `max_output_tokens`) carrying the whole
response with its `id` and `usage`, which Codex requires.

Reasoning items (`rs_`) are sent when the scenario thinks; their summary holds
the thinking text only when the request asked for `reasoning.summary`, and
they carry `encrypted_content` when `include` asks for it, as the real API does.
Input items may be messages of any role (Codex sends `developer`),
`function_call`, `function_call_output`, reasoning and tool types the mock does
not know (ignored); tools may be namespaces and built-ins such as `web_search`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiohttp import web

from ..conversation import ChatRequest, Message, Style, ToolDef, ToolResult
from ..reply import Block, Reply, TextBlock, ThinkingBlock, ToolCallBlock, deltas, pieces, shape
from ..sse import SseWriter, open_stream
from .common import (
    Output,
    WireError,
    content_texts,
    expect_object,
    item_object,
    opt_bool,
    opt_list,
    opt_map,
    positive,
    prefixed,
    required,
    schema_of,
    tool_def,
)
from .heard import RecordedError, ReplyReader
from .openai_chat import OpenAiErrors, check_range

OUTPUT_TYPES = (
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "mcp_call_output",
)


def _output_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "\n".join(content_texts(value, "output")) if isinstance(value, list) else ""


def _item(raw: Any, where: str) -> Message | None:
    item = item_object(raw, where)
    kind = item.get("type", "message")
    if kind == "message":
        role = item.get("role")
        if not isinstance(role, str):
            raise WireError(f"Missing required parameter: '{where}.role'.", f"{where}.role")
        return Message(role, content_texts(item.get("content"), f"{where}.content"))
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        return Message("assistant", (), (), (str(item.get("call_id", "")),))
    if kind in OUTPUT_TYPES:
        return Message(
            "tool", (), (ToolResult(str(item.get("call_id", "")), _output_text(item.get("output"))),)
        )
    return None  # reasoning, item references, tool types the mock does not play


def _tools(raw: list[Any]) -> tuple[ToolDef, ...]:
    out: list[ToolDef] = []
    for i, t in enumerate(raw):
        tool = item_object(t, f"tools[{i}]")
        kind = str(tool.get("type", "function"))
        name = tool.get("name", kind)
        out.append(tool_def(name, kind, tool.get("parameters"), f"tools[{i}]", tool.get("description")))
    return tuple(out)


class ResponsesWire(OpenAiErrors):
    style: Style = "openai-responses"
    title = "OpenAI Responses"
    routes = tuple(prefixed(("/v1", ""), "POST", "/responses", "turn"))

    def claims(self, path: str, headers: Mapping[str, str]) -> bool:
        return path.rstrip("/").endswith("/responses")

    def shape(self, reply: Reply, chat: ChatRequest) -> Reply:
        # reasoning items are always sent; their summary shows the text only when asked for
        return shape(reply, show_thinking=True, coalesce=reply.coalesce_thinking)

    def parse(self, body: Any, params: Mapping[str, str] | None = None) -> ChatRequest:
        b = expect_object(body)
        model = required(b, "model")
        if not isinstance(model, str):
            raise WireError("Invalid type for 'model': expected a string", "model")
        if not model:
            raise WireError("you must provide a model parameter", "model")
        check_range(b, "temperature", 0, 2)
        check_range(b, "top_p", 0, 1)
        raw_input = b.get("input")
        messages: list[Message] = []
        if isinstance(raw_input, str):
            messages.append(Message("user", (raw_input,)))
        elif isinstance(raw_input, list):
            for i, item in enumerate(raw_input):
                msg = _item(item, f"input[{i}]")
                if msg is not None:
                    messages.append(msg)
        elif raw_input is not None:
            raise WireError("Invalid type for 'input': expected a string or an array", "input")
        instructions = b.get("instructions")
        reasoning = opt_map(b, "reasoning")
        include = opt_list(b, "include")
        schema, json_mode = schema_of(opt_map(b, "text").get("format"))
        return ChatRequest(
            style=self.style,
            model=model,
            messages=tuple(messages),
            stream=opt_bool(b, "stream"),
            system=instructions if isinstance(instructions, str) else "",
            tools=_tools(opt_list(b, "tools")),
            max_tokens=positive(
                b,
                "max_output_tokens",
                "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16.",
                16,
            ),
            reasoning_summary=bool(reasoning.get("summary")),
            encrypted_reasoning="reasoning.encrypted_content" in include,
            output_schema=schema,
            json_mode=json_mode,
            one_call=b.get("parallel_tool_calls") is False,
            no_calls=b.get("tool_choice") == "none",
            chosen_tool=_chosen(b.get("tool_choice")),
            raw=b,
        )

    # ------------------------------------------------------------------ shapes

    def _items(self, chat: ChatRequest, reply: Reply, out: Output) -> list[tuple[Block, dict[str, Any]]]:
        """Each block with its finished output item (ids fixed before streaming starts)."""
        items: list[tuple[Block, dict[str, Any]]] = []
        for block in reply.blocks:
            if isinstance(block, ThinkingBlock):
                item: dict[str, Any] = {"id": out.ids.item("rs"), "type": "reasoning", "summary": []}
                if chat.reasoning_summary:
                    item["summary"] = [{"type": "summary_text", "text": block.text}]
                if chat.encrypted_reasoning:
                    item["encrypted_content"] = "gAAAAA" + out.ids.opaque(120)
            elif isinstance(block, TextBlock):
                item = {
                    "id": out.ids.item("msg"),
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [_text_part(block.text)],
                }
            else:
                item = {
                    "id": out.ids.item("fc"),
                    "type": "function_call",
                    "status": "completed",
                    "arguments": block.arguments_json,
                    "call_id": block.call_id,
                    "name": block.name,
                }
            items.append((block, item))
        return items

    def _response(
        self,
        chat: ChatRequest,
        reply: Reply,
        resp_id: str,
        out: Output,
        output: list[dict[str, Any]],
        final: bool,
    ) -> dict[str, Any]:
        incomplete = final and reply.truncated
        raw = chat.raw
        body: dict[str, Any] = {
            "id": resp_id,
            "object": "response",
            "created_at": out.created,
            "status": ("incomplete" if incomplete else "completed") if final else "in_progress",
            "background": False,
            "error": None,
            "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
            "instructions": raw.get("instructions"),
            "max_output_tokens": chat.max_tokens,
            "model": chat.model,
            "output": output,
            "parallel_tool_calls": raw.get("parallel_tool_calls", True),
            "previous_response_id": raw.get("previous_response_id"),
            "reasoning": {"effort": None, "summary": None, **dict(opt_map(raw, "reasoning"))},
            "store": raw.get("store", True),
            "temperature": raw.get("temperature", 1.0),
            "text": {"format": {"type": "text"}, **dict(opt_map(raw, "text"))},
            "tool_choice": raw.get("tool_choice", "auto"),
            "tools": [],
            "top_p": raw.get("top_p", 1.0),
            "truncation": "disabled",
            "usage": None,
            "user": None,
            "metadata": {},
        }
        if final:
            inp, outp = reply.input_tokens(chat), reply.output_tokens()
            body["usage"] = {
                "input_tokens": inp,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": outp,
                "output_tokens_details": {"reasoning_tokens": reply.reasoning_tokens()},
                "total_tokens": inp + outp,
            }
        return body

    def body(self, chat: ChatRequest, reply: Reply, out: Output) -> dict[str, Any]:
        items = [item for _, item in self._items(chat, reply, out)]
        return self._response(chat, reply, out.ids.item("resp"), out, items, final=True)

    # ------------------------------------------------------------------ streaming

    async def send(
        self, request: web.Request, chat: ChatRequest, reply: Reply, out: Output
    ) -> web.StreamResponse:
        resp_id = out.ids.item("resp")
        response = await open_stream(request, out.headers)
        ev = _Events(SseWriter(response, out.pacer))
        self._open(ev, chat, reply, resp_id, out)
        await ev.sse.pause(reply.delay_ms)
        done: list[dict[str, Any]] = []
        for index, (block, item) in enumerate(self._items(chat, reply, out)):
            if isinstance(block, ThinkingBlock):
                await self._reasoning(ev, index, block, item, chat)
            elif isinstance(block, TextBlock):
                await self._message(ev, index, block, item)
            else:
                await self._call(ev, index, block, item)
            ev.emit("response.output_item.done", output_index=index, item=item)
            done.append(item)
            await ev.sse.maybe_flush()
        final = self._response(chat, reply, resp_id, out, done, final=True)
        ev.emit("response.incomplete" if reply.truncated else "response.completed", response=final)
        await ev.sse.close()
        return response

    def _open(self, ev: _Events, chat: ChatRequest, reply: Reply, resp_id: str, out: Output) -> None:
        start = self._response(chat, reply, resp_id, out, [], final=False)
        ev.emit("response.created", response=start)
        ev.emit("response.in_progress", response=start)

    async def _reasoning(
        self, ev: _Events, index: int, block: ThinkingBlock, item: dict[str, Any], chat: ChatRequest
    ) -> None:
        first = block.chunks[0].delay_ms if block.chunks else 0
        await ev.sse.pause(first)
        ev.emit(
            "response.output_item.added",
            output_index=index,
            item={"id": item["id"], "type": "reasoning", "summary": []},
        )
        if not chat.reasoning_summary:
            await ev.sse.pause(sum(c.delay_ms for c in block.chunks[1:]))
            return
        ids = {"item_id": item["id"], "output_index": index, "summary_index": 0}
        ev.emit("response.reasoning_summary_part.added", **ids, part={"type": "summary_text", "text": ""})
        for n, chunk in enumerate(block.chunks):
            if n:
                await ev.sse.pause(chunk.delay_ms)
            for piece in deltas(chunk.text):
                ev.emit("response.reasoning_summary_text.delta", **ids, delta=piece)
                await ev.sse.maybe_flush()
        ev.emit("response.reasoning_summary_text.done", **ids, text=block.text)
        ev.emit(
            "response.reasoning_summary_part.done", **ids, part={"type": "summary_text", "text": block.text}
        )

    async def _message(self, ev: _Events, index: int, block: TextBlock, item: dict[str, Any]) -> None:
        first = block.chunks[0].delay_ms if block.chunks else 0
        await ev.sse.pause(first)
        opening = {**item, "status": "in_progress", "content": []}
        ev.emit("response.output_item.added", output_index=index, item=opening)
        ids = {"item_id": item["id"], "output_index": index, "content_index": 0}
        ev.emit("response.content_part.added", **ids, part=_text_part(""))
        for n, chunk in enumerate(block.chunks):
            if n:
                await ev.sse.pause(chunk.delay_ms)
            for piece in deltas(chunk.text):
                ev.emit("response.output_text.delta", **ids, delta=piece, logprobs=[])
                await ev.sse.maybe_flush()
        ev.emit("response.output_text.done", **ids, text=block.text, logprobs=[])
        ev.emit("response.content_part.done", **ids, part=_text_part(block.text))

    async def _call(self, ev: _Events, index: int, block: ToolCallBlock, item: dict[str, Any]) -> None:
        await ev.sse.pause(block.delay_ms)
        opening = {**item, "status": "in_progress", "arguments": ""}
        ev.emit("response.output_item.added", output_index=index, item=opening)
        for piece in pieces(block.arguments_json):
            ev.emit(
                "response.function_call_arguments.delta", item_id=item["id"], output_index=index, delta=piece
            )
        ev.emit(
            "response.function_call_arguments.done",
            item_id=item["id"],
            output_index=index,
            name=block.name,
            arguments=block.arguments_json,
        )

    async def send_partial(self, request: web.Request, chat: ChatRequest, text: str, out: Output) -> None:
        response = await open_stream(request, out.headers)
        ev = _Events(SseWriter(response, out.pacer))
        reply = Reply((TextBlock(()),))
        self._open(ev, chat, reply, out.ids.item("resp"), out)
        item_id = out.ids.item("msg")
        item = {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}
        ev.emit("response.output_item.added", output_index=0, item=item)
        ids = {"item_id": item_id, "output_index": 0, "content_index": 0}
        ev.emit("response.content_part.added", **ids, part=_text_part(""))
        for piece in deltas(text):
            ev.emit("response.output_text.delta", **ids, delta=piece, logprobs=[])
        await ev.sse.flush()

    def malformed_frame(self, raw: str) -> str:
        return f"event: response.created\ndata: {raw}\n\n"

    # ------------------------------------------------------------------ replies as recorded

    def read_event(self, into: ReplyReader, at: float, name: str, event: Mapping[str, Any]) -> None:
        kind = event.get("type", name)
        index = event.get("output_index")
        if kind == "response.output_item.added":
            item = event.get("item") or {}
            if item.get("type") == "function_call":
                piece = into.tool(index, at, str(item.get("call_id", "")), str(item.get("name", "")))
                piece.arguments = str(item.get("arguments") or "")
        elif kind == "response.output_text.delta":
            into.add_text("text", at, str(event.get("delta", "")), index)
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            into.add_text("think", at, str(event.get("delta", "")), index)
        elif kind == "response.function_call_arguments.delta":
            into.tool(index, at).arguments += str(event.get("delta", ""))
        elif kind == "response.output_item.done":
            item = event.get("item") or {}
            if item.get("type") == "function_call" and isinstance(item.get("arguments"), str):
                call = into.tool(index, at, str(item.get("call_id", "")), str(item.get("name", "")))
                call.arguments = item["arguments"]
        elif kind in ("response.failed", "error"):
            error = (event.get("response") or {}).get("error") or event.get("error") or event
            if isinstance(error, Mapping):
                code = str(error.get("code") or error.get("type") or "server_error")
                into.fail(RecordedError(500, code, str(error.get("message", ""))))

    def read_body(self, into: ReplyReader, at: float, body: Mapping[str, Any]) -> None:
        for n, item in enumerate(body.get("output") or ()):
            if not isinstance(item, Mapping):
                continue
            if item.get("type") == "message":
                for part in item.get("content") or ():
                    if isinstance(part, Mapping) and part.get("type") == "output_text":
                        into.add_text("text", at, str(part.get("text", "")), n)
            elif item.get("type") == "reasoning":
                for part in item.get("summary") or ():
                    if isinstance(part, Mapping):
                        into.add_text("think", at, str(part.get("text", "")), n)
            elif item.get("type") == "function_call":
                piece = into.tool(n, at, str(item.get("call_id", "")), str(item.get("name", "")))
                piece.arguments = str(item.get("arguments") or "")


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


class _Events:
    """Numbers the events of one stream (`sequence_number` starts at 0)."""

    def __init__(self, sse: SseWriter) -> None:
        self.sse = sse
        self.seq = 0

    def emit(self, kind: str, **fields: Any) -> None:
        self.sse.event(kind, {"type": kind, "sequence_number": self.seq, **fields})
        self.seq += 1


def _chosen(tool_choice: Any) -> Any:
    """The tool ``tool_choice: {type: function, name}`` forces, else None."""
    if isinstance(tool_choice, Mapping) and tool_choice.get("type") == "function":
        return tool_choice.get("name")
    return None
