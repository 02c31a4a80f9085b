"""One canonical scenario, any agent: small fake agents on the official SDKs offer
the tool shapes real agents have (renamed, re-cased, an array of commands,
patch-only, paths relative or absolute) and run the calls they receive for real
in a workspace; the scenario passes with all of them. An agent that offers
nothing usable fails at the scenario's line, naming each tool and why."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from tests.llm.conftest import Running, load
from workbench.llm.agents import tool_profiles
from workbench.llm.conversation import ToolDef
from workbench.llm.intent import Where, begin_patch, decide, unified_diff, words
from workbench.llm.profiles import MapContext
from workbench.llm.wire.common import tool_def

Run = Callable[[dict[str, Any], Path], str]


def _schema(props: dict[str, Any], required: list[str], descriptions: dict[str, str] | None = None) -> Any:
    shaped = {k: ({"type": v} if isinstance(v, str) else v) for k, v in props.items()}
    for k, text in (descriptions or {}).items():
        shaped[k] = {**shaped[k], "description": text}
    return {"type": "object", "properties": shaped, "required": required}


def _write(path_key: str, content_key: str) -> Run:
    def run(a: dict[str, Any], ws: Path) -> str:
        target = ws / a[path_key]  # an absolute path stays absolute
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(a[content_key])
        return f"wrote {a[path_key]}"

    return run


def _shell(key: str, cwd_key: str = "") -> Run:
    def run(a: dict[str, Any], ws: Path) -> str:
        value = a[key]
        scripts = value if isinstance(value, list) else [value]
        out = ""
        cwd = ws / a[cwd_key] if a.get(cwd_key) else ws
        for script in scripts:
            done = subprocess.run(
                ["bash", "-c", script], cwd=cwd, capture_output=True, text=True, check=False
            )
            out += done.stdout + done.stderr
        return out

    return run


def _argv(key: str) -> Run:
    def run(a: dict[str, Any], ws: Path) -> str:
        done = subprocess.run(a[key], cwd=ws, capture_output=True, text=True, check=False)
        return done.stdout + done.stderr

    return run


def _editor(a: dict[str, Any], ws: Path) -> str:
    """Cline-style: with old text, a replacement; without, the whole file."""
    target = ws / a["path"]
    if a.get("old_text") is None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(a["new_text"])
    else:
        text = target.read_text()
        assert a["old_text"] in text
        target.write_text(text.replace(a["old_text"], a["new_text"], 1))
    return "ok"


def _str_replace(a: dict[str, Any], ws: Path) -> str:
    target = ws / a["file"]
    target.write_text(target.read_text().replace(a["search"], a["replace"], 1))
    return "ok"


def _begin_patch(a: dict[str, Any], ws: Path) -> str:
    """A small applier of the `*** Begin Patch` form: added files and context hunks."""
    lines = a["input"].splitlines()
    assert lines[0] == "*** Begin Patch" and lines[-1] == "*** End Patch"
    header = lines[1]
    path = ws / header.split(": ", 1)[1]
    assert not os.path.isabs(header.split(": ", 1)[1]), "patch paths are relative"
    body = lines[2:-1]
    if header.startswith("*** Add File: "):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(line[1:] + "\n" for line in body))
        return "added"
    text = path.read_text()
    for hunk in "\n".join(body).split("@@")[1:]:
        old = [line[1:] for line in hunk.strip("\n").splitlines() if line[:1] in (" ", "-")]
        new = [line[1:] for line in hunk.strip("\n").splitlines() if line[:1] in (" ", "+")]
        assert "\n".join(old) in text
        text = text.replace("\n".join(old), "\n".join(new), 1)
    path.write_text(text)
    return "updated"


def _git_apply(a: dict[str, Any], ws: Path) -> str:
    done = subprocess.run(["git", "apply", "--unsafe-paths", "-"], input=a["diff"], cwd=ws,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr + a["diff"]
    return "applied"


def _abs_only(inner: Run, key: str) -> Run:
    def run(a: dict[str, Any], ws: Path) -> str:
        assert os.path.isabs(a[key]), f"{key} must be absolute: {a[key]}"
        return inner(a, ws)

    return run


def _rel_only(inner: Run, key: str) -> Run:
    def run(a: dict[str, Any], ws: Path) -> str:
        assert not os.path.isabs(a[key]), f"{key} must be relative: {a[key]}"
        return inner(a, ws)

    return run


Shape = list[tuple[str, str, Any, Run]]  # name, description, schema, what running it does

SHAPES: dict[str, Shape] = {
    "renamed": [
        ("save", "Create or overwrite a file with the given content.",
         _schema({"path": "string", "content": "string"}, ["path", "content"]), _write("path", "content")),
        ("execute", "Execute a command in the terminal.", _schema({"command": "string"}, ["command"]),
         _shell("command")),
    ],
    "re-cased": [
        ("WriteFile", "", _schema({"path": "string", "content": "string"}, ["path", "content"]),
         _write("path", "content")),
        ("StrReplaceFile", "Replace a string in a file",
         _schema({"file": "string", "search": "string", "replace": "string"}, ["file", "search", "replace"]),
         _str_replace),
        ("Shell", "", _schema({"command": "string", "timeout": "integer"}, ["command"]), _shell("command")),
    ],
    "array-commands": [
        ("editor", "Edit a file, or create it when no old_text is given",
         _schema({"path": "string", "old_text": "string", "new_text": "string"}, ["path", "new_text"]), _editor),
        ("run_commands", "Run shell commands, one after the other",
         _schema({"commands": {"type": "array", "items": {"type": "string"}}}, ["commands"]), _shell("commands")),
    ],
    "patch-only": [
        ("apply_patch", "Edit files with a patch:\n*** Begin Patch\n*** Add File: path\n+line\n*** End Patch",
         _schema({"input": "string"}, ["input"]), _begin_patch),
        ("exec", "Execute a program", _schema({"argv": {"type": "array", "items": {"type": "string"}}}, ["argv"]),
         _argv("argv")),
    ],
    "unified-diff": [
        ("apply_diff", "Apply a unified diff (git apply) to the files",
         _schema({"diff": "string"}, ["diff"]), _git_apply),
        ("bash", "Run a bash script", _schema({"script": "string"}, ["script"]), _shell("script")),
    ],
    "path-relative": [
        ("write_text_file", "Write text to a file",
         _schema({"path": "string", "content": "string"}, ["path", "content"],
                 {"path": "Path relative to the project root"}),
         _rel_only(_write("path", "content"), "path")),
        ("replace_text", "Replace text in a file",
         _schema({"path": "string", "old": "string", "new": "string"}, ["path", "old", "new"],
                 {"path": "Path relative to the project root"}),
         _rel_only(lambda a, ws: _editor({"path": a["path"], "old_text": a["old"], "new_text": a["new"]}, ws), "path")),
        ("run", "Run a shell command", _schema({"cmd": "string", "cwd": "string"}, ["cmd"]), _shell("cmd", "cwd")),
    ],
    "path-absolute": [
        ("create", "Create a file",
         _schema({"absolute_path": "string", "text": "string"}, ["absolute_path", "text"]),
         _abs_only(_write("absolute_path", "text"), "absolute_path")),
        ("modify", "Modify a file by replacing text",
         _schema({"target": "string", "before": "string", "after": "string"}, ["target", "before", "after"],
                 {"target": "The absolute path of the file"}),
         _abs_only(lambda a, ws: _editor({"path": a["target"], "old_text": a["before"], "new_text": a["after"]}, ws),
                   "target")),
        ("terminal", "Run in a terminal", _schema({"command": "string"}, ["command"]), _shell("command")),
    ],
    "described": [  # names that say nothing: what each property takes is in its description
        ("put_document", "Write a document to disk, replacing it.",
         _schema({"where": "string", "what": "string"}, ["where", "what"],
                 {"where": "file path, relative to the project", "what": "the new text of the file"}),
         _rel_only(_write("where", "what"), "where")),
        ("execute", "Execute a shell command line and return its output.",
         _schema({"line": "string"}, ["line"], {"line": "the shell command"}), _shell("line")),
    ],
}  # fmt: skip

SCENARIO = """\
name: any-agent
timeline:
  - userInputs: [[0, "greet"]]
  - writeFile: {path: src/hello.txt, content: "hello\\nworld\\n"}
  - editFile: {path: src/hello.txt, old_string: world, new_string: there}
  - runCmd: {cmd: cat hello.txt, cwd: src, result: "hello\\nthere"}
  - runCmd: {cmd: "cat {workspace}/src/hello.txt", result: "hello\\nthere"}
  - llmResponse: [{assistant: [[0, done]]}]
  - assert: {fs: {exists: [src/hello.txt]}}
