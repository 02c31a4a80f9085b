"""`run --mode real-agent --drift warn|fail`: the replay's requests compared with the recorded ones."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli_process import workbench
from tests.record.helpers import HELLO, agent_command, record, serve_llm
from workbench.llm.conversation import ChatRequest, Message
from workbench.llm.drift import DriftCheck, compare, fold, request_shape, stable_system

RESPONSES_AGENT = Path(__file__).parent.parent / "responses_agent.py"


def test_drift_names_a_renamed_tool_when_the_agent_is_upgraded(tmp_path: Path) -> None:
    with serve_llm(tmp_path, HELLO) as url:
        done = record(
            tmp_path, url, "scenarios/hello.yaml", agent_command("anthropic"), "--prompt", "write hello.txt"
        )
    assert done.returncode == 0, done.stderr
    sidecar = json.loads((tmp_path / "scenarios" / "hello.requests.json").read_text())
    assert [t["name"] for t in sidecar["requests"][0]["tools"]] == ["write_file", "run_command"]
    assert sidecar["requests"][0]["params"]["model"] == "claude-test"
    same = workbench("run", "scenarios", "--mode", "real-agent", "--ci", "--drift", "fail", cwd=tmp_path)
    assert same.returncode == 0, same.stdout + same.stderr  # the same agent: nothing drifted
    assert "drift" not in same.stdout
    scenario = (
        tmp_path / "scenarios" / "hello.yaml"
    )  # the agent upgraded: its write tool is now `create_file`
    scenario.write_text(scenario.read_text().replace('"{api_key}"]', '"{api_key}", "renamed"]'))
    warned = workbench("run", "scenarios", "--mode", "real-agent", "--ci", "--drift", "warn", cwd=tmp_path)
    assert warned.returncode == 0, warned.stdout + warned.stderr
    renamed = "drift: requests 1-2: tool `write_file` renamed to `create_file` (same input schema)"
    assert f"warning: {renamed}" in warned.stdout
    failed = workbench("run", "scenarios", "--mode", "real-agent", "--ci", "--drift", "fail", cwd=tmp_path)
    assert failed.returncode == 1 and renamed in failed.stdout, failed.stdout


def test_the_agents_working_directory_and_the_time_in_its_system_prompt_are_no_drift(tmp_path: Path) -> None:
    """Agents tell the model where they run and when; the replay runs in another workspace, HOME and second.
    That said `system prompt changed: 123 -> 123 characters` on every replay of an unchanged agent, and then
    on every replay of Claude Code (its memory folder is named after the workspace: `-tmp-...-wb-ws-x1y2`),
    while a change after 'Working directory: PATH' on its line went unseen (the line was taken as the path)."""
    with serve_llm(tmp_path, HELLO) as url:
        done = record(tmp_path, url, "scenarios/hello.yaml", agent_command("openai-chat", "context"),
                      "--prompt", "write hello.txt")  # fmt: skip
    assert done.returncode == 0, done.stderr
    same = workbench("run", "scenarios", "--mode", "real-agent", "--ci", "--drift", "fail", cwd=tmp_path)
    assert same.returncode == 0 and "drift" not in same.stdout, same.stdout + same.stderr
    scenario = tmp_path / "scenarios" / "hello.yaml"  # the agent changed its prompt: that is drift
    recorded = scenario.read_text()
    scenario.write_text(recorded.replace('"context"]', '""]'))
    changed = workbench("run", "scenarios", "--mode", "real-agent", "--ci", "--drift", "warn", cwd=tmp_path)
    assert "drift: requests 1-2: system prompt shrank" in changed.stdout, changed.stdout + changed.stderr
    # a rule added on the line that states the working directory: the line is no longer taken as the folder
    scenario.write_text(recorded.replace('"context"]', '"context-rule"]'))
    ruled = workbench("run", "scenarios", "--mode", "real-agent", "--ci", "--drift", "warn", cwd=tmp_path)
    assert "drift: requests 1-2: system prompt grew" in ruled.stdout, ruled.stdout + ruled.stderr


def test_drift_without_a_sidecar_or_outside_real_agent_mode_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text('name: s\ncommand: ["true"]\ntimeline: []\n')
    wrong_mode = workbench("run", "s.yaml", "--drift", "warn", cwd=tmp_path)
    assert wrong_mode.returncode == 2 and "--drift needs --mode real-agent" in wrong_mode.stderr
    missing = workbench("run", "s.yaml", "--mode", "real-agent", "--drift", "warn", cwd=tmp_path)
    assert (
        missing.returncode != 0 and "s.requests.json: no recorded requests to compare with" in missing.stdout
    )


def test_compare_says_what_changed() -> None:
    tool = {"name": "write", "type": "function", "properties": ["content", "path"], "schema": "a"}
    before = {"tools": [tool], "system": {"chars": 100, "sha256": "x"}, "params": {"max_tokens": 100}}
    after = {"tools": [{**tool, "properties": ["content", "file_path"], "schema": "b"}],
             "system": {"chars": 180, "sha256": "y"}, "params": {"max_tokens": 200}}  # fmt: skip
    assert compare(before, after) == [
        "tool `write` re-schemed (new file_path; gone path)",
        "system prompt grew: 100 -> 180 characters",
        "parameter `max_tokens`: 100 -> 200",
    ]
    assert compare(before, before) == []


def changes(check: DriftCheck, request: ChatRequest) -> list[str]:
    """What ``check`` reports after one request."""
    check.check(request, "/v1/messages")
    return check.report()


def test_the_system_prompt_is_hashed_without_the_runs_folders_and_digits_from_version_2() -> None:

    def chat(system: str) -> ChatRequest:
        return ChatRequest("anthropic", "m", (Message("user", ("hi",)),), system=system)

    assert stable_system("cwd /tmp/ws-1/a, home /tmp/ws-1h, 2026-11-26", ["/tmp/ws-1", "/tmp/ws-1h"]) == (
        "cwd <path>/a, home <path>, #-#-#"
    )
    recorded = request_shape(chat("in /tmp/a at 10:00"), "/v1/messages", ["/tmp/a"])
    assert changes(DriftCheck([recorded], ["/tmp/bb"]), chat("in /tmp/bb at 11:30")) == []
    assert changes(DriftCheck([recorded], ["/tmp/bb"]), chat("in /tmp/bb, at 11:30")) == [
        "request 1: system prompt grew: 16 -> 17 characters"  # "in <path> at #:#", then a comma
    ]
    old = request_shape(chat("in /tmp/a at 10:00"), "/v1/messages", None)  # a version-1 sidecar: as it was
    assert changes(DriftCheck([old], ["/tmp/a"], version=1), chat("in /tmp/a at 10:00")) == []


def test_a_folder_named_after_the_workspace_is_the_workspace() -> None:
    """Claude Code names its project memory folder after the workspace (`/` and `_` as `-`), Gemini CLI its
    tmp folder after the workspace's name: the random part of that name differed in every replay, so
    --drift fail failed every replay of an unchanged Claude Code or Gemini CLI."""

    def chat(workspace: str) -> ChatRequest:
        folded, name = workspace.replace("/", "-").replace("_", "-"), workspace.rsplit("/", 1)[-1]
        system = (
            f"Primary working directory: {workspace}\nMemory at /h/.claude/projects/{folded}/memory/.\n"
            f"Notes at /h/.gemini/tmp/{name}/notes.md."
        )
        return ChatRequest("anthropic", "m", (Message("user", ("hi",)),), system=system)

    assert stable_system("at -tmp-r-wb-ws-p1-ab_c/m and /tmp/r/wb-ws-p1-ab_c", ["/tmp/r/wb-ws-p1-ab_c"]) == (
        "at <path>/m and <path>"
    )
    assert stable_system("a tmp-r-wb-ws-p1-ab-cd", ["/tmp/r/wb-ws-p1-ab"]) == "a tmp-r-wb-ws-p#-ab-cd"
    # a random name that ends or starts with `_` (one in 37 of tempfile's): its folded `-` is the folder's too
    for workspace in ("/tmp/r/wb-ws-p1-abc1_", "/tmp/r/wb-ws-p1-_abc1", "/tmp/r/wb-ws-p1-ab__"):
        folded = workspace.replace("/", "-").replace("_", "-")
        assert stable_system(f"in {folded}/m", [workspace]) == "in <path>/m", workspace
    recorded = request_shape(chat("/tmp/r/wb-ws-p1-x_7k"), "/v1/messages", ["/tmp/r/wb-ws-p1-x_7k"])
    replay = DriftCheck([recorded], ["/tmp/r/wb-ws-p2-qzw9"])
    assert changes(replay, chat("/tmp/r/wb-ws-p2-qzw9")) == []
    old = request_shape(chat("/tmp/r/wb-ws-p1-x_7k"), "/v1/messages", ["/tmp/r/wb-ws-p1-x_7k"], version=2)
    v2 = DriftCheck([old], ["/tmp/r/wb-ws-p1-x_7k"], version=2)
    assert changes(v2, chat("/tmp/r/wb-ws-p1-x_7k")) == []  # a version-2 sidecar is compared as it was made


def test_a_change_seen_in_many_requests_is_one_line_naming_them() -> None:
    """An upgraded agent changes every request alike: a new tool was one warning per request (fifty lines
    for a fifty-request session), and a parameter the agent started to send read `null -> 0.2`."""
    found = [(1, "tool `ls` newly offered"), (2, "tool `ls` newly offered"), (2, "system prompt grew: 1 -> 2"),
             (3, "tool `ls` newly offered"), (5, "tool `ls` newly offered")]  # fmt: skip
    assert fold(found) == [
        "requests 1-3, 5: tool `ls` newly offered",
        "request 2: system prompt grew: 1 -> 2",
    ]
    before = {"params": {"model": "m", "top_p": 1}}
    assert compare(before, {"params": {"model": "m", "temperature": 0.2}}) == [
        "parameter `temperature` newly sent: 0.2",
        "parameter `top_p` no longer sent (it was 1)",
    ]


def test_a_replay_with_fewer_or_more_requests_says_so_in_the_singular_where_there_is_one() -> None:
    recorded = request_shape(ChatRequest("anthropic", "m", (Message("user", ("hi",)),)), "/v1/messages", [])
    fewer = DriftCheck([recorded, recorded], [])
    assert changes(fewer, ChatRequest("anthropic", "m", (Message("user", ("hi",)),))) == [
        "the agent sent 1 conversation request, the recording 2"
    ]
    more = DriftCheck([recorded], [])
    more.check(ChatRequest("anthropic", "m", (Message("user", ("hi",)),)), "/v1/messages")
    assert changes(more, ChatRequest("anthropic", "m", (Message("user", ("hi",)),))) == [
        "request 2: the recording has only 1 request"
    ]


def test_a_tool_whose_description_changed_is_drift(tmp_path: Path) -> None:
    """What a tool tells the model it does decides when the model calls it; a changed description with the
    same schema went unseen (only the input schema was hashed)."""
    agent = tmp_path / "agent.py"
    agent.write_text(RESPONSES_AGENT.read_text())
    with serve_llm(tmp_path, HELLO) as url:
        done = record(tmp_path, url, "scenarios/hello.yaml", [sys.executable, str(agent)],
                      "--prompt", "write hello.txt")  # fmt: skip
    assert done.returncode == 0, done.stderr
    same = workbench("run", "scenarios", "--ci", "--drift", "fail", cwd=tmp_path)
    assert same.returncode == 0 and "drift" not in same.stdout, same.stdout + same.stderr
    agent.write_text(agent.read_text().replace("Read a text file", "Read any file"))  # the agent upgraded
    changed = workbench("run", "scenarios", "--ci", "--drift", "fail", cwd=tmp_path)
    said = "drift: requests 1-2: tool `open_file` re-described (what it tells the model it does changed)"
    assert changed.returncode == 1 and said in changed.stdout, changed.stdout + changed.stderr
