"""The user's own terminal relayed to the agent: `workbench record` runs in a real pty (standing for the
user's terminal), keys typed there reach the agent, its output comes back, and the keys become
`userInputs` at their real offsets; the terminal's size is the agent's and the scenario's."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.cli_process import workbench
from tests.record.helpers import HELLO, agent_command, serve_llm
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario
from workbench.terminal import PtySession
from workbench.terminal.asciicast import AsciicastRecorder


async def drive(tmp_path: Path, url: str) -> int:
    env = {**os.environ, "TMPDIR": str(tmp_path / ".tmp")}
    argv = [sys.executable, "-m", "workbench", "record", "--upstream", url, "-o", "scenarios/typed.yaml", "--",
            *agent_command("anthropic")]  # fmt: skip
    session = await PtySession.spawn(argv, env=env, cwd=str(tmp_path), width=100, height=30)
    async with session:
        await session.wait_for_text("> ", timeout=60)  # the agent's prompt, relayed
        await session.wait_stable(300, timeout=30)
        session.write("write ")
        await asyncio.sleep(0.4)  # a pause while typing: one prompt all the same
        session.write("hello.txt<Enter>")
        await session.wait_for_text("Done: hello.txt is written.", timeout=60)
        await asyncio.sleep(1.0)  # the user reads the answer, then leaves
        session.write("exit<Enter>")
        return await session.wait_exit(timeout=60)


def test_the_users_terminal_drives_the_agent_and_its_keys_are_recorded(tmp_path: Path) -> None:
    (tmp_path / ".tmp").mkdir()
    with serve_llm(tmp_path, HELLO) as url:
        code = asyncio.run(drive(tmp_path, url))
    assert code == 0
    scenario = load_scenario(tmp_path / "scenarios" / "typed.yaml", env={})
    assert (scenario.terminal.width, scenario.terminal.height) == (100, 30)  # the user's terminal
    inputs = [e for e in scenario.timeline if isinstance(e, m.UserInputs)]
    assert [[i.input for i in e.items] for e in inputs] == [["write hello.txt"], ["exit"]]
    kinds = [type(e).__name__ for e in scenario.timeline]
    assert kinds.index("Screenshot") < len(kinds) - 2  # the end of the turn, before the user typed `exit`
    golden = tmp_path / "screenshots" / "typed" / "100x30" / "turn-1.golden"
    assert "Done: hello.txt is written." in golden.read_text()
    replay = workbench("run", "scenarios", "--mode", "real-agent", "--ci", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr


class Output(AsciicastRecorder):
    """Everything the user's terminal was sent, kept in memory."""

    def __init__(self) -> None:
        self._file = None
        self.text = ""

    def output(self, text: str) -> None:
        self.text += text

    def marker(self, label: str) -> None:
        return None

    def resize(self, width: int, height: int) -> None:
        return None


async def record_in_a_terminal(tmp_path: Path, url: str) -> tuple[int, tuple[bool, ...], str]:
    env = {**os.environ, "TMPDIR": str(tmp_path / ".tmp")}
    argv = [sys.executable, "-m", "workbench", "record", "--upstream", url, "-o", "scenarios/tui.yaml",
            "--prompt", "write hello.txt", "--", *agent_command("anthropic", "fullscreen")]  # fmt: skip
    output = Output()
    session = await PtySession.spawn(argv, env=env, cwd=str(tmp_path), width=100, height=30, recorder=output)
    async with session:
        code = await session.wait_exit(timeout=120)
        session.drain()
        screen = session.screen
        focus = (1004 << 5) in screen.vt.mode
        return code, (screen.alternate, screen.bracketed_paste, focus, screen.cursor_visible), output.text


def test_the_users_terminal_is_left_as_it_was_after_a_full_screen_agent(tmp_path: Path) -> None:
    """A TUI agent stopped at the end of the recording never turned off what it had turned on: the user's
    terminal stayed on the alternate screen with bracketed paste and mouse reports on and no cursor
    (Codex left it so)."""
    (tmp_path / ".tmp").mkdir()
    with serve_llm(tmp_path, HELLO) as url:
        code, modes, sent = asyncio.run(record_in_a_terminal(tmp_path, url))
    assert code == 0
    assert modes == (False, False, False, True)  # main screen, no bracketed paste, no focus reports, a cursor
    assert "\x1b[<1u" in sent[sent.index("\x1b[>7u") :], "the kitty keyboard flags pushed are popped"
    assert (tmp_path / "scenarios" / "tui.yaml").exists()
