"""The mock agent as a drop-in `claude`: Claude Code's print mode answered from Claudeless rules.

Everything runs through the installed shim (`workbench mock-agent --install-shim DIR`) as a
real process, with a private config folder (`CLAUDE_CONFIG_DIR`), cache (`XDG_CACHE_HOME`)
and HOME, in a working folder of the test's own.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write
from workbench.agent.claude.flags import CHOICES, ClaudeUsageError, shim_parser


class Claude:
    """The installed shim and the environment it runs in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.work = root / "work"
        self.work.mkdir(parents=True)
        self.config = root / "cfg"
        done = subprocess.run(
            [sys.executable, "-m", "workbench", "mock-agent", "--install-shim", str(self.bin)],
            capture_output=True, text=True, check=False, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == str(self.bin / "claude")
        self.env = {
            "PATH": f"{self.bin}:{os.environ['PATH']}",
            "HOME": str(root / "home"),
            "CLAUDE_CONFIG_DIR": str(self.config),
            "XDG_CACHE_HOME": str(root / "cache"),
            "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        }

    def rules(self, text: str, name: str = "rules.toml") -> Path:
        path = write(self.root, name, text)
        self.env["CLAUDELESS_SCENARIO"] = str(path)
        return path

    def run(self, *args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["claude", *args], cwd=self.work, env={**self.env, **env}, input=stdin, capture_output=True,
            text=True, check=False, timeout=60, stdin=None if stdin is not None else subprocess.DEVNULL,
        )  # fmt: skip

    def stream(self, *args: str, **env: str) -> list[dict[str, Any]]:
        done = self.run(*args, "--output-format", "stream-json", "--verbose", **env)
        assert done.stderr == "", done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]

    def transcript(self, session_id: str) -> list[dict[str, Any]]:
        files = list((self.config / "projects").glob(f"*/{session_id}.jsonl"))
        assert len(files) == 1, files
        return [json.loads(line) for line in files[0].read_text().splitlines()]


@pytest.fixture
def claude(tmp_path: Path) -> Claude:
    return Claude(tmp_path)


HELLO = """\
[[responses]]
pattern = { type = "contains", text = "hello" }
response = "Hello! How can I help you today?"

[default_response]
text = "No rule for that."
"""


# --------------------------------------------------------------------------- output formats


def test_text_is_the_answer_and_a_newline(claude: Claude) -> None:
    claude.rules(HELLO)
    done = claude.run("-p", "hello there")
    assert (done.returncode, done.stdout, done.stderr) == (0, "Hello! How can I help you today?\n", "")
    assert claude.run("-p", "what?").stdout == "No rule for that.\n"


def test_the_prompt_comes_from_stdin_when_stdin_is_not_a_terminal(claude: Claude) -> None:
    claude.rules(HELLO)
    assert claude.run("-p", stdin="well hello\n").stdout == "Hello! How can I help you today?\n"
    assert claude.run(stdin="hello without -p").stdout == "Hello! How can I help you today?\n"


def test_json_is_one_result_object(claude: Claude) -> None:
    claude.rules(HELLO)
    done = claude.run("-p", "hello", "--output-format", "json", "--model", "haiku")
    result = json.loads(done.stdout)
    assert list(result) == ["type", "subtype", "is_error", "duration_ms", "duration_api_ms", "num_turns", "result",
                            "session_id", "total_cost_usd", "usage", "modelUsage", "permission_denials", "uuid"]  # fmt: skip
    assert result["result"] == "Hello! How can I help you today?" and result["is_error"] is False
    usage = result["usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] == 8  # 32 characters at 4 a token
    assert result["total_cost_usd"] == pytest.approx(usage["input_tokens"] * 3e-6 + 8 * 15e-6)
    assert list(result["modelUsage"]) == ["claude-haiku-4-5-20251001"]


def test_json_with_verbose_is_an_array_of_every_message(claude: Claude) -> None:
    claude.rules(HELLO)
    messages = json.loads(claude.run("-p", "hello", "--output-format", "json", "--verbose").stdout)
    assert [(m["type"], m.get("subtype")) for m in messages] == [
        ("system", "init"), ("assistant", None), ("result", "success")
    ]  # fmt: skip


def test_stream_json_needs_verbose_as_in_claude_code(claude: Claude) -> None:
    claude.rules(HELLO)
    done = claude.run("-p", "hello", "--output-format", "stream-json")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "Error: When using --print, --output-format=stream-json requires --verbose\n"


def test_stream_json_tool_use_and_result_events(claude: Claude) -> None:
    claude.rules("""\
[[responses]]
pattern = { type = "any" }
[responses.response]
text = "Reading it."
[[responses.response.tool_calls]]
tool = "Read"
input = { file_path = "notes.txt" }
result = "line one"

[tool_execution]
mode = "mock"
""")
    events = claude.stream("-p", "read notes")
    assert [e["type"] for e in events] == ["system", "assistant", "assistant", "user", "result"]
    init, text, use, tool_result, result = events
    sid = init["session_id"]
    assert all(e["session_id"] == sid for e in events)
    assert text["message"]["content"] == [{"type": "text", "text": "Reading it."}]
    block = use["message"]["content"][0]
    assert (
        block["type"] == "tool_use"
        and block["name"] == "Read"
        and block["input"] == {"file_path": "notes.txt"}
    )
    assert block["id"].startswith("toolu_") and text["message"]["id"] == use["message"]["id"]
    assert tool_result["message"]["content"] == [
        {"tool_use_id": block["id"], "type": "tool_result", "content": "line one", "is_error": False}
    ]
    assert result["result"] == "Reading it." and result["num_turns"] == 1


def test_partial_messages_are_anthropic_stream_events(claude: Claude) -> None:
    claude.rules("""\
[[responses]]
pattern = { type = "any" }
[responses.response]
text = "A text that is longer than one chunk of twenty characters."
[[responses.response.tool_calls]]
tool = "Glob"
input = { pattern = "**/*.py" }
result = "a.py"

[tool_execution]
mode = "mock"
""")
    done = claude.run("-p", "x", "--include-partial-messages")
    assert done.returncode == 1
    assert (
        done.stderr == "Error: --include-partial-messages requires --print and --output-format=stream-json.\n"
    )
    events = claude.stream("-p", "x", "--include-partial-messages")
    kinds = [e["event"]["type"] if e["type"] == "stream_event" else e["type"] for e in events]
    assert kinds[:2] == ["system", "message_start"] and kinds[-3:] == ["message_stop", "user", "result"]
    text = "".join(e["event"]["delta"]["text"] for e in events
                   if e["type"] == "stream_event" and e["event"]["type"] == "content_block_delta"
                   and e["event"]["delta"]["type"] == "text_delta")  # fmt: skip
    raw = "".join(e["event"]["delta"]["partial_json"] for e in events
                  if e["type"] == "stream_event" and e["event"].get("delta", {}).get("type") == "input_json_delta")  # fmt: skip
    assert text == "A text that is longer than one chunk of twenty characters."
    assert json.loads(raw) == {"pattern": "**/*.py"}
    # each block's complete assistant message comes right before its content_block_stop
    stops = [i for i, k in enumerate(kinds) if k == "content_block_stop"]
    assert [kinds[i - 1] for i in stops] == ["assistant", "assistant"]
    delta = next(
        e["event"] for e in events if e["type"] == "stream_event" and e["event"]["type"] == "message_delta"
    )
    assert delta["delta"]["stop_reason"] == "tool_use"


# --------------------------------------------------------------------------- command line and exit codes


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (("-p",), "Error: Input must be provided either through stdin or as a prompt argument when using --print"),
        (("-p", "hi", "--session-id", "bad"), "Error: Invalid session ID. Must be a valid UUID."),
        (("-p", "hi", "--output-format", "xml"),
         "error: option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, json, "
         "stream-json."),
        (("-p", "hi", "--permission-mode", "bogus"),
         "error: option '--permission-mode <mode>' argument 'bogus' is invalid. Allowed choices are acceptEdits, "
         "bypassPermissions, default, delegate, dontAsk, plan."),
        (("-p", "hi", "--resume", "11111111-2222-3333-4444-555555555555"),
         "No conversation found with session ID: 11111111-2222-3333-4444-555555555555"),
        (("-p", "hi", "--frobnicate"), "error: unknown option '--frobnicate'"),
        (("-p", "hi", "--output-format="),
         "error: option '--output-format <format>' argument '' is invalid. Allowed choices are text, json, "
         "stream-json."),
        (("-p", "hi", "--thinking-display", "full", "--output-format", "xml"),
         "error: option '--thinking-display <display>' argument 'full' is invalid. Allowed choices are "
         "summarized, omitted."),
    ],
)  # fmt: skip
def test_refused_command_lines_say_what_claude_code_says_and_exit_1(
    claude: Claude, args: tuple[str, ...], stderr: str
) -> None:
    claude.rules(HELLO)
    done = claude.run(*args)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", stderr + "\n")


@pytest.mark.parametrize("flag", list(CHOICES))
def test_every_flag_with_a_set_of_values_refuses_others_and_takes_each_of_its_own(flag: str) -> None:
    """One table (CHOICES, commander's `.choices()` of Claude Code) decides for every such flag, including
    those otherwise read and ignored: a value outside it (an empty one too) is refused as Claude Code
    refuses it; each value in it is taken."""
    name, allowed = CHOICES[flag]
    for wrong in ("nope", "", allowed[0].upper()):
        with pytest.raises(ClaudeUsageError) as refused:
            shim_parser().parse_args(["-p", "hi", f"{flag}={wrong}"])
        assert str(refused.value) == (f"error: option '{flag} {name}' argument '{wrong}' is invalid. "
                                      f"Allowed choices are {', '.join(allowed)}.")  # fmt: skip
    for value in allowed:
        shim_parser().parse_args(["-p", "hi", flag, value])


def test_a_timeout_variable_that_is_no_decimal_number_is_ignored_not_a_crash(claude: Claude) -> None:
    """`CLAUDELESS_RESPONSE_DELAY_MS=²` (a digit to str.isdigit, none to int) crashed the shim, exit 3."""
    claude.rules(HELLO)
    for value in ("\u00b2", "\u0663", "soon"):
        done = claude.run("-p", "hello", CLAUDELESS_RESPONSE_DELAY_MS=value)
        assert (done.returncode, done.stderr) == (0, ""), done.stderr


