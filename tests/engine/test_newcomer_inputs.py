"""What a newcomer who writes scenarios by hand and runs `workbench run --ci` gets for a mistake: a failure
or a diagnostic that names the file, the line and what to do, never an internal error (exit 3)."""

from __future__ import annotations

from pathlib import Path

from tests.cli_process import report_of, workbench
from tests.conftest import write

SHOT = """\
name: shot
timeline:
  - llmResponse:
      - assistant:
          - [10, "hello"]
  - screenshot: done
"""


def test_a_golden_that_is_not_utf8_fails_its_screenshot_and_update_goldens_rewrites_it(
    tmp_path: Path,
) -> None:
    write(tmp_path, "shot.yaml", SHOT)
    golden = tmp_path / "screenshots/shot/80x24/done.golden"
    golden.parent.mkdir(parents=True)
    golden.write_bytes(b"caf\xe9")  # saved as Latin-1 by an editor

    done = workbench("run", "--ci", "shot.yaml", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "internal error" not in done.stdout and "Traceback" not in done.stdout + done.stderr
    assert "done.golden is not UTF-8 text (byte 0xe9 at offset 3)" in done.stdout
    entry = report_of(tmp_path / "r.json")["scenarios"][0]
    assert entry["status"] == "failed" and entry["failures"][0]["kind"] == "screenshot"
    assert golden.read_bytes() == b"caf\xe9"  # --ci writes no golden

    done = workbench("run", "--update-goldens", "shot.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "updated golden: screenshots/shot/80x24/done.golden" in done.stdout
    assert "hello" in golden.read_text(encoding="utf-8")
    assert workbench("run", "--ci", "shot.yaml", cwd=tmp_path).returncode == 0


def test_a_misspelt_mode_is_refused_by_validate_and_run_at_its_line_and_column_with_the_nearest_mode(
    tmp_path: Path,
) -> None:
    write(tmp_path, "moded.yaml", "name: moded\nmode: simulaton\ntimeline:\n  - advanceMs: 10\n")
    expected = "moded.yaml:2:7: error: unknown mode 'simulaton'; did you mean `simulation`? modes: mock-agent"
    done = workbench("validate", "moded.yaml", cwd=tmp_path)
    assert done.returncode == 2 and expected in done.stderr, done.stdout + done.stderr
    assert "0 valid, 1 invalid" in done.stdout

    done = workbench("run", "--ci", "moded.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert expected.replace(": error:", ": validation:") in done.stdout
