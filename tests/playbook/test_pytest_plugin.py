"""The pytest plugin, through real pytest processes in a folder of their own (as a user runs it):
collection of the examples, `-n 2`, `-k` and tag markers, a failing item's report, the fixtures,
and that a project's own test run collects nothing new."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import REPO, SCENARIOS, write

pytestmark = pytest.mark.slow


def pytest_in(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    (cwd / ".tmp").mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(cwd / ".tmp"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's project: the examples under scenarios/, an empty pytest config."""
    shutil.copytree(SCENARIOS, tmp_path / "scenarios")
    write(tmp_path, "pytest.ini", "[pytest]\n")
    return tmp_path


def test_the_examples_run_as_items_under_xdist(project: Path) -> None:
    from workbench.engine.batch import Selection, collect

    expected = sorted(c.name for c in collect([project / "scenarios"], Selection(), defines=()))
    done = pytest_in(project, "scenarios", "-n", "2", "--junitxml", "junit.xml", "-q")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    suite = ET.parse(project / "junit.xml").getroot()
    cases = {c.get("name", ""): c for c in suite.iter("testcase")}
    assert sorted(cases) == expected
    outcome = {name: "skipped" if c.find("skipped") is not None else "failed" if c.find("failure") is not None
               else "passed" for name, c in cases.items()}  # fmt: skip
    for name in ("hello-agent", "every-event", "legacy-dialect", "tui-steps", "bash-session", "python-repl"):
        assert outcome[name] == "passed", cases[name].findtext("failure")
    for name in ("json-rules", "v1-rules", "v2-failures"):
        assert outcome[name] == "skipped", "Claudeless rules answer a real agent: skipped in mock-agent mode"
    skipped = sum(1 for o in outcome.values() if o == "skipped")
    goldens = sorted(
        p.relative_to(project / "screenshots").as_posix() for p in (project / "screenshots").rglob("*.golden")
    )
    assert "hello-agent/80x24/done.golden" in goldens
    runs = list((project / "target" / "tmp" / "workbench").glob("*/*/*/trace.jsonl"))
    assert len(runs) >= len(expected) - skipped and len({r.parent for r in runs}) == len(runs), (
        "one folder per run"
    )


def test_k_and_tag_markers_select_items(project: Path) -> None:
    done = pytest_in(project, "scenarios", "--collect-only", "-q", "-k", "hello or bash", "--strict-markers")
    assert "scenarios/hello-agent.yaml::hello-agent" in done.stdout
    assert "scenarios/programs/bash-session.yaml::bash-session" in done.stdout
    assert re.search(r"\b2/\d+ tests collected", done.stdout), done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if "::" in line]
    assert len(lines) == 2
    done = pytest_in(project, "scenarios", "--collect-only", "-q", "-m", "program")
    tagged = [line for line in done.stdout.splitlines() if "::" in line]
    assert "scenarios/programs/bash-session.yaml::bash-session" in tagged, (
        "`tags: [example, program]` are markers"
    )
    assert "scenarios/hello-agent.yaml::hello-agent" not in tagged


def test_collection_finds_what_workbench_run_finds(project: Path) -> None:
    """A recording's request sidecar (`NAME.requests.json`, beside the scenario) and a `_`-named data file
    are no scenarios to `workbench run`; the plugin collected both and failed them as invalid."""
    from workbench.engine.batch import Selection, collect

    write(project, "scenarios/rec.requests.json", '{"version": 1, "requests": []}\n')
    write(project, "scenarios/_helper.json", '{"not": "a scenario"}\n')
    shutil.copytree(
        REPO / "tests" / "acp" / "scp_echo", project / "scenarios" / "scp-echo"
    )  # has scenario.json
    expected = sorted(c.name for c in collect([project / "scenarios"], Selection(), defines=()))
    assert "basic-echo" in expected
    done = pytest_in(project, "scenarios", "--collect-only", "-q")
    collected = sorted(line.split("::")[1] for line in done.stdout.splitlines() if "::" in line)
    assert done.returncode == 0 and collected == expected, done.stdout + done.stderr