def test_every_flag_an_orchestrator_passes_is_accepted(claude: Claude) -> None:
    claude.rules(HELLO)
    settings = write(claude.root, "settings.json", '{"permissions": {"allow": ["Read"]}}')
    done = claude.run(
        "-p", "hello", "--output-format", "stream-json", "--verbose", "--model", "sonnet",
        "--allowedTools", "Bash(git:*),Read", "Edit", "--disallowedTools", "WebFetch",
        "--permission-mode", "acceptEdits", "--session-id", "0b5e7a43-2c49-4c63-9d5f-2a1a8c0d3f11",
        "--settings", str(settings), "--append-system-prompt", "be brief", "--max-turns", "3",
        "--mcp-config", "{}", "--add-dir", "/tmp", "--debug", "--setting-sources=user,project",
        "--thinking", "adaptive", "--effort", "high", "--include-hook-events", "--max-thinking-tokens", "100",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    assert init["session_id"] == "0b5e7a43-2c49-4c63-9d5f-2a1a8c0d3f11"
    assert init["permissionMode"] == "acceptEdits" and init["model"] == "sonnet"
    assert "WebFetch" not in init["tools"] and "Bash" in init["tools"]
    assert claude.run("--version").stdout == "2.1.12 (Claude Code)\n"


def test_rules_come_from_the_flag_the_environment_or_the_install(claude: Claude, tmp_path: Path) -> None:
    other = write(tmp_path, "other.toml", '[default_response]\ntext = "from the flag"\n')
    claude.rules(HELLO)
    assert claude.run("-p", "hello", "--scenario", str(other)).stdout == "from the flag\n"
    baked = tmp_path / "baked"
    subprocess.run([sys.executable, "-m", "workbench", "mock-agent", str(other), "--install-shim", str(baked)],
                   check=True, capture_output=True, timeout=60)  # fmt: skip
    env = {k: v for k, v in claude.env.items() if k != "CLAUDELESS_SCENARIO"}
    done = subprocess.run([str(baked / "claude"), "-p", "x"], env=env, capture_output=True, text=True, timeout=60,
                          check=False, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.stdout == "from the flag\n"


def test_missing_or_invalid_rules_are_invalid_input_with_the_position(claude: Claude) -> None:
    done = claude.run("-p", "hi")
    assert done.returncode == 2 and "CLAUDELESS_SCENARIO" in done.stderr
    bad = claude.rules('[[responses]]\npatern = { type = "any" }\nresponse = "x"\n')
    done = claude.run("-p", "hi")
    assert done.returncode == 2 and done.stdout == ""
    assert f"{bad}:2:1: error: unknown field `patern`" in done.stderr


def test_changed_rules_are_read_again(claude: Claude) -> None:
    path = claude.rules('[default_response]\ntext = "first"\n')
    assert claude.run("-p", "x").stdout == "first\n"
    path.write_text('[default_response]\ntext = "second, and longer"\n')
    assert claude.run("-p", "x").stdout == "second, and longer\n"
    assert list((claude.root / "cache" / "workbench" / "claude-rules").glob("*.json"))


def test_workbench_mock_agent_dash_p_answers_the_same(claude: Claude) -> None:
    rules = claude.rules(HELLO)
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "mock-agent", str(rules), "-p", "hello", "--output-format", "json"],
        cwd=claude.work, env={**os.environ, **claude.env}, capture_output=True, text=True, check=False, timeout=60,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Hello! How can I help you today?"
    piped = subprocess.run(
        [sys.executable, "-m", "workbench", "mock-agent", str(rules)], input="hello on stdin\n", cwd=claude.work,
        env={**os.environ, **claude.env}, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert (piped.returncode, piped.stdout) == (0, "Hello! How can I help you today?\n"), piped.stderr


# --------------------------------------------------------------------------- failures


def test_a_rule_failure_is_claude_codes_api_error_in_every_format(claude: Claude) -> None:
    claude.rules("""\
[[responses]]
pattern = { type = "contains", text = "busy" }
failure = { type = "rate_limit", retry_after = 7 }
""")
    done = claude.run("-p", "busy?")
    assert done.returncode == 1 and done.stderr == ""
    assert done.stdout.startswith("API Error: 429 {") and '"type":"rate_limit_error"' in done.stdout
    result = json.loads(claude.run("-p", "busy?", "--output-format", "json").stdout)
    assert (result["subtype"], result["is_error"], result["api_error_status"]) == ("success", True, 429)
    assert result["result"].startswith("API Error: 429")
    events = claude.stream("-p", "busy?")
    error = events[1]
    assert error["type"] == "assistant" and error["error"] == "rate_limit"
    assert error["message"]["model"] == "<synthetic>" and events[-1]["is_error"] is True
    lines = claude.transcript(events[0]["session_id"])
    assert lines[-1]["isApiErrorMessage"] is True and lines[-1]["error"] == "rate_limit"


@pytest.mark.parametrize(
    ("failure", "text", "status"),
    [
        ("network-unreachable", "API Error: Connection error.", None),
        ("auth-error", "API Error: 401 ", 401),
        ("out-of-credits", "Credit balance is too low", 400),
    ],
)
def test_the_failure_flag_and_environment(
    claude: Claude, failure: str, text: str, status: int | None
) -> None:
    claude.rules(HELLO)
    result = json.loads(claude.run("-p", "hello", "--output-format", "json", "--failure", failure).stdout)
    assert result["result"].startswith(text) and result["api_error_status"] == status
    done = claude.run("-p", "hello", CLAUDELESS_FAILURE=failure)
    assert done.returncode == 1 and done.stdout.startswith(text)


# --------------------------------------------------------------------------- tool_execution


TOOLS = """\
[[responses]]
pattern = { type = "contains", text = "write" }
[responses.response]
text = "Writing."
[[responses.response.tool_calls]]
tool = "Write"
input = { file_path = "out.txt", content = "written for real" }
CANNED

[tool_execution]
mode = "MODE"
[tool_execution.tools.Write]
auto_approve = true
SETTING
"""


def tools(canned: str = "", mode: str = "live", setting: str = "") -> str:
    return TOOLS.replace("CANNED", canned).replace("MODE", mode).replace("SETTING", setting)


def tool_result(claude: Claude, *args: str) -> dict[str, Any]:
    events = claude.stream("-p", "write it", *args)
    return next(e for e in events if e["type"] == "user")["message"]["content"][0]


def test_live_runs_the_tool_for_real(claude: Claude) -> None:
    claude.rules(tools(canned="", mode="live", setting=""))
    result = tool_result(claude)
    assert result["is_error"] is False
    assert (claude.work / "out.txt").read_text() == "written for real"


def test_live_with_a_canned_result_runs_nothing(claude: Claude) -> None:
    claude.rules(tools(canned='result = "canned"', mode="live", setting=""))
    assert tool_result(claude)["content"] == "canned"
    assert not (claude.work / "out.txt").exists()


def test_mock_returns_the_canned_result_and_fails_without_one(claude: Claude) -> None:
    claude.rules(tools(canned='result = "canned"', mode="mock", setting=""))
    assert tool_result(claude)["content"] == "canned"
    claude.rules(tools(canned="", mode="mock", setting=""))
    result = tool_result(claude)
    assert (result["content"], result["is_error"]) == ("No mock result configured for tool 'Write'", True)
    assert not (claude.work / "out.txt").exists()


def test_per_tool_result_and_error(claude: Claude) -> None:
    claude.rules(tools(canned="", mode="mock", setting='result = "per tool"'))
    assert tool_result(claude)["content"] == "per tool"
    claude.rules(tools(canned='result = "canned"', mode="live", setting='error = "disk full"'))
    assert (tool_result(claude)["content"], tool_result(claude)["is_error"]) == ("disk full", True)


BASH = """\
[[responses]]
pattern = { type = "any" }
[responses.response]
text = ""
[[responses.response.tool_calls]]
tool = "Bash"
input = { command = "echo ran > ran.txt" }
"""


def test_a_tool_that_would_ask_is_refused_in_print_mode(claude: Claude) -> None:
    claude.rules(BASH)
    events = claude.stream("-p", "go")
    result = events[-1]
    use = events[1]["message"]["content"][0]
    assert result["permission_denials"] == [
        {"tool_name": "Bash", "tool_use_id": use["id"], "tool_input": {"command": "echo ran > ran.txt"}}
    ]
    refusal = events[2]["message"]["content"][0]
    assert refusal["is_error"] is True
    assert refusal["content"] == "Claude requested permissions to use Bash, but you haven't granted it yet."
    assert not (claude.work / "ran.txt").exists()


@pytest.mark.parametrize(
    "args",
    [("--allowedTools", "Bash(echo:*)"), ("--dangerously-skip-permissions",),
     ("--permission-mode", "bypassPermissions")],
)  # fmt: skip
def test_allowed_tools_and_modes_let_it_run(claude: Claude, args: tuple[str, ...]) -> None:
    claude.rules(BASH)
    events = claude.stream("-p", "go", *args)
    assert events[-1]["permission_denials"] == []
    assert (claude.work / "ran.txt").read_text() == "ran\n"


def test_ask_user_question_is_answered_from_the_rules_else_the_first_option(claude: Claude) -> None:
    claude.rules("""\
[[responses]]
pattern = { type = "any" }
[responses.response]
text = ""
[[responses.response.tool_calls]]
tool = "AskUserQuestion"
[responses.response.tool_calls.input]
questions = [
  { question = "Language?", header = "Lang", options = [{ label = "Rust" }, { label = "Python" }], multiSelect = false },
  { question = "License?", header = "Lic", options = [{ label = "MIT" }, { label = "Apache 2.0" }], multiSelect = false },
]

[tool_execution.tools.AskUserQuestion]
auto_approve = true
answers = { "Language?" = "Python" }
""")
    events = claude.stream("-p", "help me")
    user = next(e for e in events if e["type"] == "user")
    assert user["tool_use_result"]["answers"] == {"Language?": "Python", "License?": "MIT"}
    assert '"Language?"="Python", "License?"="MIT"' in user["message"]["content"][0]["content"]


def test_turns_continue_with_the_tool_results(claude: Claude) -> None:
    claude.rules("""\
[[responses]]
pattern = { type = "contains", text = "fix" }
[responses.response]
text = "Reading first."
[[responses.response.tool_calls]]
tool = "Read"
input = { file_path = "a.txt" }
result = "old text"

[[responses.turns]]
expect = { type = "contains", text = "old text" }
response = "Read it: old text."

[tool_execution]
mode = "mock"
""")
    events = claude.stream("-p", "fix a.txt")
    assert [e["type"] for e in events] == ["system", "assistant", "assistant", "user", "assistant", "result"]
    assert events[-1]["result"] == "Read it: old text." and events[-1]["num_turns"] == 2


# --------------------------------------------------------------------------- sessions


def test_resume_goes_on_in_the_same_session_with_the_rules_state(claude: Claude) -> None:
    claude.rules("""\
[[responses]]
pattern = { type = "any" }
response = "first answer"
max_matches = 1

[default_response]
text = "later answers"
""")
    first = claude.stream("-p", "one")
    sid = first[0]["session_id"]
    second = claude.stream("-p", "two", "--resume", sid)
    assert second[0]["session_id"] == sid and second[-1]["result"] == "later answers"
    third = claude.stream("-p", "three", "--continue")
    assert third[0]["session_id"] == sid
    lines = [line for line in claude.transcript(sid) if line["type"] in ("user", "assistant")]
    assert [line["message"]["content"] for line in lines if line["type"] == "user"] == ["one", "two", "three"]
    for before, after in itertools.pairwise(lines):
        assert after["parentUuid"] == before["uuid"]
    forked = claude.stream("-p", "four", "--resume", sid, "--fork-session")
    assert forked[0]["session_id"] != sid
    assert len(claude.transcript(forked[0]["session_id"])) > len(lines)


def test_session_id_in_use_and_no_persistence(claude: Claude) -> None:
    claude.rules(HELLO)
    sid = "3f2a1b0c-4d5e-4f60-8a7b-9c0d1e2f3a4b"
    assert claude.run("-p", "hello", "--session-id", sid).returncode == 0
    done = claude.run("-p", "hello", "--session-id", sid)
    assert (done.returncode, done.stderr) == (1, f"Error: Session ID {sid} is already in use.\n")
    events = claude.stream("-p", "hello", "--no-session-persistence")
    assert not list((claude.config / "projects").glob(f"*/{events[0]['session_id']}.jsonl"))


def test_sessions_are_where_claude_code_keeps_them(claude: Claude) -> None:
    claude.rules(HELLO)
    sid = claude.stream("-p", "hello")[0]["session_id"]
    project = (
        claude.config / "projects" / str(claude.work).replace("/", "-").replace("_", "-").replace(".", "-")
    )
    assert (project / f"{sid}.jsonl").is_file()
    index = json.loads((project / "sessions-index.json").read_text())
    assert index["version"] == 1
    [entry] = index["entries"]
    assert (entry["sessionId"], entry["firstPrompt"], entry["projectPath"]) == (
        sid,
        "hello",
        str(claude.work),
    )


def test_orchestrator_resumes_through_path(claude: Claude) -> None:
    """A small orchestrator, as such programs are written: `claude` from PATH, stream-json, --resume."""
    claude.rules("""\
[[responses]]
pattern = { type = "contains", text = "plan" }
response = "Step 1: write the code."
[[responses.turns]]
expect = { type = "contains", text = "go on" }
response = "Step 2: test it."

[default_response]
text = "Done."
""")
    script = write(
        claude.root,
        "orchestrate.py",
        """\
import json, subprocess, sys

def ask(*args):
    out = subprocess.run(["claude", "-p", *args, "--output-format", "stream-json", "--verbose"],
                         capture_output=True, text=True, check=True).stdout
    events = [json.loads(line) for line in out.splitlines()]
    result = events[-1]
    assert result["type"] == "result" and not result["is_error"], result
    return result["session_id"], result["result"]

sid, first = ask("make a plan")
again, second = ask("go on", "--resume", sid)
print(json.dumps({"same": sid == again, "answers": [first, second]}))
""",
    )
    done = subprocess.run([sys.executable, str(script)], cwd=claude.work, env=claude.env, capture_output=True,
                          text=True, check=False, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "same": True,
        "answers": ["Step 1: write the code.", "Step 2: test it."],
    }


def test_an_unwritable_config_folder_keeps_the_answer_and_warns(claude: Claude) -> None:
    claude.rules(HELLO)
    blocker = write(claude.root, "not-a-folder", "")
    done = claude.run("-p", "hello", CLAUDE_CONFIG_DIR=str(blocker))
    assert (done.returncode, done.stdout) == (0, "Hello! How can I help you today?\n")
    assert done.stderr.startswith(f"Warning: the session could not be saved in {blocker}: ")
    assert "Traceback" not in done.stderr


def test_max_turns_and_continue_without_a_session(claude: Claude) -> None:
    claude.rules("""\
[[responses]]
pattern = { type = "any" }
[responses.response]
text = "Step one."
[[responses.response.tool_calls]]
tool = "Read"
input = { file_path = "a.txt" }
result = "a"

[[responses.turns]]
expect = { type = "any" }
response = "Step two."

[tool_execution]
mode = "mock"
""")
    done = claude.run("-p", "go", "--continue")
    assert (done.returncode, done.stderr) == (1, "No conversation found to continue\n")
    result = claude.stream("-p", "go", "--max-turns", "1")[-1]
    assert (result["subtype"], result["is_error"], result["num_turns"]) == ("error_max_turns", True, 1)
    assert "result" not in result
    done = claude.run("-p", "go", "--max-turns", "1")
    assert (done.returncode, done.stdout) == (1, "Error: Reached max turns (1)\n")
    assert claude.stream("-p", "go", "--max-turns", "2")[-1]["result"] == "Step two."


# --------------------------------------------------------------------------- stream-json input (the Agent SDKs' way)


def test_stream_json_input_answers_control_requests_and_each_prompt(claude: Claude) -> None:
    claude.rules(HELLO)
    lines = [
        {
            "type": "control_request",
            "request_id": "req_1",
            "request": {"subtype": "initialize", "hooks": None},
        },
        {"type": "user", "message": {"role": "user", "content": "hello"}, "parent_tool_use_id": None},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "and now?"}]}},
    ]
    done = claude.run("--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
                      stdin="".join(json.dumps(line) + "\n" for line in lines))  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0] == {"type": "control_response", "response": {
        "subtype": "success", "request_id": "req_1",
        "response": {"commands": [], "output_style": "default", "models": []}}}  # fmt: skip
    assert [e["type"] for e in events[1:]] == ["system", "assistant", "result", "assistant", "result"]
    assert [e["result"] for e in events if e["type"] == "result"] == ["Hello! How can I help you today?",
                                                                      "No rule for that."]  # fmt: skip
    sid = events[1]["session_id"]
    users = [line for line in claude.transcript(sid) if line["type"] == "user"]
    assert [u["message"]["content"] for u in users] == ["hello", "and now?"]
    done = claude.run("-p", "x", "--input-format", "stream-json", "--output-format", "json")
    assert (done.returncode, done.stderr) == (
        1,
        "Error: --input-format=stream-json requires output-format=stream-json.\n",
    )


