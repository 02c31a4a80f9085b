"""`workbench record`: a session through the proxy becomes a scenario that replays green.

The agent is a small terminal program on the official SDK (``sdk_agent.py``), the upstream is
`workbench serve llm` playing a scenario on 127.0.0.1, the recording and the replay are the real
CLI in real processes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.record.helpers import HELLO, agent_command, record, serve_llm
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario


@pytest.mark.parametrize("style", ["anthropic", "openai-chat"])
def test_a_recorded_session_replays_green(tmp_path: Path, style: str) -> None:
    with serve_llm(tmp_path, HELLO, "--speed", "1") as url:
        done = record(
            tmp_path, url, "scenarios/hello.yaml", agent_command(style), "--prompt", "write hello.txt"
        )
    assert done.returncode == 0, done.stderr
    scenario = tmp_path / "scenarios" / "hello.yaml"
    text = scenario.read_text()
    loaded = load_scenario(scenario, env={})
    assert (
        loaded.mode == "real-agent"
        and loaded.command is not None
        and "{base_url}" in " ".join(loaded.command)
    ) or "{openai_base_url}" in " ".join(loaded.command or ())
    kinds = [type(e).__name__ for e in loaded.timeline]
    assert kinds == [
        "UserInputs",
        "AdvanceMs",
        "LlmResponse",
        "ToolUse",
        "LlmResponse",
        "Screenshot",
        "Assert",
    ], text
    inputs = loaded.timeline[0]
    assert (
        isinstance(inputs, m.UserInputs) and inputs.items[0].input == "write hello.txt"
    )  # the replay submits it
    tool = loaded.timeline[3]
    assert isinstance(tool, m.ToolUse) and tool.tool_name == "writeFile", text  # the canonical word
    assert (
        dict(tool.args) == {"path": "hello.txt", "content": "hello\n"}
        and tool.result == "wrote 6 bytes to hello.txt"
    )
    replies = [e for e in loaded.timeline if isinstance(e, m.LlmResponse)]
    said = "".join(i.text for p in replies[0].pieces if isinstance(p, m.Assistant) for i in p.items)
    assert said == "I'll write the file."
    assert "# request 1: POST /v1/" in text and "ms to the first byte" in text  # where each part came from
    golden = tmp_path / "screenshots" / "hello" / "80x24" / "turn-1.golden"
    assert "Done: hello.txt is written." in golden.read_text()
    assert (tmp_path / "scenarios" / "hello.requests.json").exists()
    assert "replay it with: workbench run scenarios/hello.yaml --mode real-agent --ci" in done.stderr
    replay = workbench(
        "run", "scenarios/hello.yaml", "--mode", "real-agent", "--ci", "--speed", "max", cwd=tmp_path
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr


@pytest.mark.slow
def test_a_recording_stays_green_on_ten_reruns(tmp_path: Path) -> None:
    with serve_llm(tmp_path, HELLO, "--speed", "1") as url:
        done = record(
            tmp_path, url, "scenarios/hello.yaml", agent_command("anthropic"), "--prompt", "write hello.txt"
        )
    assert done.returncode == 0, done.stderr
    for _ in range(10):
        replay = workbench("run", "scenarios", "--mode", "real-agent", "--ci", "--speed", "max", cwd=tmp_path)
        assert replay.returncode == 0, replay.stdout + replay.stderr


@pytest.mark.parametrize("style", ["openai-chat", "gemini"])
def test_an_agent_with_tools_of_its_own_is_recorded_in_canonical_words_and_replays_under_another(
    tmp_path: Path, style: str
) -> None:
    """`put_file {target, body}` is no spelling the vocabulary knows, but the server maps `writeFile` to
    exactly that call: the recording says `writeFile {path, content}` (it kept `put_file`, so the
    recording replayed only under the agent it was made with), and replays under an agent whose tool is
    `write_file {path, content}`. google-genai's own schemas name their types in capitals (`STRING`), which
    read as no type a path or a content could have: the model's call never came."""
    with serve_llm(tmp_path, HELLO) as url:
        done = record(tmp_path, url, "scenarios/hello.yaml", agent_command(style, "own-words"),
                      "--prompt", "write hello.txt")  # fmt: skip
    assert done.returncode == 0, done.stderr
    scenario = tmp_path / "scenarios" / "hello.yaml"
    tool = next(e for e in load_scenario(scenario, env={}).timeline if isinstance(e, m.ToolUse))
    assert tool.tool_name == "writeFile" and dict(tool.args) == {"path": "hello.txt", "content": "hello\n"}
    same = workbench("run", "scenarios", "--mode", "real-agent", "--ci", cwd=tmp_path)
    assert same.returncode == 0, same.stdout + same.stderr
    scenario.write_text(scenario.read_text().replace('"own-words"]', '""]'))  # another agent's tools
    other = workbench("run", "scenarios", "--mode", "real-agent", "--ci", cwd=tmp_path)
    assert other.returncode == 0, other.stdout + other.stderr