def test_an_scp_folder_is_an_item_that_fails_at_its_script_line(tmp_path: Path) -> None:
    """`workbench run` takes an SCP folder (mock_agent.py, mock_user.py) as a scenario; `pytest scenarios/`
    skipped it, so a suite of them passed with every script failing."""
    folder = tmp_path / "scenarios" / "echo"
    shutil.copytree(REPO / "tests" / "acp" / "scp_echo", folder)
    user = folder / "mock_user.py"
    user.write_text(user.read_text().replace('"echo: again"', '"something else"'))
    write(tmp_path, "pytest.ini", "[pytest]\n")
    done = pytest_in(tmp_path, "scenarios", "-q")
    assert done.returncode == 1, done.stdout + done.stderr
    line = next(n for n, text in enumerate(user.read_text().splitlines(), 1) if "something else" in text)
    assert f"mock_user.py:{line}: assert: [direct] assert await session.read_response() == " in done.stdout
    assert "1 failed" in done.stdout


def test_a_failing_item_shows_the_line_the_screen_and_the_diff(project: Path) -> None:
    hello = project / "scenarios" / "hello-agent.yaml"
    assert pytest_in(project, str(hello), "-q").returncode == 0  # writes the golden
    hello.write_text(hello.read_text().replace("Done: hello.py prints", "Done: hello.py shows")
                     .replace('contains: ["Hello, World!"]', 'contains: ["Goodbye"]'))  # fmt: skip
    done = pytest_in(project, str(hello), "-q", "--workbench-ci")
    assert done.returncode == 1
    out = done.stdout
    line = next(n for n, text in enumerate(hello.read_text().splitlines(), 1) if "screenshot: done" in text)
    assert f"scenarios/hello-agent.yaml:{line}: screenshot: screenshot `done` does not match" in out
    assert "-● Done: hello.py prints Hello, World!" in out or "Done: hello.py prints" in out, "the diff"
    assert "assert: the screen does not contain 'Goodbye'" in out
    assert "the screen at the end:\n  | " in out and "  | ● Done: hello.py shows Hello, World!" in out
    assert "open it with: workbench show " in out


def test_an_invalid_scenario_is_a_failing_item_with_its_diagnostic(project: Path) -> None:
    write(project, "scenarios/bad.yaml", "name: bad\ntimeline:\n  - userInputs: 3\n")
    done = pytest_in(project, "scenarios/bad.yaml", "-q")
    assert done.returncode == 1
    assert "scenarios/bad.yaml:3:" in done.stdout and "Traceback" not in done.stdout


FIXTURE_TESTS = '''
import sys
import pytest
from pathlib import Path

sys.path.insert(0, {repo!r})
from tests.playbook.agents import AnthropicAgent, ChatAgent
from workbench.playbook import Playbook, call, say, when


def ticket_playbook(ids):
    return Playbook(when("make a ticket", [
        call("bash", {{"command": "echo T-7"}}).then(lambda r: ids.update(t=r.text.strip())),
        call("bash", lambda: {{"command": "echo got " + ids["t"]}}),
        say("done"),
    ]))


def test_anthropic_agent(mock_llm, tmp_path):
    ids = {{}}
    llm = mock_llm(ticket_playbook(ids))
    assert AnthropicAgent(llm.base_url, llm.api_key, tmp_path).ask("make a ticket") == "done"
    assert llm.events.tool_results[1].text == "got T-7\\n"


def test_openai_agent(mock_llm, tmp_path):
    llm = mock_llm(ticket_playbook({{}}))
    assert ChatAgent(llm.openai_base_url, llm.api_key, tmp_path).ask("make a ticket") == "done"


def test_broken_playbook_fails_the_test(mock_llm, tmp_path):
    llm = mock_llm(Playbook(when("make a ticket", [say("done")]), when("more", [say("x")])))
    AnthropicAgent(llm.base_url, llm.api_key, tmp_path).ask("make a ticket")


def test_workbench_run_yaml_and_playbook(workbench_run):
    outcome = workbench_run("""
name: inline
command: [bash, --norc, --noprofile]
timeline:
  - userInputs: [[0, "echo $((6*7))<Enter>"]]
  - advanceMs: 200
  - assert: {{text: {{contains: ["42"]}}}}
  - screenshot: shot
""")
    outcome.check()
    run = workbench_run(Playbook(when("hi", [call("runCmd", {{"cmd": "echo 6x7"}}), say("ok")]), name="pb"))
    assert run.passed, run.explain()
    assert "6x7" in run.screen and run.events.tool_sequence() == ["runCmd"]


def test_terminal(terminal):
    term = terminal([sys.executable, "-q", "-i"], width=40, height=6)
    term.wait_for(">>> ")
    term.type("print(6 * 7)<Enter>")
    term.wait_for("42")
    assert "42" in term.screenshot("answer")
    term.type("exit()<Enter>")
    assert term.wait_exit() == 0
'''