def test_the_claude_agent_sdk_drives_the_shim(claude: Claude) -> None:
    """The official Claude Agent SDK (Python) spawning the shim as its CLI."""
    sdk = pytest.importorskip("claude_agent_sdk")
    claude.rules(HELLO)

    async def ask() -> list[Any]:
        options = sdk.ClaudeAgentOptions(
            cli_path=str(claude.bin / "claude"), cwd=str(claude.work), env=claude.env
        )
        return [message async for message in sdk.query(prompt="hello from the SDK", options=options)]

    import asyncio

    messages = asyncio.run(ask())
    result = messages[-1]
    assert isinstance(result, sdk.ResultMessage) and result.result == "Hello! How can I help you today?"
    assert any(isinstance(m, sdk.AssistantMessage) for m in messages)
    assert claude.transcript(result.session_id)[2]["message"]["content"] == "hello from the SDK"


def test_a_failing_live_command_reads_as_claude_codes_bash_result(claude: Claude) -> None:
    claude.rules("""\
[[responses]]
pattern = { type = "any" }
[responses.response]
text = ""
[[responses.response.tool_calls]]
tool = "Bash"
input = { command = "echo out; echo err >&2; exit 3" }

[tool_execution.tools.Bash]
auto_approve = true
""")
    user = next(e for e in claude.stream("-p", "go") if e["type"] == "user")
    block = user["message"]["content"][0]
    assert block["is_error"] is True and block["content"].startswith("Exit code 3\n")
    assert "out" in block["content"] and "err" in block["content"]
    assert user["tool_use_result"] == {"stdout": "out", "stderr": "err", "interrupted": False, "isImage": False,
                                       "noOutputExpected": False}  # fmt: skip


def test_tools_limits_what_the_model_has(claude: Claude) -> None:
    claude.rules(BASH)
    events = claude.stream("-p", "go", "--tools", "Read,Grep", "--dangerously-skip-permissions")
    assert events[0]["tools"] == ["Grep", "Read"]
    result = next(e for e in events if e["type"] == "user")["message"]["content"][0]
    assert result["is_error"] is True
    assert result["content"] == "<tool_use_error>Error: No such tool available: Bash</tool_use_error>"
    assert not (claude.work / "ran.txt").exists()
    assert claude.stream("-p", "go", "--tools", "default")[0]["tools"][:3] == ["Task", "TaskOutput", "Bash"]


def test_timeouts_come_from_the_rules_else_the_environment_else_claudeless_defaults(tmp_path: Path) -> None:
    """Per call, even when the rules come from the cache (compiled once, without the environment)."""
    from workbench.agent.claude.rules_cache import load_rules, timeouts

    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    plain = write(tmp_path, "plain.toml", '[default_response]\ntext = "x"\n')
    fixed = write(
        tmp_path, "fixed.toml", '[default_response]\ntext = "x"\n[timeouts]\nresponse_delay_ms = 5\n'
    )
    for _ in range(2):  # the first call compiles, the second reads the cache
        rules = load_rules(plain, cache)
        assert timeouts(rules, cache) == {"exit_hint_ms": 2000, "compact_delay_ms": 20, "hook_timeout_ms": 5000,
                                          "mcp_timeout_ms": 30000, "response_delay_ms": 20}  # fmt: skip
        assert timeouts(rules, {"CLAUDELESS_RESPONSE_DELAY_MS": "0"})["response_delay_ms"] == 0
        assert (
            timeouts(load_rules(fixed, cache), {"CLAUDELESS_RESPONSE_DELAY_MS": "0"})["response_delay_ms"]
            == 5
        )
    assert type(load_rules(plain, cache)).__name__ == "SimpleNamespace"  # read back from the cache


@pytest.mark.parametrize(
    "state", ['{"counts": {"x": 1}, "active": [0]}', '{"counts": 3, "active": [9, 9]}', "[1]", "{"]
)
def test_a_damaged_rules_state_starts_afresh(claude: Claude, state: str) -> None:
    claude.rules(HELLO)
    sid = claude.stream("-p", "hello")[0]["session_id"]
    write(claude.config, f"workbench/rules-state/{sid}.json", state)
    done = claude.run("-p", "hello", "--resume", sid)
    assert (done.returncode, done.stdout) == (0, "Hello! How can I help you today?\n"), done.stderr


def test_the_claude_agent_sdk_client_keeps_one_session_and_resumes_it(claude: Claude) -> None:
    """ClaudeSDKClient's turns are one session; a later query(resume=...) goes on with the rules' state."""
    sdk = pytest.importorskip("claude_agent_sdk")
    claude.rules("""\
[[responses]]
pattern = { type = "contains", text = "plan" }
response = "Step 1."
[[responses.turns]]
expect = { type = "contains", text = "go on" }
response = "Step 2."
[[responses.turns]]
expect = { type = "contains", text = "go on" }
response = "Step 3."
""")

    async def converse() -> list[tuple[str, str]]:
        options = sdk.ClaudeAgentOptions(
            cli_path=str(claude.bin / "claude"), cwd=str(claude.work), env=claude.env
        )
        seen: list[tuple[str, str]] = []
        async with sdk.ClaudeSDKClient(options=options) as client:
            for prompt in ("make a plan", "go on"):
                await client.query(prompt)
                seen += [(m.result, m.session_id) async for m in client.receive_response()
                         if isinstance(m, sdk.ResultMessage)]  # fmt: skip
        options.resume = seen[-1][1]
        seen += [(m.result, m.session_id) async for m in sdk.query(prompt="go on", options=options)
                 if isinstance(m, sdk.ResultMessage)]  # fmt: skip
        return seen

    import asyncio

    seen = asyncio.run(converse())
    assert [text for text, _ in seen] == ["Step 1.", "Step 2.", "Step 3."]
    assert len({sid for _, sid in seen}) == 1