def test_a_recording_replaces_an_earlier_one_and_never_a_scenario_written_by_hand(tmp_path: Path) -> None:
    """`-o` over an existing file replaced it silently, also a scenario written by hand; the file's
    `# Replay:` line named `NAME.yaml` (not the `.yml` given, nor its folder or `--goldens`), and the
    summary said '1 goldens'."""
    hand = tmp_path / "scenarios" / "mine.yml"
    hand.parent.mkdir()
    hand.write_text("name: mine\ntimeline: []\n")
    marker = tmp_path / "started"
    with serve_llm(tmp_path, HELLO) as url:
        refused = record(tmp_path, url, "scenarios/mine.yml", [sys.executable, "-c", f"open({str(marker)!r}, 'w')"],
                         "--prompt", "write hello.txt")  # fmt: skip
        assert refused.returncode == 2 and "was not written by `workbench record`" in refused.stderr, (
            refused.stderr
        )
        assert hand.read_text() == "name: mine\ntimeline: []\n" and not marker.exists()
        for _ in range(2):
            done = record(tmp_path, url, "scenarios/rec.yml", agent_command("anthropic"), "--goldens", "shots",
                          "--prompt", "write hello.txt")  # fmt: skip
            assert done.returncode == 0, done.stderr
    replay = "workbench run scenarios/rec.yml --mode real-agent --ci --goldens shots"
    assert "(it replaced the earlier recording there)" in done.stderr and "warning" not in done.stderr, (
        done.stderr
    )
    assert (
        "2 model responses to 2 requests; 1 golden;" in done.stderr
        and f"replay it with: {replay}" in done.stderr
    )
    assert f"# Replay: {replay}\n" in (tmp_path / "scenarios" / "rec.yml").read_text()
    again = workbench(*replay.split()[1:], cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr


def test_a_prompt_on_the_command_line_is_recorded_and_replayed_there(tmp_path: Path) -> None:
    """With `{prompt}` in the command the prompt is not typed, and it was not recorded either: the scenario
    had no input, so the replay put its default ('hello') on the agent's command line."""
    with serve_llm(tmp_path, HELLO) as url:
        done = record(tmp_path, url, "scenarios/print.yaml", [*agent_command("anthropic"), "plain", "{prompt}"],
                      "--prompt", "write hello.txt")  # fmt: skip
    assert done.returncode == 0, done.stderr
    scenario = load_scenario(tmp_path / "scenarios" / "print.yaml", env={})
    assert scenario.effective_initial_prompt == "write hello.txt"
    golden = (tmp_path / "screenshots" / "print" / "80x24" / "turn-1.golden").read_text()
    assert "> write hello.txt" in golden
    replay = workbench("run", "scenarios/print.yaml", "--mode", "real-agent", "--ci", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr
