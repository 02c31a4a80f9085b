"""What a newcomer who writes scenarios by hand and runs `workbench run --ci` gets for a mistake: a failure
or a diagnostic that names the file, the line and what to do, never an internal error (exit 3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.cli_process import report_of, workbench
from tests.conftest import write
from workbench.scenario.vocabulary import TEXT_ARGUMENTS
from workbench.timeline.prepare import prepare

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
    assert entry["failures"][0]["message"].startswith(  # the report says why, as the console does
        "screenshot `done` does not match: screenshots/shot/80x24/done.golden is not UTF-8 text"
    )
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


def test_a_tool_argument_of_the_wrong_type_or_a_missing_one_is_refused_by_run_ci_at_its_place(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        "tools.yaml",
        "name: tools\ntimeline:\n  - writeFile:\n      content: hi\n  - runCmd:\n      cmd: 5\n"
        "  - writeFile:\n      path: [a.txt]\n  - writeFile:\n      content: meant to fail\n      status: error\n",
    )
    done = workbench("run", "--ci", "tools.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        "tools.yaml:3:5: validation: `writeFile` needs `path`, a string: the tool fails without it"
        in done.stdout
    )
    assert (
        "tools.yaml:6:12: validation: `runCmd` argument `cmd` must be a string (quote it), got an integer"
        in (done.stdout)
    )
    assert (
        "tools.yaml:8:13: validation: `writeFile` argument `path` must be a string, got a list" in done.stdout
    )
    assert ":9:" not in done.stdout  # a call the scenario expects to fail may lack its path

    done = workbench(
        "validate", "tools.yaml", cwd=tmp_path
    )  # without --ci: warnings that say --ci refuses them
    assert done.returncode == 0 and done.stderr.count("(an error with --ci)") == 3, done.stderr


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=4), inner, max_size=2),
    max_leaves=4,
)


@settings(max_examples=60)
@given(tool=st.sampled_from(sorted(TEXT_ARGUMENTS)), value=JSON_VALUES)
@example(tool="writeFile", value=[1, 2])
@example(tool="runCmd", value=5)
@example(tool="sed", value="s/a/b/")
@example(tool="readFile", value=None)
@example(tool="editFile", value="\x00")  # a string, refused for what it holds (a NUL), not for its type
@example(tool="writeFile", value="../x")
def test_a_required_tool_argument_is_accepted_exactly_when_it_is_a_string(
    tmp_path_factory: pytest.TempPathFactory, tool: str, value: Any
) -> None:
    key = TEXT_ARGUMENTS[tool][0][0]
    args = {spellings[0]: "x" for spellings in TEXT_ARGUMENTS[tool]} | {key: value}
    folder = tmp_path_factory.mktemp("args")
    path = write(folder, "s.json", json.dumps({"name": "s", "timeline": [{tool: args}]}))
    prepared = prepare(path, strict=True)
    about = [d.message for d in prepared.errors if f"`{key}`" in d.message and "a string" in d.message]
    assert bool(about) == (not isinstance(value, str)), (prepared.diagnostics, value)
    assert all(d.pos.line == 1 and d.pos.col > 1 for d in prepared.errors)


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        (
            "--report",
            "blocker/r.json",
            "--report blocker/r.json: {tmp}/blocker is a file, so no folder can be made there",
        ),
        ("--junit", "blocker/deeper/j.xml", "--junit blocker/deeper/j.xml: {tmp}/blocker is a file"),
        ("--html", "blocker/html", "--html blocker/html: {tmp}/blocker is a file"),
        ("--out", "blocker/runs", "--out blocker/runs: {tmp}/blocker is a file"),
        ("--report", "folder", "--report folder: is a folder; give a file name, such as folder/report.json"),
        ("--junit", "folder", "--junit folder: is a folder; give a file name, such as folder/junit.xml"),
        ("--out", "blocker", "--out blocker: is a file; give a folder"),
        ("--goldens", "blocker", "--goldens blocker: is a file; give a folder"),
        ("--goldens", "blocker/shots", "--goldens blocker/shots: {tmp}/blocker is a file"),
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_any_scenario_runs(
    tmp_path: Path, flag: str, value: str, message: str
) -> None:
    write(tmp_path, "shot.yaml", SHOT)
    (tmp_path / "blocker").write_text("a file where a folder should be\n")
    (tmp_path / "folder").mkdir()
    done = workbench("run", "--ci", "shot.yaml", flag, value, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"workbench: error: {message.format(tmp=tmp_path)}" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert done.stdout == "" and not (tmp_path / "target").exists()  # nothing ran

    if flag in ("--report", "--junit"):  # the same for the merge of sharded reports
        assert workbench("run", "shot.yaml", "--report", "shard.json", cwd=tmp_path).returncode == 0
        done = workbench("report", "merge", "shard.json", flag, value, cwd=tmp_path)
        assert done.returncode == 2 and f"workbench: error: {message.format(tmp=tmp_path)}" in done.stderr


def test_junit_holds_what_the_console_says_of_a_failure_the_screenshot_diff_and_the_run_folder(
    tmp_path: Path,
) -> None:
    import xml.etree.ElementTree as ET

    write(tmp_path, "shot.yaml", SHOT)
    assert workbench("run", "shot.yaml", cwd=tmp_path).returncode == 0  # writes the golden
    golden = tmp_path / "screenshots/shot/80x24/done.golden"
    golden.write_text(golden.read_text(encoding="utf-8").replace("hello", "howdy"), encoding="utf-8")

    done = workbench("run", "--ci", "-j", "2", "shot.yaml", "--junit", "j.xml", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (failure,) = ET.parse(tmp_path / "j.xml").getroot().iter("failure")
    assert failure.get("message") == "screenshot `done` does not match"
    body = failure.text or ""
    assert body.startswith("shot.yaml:6: screenshot: screenshot `done` does not match\n")
    assert "howdy" in body and "hello" in body and "(columns " in body  # the rows that differ, and where
    run_dir = next(line for line in done.stdout.splitlines() if "trace and recording in" in line)
    assert run_dir in body
    assert body in done.stdout  # the same words as the console's summary


K_WORDS = st.sampled_from(["and", "or", "not", "(", ")", "shot", "hello", "x"])


@settings(max_examples=300)
@given(words=st.lists(K_WORDS, max_size=7), haystack=st.text(max_size=10))
@example(words=["and", "or"], haystack="shot")
@example(words=["shot", "and"], haystack="shot")
@example(words=["not", "(", "x", ")"], haystack="")
def test_a_k_expression_is_refused_before_the_run_or_matches_any_name_without_error(
    words: list[str], haystack: str
) -> None:
    from workbench.engine.batch import parse_selection
    from workbench.engine.select import SelectionError, matches_k

    expression = " ".join(words)
    try:
        parse_selection(expression, None, None)
    except SelectionError as exc:
        assert str(exc).startswith(f"-k `{expression}`: ")
        return
    matches_k(expression, haystack)  # never raises once the selection was accepted


def test_a_malformed_k_expression_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path, "shot.yaml", SHOT)
    done = workbench("run", "--ci", "shot.yaml", "-k", "shot and", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == "workbench: error: -k `shot and`: unexpected end of expression\n"


def test_a_timing_failure_shows_the_screen_down_to_its_last_written_row_or_says_it_was_empty(
    tmp_path: Path,
) -> None:
    wait = "  - waitFor: {text: never, timeoutMs: 300}\n"
    write(tmp_path, "silent.yaml", 'name: silent\ncommand: ["sleep", "60"]\ntimeline:\n' + wait)
    write(tmp_path, "talks.yaml", 'name: talks\ncommand: ["bash", "-c", "echo hi; sleep 60"]\n'
          "timeline:\n  - waitFor: hi\n" + wait)  # fmt: skip
    done = workbench("run", "--ci", "silent.yaml", "talks.yaml", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    messages = {e["name"]: e["failures"][0]["message"] for e in report_of(tmp_path / "r.json")["scenarios"]}
    assert messages == {
        "silent": "the screen did not show 'never' within 300 ms; the screen was empty",
        "talks": "the screen did not show 'never' within 300 ms; the screen was:\nhi",
    }
    assert "\n\n\n" not in done.stdout  # no screenful of blank rows in the CI log

    done = workbench("run", "--ci", "silent.yaml", "--timeout", "0.2", "--report", "t.json", cwd=tmp_path)
    (entry,) = report_of(tmp_path / "t.json")["scenarios"]
    # the run's own timeout may come before the program has started on a loaded machine: said so, too
    assert entry["failures"][0]["message"] in (
        "timed out after 0.2 s; the screen was empty",
        "timed out after 0.2 s; nothing had started",
    )


def test_a_golden_missing_for_a_new_terminal_size_names_the_one_there_is(tmp_path: Path) -> None:
    write(tmp_path, "shot.yaml", SHOT)
    assert workbench("run", "shot.yaml", cwd=tmp_path).returncode == 0  # the golden, at 80x24
    write(
        tmp_path,
        "shot.yaml",
        SHOT.replace("name: shot\n", "name: shot\nterminal: {width: 100, height: 30}\n"),
    )
    done = workbench("run", "--ci", "shot.yaml", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "no golden at screenshots/shot/100x30/done.golden (this run writes none: accept the capture in the app, "
        "or run without --ci); there is one for 80x24 (screenshots/shot/80x24/done.golden): "
        "did the scenario's `terminal` change?"
    ) in done.stdout


@pytest.mark.parametrize("argv", [["scenarios"], ["edit", "scenarios"], ["show", "shot"]])
def test_the_app_without_a_terminal_is_a_usage_error_that_names_the_headless_commands(
    tmp_path: Path, argv: list[str]
) -> None:
    write(tmp_path, "scenarios/shot.yaml", SHOT)
    assert workbench("run", "scenarios", cwd=tmp_path).returncode == 0  # a run for `show` to find
    done = workbench(*argv, cwd=tmp_path, timeout=60)  # stdin and stdout are pipes, as in a CI job
    assert done.returncode == 2, done.stdout[:300] + done.stderr
    assert done.stdout == ""  # not a screenful of escape codes
    assert "workbench: error: the app needs a terminal" in done.stderr
    assert "`workbench run PATH --ci`" in done.stderr


def test_a_wait_for_a_program_that_exited_says_it_exited_and_with_what(tmp_path: Path) -> None:
    write(tmp_path, "crash.yaml", 'name: crash\ncommand: ["sh", "-c", "echo boom; exit 3"]\n'
          "timeline:\n  - waitFor: ready\n")  # fmt: skip
    done = workbench("run", "--ci", "crash.yaml", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert entry["failures"][0]["message"] == (
        "the program exited with 3 before the screen showed 'ready'; the screen was:\nboom"
    )  # not "did not show 'ready' within 10000 ms", which it had not waited for


def test_a_program_that_never_exits_fails_at_expect_exit_code_which_waits_for_it(tmp_path: Path) -> None:
    write(tmp_path, "stays.yaml", 'name: stays\ncommand: ["sh", "-c", "echo ready; exec sleep 60"]\n'
          "timeline: []\nexpect:\n  exitCode: 0\n")  # fmt: skip
    done = workbench("run", "--ci", "stays.yaml", "--timeout", "3", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (failure,) = report_of(tmp_path / "r.json")["scenarios"][0]["failures"]
    assert (failure["kind"], failure["line"]) == ("timing", 5)  # a timeout, at the line that waits
    assert failure["message"].startswith(
        "the program did not exit within 3 s, and `expect.exitCode` waits for its exit; the screen was"
    )  # not "timed out after 3 s" at the last step's line, which had passed


def test_a_copied_scenario_that_kept_its_name_is_warned_of_sharing_goldens(tmp_path: Path) -> None:
    write(tmp_path, "s/a.yaml", SHOT)
    write(tmp_path, "s/b.yaml", SHOT.replace("hello", "bye"))  # copied, `name: shot` kept
    write(tmp_path, "s/c.yaml", SHOT.replace("screenshot: done", "screenshot: other"))  # no label shared
    warning = (
        "s/b.yaml:1:1: warning: scenario `shot` has the name of s/a.yaml and a screenshot label of it: the two "
        "share their goldens, each compared with what the other wrote; give each scenario its own `name`"
    )
    done = workbench("validate", "s", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr.splitlines() == [warning], done.stderr
    done = workbench("run", "s", cwd=tmp_path)
    assert warning in done.stderr.splitlines() and "c.yaml" not in done.stderr
    assert done.returncode == 1  # b compared with the golden a wrote: the warning said why


def test_a_command_that_cannot_start_fails_at_the_command_line(tmp_path: Path) -> None:
    write(tmp_path, "nocmd.yaml", "name: nocmd\n# the program under test\ncommand: [no-such-program-here, -x]\n"
          "timeline:\n  - screenshot: a\n")  # fmt: skip
    done = workbench("run", "--ci", "nocmd.yaml", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (failure,) = report_of(tmp_path / "r.json")["scenarios"][0]["failures"]
    assert (failure["kind"], failure["line"]) == ("process", 3)
    assert failure["message"].startswith("cannot start 'no-such-program-here': ")
    assert failure["message"].endswith(" (the scenario's `command`)")


def test_a_file_named_on_purpose_that_is_no_scenario_says_so_before_its_errors(tmp_path: Path) -> None:
    write(tmp_path, "README.md", "# Notes\n\nSee: the scenarios: below\n")
    warning = (
        "README.md:1:1: warning: not a scenario file name (*.yaml, *.yml, *.json, *.toml; not a golden's "
        "`.style.json` or a recording's `.requests.json`): read as a scenario anyway"
    )
    for command in ("run", "validate"):
        done = workbench(command, "--ci", "README.md", cwd=tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr.startswith(warning + "\n"), done.stderr


@pytest.mark.parametrize(("html", "out"), [("runs", "runs"), ("ci", "ci/runs")])
def test_an_html_report_folder_that_holds_the_run_folders_is_refused_before_the_run(
    tmp_path: Path, html: str, out: str
) -> None:
    write(tmp_path, "shot.yaml", SHOT)
    done = workbench("run", "--ci", "shot.yaml", "--html", html, "--out", out, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    assert done.stderr == (
        f"workbench: error: --out {out} is --html {html} or inside it: the report replaces its folder whole, "
        "run folders and all; give the report a folder of its own\n"
    )
    assert workbench("run", "shot.yaml", "--html", "runs/html", "--out", "runs", cwd=tmp_path).returncode == 0


def test_the_merge_of_one_report_of_one_scenario_counts_in_the_singular(tmp_path: Path) -> None:
    write(tmp_path, "shot.yaml", SHOT)
    assert workbench("run", "shot.yaml", "--report", "one.json", cwd=tmp_path).returncode == 0
    done = workbench("report", "merge", "one.json", cwd=tmp_path)
    assert done.returncode == 0 and "merged 1 report: 1 scenario, 1 passed" in done.stdout, done.stdout


def test_a_run_cmd_cwd_that_leaves_the_workspace_is_refused_before_the_run_as_a_path_is(
    tmp_path: Path,
) -> None:
    write(tmp_path, "cwd.yaml", "name: cwd\ntimeline:\n  - runCmd:\n      cmd: pwd\n      cwd: ../..\n")
    done = workbench("run", "--ci", "cwd.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        "cwd.yaml:5:12: validation: tool argument `cwd` `../..` escapes the workspace (`..`)" in done.stdout
    )
    write(tmp_path, "inside.yaml", "name: inside\ntimeline:\n  - runCmd:\n      cmd: mkdir -p sub\n"
          "  - runCmd:\n      cmd: pwd\n      cwd: sub/../sub\n")  # fmt: skip
    assert workbench("run", "--ci", "inside.yaml", cwd=tmp_path).returncode == 0


def test_goldens_that_ci_only_reads_need_not_be_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run --ci` reads `--goldens` and writes nothing there: a checked-out folder this user may not write in
    is fine then, and refused only where goldens would be written (``os.access`` says no here, as it does
    for a non-root user; root may write anywhere)."""
    from workbench.usage import UsageError, check_output

    monkeypatch.setattr("os.access", lambda *_a, **_k: False)
    check_output(tmp_path, "--goldens", folder=True, writes=False)
    with pytest.raises(UsageError, match=r"--goldens .*: cannot write in .* \(permission denied\)"):
        check_output(tmp_path, "--goldens", folder=True)