"""


def _run_tool(shape: Shape, name: str, args: dict[str, Any], ws: Path) -> str:
    run = next(r for n, _, _, r in shape if n == name)
    return run(args, ws)


def anthropic_agent(srv: Running, shape: Shape, ws: Path, key: str) -> str:
    client = srv.anthropic(key)
    tools: Any = [{"name": n, "description": d, "input_schema": s} for n, d, s, _ in shape]
    messages: list[Any] = [{"role": "user", "content": "greet"}]
    while True:
        reply = client.messages.create(model="m", max_tokens=1000, messages=messages, tools=tools)
        messages.append(
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]}
        )
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            return "".join(b.text for b in reply.content if b.type == "text")
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": u.id, "content": _run_tool(shape, u.name, dict(u.input), ws)}
            for u in uses]})  # fmt: skip


def openai_agent(srv: Running, shape: Shape, ws: Path, key: str) -> str:
    client = srv.openai(key)
    tools: Any = [{"type": "function", "function": {"name": n, "description": d, "parameters": s}}
                  for n, d, s, _ in shape]  # fmt: skip
    messages: list[Any] = [{"role": "user", "content": "greet"}]
    while True:
        message = client.chat.completions.create(model="m", messages=messages, tools=tools).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content or ""
        for call in message.tool_calls:
            assert call.type == "function"
            out = _run_tool(shape, call.function.name, json.loads(call.function.arguments), ws)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": out})


def gemini_agent(srv: Running, shape: Shape, ws: Path, key: str) -> str:
    client = srv.gemini(key)
    declarations = [
        types.FunctionDeclaration(name=n, description=d, parameters_json_schema=s) for n, d, s, _ in shape
    ]
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=declarations)])
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="greet")])]
    while True:
        reply = client.models.generate_content(model="m", contents=contents, config=config)
        assert reply.candidates and reply.candidates[0].content
        contents.append(reply.candidates[0].content)
        calls = reply.function_calls or []
        if not calls:
            return reply.text or ""
        parts = [types.Part.from_function_response(name=c.name or "", response={
            "output": _run_tool(shape, c.name or "", dict(c.args or {}), ws)}) for c in calls]  # fmt: skip
        contents.append(types.Content(role="user", parts=parts))


AGENTS = {"anthropic": anthropic_agent, "openai": openai_agent, "gemini": gemini_agent}


@pytest.mark.parametrize("sdk", list(AGENTS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_canonical_scenario_drives_every_tool_shape(
    tmp_path: Path, serve: Callable[..., Running], shape: str, sdk: str
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    srv = serve(load(tmp_path, SCENARIO), workspace=ws)
    text = AGENTS[sdk](srv, SHAPES[shape], ws, key=f"{shape}-{sdk}")
    srv.finish()
    assert text == "done"
    assert (ws / "src" / "hello.txt").read_text() == "hello\nthere\n"
    assert srv.messages() == []
    decisions = [n.message for n in srv.server.notes if n.message.startswith("tool mapping:")]
    assert any("`writeFile` -> " in d and "score" in d for d in decisions) or shape == "re-cased"


@pytest.mark.parametrize("sdk", list(AGENTS))
def test_an_agent_offering_nothing_usable_fails_at_the_line_naming_each_tool(
    tmp_path: Path, serve: Callable[..., Running], sdk: str
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    useless: Shape = [
        ("lookup", "Look something up on the web", _schema({"query": "string"}, ["query"]), lambda a, w: ""),
        ("weather", "Today's weather", _schema({"city": "string"}, ["city"]), lambda a, w: ""),
    ]
    out = tmp_path / "out"
    srv = serve(load(tmp_path, SCENARIO), workspace=ws, out_dir=out)
    AGENTS[sdk](srv, useless, ws, key=f"useless-{sdk}")
    failure = srv.server.fatal
    assert failure is not None and failure.line == 4 and failure.kind == "tool"
    assert failure.message == (
        "scenario tool `writeFile` maps to no tool the agent offers (offered: `lookup`, `weather`); "
        "`lookup`: no property takes the path; `weather`: no property takes the path"
    )
    assert not (ws / "src").exists()  # nothing was sent under the scenario's name
    logged = [json.loads(line) for line in (out / "llm-requests.jsonl").read_text().splitlines()]
    assert logged[0]["outcome"].startswith("end_turn")


def test_the_request_log_and_v_output_carry_each_decision(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    out = tmp_path / "out"
    seen: list[dict[str, Any]] = []
    srv = serve(load(tmp_path, SCENARIO), workspace=ws, out_dir=out, on_request=seen.append)
    openai_agent(srv, SHAPES["renamed"], ws, key="log")
    logged = [json.loads(line) for line in (out / "llm-requests.jsonl").read_text().splitlines()]
    assert logged == seen
    notes = [n for entry in logged for n in entry.get("notes", [])]
    assert notes[0].startswith("tool mapping: `writeFile` -> `save` (score ")
    assert any(n.startswith("tool mapping: `runCmd` -> `execute`") for n in notes)


def test_serve_llm_v_prints_the_decisions(tmp_path: Path) -> None:
    from workbench.llm.serve import _print_request

    entry = {"method": "POST", "path": "/v1/messages", "style": "anthropic", "outcome": "tool_use",
             "notes": ["tool mapping: `writeFile` -> `save` (score 9: name says save)"]}  # fmt: skip
    done = subprocess.run(
        ["python3", "-c", f"from workbench.llm.serve import _print_request; _print_request({entry!r})"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert (
        done.stderr.splitlines()[1]
        == "workbench serve llm:   tool mapping: `writeFile` -> `save` (score 9: name says save)"
    )
    del _print_request


# --------------------------------------------------------------------------- units


def _tool(name: str, props: dict[str, Any], required: list[str], description: str = "") -> ToolDef:
    return tool_def(name, "function", _schema(props, required), "t", description)


def test_words_split_every_casing() -> None:
    assert words("write_text_file") == ("write", "text", "file")
    assert words("WriteFile") == ("write", "file")
    assert words("filePath") == ("file", "path")
    assert words("HTTPServer") == ("http", "server")


def test_scores_pick_the_tool_that_does_the_job_and_say_why_others_were_rejected() -> None:
    tools = [
        _tool(
            "NotebookEdit",
            {"notebook_path": "string", "new_source": "string"},
            ["notebook_path", "new_source"],
        ),
        _tool("save", {"path": "string", "content": "string"}, ["path", "content"], "Save a file"),
        _tool("read_file", {"path": "string"}, ["path"]),
    ]
    decision = decide("writeFile", {"path": "a", "content": "b"}, tools, Where("/w"))
    assert decision.chosen is not None and decision.chosen.tool == "save"
    assert decision.describe().startswith("`writeFile` -> `save` (score ")
    rejected = {c.tool: c.why for c in decision.candidates if c.args is None}
    assert rejected == {"NotebookEdit": "its name says edit, notebook", "read_file": "its name says read"}


def test_an_argv_array_gets_bash_lc_and_a_commands_array_gets_the_command() -> None:
    argv = _tool("exec", {"command": {"type": "array", "items": {"type": "string"}}}, ["command"])
    many = _tool("run_commands", {"commands": {"type": "array", "items": {"type": "string"}}}, ["commands"])
    assert decide("runCmd", {"cmd": "ls"}, [argv], Where()).chosen.args == {"command": ["bash", "-lc", "ls"]}  # type: ignore[union-attr]
    assert decide("runCmd", {"cmd": "ls"}, [many], Where()).chosen.args == {"commands": ["ls"]}  # type: ignore[union-attr]


def test_patches_apply_with_the_real_tools(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    diff = unified_diff("f.txt", "a\nb\nc\n", "a\nB\nc")  # no newline at the end
    subprocess.run(["git", "apply", "-"], input=diff, text=True, cwd=tmp_path, check=True)
    assert (tmp_path / "f.txt").read_text() == "a\nB\nc"
    added = unified_diff("new/g.txt", None, "x\n")
    subprocess.run(["git", "apply", "-"], input=added, text=True, cwd=tmp_path, check=True)
    assert (tmp_path / "new" / "g.txt").read_text() == "x\n"
    assert (
        begin_patch("g.txt", None, "x\ny\n")
        == "*** Begin Patch\n*** Add File: g.txt\n+x\n+y\n*** End Patch\n"
    )
    assert re.search(
        r"\*\*\* Update File: f\.txt\n@@\n a\n-b\n\+B\n c\n", begin_patch("f.txt", "a\nb\nc\n", "a\nB\nc\n")
    )


def test_known_profiles_still_use_their_own_tools_and_send_no_tool_the_request_lacks() -> None:
    claude = tool_profiles()["claude-code"]
    ctx = MapContext({"Bash": ToolDef("Bash"), "Write": ToolDef("Write")}, "/w")
    assert claude.map("writeFile", {"path": "a", "content": "b"}, ctx)[0].name == "Write"
    call, note = claude.map("webFetch", {"url": "u", "prompt": "p"}, ctx)
    assert call.name == "WebFetch" and call.unmapped and note == call.unmapped


PLAN_SCENARIO = """\
name: plan
timeline:
  - userInputs: [[0, "plan it"]]
  - agentPlan:
      entries:
        - {content: Write the tests, status: in_progress}
        - {content: Make them pass}
  - llmResponse: [{assistant: [[0, planned]]}]
"""


def test_an_agent_plan_reaches_the_model_as_a_call_to_the_agents_todo_tool(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, PLAN_SCENARIO))
    todo = {"type": "function", "function": {"name": "todowrite", "description": "Update the todo list",
            "parameters": _schema({"todos": {"type": "array", "items": {"type": "object"}}}, ["todos"])}}  # fmt: skip
    client = srv.openai("plan")
    message = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "plan it"}],
                                             tools=[todo]).choices[0].message  # fmt: skip
    (call,) = message.tool_calls or []
    assert call.type == "function" and call.function.name == "todowrite"
    todos = json.loads(call.function.arguments)["todos"]
    assert [(t["content"], t["status"]) for t in todos] == [
        ("Write the tests", "in_progress"),
        ("Make them pass", "pending"),
    ]
    srv.finish()


def test_an_agent_plan_without_a_todo_tool_is_a_note(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, PLAN_SCENARIO))
    openai_agent(srv, SHAPES["renamed"], tmp_path, key="no-todo")
    notes = [n.message for n in srv.server.notes if n.message.startswith("agentPlan:")]
    assert notes and "offers no tool to state a plan" in notes[0] and srv.server.fatal is None