def test_without_a_config_dir_nothing_lands_in_home_and_resume_still_works(claude: Claude) -> None:
    """`mock-agent RULES -p` without `$CLAUDE_CONFIG_DIR` must not write the user's real `~/.claude`: its
    sessions go to a private folder under the temp folder, which outlives the call (`--resume`)."""
    rules = claude.rules(HELLO)
    temp = claude.root / "tmp"
    temp.mkdir()
    env = {**os.environ, **claude.env, "TMPDIR": str(temp)}
    del env["CLAUDE_CONFIG_DIR"]
    env.pop("CLAUDELESS_CONFIG_DIR", None)
    home = Path(env["HOME"])
    home.mkdir()

    def ask(*args: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "workbench", "mock-agent", str(rules), "-p", *args, "--output-format", "json"],
            cwd=claude.work, env=env, capture_output=True, text=True, check=False, timeout=60,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    first = ask("hello")
    assert list(home.rglob("*")) == [], "nothing in HOME"
    private = temp / f"workbench-claude-{os.getuid()}"
    assert oct(private.stat().st_mode & 0o777) == "0o700"
    assert list(private.glob(f"projects/*/{first['session_id']}.jsonl"))
    again = ask("hello again", "--resume", first["session_id"])
    assert again["session_id"] == first["session_id"], "the session was found again"


def test_a_rule_regex_that_backtracks_without_end_is_an_error_placed_at_it(claude: Claude) -> None:
    """`(a|a)+$` on this prompt held the shim for ever; now it is stopped after 1 s, exit 2."""
    rules = claude.rules('[[responses]]\npattern = { type = "regex", pattern = "(a|a)+$" }\nresponse = "x"\n')
    done = claude.run("-p", "a" * 42 + "!")
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.startswith(
        f"claude (workbench shim): {rules}:2:39: the rule's `regex` `(a|a)+$` was stopped"
    )
