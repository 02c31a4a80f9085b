"""Recording again over an earlier recording leaves no goldens of the earlier one behind: they were kept
(a golden at a size, or of a turn, the new recording does not have), and a folder of goldens that no
scenario compares with looked like part of the new recording."""

from __future__ import annotations

from pathlib import Path

from tests.engine.test_real_agent import workbench
from tests.record.helpers import HELLO, agent_command, record, serve_llm


def test_recording_again_removes_the_goldens_of_the_recording_it_replaces(tmp_path: Path) -> None:
    mine = tmp_path / "screenshots" / "hello" / "80x24" / "mine.golden"  # not the recording's: kept
    mine.parent.mkdir(parents=True)
    mine.write_text("a golden of my own\n")
    with serve_llm(tmp_path, HELLO) as url:
        for size in ("80x24", "100x30"):
            done = record(tmp_path, url, "scenarios/hello.yaml", agent_command("anthropic"),
                          "--prompt", "write hello.txt", "--size", size)  # fmt: skip
            assert done.returncode == 0, done.stderr
    goldens = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "screenshots").rglob("*.golden"))
    assert goldens == ["screenshots/hello/100x30/turn-1.golden", "screenshots/hello/80x24/mine.golden"], (
        goldens
    )
    assert not list((tmp_path / "screenshots" / "hello" / "80x24").glob("turn-1*")), "its sidecar too"
    replay = workbench("run", "scenarios", "--ci", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr
