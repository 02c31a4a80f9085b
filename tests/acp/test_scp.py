"""SCP-style scripts: one script under the direct and the in-process runner, and folders `workbench run` accepts."""

from __future__ import annotations

import asyncio
import inspect
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.acp.mock import PromptAgent
from workbench.acp.scp import AcpError, AcpTimeout, DirectRunner, InProcessRunner, TestContext

from .helpers import workspace

ECHO = Path(__file__).parent / "scp_echo"


async def _script(ctx: TestContext) -> None:
    session = await ctx.start_session()
    turn = await session.say("Hello, world")
    assert (turn.text, turn.stop_reason) == ("Hello, user", "end_turn")
    await session.send("again")
    assert await session.read_response() == "echo: again"
    ctx.log("info", "done")


def _reply(text: str) -> list[str]:
    return ["Hello, ", "user"] if text == "Hello, world" else [f"echo: {text}"]


def test_the_same_script_passes_under_both_runners_with_the_same_wire(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    direct = asyncio.run(
        DirectRunner([sys.executable, str(ECHO / "mock_agent.py")], ws, wire=tmp_path / "d.jsonl").run(
            _script
        )
    )
    inproc = asyncio.run(
        InProcessRunner(PromptAgent(_reply, name="basic-echo"), ws, wire=tmp_path / "i.jsonl").run(_script)
    )
    assert direct.logs == inproc.logs == [("info", "done")]
    assert [t.text for t in direct.turns] == [t.text for t in inproc.turns] == ["Hello, user", "echo: again"]

    def shape(path: Path) -> list[tuple[str, str]]:
        frames = [json.loads(line) for line in path.read_text().splitlines()]
        return [(f["dir"], f["message"].get("method") or "response") for f in frames]

    assert shape(tmp_path / "d.jsonl") == shape(tmp_path / "i.jsonl")
    assert direct.messages == 11


def test_an_agent_that_never_answers_times_out_naming_the_last_messages(tmp_path: Path) -> None:
    async def never(text: str) -> str:
        await asyncio.sleep(3600)
        return ""

    with pytest.raises(AcpTimeout) as info:
        asyncio.run(InProcessRunner(PromptAgent(never), workspace(tmp_path), timeout=1).run(_script))
    message = str(info.value)
    line = inspect.getsourcelines(_script)[1] + 2  # its `say`
    assert info.value.line == line
    assert message.startswith(f"no answer within 1 s: the script waits at line {line} "
                              '(turn = await session.say("Hello, world")) for the agent; the last messages were:')  # fmt: skip
    assert 'client->agent: {"jsonrpc": "2.0", "id": 2, "method": "session/prompt"' in message


def test_an_agent_that_dies_mid_turn_is_a_clear_error_with_its_exit_code(tmp_path: Path) -> None:
    message = _direct_error(
        tmp_path,
        "import os, sys\nfrom workbench.acp.mock import PromptAgent, serve\n"
        "def reply(text):\n    print('going down', file=sys.stderr, flush=True)\n    os._exit(7)\n"
        "serve(PromptAgent(reply))\n",
    )
    assert "the agent closed the connection during the turn 'Hello, world' (exit code 7)" in message
    assert "going down" in message


def _direct_error(tmp_path: Path, source: str) -> str:
    """The AcpError the echo script ends with against the Python agent ``source``, run on stdio."""
    agent = tmp_path / "agent.py"
    agent.write_text(source)
    with pytest.raises(AcpError) as info:
        asyncio.run(DirectRunner([sys.executable, str(agent)], workspace(tmp_path), timeout=60).run(_script))
    return str(info.value)


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "workbench", "run", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, check=False)  # fmt: skip


def test_workbench_run_accepts_an_scp_folder_and_reports_a_failing_assert_at_its_line(tmp_path: Path) -> None:
    good = tmp_path / "suite" / "echo"
    shutil.copytree(ECHO, good)
    bad = tmp_path / "suite" / "echo-bad"
    shutil.copytree(ECHO, bad)
    user = bad / "mock_user.py"
    user.write_text(user.read_text().replace('"echo: again"', '"something else"'))
    (bad / "scenario.json").write_text('{"name": "echo-bad", "runners": ["in-process"]}')
    done = _run(str(tmp_path / "suite"), "--report", str(tmp_path / "r.json"), cwd=tmp_path)
    report = json.loads((tmp_path / "r.json").read_text())
    by_name = {s["name"]: s for s in report["scenarios"]}
    assert done.returncode == 1, done.stderr
    assert by_name["basic-echo"]["status"] == "passed"
    failure = by_name["echo-bad"]["failures"][0]
    assert (failure["kind"], failure["line"]) == ("assert", 11)
    assert failure["message"].startswith(
        '[in-process] assert await session.read_response() == "something else"'
    )
    assert report["summary"]["passed"] == 1 and report["summary"]["failed"] == 1


