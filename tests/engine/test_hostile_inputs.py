"""What a careless or hostile user gives `workbench run`: outputs that are no files, programs that end
early, names that lead nowhere. Each answer is a clear error or a documented outcome, never a traceback,
a replaced device or a silent pass."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.conftest import write

SHOT = "name: shot\ntimeline:\n  - userInputs: [[0, hi]]\n  - complete: true\n"


@pytest.mark.parametrize("flag", ["--report", "--junit"])
def test_a_report_into_a_named_pipe_is_written_into_it_not_put_in_its_place(
    tmp_path: Path, flag: str
) -> None:
    """`--report /dev/stdout` (or a pipe a CI step reads) was renamed over: a file took the pipe's place
    (as root, /dev/stdout or /dev/null for every program) and the reader got nothing."""
    write(tmp_path, "shot.yaml", SHOT)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader = subprocess.Popen(["cat", str(pipe)], stdout=subprocess.PIPE, text=True)
    try:
        done = workbench("run", "shot.yaml", flag, str(pipe), cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert pipe.is_fifo()  # still the pipe
        read, _ = reader.communicate(timeout=30)
    finally:
        if reader.poll() is None:  # the pipe was replaced: nobody opens it for writing
            with open(pipe, "w"):
                pass
            reader.wait(timeout=60)
    if flag == "--report":
        assert json.loads(read)["summary"]["passed"] == 1
    else:
        assert read.startswith("<?xml") and 'name="shot"' in read