def test_the_fixtures_in_a_users_tests(project: Path) -> None:
    write(project, "tests/test_agent.py", FIXTURE_TESTS.format(repo=str(REPO)))
    done = pytest_in(project, "tests", "-q", "-n", "2", "-rf")
    out = done.stdout
    assert "1 failed, 4 passed" in out or "4 passed, 1 failed" in out, out + done.stderr
    assert "FAILED tests/test_agent.py::test_broken_playbook_fails_the_test" in out
    assert "Playbook not fully consumed after the run.\nConsumed 1 of 2 actions." in out
    inline = (
        project / "screenshots" / "test_workbench_run_yaml_and_playbook" / "inline" / "80x24" / "shot.golden"
    )
    assert inline.is_file(), "a scenario written in a test has its goldens under the test's name"
    golden = project / "screenshots" / "test_terminal" / "40x6" / "answer.golden"
    rows = [row.rstrip() for row in golden.read_text().split("\n")]
    assert rows[:2] == [">>> print(6 * 7)", "42"] and len(rows) == 6


def test_a_projects_own_run_collects_nothing_new(tmp_path: Path) -> None:
    """Data files in test folders (JSON, YAML) stay data: the plugin collects only scenario folders."""
    write(tmp_path, "pytest.ini", "[pytest]\ntestpaths = tests\n")
    write(tmp_path, "tests/data/request.json", '{"timeline": []}')
    write(tmp_path, "tests/data/scenario.yaml", "name: x\ntimeline: []\n")
    write(tmp_path, "tests/test_a.py", "def test_a():\n    pass\n")
    for args in ((), ("tests",), ("tests/data",)):
        done = pytest_in(tmp_path, "--collect-only", "-q", *args)
        assert done.stdout.splitlines()[0] == "tests/test_a.py::test_a" or args == ("tests/data",), (
            done.stdout
        )
        assert ".json" not in done.stdout and ".yaml" not in done.stdout


def test_bad_options_are_usage_errors(project: Path) -> None:
    done = pytest_in(project, "scenarios", "--speed", "fast", "--collect-only", "-q")
    assert done.returncode == 4 and "ERROR: --speed fast: invalid speed 'fast'" in done.stderr
    done = pytest_in(project, "scenarios", "--mode", "nope", "--collect-only", "-q")
    assert (
        done.returncode == 4 and "ERROR: --mode nope: unknown mode 'nope'; modes: mock-agent" in done.stderr
    )
    done = pytest_in(project, "scenarios", "--agent-ui", "nope", "--collect-only", "-q")  # no mode takes it
    assert done.returncode == 4 and "ERROR: --mode real-agent: unknown agent-ui `nope`" in done.stderr, (
        done.stderr
    )
    # a flag of a mode these files do not declare: each item says what it needs, as `workbench run` does
    done = pytest_in(project, "scenarios/hello-agent.yaml", "--agent-ui", "print", "-q")
    assert done.returncode == 1 and "hello-agent.yaml: --agent-ui needs --mode real-agent" in done.stdout


