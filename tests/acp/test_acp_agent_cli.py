"""`workbench acp-agent` as a subprocess: the SDK client over stdio, and what a broken client gets."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.processes import running, unique_seconds
from workbench.acp.client import TurnRecord
from workbench.acp.guard import MAX_LINE_BYTES
from workbench.acp.scp import DirectRunner, TestContext

from .helpers import scenario_file, workspace
from .test_acp_agent import WRITE_AND_RUN

AGENT = [sys.executable, "-m", "workbench", "acp-agent"]


def test_over_stdio_a_faithful_client_passes_and_the_agent_exits_0(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, WRITE_AND_RUN)
    ws = workspace(tmp_path)
    turns: list[TurnRecord] = []

    async def script(ctx: TestContext) -> None:
        turns.append(await (await ctx.start_session()).say("Create hello.txt"))

    runner = DirectRunner([*AGENT, str(path)], ws, wire=tmp_path / "acp.jsonl", timeout=60)
    result = asyncio.run(runner.run(script))
    assert turns[0].text == "Writing hello.txt.Done." and (ws / "hello.txt").read_text() == "hi\n"
    frames = [json.loads(line) for line in (tmp_path / "acp.jsonl").read_text().splitlines()]
    assert len(frames) == result.messages
    assert frames[0]["dir"] == "client->agent" and frames[0]["message"]["method"] == "initialize"
    assert any(
        f["dir"] == "agent->client" and f["message"].get("method") == "terminal/create" for f in frames
    )


def _raw(path: Path, lines: list[str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AGENT, str(path)], input="".join(line + "\n" for line in lines), capture_output=True,
                          text=True, cwd=cwd, timeout=timeout, check=False)  # fmt: skip


def _msg(method: str, params: dict[str, Any], ident: int | None = None) -> str:
    frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        frame["id"] = ident
    return json.dumps(frame)


def test_a_client_that_sends_a_wrong_prompt_and_leaves_early_fails_the_run_with_scenario_lines(
    tmp_path: Path,
) -> None:
    path = scenario_file(tmp_path, WRITE_AND_RUN)
    ws = workspace(tmp_path)
    done = _raw(path, [
        _msg("initialize", {"protocolVersion": 1}, 0),
        _msg("session/new", {"cwd": str(ws), "mcpServers": []}, 1),
    ], ws)  # fmt: skip
    assert done.returncode == 1
    assert f"{path}:4: the client never sent the prompt 'Create hello.txt'" in done.stderr
    assert "Traceback" not in done.stderr


def test_malformed_lines_and_unknown_methods_get_json_rpc_errors_not_silence(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, "name: empty\ntimeline: []\n")
    done = _raw(path, [
        "{not json",
        '{"hello": "world"}',
        _msg("initialize", {"protocolVersion": 1}, 0),
        _msg("no/such_method", {}, 1),
        _msg("session/prompt", {"sessionId": "nope", "prompt": []}, 2),
    ], tmp_path)  # fmt: skip
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    errors = {r.get("id"): r["error"]["code"] for r in replies if "error" in r}
    assert [r["error"]["code"] for r in replies if "error" in r and r["id"] is None] == [-32700, -32600]
    assert (errors[1], errors[2]) == (-32601, -32602)
    assert any(r.get("id") == 0 and r["result"]["protocolVersion"] == 1 for r in replies)
    assert "line 1 is not JSON" in done.stderr and "line 2 is not a JSON-RPC 2.0" in done.stderr
    assert "Traceback" not in done.stderr and done.returncode == 0


@pytest.mark.parametrize(
    ("line", "code", "said"),
    [
        ("[" * 100_000 + "]" * 100_000, -32700, "nested too deeply"),
        ("[" * 5000 + "]" * 5000, -32700, "nested too deeply"),
        ('{"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": ' + "[" * 500 + "]" * 500 + "}", -32600,
         "nested too deeply"),
        ('{"jsonrpc": "2.0", "method": "x", "params": "' + "a" * (MAX_LINE_BYTES + 1024) + '"}', -32600,
         "longer than"),
    ],
    ids=["100,000 deep", "5,000 deep", "500 deep params", "over the line limit"],
)  # fmt: skip
def test_a_line_too_deep_or_too_long_is_an_error_reply_and_the_agent_goes_on(
    tmp_path: Path, line: str, code: int, said: str
) -> None:
    path = scenario_file(tmp_path, "name: empty\ntimeline: []\n")
    done = _raw(path, [line, _msg("initialize", {"protocolVersion": 1}, 0)], tmp_path, timeout=120)
    replies = [json.loads(reply) for reply in done.stdout.splitlines()]
    assert [r["error"]["code"] for r in replies if "error" in r] == [code], done.stderr[-2000:]
    assert said in done.stderr
    assert any(r.get("id") == 0 and r["result"]["protocolVersion"] == 1 for r in replies)  # answered after it
    assert "Traceback" not in done.stderr and done.returncode == 0


def test_an_over_long_line_is_never_read_whole() -> None:
    """The guard drops a long line as it streams past: what it holds stays near the limit, not the line."""
    from workbench.acp.guard import guard_stream

    async def main() -> tuple[list[str], bytes, int]:
        source = asyncio.StreamReader(limit=1024)
        target = asyncio.StreamReader()
        sent: list[bytes] = []
        reports: list[str] = []
        peak = 0

        class Writer:
            def write(self, data: bytes) -> None:
                sent.append(data)

            async def drain(self) -> None:
                pass

        task = asyncio.ensure_future(guard_stream(source, target, Writer(), reports.append, 1024))  # type: ignore[arg-type]
        for _ in range(1000):  # a 1 MB line, fed in pieces as a pipe would
            source.feed_data(b"x" * 1024)
            await asyncio.sleep(0)
            peak = max(peak, len(source._buffer))  # type: ignore[attr-defined]
        source.feed_data(b"\n" + _msg("initialize", {}, 0).encode() + b"\n")
        source.feed_eof()
        await task
        return reports, b"".join(sent) + b"|" + await target.read(), peak

    reports, out, peak = asyncio.run(main())
    assert len(reports) == 1 and "longer than" in reports[0]
    errors, passed = out.split(b"|")
    assert json.loads(errors)["error"]["code"] == -32600
    assert json.loads(passed)["method"] == "initialize"
    assert peak <= 4 * 1024


def _mid_turn(tmp_path: Path, marker: str) -> subprocess.Popen[str]:
    """`workbench acp-agent` in a turn whose command (`sleep MARKER`) runs now."""
    path = scenario_file(tmp_path, f"""\
        name: long-command
        timeline:
          - userInputs:
              - relativeTime: 0
                input: 'wait'
          - agentToolUse:
              toolName: runCmd
              args: {{cmd: "sleep {marker}"}}
        """)  # fmt: skip
    ws = workspace(tmp_path)
    proc = subprocess.Popen([*AGENT, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ws)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    for line in (_msg("initialize", {"protocolVersion": 1}, 0), _msg("session/new", {"cwd": str(ws), "mcpServers": []}, 1),
                 _msg("session/prompt", {"sessionId": "wb-1", "prompt": [{"type": "text", "text": "wait"}]}, 2)):  # fmt: skip
        proc.stdin.write(line + "\n")
    proc.stdin.flush()
    while not running(marker):  # the command runs: the turn is in flight
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.05)
    return proc


def test_a_client_that_disconnects_mid_turn_ends_the_agent_and_its_command(tmp_path: Path) -> None:
    marker = unique_seconds(600)
    proc = _mid_turn(tmp_path, marker)
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the agent did not end when the client left")
    stderr = proc.stderr.read() if proc.stderr else ""
    assert code == 1 and "s.yaml:4: the client closed the connection during this turn" in stderr
    assert running(marker) == []


def test_stdin_may_be_a_file_or_dev_null(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, "name: empty\ntimeline: []\n")
    messages = tmp_path / "in.jsonl"
    messages.write_text(_msg("initialize", {"protocolVersion": 1}, 0) + "\n")
    for source in (messages, Path("/dev/null")):
        with source.open() as stdin:
            done = subprocess.run([*AGENT, str(path)], stdin=stdin, capture_output=True, text=True, timeout=60,
                                  check=False)  # fmt: skip
        assert (done.returncode, done.stderr) == (0, "")
        if source == messages:
            assert json.loads(done.stdout)["result"]["protocolVersion"] == 1


def test_a_client_that_leaves_before_it_opens_a_session_fails_naming_the_prompts_it_never_sent(
    tmp_path: Path,
) -> None:
    """A client that crashes after `initialize` never sent a prompt either: exit 1, as when it leaves with a
    session open (it exited 0, a client under test that died at start passed)."""
    path = scenario_file(tmp_path, WRITE_AND_RUN)
    done = _raw(path, [_msg("initialize", {"protocolVersion": 1}, 0)], tmp_path)
    assert done.returncode == 1, done.stderr
    assert (
        "s.yaml:4: the client never sent the prompt 'Create hello.txt' (it opened no session)" in done.stderr
    )


@pytest.mark.parametrize("asked", [0, 2, 65535])
def test_the_agent_answers_initialize_with_the_one_protocol_version_it_speaks(
    tmp_path: Path, asked: int
) -> None:
    """ACP's negotiation: the agent answers the version asked for if it speaks it, else the latest it speaks.
    It speaks 1 only (the SDK's); asked for 0 (the pre-release protocol) it answered 0."""
    path = scenario_file(tmp_path, "name: empty\ntimeline: []\n")
    done = _raw(path, [_msg("initialize", {"protocolVersion": asked}, 0)], tmp_path)
    assert json.loads(done.stdout)["result"]["protocolVersion"] == 1, done.stderr


def test_what_the_client_may_not_send_is_refused_saying_why(tmp_path: Path) -> None:
    """ACP's rules for clients, checked: a relative `cwd`, a prompt with content the agent did not offer
    (`promptCapabilities`), a mode the agent never listed; each was accepted silently, so a client breaking
    them passed here and failed against real agents. Prompts never sent name their session when several."""
    path = scenario_file(tmp_path, WRITE_AND_RUN)
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    done = _raw(path, [
        _msg("initialize", {"protocolVersion": 1}, 0),
        _msg("session/new", {"cwd": "relative/dir", "mcpServers": []}, 1),
        _msg("session/new", {"cwd": str(tmp_path), "mcpServers": []}, 2),
        _msg("session/prompt", {"sessionId": "wb-1", "prompt": [{"type": "text", "text": "Create hello.txt"}, image]}, 3),
        _msg("session/set_mode", {"sessionId": "wb-1", "modeId": "zzz"}, 4),
        _msg("session/new", {"cwd": str(tmp_path), "mcpServers": []}, 5),
    ], tmp_path)  # fmt: skip
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert replies[1]["error"]["code"] == -32602 and "absolute" in json.dumps(replies[1]["error"])
    assert replies[3]["error"]["code"] == -32602
    assert "promptCapabilities.image" in json.dumps(replies[3]["error"])
    assert replies[4]["error"]["code"] == -32602 and "no modes" in json.dumps(replies[4]["error"])
    assert done.returncode == 1
    assert ("s.yaml:4: the prompt has image content, which the agent did not offer "
            "(promptCapabilities.image is false in its initialize answer)") in done.stderr  # fmt: skip
    assert "s.yaml:4: the client never sent the prompt 'Create hello.txt' (session wb-1)" in done.stderr
    assert "s.yaml:4: the client never sent the prompt 'Create hello.txt' (session wb-2)" in done.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_an_agent_terminated_mid_turn_ends_its_commands_first(tmp_path: Path, sig: signal.Signals) -> None:
    """An editor ends its agent with SIGTERM (or the agent's terminal hangs up): the command a tool was
    running was left behind, orphaned, since only Ctrl-C and a closed stdin were handled."""
    marker = unique_seconds(600)
    proc = _mid_turn(tmp_path, marker)
    assert proc.stdin is not None
    proc.send_signal(sig)
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the agent did not end on the signal")
    finally:
        proc.stdin.close()
    assert code == 128 + sig, proc.stderr.read() if proc.stderr else ""
    assert running(marker) == []


PERMISSION_THEN_WRITE = """\
name: ask-first
timeline:
  - userInputs: [[0, go]]
  - agentPermissionRequest:
      decision: {outcome: cancelled}
  - agentToolUse:
      toolName: writeFile
      args: {path: a.txt, content: "a"}
"""


def test_a_client_that_cancels_must_answer_its_pending_permission_request_cancelled(tmp_path: Path) -> None:
    """ACP: a client that cancels a turn answers its pending permission requests `cancelled`. One that left
    the request unanswered passed: the agent ended the turn all the same, and said nothing."""
    from acp import PROTOCOL_VERSION, Client, spawn_agent_process, text_block

    path = scenario_file(tmp_path, PERMISSION_THEN_WRITE)
    asked = asyncio.Event()

    class Editor(Client):
        async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
            return None

        async def request_permission(self, session_id: str, tool_call: Any, options: Any, **kw: Any) -> Any:
            asked.set()
            await asyncio.sleep(3600)  # never answered, not even after the cancel

    async def main() -> tuple[str, int | None, str]:
        async with spawn_agent_process(Editor(), sys.executable, "-m", "workbench", "acp-agent", str(path),
                                       cwd=str(tmp_path), transport_kwargs={"stderr": subprocess.PIPE}) as (conn, proc):  # fmt: skip
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            turn = asyncio.ensure_future(
                conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
            )
            await asyncio.wait_for(asked.wait(), 60)
            await conn.cancel(session_id=session.session_id)
            stop = (await asyncio.wait_for(turn, 60)).stop_reason
        assert proc.stderr is not None
        return stop, proc.returncode, (await proc.stderr.read()).decode()

    stop, code, stderr = asyncio.run(main())
    assert stop == "cancelled" and code == 1, stderr
    said = "left its permission request unanswered: ACP wants the answer `cancelled`"
    assert f"s.yaml:4: the client cancelled the turn and {said}" in stderr, stderr
