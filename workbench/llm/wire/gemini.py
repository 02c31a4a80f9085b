"""Google's Gemini API: `POST /v1beta/models/{model}:generateContent` and
`:streamGenerateContent` (`?alt=sse` for server-sent events, else one JSON array).

The model is in the path, not the body. A request holds `contents` (turns of
role `user` or `model`, each a list of parts: `text`, `thought` text,
`functionCall {name, args}`, `functionResponse {name, response}`),
`systemInstruction`, `tools` (`functionDeclarations` with `parameters` or
`parametersJsonSchema`, and built-ins such as `googleSearch`) and
`generationConfig` (`maxOutputTokens`, `thinkingConfig.includeThoughts`,
`responseMimeType`, `responseSchema` / `responseJsonSchema`).

Function calls carry no ids on this API, so calls and responses are matched by
name and order: the k-th call of `write_file` in a conversation is answered by
its k-th `write_file` response, whatever ids an agent adds of its own. Replies
are `candidates[0].content.parts` with `finishReason` (`STOP`, `MAX_TOKENS`) and
`usageMetadata`; thought parts (`{"text", "thought": true}`) are shown only when
the request asked for them with `includeThoughts`. Errors are Google's shape,
`{"error": {"code", "message", "status"}}` with its status names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from aiohttp import web

from workbench.scenario import model as m

from ..conversation import ChatRequest, Message, Style, ToolDef, ToolResult
from ..ids import IdMaker
from ..reply import ApiError, Reply, TextBlock, ThinkingBlock, ToolCallBlock, deltas, estimate_tokens
from ..sse import SseWriter, dumps, open_stream
from .common import Output, Route, Wire, WireError, expect_object, item_object, json_response, tool_def
from .heard import ReplyReader

VERSIONS = ("/v1beta", "/v1", "/v1alpha")
STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
          405: "INVALID_ARGUMENT", 409: "ABORTED", 413: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED",
          499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED", 503: "UNAVAILABLE",
          504: "DEADLINE_EXCEEDED"}  # fmt: skip
MODEL = "{model:[^/:]+}"
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def _routes() -> tuple[Route, ...]:
    out: list[Route] = []
    for v in VERSIONS:
        for method in ("generateContent", "streamGenerateContent"):
            out.append(Route("POST", f"{v}/models/{MODEL}:{method}", "turn", (("method", method),)))
        out.append(Route("POST", f"{v}/models/{MODEL}:countTokens", "count"))
        out.append(Route("GET", f"{v}/models", "models"))
        out.append(Route("GET", f"{v}/models/{MODEL}", "model"))
    return tuple(out)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _get(obj: Mapping[str, Any], name: str) -> Any:
    """A field by its JSON name or its proto name (`includeThoughts` / `include_thoughts`):
    Google's API accepts both, and its Python SDK sends some fields in each."""
    value = obj.get(name)
    return obj.get(_snake(name)) if value is None else value


def _call_key(name: str, n: int) -> str:
    return f"{name}#{n}"


_EXIT_FIELD = re.compile(r"(?i)^(exit|return)_?code$|^exit_?status$|^returncode$")


def _response_text(response: Any) -> tuple[str, bool | None]:
    """The text of a `functionResponse.response` and whether it reports an error: the API's `output` key
    holds the output and `error` the error details (an error beside an output is still one); without an
    error, a field that is an exit code decides (`exit_code: 1`), and without one the text does (Gemini CLI
    ends a failed command's output with `Exit Code: 1`), so the answer is None: unknown here."""
    if not isinstance(response, Mapping):
        return ("" if response is None else dumps(response)), None
    error = response.get("error")
    has_error = error not in (None, "", False, {}, [])
    codes = [v for k, v in response.items() if _EXIT_FIELD.match(str(k)) and type(v) is int]
    failed = True if has_error else (codes[0] != 0 if codes else None)
    for key in ("output", "content", "result"):
        if isinstance(response.get(key), str):
            return response[key], failed
    if has_error and len(response) == 1:
        return (error if isinstance(error, str) else dumps(error)), True
    return dumps(response), failed