TYPED = """\
name: typed
timeline:
  - userInputs: [[0, "echo sum-$((40 + 2))<Enter>"]]
  - waitFor: sum-42
"""


def test_the_command_line_names_the_program_under_test(tmp_path: Path) -> None:
    """`--command` is the program for every scenario: one that names none, and one whose own `command`
    would fail, both run it."""
    write(tmp_path, "typed.yaml", TYPED)
    write(tmp_path, "own.yaml", TYPED.replace("name: typed", 'name: own\ncommand: ["false"]'))
    done = workbench("run", "--ci", "--mode", "program", "--command", "bash --norc --noprofile", "typed.yaml",
                     "own.yaml", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--command", "bash 'unclosed"], "--command \"bash 'unclosed\": No closing quotation (quote as in a shell"),
        (["--command", "  "], "--command '  ': no program: give the program and its arguments"),
        (["--mode", "real-agent", "--agent", "pi", "--command", "my-agent {base_url}"],
         "--command and --agent pi both name the program under test; give one"),
    ],
)  # fmt: skip
def test_a_command_line_that_cannot_be_one_is_refused_before_anything_runs(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    write(tmp_path, "typed.yaml", TYPED)
    done = workbench("run", "--ci", "typed.yaml", *extra, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"workbench: error: {message}" in done.stderr
    assert done.stdout == "" and not (tmp_path / "target").exists()


def test_a_control_character_quoted_from_a_file_is_printed_as_an_escape(tmp_path: Path) -> None:
    """A key holding an escape sequence coloured the terminal that showed the diagnostic (and a report
    reader's): every message, and the file name, writes control characters as escapes."""
    write(tmp_path, "s\x07.json", json.dumps({"name": "s", "timeline": [{"\x1b[31mred": 1}]}))
    for args in (("validate", "s\x07.json"), ("run", "--ci", "s\x07.json")):
        done = workbench(*args, cwd=tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        said = done.stdout + done.stderr
        assert "unknown event `\\x1b[31mred`" in said and "s\\x07.json:1:" in said, said
        assert "\x1b" not in said and "\x07" not in said


def test_validate_says_everything_wrong_with_a_file_at_once_in_file_order(tmp_path: Path) -> None:
    """What cannot pass (`timeout: fast`) was looked for only once the file loaded: beside an unknown event
    it went unsaid, to be found at the next try (trialreport's newcomer fixed one error per run)."""
    write(tmp_path, "multi.yaml", "name: multi\ntimeline:\n  - asert: {}\n  - runCmd: {cmd: ls, timeout: fast}\n"
                                  "  - screnshot: x\n")  # fmt: skip
    done = workbench("validate", "--ci", "multi.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    said = [line.split(": ", 2)[:2] for line in done.stderr.splitlines() if line.startswith("multi.yaml:")]
    assert said == [["multi.yaml:3:5", "error"], ["multi.yaml:4:5", "error"], ["multi.yaml:5:5", "error"]], (
        said
    )
    assert "`timeout: fast`" in done.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_a_timeout_that_is_not_a_positive_number_of_seconds_is_refused(tmp_path: Path, value: str) -> None:
    """`--timeout nan` was taken, and every scenario failed at once as timed out."""
    write(tmp_path, "typed.yaml", TYPED)
    done = workbench("run", "typed.yaml", "--timeout", value, cwd=tmp_path)
    assert done.returncode == 2 and "--timeout must be a positive number of seconds" in done.stderr, (
        done.stderr
    )


def test_agent_alone_picks_the_agent_mode_as_in_the_pytest_plugin(tmp_path: Path) -> None:
    """`run --agent NAME` said `--agent needs --mode acp or --mode real-agent`, also for a recording whose
    file says `mode: real-agent`; it is the real-agent mode's agent now (here one no registry knows)."""
    write(tmp_path, "typed.yaml", TYPED)
    done = workbench("run", "typed.yaml", "--agent", "nope", cwd=tmp_path)
    assert done.returncode == 2 and "unknown agent `nope` for mode real-agent" in done.stderr, done.stderr
