"""Tool profiles: scenario tools as each agent's own, detection, `--strict-tools`."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import pytest

from tests.llm.conftest import CLAUDE_TOOLS, Running, load
from workbench.llm.agents import detect_profile, tool_profiles
from workbench.llm.conversation import ToolDef
from workbench.llm.profiles import Call, MapContext, canonical, shell_command

PROFILES = tool_profiles()


def offered(*names: str) -> MapContext:
    return MapContext({n: ToolDef(n) for n in names}, "/work")


def test_canonical_spellings() -> None:
    assert canonical("Write", {"file_path": "a", "content": "x"}) == Call(
        "writeFile", {"path": "a", "content": "x"}
    )
    assert canonical("exec_command", {"cmd": "ls", "workdir": "d", "yield_time_ms": 5}) == Call(
        "runCmd", {"yield_time_ms": 5, "cmd": "ls", "cwd": "d"}
    )
    assert canonical("shell", {"command": ["bash", "-lc", "echo hi"]}) == Call("runCmd", {"cmd": "echo hi"})
    assert canonical("edit", {"path": "f", "oldText": "a", "newText": "b"}) == Call(
        "editFile", {"path": "f", "old_string": "a", "new_string": "b"}
    )
    assert canonical("Glob", {"pattern": "**/*.py"}) == Call("find", {"name": "*.py"})
    assert canonical("mystery", {}) is None


def test_claude_code_profile() -> None:
    p, ctx = PROFILES["claude-code"], offered("Bash", "Write", "Edit", "Read", "Agent", "TaskCreate")
    assert p.map("writeFile", {"path": "src/a.py", "content": "x"}, ctx)[0] == Call(
        "Write", {"file_path": "/work/src/a.py", "content": "x"}
    )
    assert p.map("runCmd", {"cmd": "make", "cwd": "sub", "timeout": 5000}, ctx)[0] == Call(
        "Bash", {"timeout": 5000, "command": "cd sub && make"}
    )
    assert p.map("editFile", {"path": "/abs/f", "old_string": "a", "new_string": "b"}, ctx)[0] == Call(
        "Edit", {"old_string": "a", "new_string": "b", "file_path": "/abs/f"}
    )
    # Claude Code 2.1 has no Grep/LS: a shell command does the job
    assert p.map("grep", {"pattern": "TODO", "path": "src", "-i": True}, ctx)[0] == Call(
        "Bash", {"command": "grep -rni -e TODO src"}
    )
    assert p.map("task", {"description": "d", "prompt": "p"}, ctx)[0].name == "Agent"
    assert p.map("todoWrite", {"todos": [{"content": "one"}, {"content": "two"}]}, ctx)[0] == Call(
        "TaskCreate", {"subject": "one; two", "description": "one; two"}
    )
    call, note = p.map("Frobnicate", {"x": 1}, ctx)
    assert call == Call("Frobnicate", {"x": 1}) and note and "maps to no tool the agent offers" in note
    assert call.unmapped == note and "`Bash`: not named `Frobnicate`" in note


def test_codex_and_pi_profiles() -> None:
    codex, ctx = PROFILES["codex"], offered("exec_command", "write_stdin")
    assert codex.map("runCmd", {"cmd": "ls", "cwd": "/w"}, ctx)[0] == Call(
        "exec_command", {"cmd": "ls", "workdir": "/w"}
    )
    write = codex.map("writeFile", {"path": "d/a.txt", "content": "it's\n"}, ctx)[0]
    assert write == Call("exec_command", {"cmd": "mkdir -p d && printf '%s' 'it'\"'\"'s\n' > d/a.txt"})
    pi, ctx = PROFILES["pi"], offered("bash", "read", "write", "edit")
    assert pi.map("editFile", {"path": "f", "old_string": "a", "new_string": "b"}, ctx)[0] == Call(
        "edit", {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}
    )
    assert pi.map("listDir", {"path": "."}, ctx)[0] == Call("bash", {"command": "ls -la ."})


@pytest.mark.parametrize(
    ("call", "before", "after"),
    [
        (Call("writeFile", {"path": "out/a.txt", "content": "x'y\n\n"}), {}, {"out/a.txt": "x'y\n\n"}),
        (Call("appendFile", {"path": "a.txt", "content": "more"}), {"a.txt": "one "}, {"a.txt": "one more"}),
        (
            Call("editFile", {"path": "a.txt", "old_string": "b", "new_string": "$B"}),
            {"a.txt": "abcb"},
            {"a.txt": "a$Bcb"},
        ),
        (
            Call("editFile", {"path": "a.txt", "old_string": "b", "new_string": "B", "replace_all": True}),
            {"a.txt": "abcb"},
            {"a.txt": "aBcB"},
        ),
        (
            Call("sed", {"expression": "s/a/A/", "path": "a.txt", "inplace": True}),
            {"a.txt": "abc"},
            {"a.txt": "Abc"},
        ),
    ],
)
def test_shell_fallbacks_are_exact(
    tmp_path: Path, call: Call, before: dict[str, str], after: dict[str, str]
) -> None:
    for name, text in before.items():
        (tmp_path / name).write_text(text)
    command = shell_command(call)
    assert command is not None
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert {name: (tmp_path / name).read_text() for name in after} == after


def test_detection() -> None:
    assert detect_profile(["Agent", "Bash", "Edit", "Read", "Write"]).name == "claude-code"
    assert detect_profile(["exec_command", "write_stdin", "web_search"]).name == "codex"
    assert detect_profile(["read", "bash", "edit", "write"]).name == "pi"
    assert detect_profile(["lookup"]).name == "generic"


def test_strict_tools_refuses_a_request_with_a_diff_and_saves_it(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    s = load(tmp_path, "name: s\ntimeline:\n  - llmResponse: [{assistant: [[0, ok]]}]\n  - writeFile: {path: a, content: b}\n"
             "  - webFetch: {url: 'https://example.com', prompt: p}\n")  # fmt: skip
    out = tmp_path / "out"
    srv = serve(s, strict_tools=True, out_dir=out)
    tools: list[Any] = [
        *CLAUDE_TOOLS,
        {"name": "Teleport", "input_schema": {"type": "object", "properties": {}}},
    ]
    tools[0] = {**tools[0], "input_schema": {"type": "object", "properties": {"command": {}, "shell": {}}}}
    with pytest.raises(anthropic.BadRequestError) as info:
        srv.anthropic().messages.create(
            model="m", max_tokens=10, tools=tools, messages=[{"role": "user", "content": "x"}]
        )
    message = str(info.value)
    assert "differ from the claude-code tool profile" in message
    assert "+ Teleport" in message and "~ Bash: input properties changed (new shell; gone" in message
    assert "- WebFetch: the scenario calls it" in message
    saved = list((out / "agent-requests" / "claude-code").glob("*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["body"]["tools"][-1]["name"] == "Teleport"
    assert [f.kind for f in srv.failures] == ["tool"]
    # the same tools as the profile pass (here: Claude Code's own, plus WebFetch)
    fetch = {"name": "WebFetch", "input_schema": {"type": "object", "properties": {"url": {}, "prompt": {}}}}
    ok = srv.anthropic(key="good").messages.create(model="m", max_tokens=500, tools=[*CLAUDE_TOOLS, fetch],
                                                   messages=[{"role": "user", "content": "x"}])  # fmt: skip
    assert [b.type for b in ok.content] == ["text", "tool_use", "tool_use"]
    assert (out / "llm-requests.jsonl").exists()


def test_without_strict_a_diff_is_a_note(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, "name: s\ntimeline:\n  - llmResponse: [{assistant: [[0, ok]]}]\n"))
    tools = [*CLAUDE_TOOLS, {"name": "Teleport", "input_schema": {"type": "object"}}]
    srv.anthropic().messages.create(
        model="m", max_tokens=10, tools=tools, messages=[{"role": "user", "content": "x"}]
    )
    assert srv.failures == [] and any("+ Teleport" in n.message for n in srv.server.notes)


def test_one_vocabulary_for_every_layer() -> None:
    """The loader's tool events, the mock agent's tools, its renderer and the profiles read
    one table: a spelling one of them knows, all of them know (no drift)."""
    from workbench.agent import render
    from workbench.agent import tools as agent_tools
    from workbench.llm import profiles
    from workbench.scenario.agent_harbor import TOOL_EVENTS
    from workbench.scenario.vocabulary import ALIASES, EVENT_ARGUMENTS, SPELLINGS, TITLES, canonical_name

    assert TOOL_EVENTS is EVENT_ARGUMENTS  # the loader keeps no table of its own
    assert set(EVENT_ARGUMENTS) <= set(SPELLINGS)
    assert all(canonical_name(event) == event for event in EVENT_ARGUMENTS)
    assert agent_tools.ALIASES is ALIASES and profiles.ALIASES is ALIASES
    for name in ("exec_command", "update_plan", "edit_file", "run_shell_command", "write_file"):
        canon = agent_tools.canonical_name(name)
        assert canon != name and profiles.canonical(name, {}) is not None
        assert canonical(name, {}).name == canon  # type: ignore[union-attr]
        if canon in TITLES:
            assert f"⏺ {TITLES[canon]}" in render.tool_title(name, {})


def test_fit_keeps_a_fitting_call_and_reports_what_is_missing() -> None:
    from workbench.llm.profiles import fit

    schema = {
        "type": "object",
        "properties": {"command": {"type": "array"}, "workdir": {}},
        "required": ["command"],
    }
    shell = ToolDef("shell", "function", frozenset(schema["properties"]), frozenset({"command"}), schema)  # type: ignore[arg-type]
    assert fit({"command": ["ls"], "workdir": "w"}, shell) == ({"command": ["ls"], "workdir": "w"}, ())
    assert fit({"cmd": "ls -l", "cwd": "w", "junk": 1}, shell) == (
        {"command": ["bash", "-lc", "ls -l"], "workdir": "w"},
        (),
    )
    assert fit({"junk": 1}, shell) == ({}, ("command",))


def test_mock_agent_tools_take_any_agents_argument_names(tmp_path: Path) -> None:
    from workbench.agent.tools import ShellRegistry, execute_tool
    from workbench.workspace import Workspace

    ws = Workspace.attach(tmp_path)
    shells = ShellRegistry()
    wrote = execute_tool("write", {"filePath": "a.txt", "content": "hello\n"}, ws, shells=shells)
    edited = execute_tool(
        "edit_file", {"filePath": "a.txt", "oldString": "hello", "newString": "hi"}, ws, shells=shells
    )
    ran = execute_tool("run_shell_command", {"command": "cat a.txt"}, ws, shells=shells)
    assert (wrote.status, edited.status, ran.status) == ("ok", "ok", "ok")
    assert (tmp_path / "a.txt").read_text() == "hi\n" and "hi" in str(ran.result)
