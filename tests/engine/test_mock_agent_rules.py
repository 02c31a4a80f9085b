"""The mock agent answering a Claudeless scenario by its rules, in a real pty, with `tool_execution` applied."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.conftest import write
from workbench.terminal import PtySession

RULES = """\
[[responses]]
pattern = { type = "exact", text = "ping" }
response = "pong"
max_matches = 1

[[responses]]
pattern = { type = "contains", text = "write" }
[responses.response]
text = "Writing it."
[[responses.response.tool_calls]]
tool = "Write"
input = { file_path = "out.txt", content = "written for real" }
[[responses.response.tool_calls]]
tool = "Bash"
input = { command = "echo never runs" }

[[responses]]
pattern = { type = "contains", text = "busy" }
failure = { type = "rate_limit", retry_after = 7 }

[default_response]
text = "No rule for that."

[tool_execution]
mode = "live"

[tool_execution.tools.Write]
auto_approve = true

[tool_execution.tools.Bash]
auto_approve = true
error = "Bash is switched off here"
"""


def typed(scenario: Path, workspace: Path, exchanges: list[tuple[str, str]]) -> str:
    """Start `workbench mock-agent SCENARIO` in a pty on a fresh ``workspace``, type each prompt and
    wait for its expected text, end with Ctrl-D; the final screen."""
    workspace.mkdir()

    async def session() -> str:
        pty = await PtySession.spawn(
            [sys.executable, "-m", "workbench", "mock-agent", str(scenario), "--workspace", str(workspace)],
            env={**os.environ, "TERM": "xterm-256color"}, cwd=str(workspace.parent), width=80, height=24,
        )  # fmt: skip
        try:
            await pty.wait_for_text("> ", timeout=30)
            for prompt, expected in exchanges:
                pty.write(prompt + "<Enter>")
                await pty.wait_for_text(expected, timeout=30)
            pty.write("<C-d>")
            await pty.wait_exit(timeout=30)
            return "\n".join(pty.screen.text_rows())
        finally:
            await pty.terminate()

    return asyncio.run(session())


def test_rules_answer_typed_prompts_and_tools_follow_tool_execution(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    screen = typed(write(tmp_path, "rules.toml", RULES), workspace, [
        ("ping", "pong"),
        ("ping", "No rule for that."),  # max_matches used up: the default answers
        ("please write the file", "Bash is switched off here"),
        ("are you busy?", "rate_limit (retry_after=7)"),
    ])  # fmt: skip
    assert screen.count("pong") == 1
    assert (workspace / "out.txt").read_text() == "written for real"
    assert "Writing it." in screen


def test_typed_prompts_use_the_same_tool_execution_as_print_mode(tmp_path: Path) -> None:
    """Mode `mock` without a canned result is an error, and a canned result in `live` runs nothing."""
    scenario = write(tmp_path, "rules.toml", """\
[[responses]]
pattern = { type = "contains", text = "mock" }
[responses.response]
text = ""
[[responses.response.tool_calls]]
tool = "Write"
input = { file_path = "mocked.txt", content = "never" }

[tool_execution]
mode = "mock"
[tool_execution.tools.Write]
auto_approve = true
""")  # fmt: skip
    workspace = tmp_path / "ws"
    typed(scenario, workspace, [("mock it", "No mock result configured for tool 'Write'")])
    assert not (workspace / "mocked.txt").exists()