def test_a_flag_of_the_mode_a_file_declares_needs_no_mode(tmp_path: Path) -> None:
    """`--agent codex-acp` on a `mode: acp` file was refused at once ('unknown agent codex-acp for mode
    real-agent'): `--agent` alone picked the real-agent mode for every item, whatever its file declares."""
    write(tmp_path, "scenarios/acp.yaml", "name: in-acp\nmode: acp\ntimeline:\n  - userInputs: [[0, hi]]\n")
    done = pytest_in(tmp_path, "scenarios", "--agent", "codex-acp", "-q", "-rs")
    assert "unknown agent" not in done.stdout + done.stderr and done.returncode in (0, 1), done.stdout
    # run as an ACP adapter: it ran (its messages are in the run folder, whatever the unscripted model's
    # reply made of the run), or it is not installed and the skip says so
    ran_as_acp = list((tmp_path / "target" / "tmp" / "workbench" / "in-acp").glob("*/*/acp.jsonl"))
    assert ran_as_acp or "codex-acp" in done.stdout, done.stdout


def test_workbench_run_takes_the_mode_its_file_declares_as_the_items_do(tmp_path: Path) -> None:
    """The fixture built its options for the mode the flags alone pick: `--agent codex-acp` made them for
    the real-agent mode ('unknown agent codex-acp for mode real-agent') on a `mode: acp` file the
    collected item of the same file ran as an ACP adapter."""
    write(tmp_path, "pytest.ini", "[pytest]\n")
    write(tmp_path, "acp.yaml", "name: in-acp\nmode: acp\ntimeline:\n  - userInputs: [[0, hi]]\n")
    write(tmp_path, "tests/test_fixture.py", "from pathlib import Path\n\n\ndef test_acp(workbench_run):\n"
          "    outcome = workbench_run(Path('acp.yaml'))\n    print('MODE', outcome.result.mode)\n"
          "    outcome.check()\n")  # fmt: skip
    done = pytest_in(tmp_path, "tests", "--agent", "codex-acp", "-q", "-s")
    assert "unknown agent" not in done.stdout + done.stderr, done.stdout
    assert "MODE acp" in done.stdout, done.stdout + done.stderr


def test_agent_help_names_every_agent_of_the_registry(tmp_path: Path) -> None:
    from workbench.llm.agents import AGENTS

    write(tmp_path, "pytest.ini", "[pytest]\n")
    done = pytest_in(tmp_path, "--help")
    assert done.returncode == 0, done.stderr
    start = done.stdout.index("--agent=NAME")
    text = " ".join(done.stdout[start : done.stdout.index("--workbench-ci", start)].split())
    assert f"real-agent mode: the agent preset, else the scenario's `command` with {{base_url}} placeholders; " \
           f"an agent of your own is a module in the entry point group workbench.agents ({', '.join(AGENTS)})" \
           in text, text  # fmt: skip


def test_workbench_ci_refuses_a_misspelt_key_as_run_ci_does(tmp_path: Path) -> None:
    write(tmp_path, "pytest.ini", "[pytest]\n")
    typo = "name: typo\ntimeline:\n  - writeFile:\n      path: x.txt\n      contnt: hi\n"
    write(tmp_path, "scenarios/typo.yaml", typo)
    written = "def test_inline(workbench_run):\n    workbench_run('''" + typo + "''').check()\n"
    write(tmp_path, "tests/test_inline.py", written)
    expected = "typo.yaml:5:7: validation: unknown `writeFile` argument `contnt`; did you mean `content`?"

    done = pytest_in(tmp_path, "scenarios", "tests", "--workbench-ci", "-q")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"scenarios/{expected}" in done.stdout
    assert "2 failed" in done.stdout, done.stdout

    done = pytest_in(tmp_path, "scenarios", "tests", "-q")  # without it, a warning, as in `workbench run`
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr


def test_workbench_command_is_the_program_under_test_as_run_command_is(tmp_path: Path) -> None:
    write(tmp_path, "pytest.ini", "[pytest]\n")
    typed = (
        'name: typed\ntimeline:\n  - userInputs: [[0, "echo sum-$((40 + 2))<Enter>"]]\n  - waitFor: sum-42\n'
    )
    write(tmp_path, "scenarios/typed.yaml", typed)
    done = pytest_in(tmp_path, "scenarios", "--mode", "program", "--workbench-command", "bash --norc --noprofile",
                     "-q")  # fmt: skip
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    done = pytest_in(tmp_path, "scenarios", "--workbench-command", "bash 'unclosed", "-q")
    assert (
        done.returncode == 4
        and 'ERROR: --workbench-command "bash \'unclosed": No closing quotation' in done.stderr
    )