def test_a_bad_scenario_json_is_invalid_input_at_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "echo"
    shutil.copytree(ECHO, folder)
    (folder / "scenario.json").write_text('{\n  "name": "x",\n  "runner": ["direct"]\n}\n')
    done = subprocess.run([sys.executable, "-m", "workbench", "validate", str(folder)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 2
    assert "echo/scenario.json:3:3" in done.stderr and "unknown key `runner`" in done.stderr


def test_an_agent_that_writes_garbage_on_stdout_is_named_not_ignored(tmp_path: Path) -> None:
    message = _direct_error(
        tmp_path,
        "import sys\nprint('Starting up...', flush=True)\n"
        "from workbench.acp.mock import PromptAgent, serve\n"
        "serve(PromptAgent(lambda text: ['Hello, ', 'user'] if text == 'Hello, world' else ['echo: ' + text]))\n",
    )
    assert (
        message
        == "the agent's stdout is not JSON-RPC: line 1 is not JSON: Expecting value: line 1 column 1 (char 0): 'Starting up...'"
    )


def test_the_reference_basic_echo_runs_as_written_from_a_relative_path(tmp_path: Path) -> None:
    """SCP's own example (`mock_agent.ts` + `mock_user.ts`) in Python form, given as a relative path, as a
    newcomer types it: the agent still starts (it runs in the workspace, not in the folder)."""
    shutil.copytree(Path(__file__).parent / "scp_reference", tmp_path / "scp")
    done = _run("scp/basic-echo", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert (entry["name"], entry["status"]) == ("basic-echo", "passed")
    broken = tmp_path / "scp" / "basic-echo" / "mock_user.py"
    broken.write_text(broken.read_text().replace('say("Hello, world")', 'say("Hi")'))
    done = _run("scp/basic-echo", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "Expected 'Hello, user', got 'I don't understand: Hi'" in done.stdout


@pytest.mark.parametrize(
    ("script", "text", "where", "message"),
    [
        ("mock_agent.py", "def broken(:\n", "echo/mock_agent.py:1:12", "invalid Python: invalid syntax"),
        ("mock_user.py", "import asyncio\n\n\nasync def mock_user(ctx)\n", "echo/mock_user.py:4:25", "invalid Python: expected ':'"),
        ("mock_user.py", "async def main(ctx):\n    pass\n", "echo/mock_user.py:1:1",
         "the script defines no `mock_user`: an SCP user script is `async def mock_user(ctx: TestContext) -> None`"),
    ],
)  # fmt: skip
def test_a_script_that_cannot_run_is_invalid_input_at_its_line_for_validate_and_run(
    tmp_path: Path, script: str, text: str, where: str, message: str
) -> None:
    folder = tmp_path / "echo"
    shutil.copytree(ECHO, folder)
    (folder / script).write_text(text)
    done = subprocess.run([sys.executable, "-m", "workbench", "validate", "echo"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{where}: error: {message}" in done.stderr
    done = _run("echo", cwd=tmp_path)
    assert done.returncode == 2 and f"{where}: validation: {message}" in done.stdout, (
        done.stdout + done.stderr
    )
    assert "Traceback" not in done.stdout + done.stderr and "_wb_scp_user" not in done.stdout


def test_a_script_that_outlives_its_timeout_is_failed_where_it_waits(tmp_path: Path) -> None:
    """The timeout names the script's line it was waiting at, and whether it waited for the agent: a script
    stuck in its own code ('await asyncio.sleep(...)') was reported at line 1 as 'no answer within 15 s',
    blaming an agent that had answered everything."""
    folder = tmp_path / "hang"
    shutil.copytree(ECHO, folder)
    (folder / "mock_user.py").write_text(
        "import asyncio\n\n\nasync def mock_user(ctx):\n    session = await ctx.start_session()\n"
        "    await asyncio.sleep(3600)\n"
    )
    (folder / "scenario.json").write_text('{"name": "hang", "timeout": 2}')
    done = _run(str(folder), "--report", str(tmp_path / "r.json"), cwd=tmp_path)
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    (failure,) = entry["failures"]
    assert done.returncode == 1, done.stderr
    assert (failure["kind"], failure["line"]) == ("timing", 6), failure
    assert failure["message"].startswith(
        "[direct] the script did not finish within 2 s: it waits at line 6 (await asyncio.sleep(3600)), "
        "not for the agent; the last messages were:"
    ), failure["message"]


def test_a_failing_assert_shows_the_values_it_compared(tmp_path: Path) -> None:
    """`assert turn.text == "Hello, someone else"` failed with only its source: what the agent said was
    nowhere. The values of the names and attributes compared are shown, as pytest shows them."""
    folder = tmp_path / "values"
    shutil.copytree(ECHO, folder)
    (folder / "mock_user.py").write_text(
        "async def mock_user(ctx):\n    session = await ctx.start_session()\n"
        "    turn = await session.say('Hello, world')\n    expected = 'Hello, someone else'\n"
        "    assert (turn.text, turn.stop_reason) == (expected, 'end_turn')\n"
    )
    (folder / "scenario.json").write_text('{"name": "values"}')
    _run(str(folder), "--report", str(tmp_path / "r.json"), cwd=tmp_path)
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    (failure,) = entry["failures"]
    assert (failure["kind"], failure["line"]) == ("assert", 5)
    assert failure["message"] == (
        "[direct] assert (turn.text, turn.stop_reason) == (expected, 'end_turn'): "
        "turn.text = 'Hello, user', turn.stop_reason = 'end_turn', expected = 'Hello, someone else'"
    )


def test_an_agent_that_crashes_is_failed_at_its_own_line(tmp_path: Path) -> None:
    """The agent's traceback was quoted, but the failure stood at mock_user.py:1, a line with nothing wrong."""
    folder = tmp_path / "crash"
    shutil.copytree(ECHO, folder)
    (folder / "mock_agent.py").write_text('import json\n\njson.loads("{bad")\n')
    (folder / "scenario.json").write_text('{"name": "crash"}')
    done = _run(str(folder), "--report", str(tmp_path / "r.json"), cwd=tmp_path)
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    (failure,) = entry["failures"]
    assert (failure["line"], failure["kind"]) == (3, "process"), failure
    assert failure["message"].startswith(
        "[direct] the agent closed the connection before answering initialize"
    )
    assert f"{folder / 'mock_agent.py'}:3: process: [direct] the agent closed the connection" in done.stdout