def _texts(parts: Any, where: str) -> list[Mapping[str, Any]]:
    if parts is None:
        return []
    if not isinstance(parts, list):
        raise WireError(f"Invalid value at '{where}' (type.googleapis.com/google.ai.generativelanguage.v1beta.Part), "
                        "expected a list", where)  # fmt: skip
    return [item_object(p, f"{where}[{i}]") for i, p in enumerate(parts)]


def _system(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    content = item_object(value, "system_instruction")
    parts = _texts(content.get("parts"), "system_instruction.parts")
    return "\n".join(p["text"] for p in parts if isinstance(p.get("text"), str))


def _contents(raw: Any) -> tuple[Message, ...]:
    if raw is None or raw == []:
        raise WireError("* GenerateContentRequest.contents: contents is not specified", "contents")
    if not isinstance(raw, list):
        raise WireError("Invalid value at 'contents', expected a list", "contents")
    calls: dict[str, int] = {}
    answers: dict[str, int] = {}
    out: list[Message] = []
    for i, item in enumerate(raw):
        content = item_object(item, f"contents[{i}]")
        role = content.get("role", "user")
        if role not in ("user", "model", "function"):
            raise WireError(f"Please use a valid role: user, model. (contents[{i}].role: {role!r})", "role")
        texts: list[str] = []
        results: list[ToolResult] = []
        made: list[str] = []
        for part in _texts(content.get("parts"), f"contents[{i}].parts"):
            call, response = _get(part, "functionCall"), _get(part, "functionResponse")
            if isinstance(call, Mapping) and isinstance(call.get("name"), str):
                n = calls[call["name"]] = calls.get(call["name"], 0) + 1
                made.append(_call_key(call["name"], n))
            elif isinstance(response, Mapping) and isinstance(response.get("name"), str):
                n = answers[response["name"]] = answers.get(response["name"], 0) + 1
                text, is_error = _response_text(response.get("response"))
                results.append(ToolResult(_call_key(response["name"], n), text, is_error))
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
        out.append(
            Message("assistant" if role == "model" else "user", tuple(texts), tuple(results), tuple(made))
        )
    return tuple(out)


def _tools(raw: Any) -> tuple[ToolDef, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise WireError("Invalid value at 'tools', expected a list", "tools")
    out: list[ToolDef] = []
    for i, t in enumerate(raw):
        tool = item_object(t, f"tools[{i}]")
        declarations = _get(tool, "functionDeclarations")
        if declarations is None:
            out.extend(ToolDef(str(kind), str(kind)) for kind in tool)  # googleSearch, codeExecution...
            continue
        if not isinstance(declarations, list):
            raise WireError(f"Invalid value at 'tools[{i}].function_declarations', expected a list", "tools")
        for j, d in enumerate(declarations):
            decl = item_object(d, f"tools[{i}].function_declarations[{j}]")
            schema = _get(decl, "parametersJsonSchema") or decl.get("parameters")
            out.append(
                tool_def(
                    decl.get("name"),
                    "function",
                    schema,
                    f"tools[{i}].function_declarations[{j}]",
                    decl.get("description"),
                )
            )
    return tuple(out)


def _schema(config: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, bool]:
    for key in ("responseJsonSchema", "responseSchema"):
        if isinstance(_get(config, key), Mapping):
            return _get(config, key), False
    return None, _get(config, "responseMimeType") == "application/json"


class GeminiWire(Wire):
    style: Style = "gemini"
    title = "Google Gemini"
    routes = _routes()

    def claims(self, path: str, headers: Mapping[str, str]) -> bool:
        return (
            "x-goog-api-key" in headers
            or path.startswith(("/v1beta/", "/v1alpha/"))
            or ":" in path.rsplit("/", 1)[-1]
        )

    def credentials(self, environ: Mapping[str, str]) -> dict[str, str] | None:
        key = environ.get("GEMINI_API_KEY") or environ.get("GOOGLE_API_KEY")
        return {"x-goog-api-key": key} if key else None

    def parse(self, body: Any, params: Mapping[str, str] | None = None) -> ChatRequest:
        params = params or {}
        b = expect_object(body)
        config = _get(b, "generationConfig") or {}
        if not isinstance(config, Mapping):
            raise WireError("Invalid value at 'generation_config', expected an object", "generationConfig")
        limit = _get(config, "maxOutputTokens")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise WireError(f"* GenerateContentRequest.generation_config.max_output_tokens: must be a positive "
                            f"integer, got {limit!r}", "maxOutputTokens")  # fmt: skip
        thinking = _get(config, "thinkingConfig") or {}
        schema, json_mode = _schema(config)
        tool_config = _get(b, "toolConfig")
        calling = _get(tool_config, "functionCallingConfig") if isinstance(tool_config, Mapping) else None
        return ChatRequest(
            style=self.style,
            model=params.get("model", "gemini"),
            messages=_contents(b.get("contents")),
            stream=params.get("method") == "streamGenerateContent",
            system=_system(_get(b, "systemInstruction")),
            tools=_tools(b.get("tools")),
            max_tokens=limit,
            thinking=isinstance(thinking, Mapping) and _get(thinking, "includeThoughts") is True,
            output_schema=schema,
            json_mode=json_mode,
            no_calls=isinstance(calling, Mapping) and _get(calling, "mode") == "NONE",
            chosen_tool=_chosen(calling),
            raw=b,
            route=dict(params),
        )

    def count_tokens(self, body: Any, params: Mapping[str, str] | None = None) -> dict[str, Any]:
        b = expect_object(body)
        inner = _get(b, "generateContentRequest")
        source = inner if isinstance(inner, Mapping) else b
        chat = self.parse(source, params)
        return {"totalTokens": estimate_tokens(chat.context_chars())}

    def call_id(self, chat: ChatRequest, name: str, ids: IdMaker, earlier: Sequence[str]) -> str:
        """`name#k`: the k-th call of ``name`` in the conversation, as :func:`_contents` numbers them."""
        before = sum(1 for msg in chat.messages for key in msg.tool_calls if key.rsplit("#", 1)[0] == name)
        return _call_key(name, before + sum(1 for n in earlier if n == name) + 1)

    # ------------------------------------------------------------------ replies

    def _part(
        self, block: ThinkingBlock | TextBlock | ToolCallBlock, text: str | None = None
    ) -> dict[str, Any]:
        if isinstance(block, ToolCallBlock):
            return {"functionCall": {"name": block.name, "args": dict(block.arguments)}}
        part: dict[str, Any] = {"text": block.text if text is None else text}
        if isinstance(block, ThinkingBlock):
            part["thought"] = True
        return part

    def _usage(self, chat: ChatRequest, reply: Reply) -> dict[str, Any]:
        prompt, output, thoughts = reply.input_tokens(chat), reply.output_tokens(), reply.reasoning_tokens()
        usage = {"promptTokenCount": prompt, "candidatesTokenCount": output, "totalTokenCount": prompt + output + thoughts,
                 "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}]}  # fmt: skip
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        return usage

    def _chunk(
        self, chat: ChatRequest, parts: list[dict[str, Any]], out: Output, finish: str | None = None
    ) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish is not None:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "modelVersion": chat.model, "responseId": out.ids.opaque(22)}

    def _finish(self, reply: Reply) -> str:
        return "MAX_TOKENS" if reply.truncated else "STOP"

    def body(self, chat: ChatRequest, reply: Reply, out: Output) -> Any:
        parts = [self._part(b) for b in reply.blocks] or [{"text": ""}]
        response = self._chunk(chat, parts, out, self._finish(reply))
        response["usageMetadata"] = self._usage(chat, reply)
        if chat.route.get("method") == "streamGenerateContent":
            return [response]  # streamGenerateContent without `alt=sse`: a JSON array of chunks
        return response

    async def send(
        self, request: web.Request, chat: ChatRequest, reply: Reply, out: Output
    ) -> web.StreamResponse:
        if request.query.get("alt") != "sse":
            await out.pacer.wait(reply.total_delay_ms())
            return json_response(self.body(chat, reply, out), headers=out.headers)
        response = await open_stream(request, out.headers)
        sse = SseWriter(response, out.pacer, named=False)
        await sse.pause(reply.delay_ms)
        pending: dict[str, Any] | None = None  # the last chunk waits: it carries finishReason and usage

        def emit(part: dict[str, Any]) -> None:
            nonlocal pending
            if pending is not None:
                sse.event("", pending)
            pending = self._chunk(chat, [part], out)

        for block in reply.blocks:
            if isinstance(block, ToolCallBlock):
                await sse.pause(block.delay_ms)
                emit(self._part(block))
                continue
            for chunk in block.chunks:
                await sse.pause(chunk.delay_ms)
                for piece in deltas(chunk.text):
                    emit(self._part(block, piece))
                    await sse.maybe_flush()
        last = pending or self._chunk(chat, [{"text": ""}], out)
        last["candidates"][0]["finishReason"] = self._finish(reply)
        last["usageMetadata"] = self._usage(chat, reply)
        sse.event("", last)
        await sse.close()
        return response

    async def send_partial(self, request: web.Request, chat: ChatRequest, text: str, out: Output) -> None:
        response = await open_stream(request, out.headers)
        sse = SseWriter(response, out.pacer, named=False)
        for piece in deltas(text):
            sse.event("", self._chunk(chat, [{"text": piece}], out))
        await sse.flush()

    # ------------------------------------------------------------------ models

    def models_body(self, ids: Sequence[str]) -> dict[str, Any]:
        return {"models": [self.model_body(i) for i in ids]}

    def model_body(self, model: str) -> dict[str, Any]:
        return {"name": f"models/{model}", "version": "001", "displayName": model,
                "inputTokenLimit": 1048576, "outputTokenLimit": 65536,
                "supportedGenerationMethods": ["generateContent", "countTokens"]}  # fmt: skip

    # ------------------------------------------------------------------ errors

    def error(self, status: int, message: str) -> ApiError:
        return ApiError(
            status, STATUS.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION"), message
        )

    def error_body(self, error: ApiError, request_id: str) -> dict[str, Any]:
        status = error.type if error.type.isupper() else self.error(error.status, "").type
        inner: dict[str, Any] = {"code": error.status, "message": error.message, "status": status}
        if isinstance(error.details, list):
            inner["details"] = error.details
        return {"error": inner}

    def failure_error(self, failure: m.Fault) -> ApiError | None:
        kind, p = failure.type, failure.params
        if kind == "auth_error":  # Google answers a bad key with 400, reason API_KEY_INVALID
            details = [{"@type": ERROR_INFO, "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]
            return ApiError(400, "INVALID_ARGUMENT", str(p["message"]), details=details)
        if kind == "rate_limit":
            retry = int(p["retry_after"])
            details = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry}s"}]
            return ApiError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).",
                            retry_after=retry, details=details)  # fmt: skip
        if kind == "out_of_credits":
            message = "You exceeded your current quota, please check your plan and billing details."
            return ApiError(429, "RESOURCE_EXHAUSTED", message)
        return None

    # ------------------------------------------------------------------ replies as recorded

    def read_event(self, into: ReplyReader, at: float, name: str, event: Mapping[str, Any]) -> None:
        candidates = event.get("candidates") or ()
        first = candidates[0] if candidates and isinstance(candidates[0], Mapping) else {}
        for part in (first.get("content") or {}).get("parts") or ():
            if not isinstance(part, Mapping):
                continue
            call = part.get("functionCall") or part.get("function_call")
            if isinstance(call, Mapping):
                key = len(into.reply.tool_calls)  # each call arrives whole, in a part of its own
                piece = into.tool(key, at, str(call.get("id") or ""), str(call.get("name", "")))
                piece.arguments = json.dumps(call.get("args") or {})
            elif isinstance(part.get("text"), str):
                into.add_text("think" if part.get("thought") else "text", at, part["text"])


def _chosen(calling: Any) -> Any:
    """The function ``functionCallingConfig`` forces: mode ``ANY`` allowing exactly one, else None."""
    if not isinstance(calling, Mapping) or _get(calling, "mode") != "ANY":
        return None
    allowed = _get(calling, "allowedFunctionNames")
    return allowed[0] if isinstance(allowed, list) and len(allowed) == 1 else None
