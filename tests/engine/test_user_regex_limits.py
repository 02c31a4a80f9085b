"""A user's regular expression that backtracks without end (`(a|a)+$` on a row of `a` ending in `!`) ends
the run with a failure that names the pattern and where it is written (file:line:col, or the option),
instead of holding the event loop for ever, so that SIGTERM too ends the run as it always does."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.conftest import write
from tests.engine.test_sigterm import finish
from tests.processes import signals_at_their_defaults
from workbench.scenario.diagnostics import Pos
from workbench.scenario.loader import load_scenario
from workbench.scenario.matching import RuleMatcher
from workbench.scenario.user_regex import PatternTooSlow, UserRegex

SLOW = "(a|a)+$"  # exponential in Python's `re` and in `regex`: 2**42 ways to fail on the row below
ROW = "a" * 42 + "!"
TIMELINE = f'timeline:\n  - assistant: [[10, "{ROW}"]]\n'


def failure_lines(tmp_path: Path, *args: str) -> tuple[int, list[str]]:
    done = workbench("run", *args, cwd=tmp_path, timeout=120)
    assert "Traceback" not in done.stdout + done.stderr and "internal error" not in done.stdout, done.stdout
    return done.returncode, [line for line in done.stdout.splitlines() if line.startswith("s.yaml:")]


def stopped(what: str) -> str:
    return f"{what} `{SLOW}` was stopped after 1 s on a text of"


def test_a_scenario_mask_that_backtracks_without_end_fails_at_the_mask(tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", f'name: slow\nmasks:\n  - "x+"\n  - "{SLOW}"\n{TIMELINE}  - screenshot: s\n')
    code, lines = failure_lines(tmp_path, "s.yaml", "--update-goldens")
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"s.yaml:4:5: process: {stopped('`masks` item')}"), lines
    assert "backtracks without end" in lines[0]


def test_a_mask_option_that_backtracks_without_end_names_the_option(tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", f"name: slow\n{TIMELINE}  - screenshot: s\n")
    code, lines = failure_lines(tmp_path, "s.yaml", "--update-goldens", "--mask", SLOW)
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"s.yaml:4: process: {stopped('--mask')}"), lines  # at the screenshot step


def test_a_wait_for_regex_that_backtracks_without_end_fails_at_its_step(tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", f'name: slow\n{TIMELINE}  - waitFor: {{regex: "{SLOW}"}}\n')
    code, lines = failure_lines(tmp_path, "s.yaml")
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"s.yaml:4:5: process: {stopped('`waitFor` regex')}"), lines


def test_an_on_screen_regex_that_backtracks_without_end_fails_at_the_regex(tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", f'name: slow\nonScreen:\n  - regex: "{SLOW}"\n    keys: y\n{TIMELINE}'
                              "  - advanceMs: 3000\n")  # fmt: skip
    code, lines = failure_lines(tmp_path, "s.yaml", "--speed", "1")
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"s.yaml:3:12: expect: {stopped('`onScreen` regex')}"), lines


def test_sigterm_during_a_mask_that_backtracks_ends_the_run_with_143(tmp_path: Path) -> None:
    """The match held the event loop, and with it the SIGTERM handler, for ever."""
    write(tmp_path, "s.yaml", f"name: slow\n{TIMELINE}  - screenshot: s\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "run", "s.yaml", "--update-goldens", "--mask", SLOW, "--out", "out"],
        cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp_path)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=signals_at_their_defaults,
    )  # fmt: skip
    traces = tmp_path / "out" / "slow" / "80x24"
    while proc.poll() is None and not any(
        len(t.read_text().splitlines()) >= 2 for t in traces.glob("*/trace.jsonl")
    ):
        time.sleep(0.02)  # until the first step is done: the screenshot, and its masks, come next
    time.sleep(0.3)
    out, err = finish(proc, signal.SIGTERM)  # ends the process group if it does not end in time
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, out, err)
    assert "Traceback" not in out + err


@pytest.mark.parametrize(
    ("pattern", "flags", "text"),
    [(r"\d+ ms", 0, "took 12 ms, 3 ms"), (r"^v\d", re.M, "x\nv1\nv2"), (r"(?P<n>a)b", 0, "ab"),
     (r"ÉTÉ", re.I, "été"), (r"\bword\b", 0, "a word here")],
)  # fmt: skip
def test_a_user_pattern_finds_what_re_finds(pattern: str, flags: int, text: str) -> None:
    user = UserRegex(pattern, "a mask", None, flags)
    assert [m.span() for m in user.finditer(text)] == [m.span() for m in re.finditer(pattern, text, flags)]
    assert user.sub("*", text) == re.sub(pattern, "*", text, flags=flags)
    found, expected = user.search(text), re.search(pattern, text, flags)
    assert found is not None and expected is not None and found.group() == expected.group()


def test_a_pattern_too_slow_names_itself_and_its_place() -> None:
    where = Pos("s.yaml", 7, 5)
    with pytest.raises(PatternTooSlow) as info:
        UserRegex(SLOW, "`masks` item", where).sub("*", ROW)
    assert info.value.pos == where
    assert info.value.placed().startswith(f"s.yaml:7:5: `masks` item `{SLOW}` was stopped after 1 s")


def test_a_claudeless_rule_regex_that_backtracks_without_end_is_placed_at_the_rule(tmp_path: Path) -> None:
    """A prompt is the agent's text; the rule's pattern once held the mock LLM server's loop for ever."""
    text = f'[[responses]]\npattern = {{ type = "regex", pattern = "{SLOW}" }}\nresponse = "x"\n'
    rules = load_scenario(write(tmp_path, "s.toml", text), env={}).rules
    assert rules is not None
    with pytest.raises(PatternTooSlow) as info:
        RuleMatcher(rules).choose(ROW)
    where, what = tmp_path / "s.toml", "the rule's `regex`"
    assert info.value.placed().startswith(f"{where}:2:39: {stopped(what)}")
