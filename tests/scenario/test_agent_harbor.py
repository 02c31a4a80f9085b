"""The Agent Harbor loader: every dialect normalises into the canonical model,
and bad input gets one exact diagnostic."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import write
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Reporter, ScenarioError
from workbench.scenario.loader import load_scenario


def load(tmp_path: Path, text: str, name: str = "s.yaml", **kw: object) -> m.Scenario:
    return load_scenario(write(tmp_path, name, text), env={}, **kw)  # type: ignore[arg-type]


def error_of(tmp_path: Path, text: str, name: str = "s.yaml") -> str:
    with pytest.raises(ScenarioError) as info:
        load(tmp_path, text, name)
    d = info.value.diagnostics[0]
    return f"{d.pos.line}:{d.pos.col}: {d.message}"


# --------------------------------------------------------------------------- dialects


def test_current_dialect_object_times_are_offsets(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        "name: x\ntimeline:\n  - llmResponse:\n      - think:\n          - {relativeTime: 100, content: a}\n"
        "          - {relativeTime: 250, content: b}\n      - assistant:\n          - {relativeTime: 0, content: c}\n",
    )
    (resp,) = s.timeline
    assert isinstance(resp, m.LlmResponse) and not resp.legacy
    think, assistant = resp.pieces
    assert isinstance(think, m.Thinking) and isinstance(assistant, m.Assistant)
    assert [(i.ms, i.timing, i.text) for i in think.items] == [
        (100, m.Timing.OFFSET, "a"),
        (250, m.Timing.OFFSET, "b"),
    ]
    assert think.items[1].pos.line == 6


def test_tuple_times_are_deltas_and_legacy_top_level_events_become_llm_responses(tmp_path: Path) -> None:
    s = load(tmp_path, "timeline:\n  - think: [[300, a], [200, b]]\n  - assistant:\n      - [100, done]\n")
    assert s.name == "s"  # the file stem when `name` is missing
    think, answer = s.timeline
    assert isinstance(think, m.LlmResponse) and think.legacy
    piece = think.pieces[0]
    assert isinstance(piece, m.Thinking)
    assert [(i.ms, i.timing) for i in piece.items] == [(300, m.Timing.DELTA), (200, m.Timing.DELTA)]
    assert isinstance(answer, m.LlmResponse) and isinstance(answer.pieces[0], m.Assistant)


def test_tool_specific_events_become_tool_uses(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        "timeline:\n  - runCmd: {cmd: ls, cwd: ., result: out, status: error, progress: [[10, p]]}\n"
        "  - slashCommand: /compact\n  - grep: {pattern: x, -n: true}\n",
    )
    run, slash, grep = s.timeline
    assert isinstance(run, m.ToolUse)
    assert (run.tool_name, run.written_as, dict(run.args), run.result, run.status) == (
        "runCmd", "runCmd", {"cmd": "ls", "cwd": "."}, "out", "error",
    )  # fmt: skip
    assert run.progress[0].ms == 10
    assert isinstance(slash, m.ToolUse) and dict(slash.args) == {"command": "/compact"}
    assert isinstance(grep, m.ToolUse) and grep.args["-n"] is True


def test_wrappers_type_tagged_steps_and_turns(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        "steps:\n  - agentActions:\n      - agentToolUse: {toolName: writeFile, args: {path: a}}\n"
        "  - userActions:\n      - userInputs: [{timestamp: 5, input: hi}]\n"
        "  - {type: advanceMs, ms: 50}\n  - {type: key, key: Up}\n  - {type: snapshot, name: s1}\n"
        "  - {type: assertVm, focus: tasks, selected: 2}\n  - {type: userInputs, inputs: [[100, x]]}\n",
    )
    kinds = [type(e).__name__ for e in s.timeline]
    assert kinds == ["ToolUse", "UserInputs", "AdvanceMs", "KeyPress", "Screenshot", "AssertVm", "UserInputs"]
    inputs = s.timeline[1]
    assert isinstance(inputs, m.UserInputs) and inputs.items[0].timing is m.Timing.ABSOLUTE
    assert isinstance(s.timeline[5], m.AssertVm) and dict(s.timeline[5].checks) == {
        "focus": "tasks",
        "selected": 2,
    }
    turns = load(
        tmp_path,
        '{"turns": [{"user": "hi"}, {"think": "t"}, {"tool": {"name": "write_file", "args": {"path": "a"}}}]}',
        "t.json",
    )
    assert [type(e).__name__ for e in turns.timeline] == ["UserInputs", "LlmResponse", "ToolUse"]


def test_agent_actions_refuse_user_events(tmp_path: Path) -> None:
    assert "is not an agent action" in error_of(
        tmp_path, "timeline:\n  - agentActions:\n      - userInputs: [[0, x]]\n"
    )


def test_task_form_user_command_runs_ah_by_default(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        "timeline:\n  - userCommand: {args: [task, create], expect: {exitCode: 0}}\n  - assertGit: {branch: b}\n",
    )
    cmd, git = s.timeline
    assert isinstance(cmd, m.UserCommand) and cmd.argv == ("ah", "task", "create")
    assert isinstance(git, m.AssertGit) and git.checks["branch"] == "b"


def test_setup_sections(tmp_path: Path) -> None:
    write(tmp_path, "seed/a.txt", "a")
    write(tmp_path, "_p/term.json", '{"name": "wide", "width": 120, "height": 40, "theme": "high-contrast"}')
    s = load(
        tmp_path,
        "name: setup\ncommand: [python3, -q]\nterminalRef: _p/term.json\n"
        "repo: {init: true, branch: dev, dir: seed, files: [{path: b.bin, contents: {base64: AAEC}}, {path: c.txt, contents: hi}]}\n"
        "ah: {cmd: task, flags: [--agent=mock], env: {X: 1}}\n"
        "server: {mode: mock, llmApiStyle: anthropic}\nexpect: {exitCode: 3, artifacts: [{type: file, pattern: '*.txt'}]}\n"
        "timeline: []\n",
    )
    assert s.command == ("python3", "-q")
    assert (s.terminal.id, s.terminal.width, s.terminal.height, s.terminal.theme) == (
        "wide",
        120,
        40,
        "high-contrast",
    )
    assert s.repo is not None and s.repo.files[0].contents == b"\x00\x01\x02" and s.repo.dir == "seed"
    assert s.ah is not None and s.ah.flags == ("--agent=mock",) and s.ah.env["X"] == "1"
    assert s.server.llm_api_style == "anthropic" and s.expect.exit_code == 3
    assert s.expect.artifacts[0].pattern == "*.txt"


def test_unnamed_terminal_profile_file_is_width_x_height(tmp_path: Path) -> None:
    """Terminal-Config: a profile without `name` has the id `<width>x<height>`, not its file's name."""
    write(tmp_path, "_p/term.json", '{"width": 120, "height": 40}')
    s = load(tmp_path, "terminalRef: _p/term.json\ntimeline: []\n")
    assert (s.terminal.name, s.terminal.id) == (None, "120x40")


def test_terminal_ref_by_name_and_default_profile(tmp_path: Path) -> None:
    assert load(tmp_path, "terminalRef: default-100x30\ntimeline: []\n").terminal.id == "default-100x30"
    assert load(tmp_path, "timeline: []\n").terminal.id == "80x24"
    assert "neither a profile file" in error_of(tmp_path, "terminalRef: fancy\ntimeline: []\n")


def test_effective_initial_prompt(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        "initialPrompt: legacy\ntimeline:\n  - userInputs: [[0, history]]\n  - sessionStart: {sessionId: s}\n"
        "  - userInputs: [[0, live]]\n",
    )
    assert s.effective_initial_prompt == "live"
    assert load(tmp_path, "initialPrompt: legacy\ntimeline: []\n").effective_initial_prompt == "legacy"


def test_content_blocks(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        "timeline:\n  - llmResponse:\n      - assistant:\n          - relativeTime: 0\n            content:\n"
        "              - {type: text, text: hello}\n              - {type: resource_link, uri: 'file:///x', name: x}\n",
    )
    piece = s.timeline[0].pieces[0]  # type: ignore[attr-defined]
    blocks = piece.items[0].content
    assert [b.type for b in blocks] == ["text", "resource_link"]
    assert piece.items[0].text == "hello\nx"


def test_unknown_keys_warn_and_do_not_fail(tmp_path: Path) -> None:
    reporter = Reporter()
    s = load(
        tmp_path, "name: w\nfuture: 1\ntimeline:\n  - screenshot: a\n    colour: red\n", reporter=reporter
    )
    assert s.name == "w"
    texts = [str(d) for d in reporter.warnings]
    assert any(":2:1: warning: unknown key `future`" in t for t in texts)
    assert any(":5:5: warning: unknown key `colour` beside `screenshot` ignored" in t for t in texts)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("timeline:\n  - screenshot: [a\n", "3:1: invalid YAML"),
        ("timeline:\n  - fly: away\n", "2:5: unknown event `fly`; allowed events: `readFile`"),
        ("timeline: 3\n", "1:11: `timeline` must be a list, got an integer"),
        ("timeline:\n  - advanceMs: -5\n", "2:16: the time advance (ms) must be >= 0, got -5"),
        (
            "timeline:\n  - advanceMs: soon\n",
            "2:16: the time advance (ms) must be an integer >= 0, got a string",
        ),
        ("timeline:\n  - screenshot: a/b\n", "2:17: screenshot label `a/b` may only use letters"),
        (  # `run . --report r.json`, then `run .`: the report is read as a scenario; say what it is
            '{"version": 1, "summary": {}, "scenarios": []}',
            "1:1: a scenario needs `timeline` (or `steps` / `turns`) (this is a workbench report, as `--report` "
            "writes: write reports outside the folders you run, which are read as scenarios)",
        ),
        (  # a label too long for a file name was a bare `[Errno 36] File name too long` when the run wrote it
            "timeline:\n  - screenshot: " + "b" * 121 + "\n",
            "2:17: screenshot label `"
            + "b" * 60
            + "…` may only use letters, digits, _ . -, at most 120 of them",
        ),
        (
            "terminal: {name: " + "p" * 121 + "}\ntimeline: []\n",
            "1:18: profile name `" + "p" * 60 + "…` may only use letters, digits, _ . -, at most 120 of them",
        ),
        ("timeline:\n  - agentToolUse: {args: {}}\n", "2:19: `agentToolUse` needs `toolName`"),
        ("timeline:\n  - runCmd: {cmd: x, status: maybe}\n", "2:30: `status` `maybe` is not allowed"),
        ("timeline:\n  - complete: yes please\n", "2:15: `complete` must be true or false, got a string"),
        ("name: a\nname: b\ntimeline: []\n", "2:1: duplicate key `name` (first defined at line 1)"),
        ("timeline:\n  - screenshot: a\n    log: b\n", "3:5: one event per timeline item"),
        ("timeline:\n  - sessionStart\n", "2:5: timeline item `sessionStart` must be a mapping"),
        (
            "timeline:\n  - llmResponse:\n      - bogus: x\n        think: y\n",
            "3:9: an `llmResponse` element has exactly one of",
        ),
        (
            "timeline:\n  - status: dancing\n",
            "2:13: `status` `dancing` is not allowed; expected one of `queued`",
        ),
        ("timeline:\n  - setModel: {modelId: m}\n", "2:5: `setModel` needs `acp.unstable: true`"),
        ("command: python3\ntimeline: []\n", "1:10: `command` must be a list"),
        ("", "1:1: the file is empty"),
        ("- just\n- a list\n", "1:1: a scenario must be a mapping of top-level keys, got a list"),
        ("events: []\n", "1:1: top-level `events` belongs to the ACP-bridge JSON-RPC transcript format"),
    ],
)
def test_bad_input_diagnostics(tmp_path: Path, text: str, expected: str) -> None:
    assert error_of(tmp_path, text).startswith(expected)


def test_decreasing_times_are_errors(tmp_path: Path) -> None:
    assert error_of(
        tmp_path,
        "timeline:\n  - userInputs:\n      - {relativeTime: 900, input: a}\n      - {relativeTime: 10, input: b}\n",
    ).startswith("4:24: time went backwards: input time 10 comes after 900 (line 3)")


def test_malformed_json_and_toml_positions(tmp_path: Path) -> None:
    assert error_of(tmp_path, '{"timeline": [\n  {"screenshot": "a",}\n]}', "s.json").startswith(
        "2:22: invalid JSON"
    )
    assert error_of(tmp_path, 'name = "x"\nresponses = [\n', "s.toml").startswith("3:1: Failed to parse TOML")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(b"timeline:\n  - log: caf\xe9\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path, env={})
    assert str(info.value.diagnostics[0]).endswith(":2:13: error: file is not valid UTF-8")


def test_missing_files_are_errors(tmp_path: Path) -> None:
    assert error_of(tmp_path, "timeline:\n  - userEdits: {patch: nope.patch}\n").startswith(
        "2:24: `userEdits.patch` `nope.patch` not found"
    )
    assert "not found" in error_of(tmp_path, "repo: {dir: seed}\ntimeline: []\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(tmp_path / "absent.yaml", env={})
    assert "file not found" in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("timeline:\n  - userEdits: {patch: ../x.patch}\n", "escapes the scenario folder"),
        ("timeline:\n  - applyPatch: {path: /etc/passwd}\n", "is absolute"),
        ("repo: {files: [{path: ../../evil, contents: x}]}\ntimeline: []\n", "escapes the workspace"),
        ("repo: {dir: ..}\ntimeline: []\n", "escapes the scenario folder"),
        ("timeline:\n  - readFile: {path: a/../../b}\n", "escapes the workspace"),
        ("timeline:\n  - assert: {fs: {exists: [../x]}}\n", "escapes the workspace"),
    ],
)
def test_path_escapes_are_errors(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in error_of(tmp_path, text)


def test_symlink_out_of_the_scenario_folder_is_an_error(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "p.patch").write_text("x")
    folder = tmp_path / "scen"
    folder.mkdir()
    os.symlink(outside, folder / "link")
    with pytest.raises(ScenarioError) as info:
        load_scenario(write(folder, "s.yaml", "timeline:\n  - userEdits: {patch: link/p.patch}\n"), env={})
    assert "leads outside the scenario folder" in str(info.value)


# --------------------------------------------------------------------------- rules


RULES = """\
name: r
rules:
  - when: '$fast'
    config: {tags: [fast]}
  - when: '$n >= 3 && $env == "prod"'
    config: {description: big prod}
  - default: true
    config: {tags: [default]}
timeline:
  - rules:
      - when: '$fast'
        config:
          - screenshot: fast_one
          - screenshot: fast_two
      - default: true
        config: {screenshot: slow}
"""


def test_rules_pick_configs_from_defines(tmp_path: Path) -> None:
    path = write(tmp_path, "r.yaml", RULES)
    plain = load_scenario(path, env={})
    assert plain.tags == ("default",)
    assert [e.label for e in plain.timeline] == ["slow"]  # type: ignore[attr-defined]
    fast = load_scenario(path, env={}, defines=["fast=true"])
    assert fast.tags == ("fast",)
    assert [e.label for e in fast.timeline] == ["fast_one", "fast_two"]  # type: ignore[attr-defined]
    prod = load_scenario(path, env={"AH_SCENARIO_DEFINES": "n=4,env=prod"})
    assert prod.description == "big prod" and prod.tags == ()


def test_cli_defines_win_over_the_environment(tmp_path: Path) -> None:
    path = write(tmp_path, "r.yaml", RULES)
    s = load_scenario(path, env={"AH_SCENARIO_DEFINES": "fast=true"}, defines=["fast=false"])
    assert s.tags == ("default",)


def test_bad_rules(tmp_path: Path) -> None:
    assert "invalid condition" in error_of(tmp_path, "rules:\n  - {when: 'fast', config: {}}\ntimeline: []\n")
    assert "needs `config`" in error_of(tmp_path, "rules:\n  - {when: '$a'}\ntimeline: []\n")
    with pytest.raises(ScenarioError, match="invalid define"):
        load(tmp_path, "timeline: []\n", defines=["=3"])


def test_a_decreasing_offset_in_an_element_is_read_as_a_delta_with_a_warning(tmp_path: Path) -> None:
    """The format's own example writes think offsets as deltas ([2000, 1500]): a departure, said and read so."""
    reporter = Reporter()
    s = load(tmp_path, "timeline:\n  - llmResponse:\n      - assistant:\n          - {relativeTime: 500, content: a}\n"
             "          - {relativeTime: 100, content: b}\n", reporter=reporter)  # fmt: skip
    [warning] = [str(d) for d in reporter.warnings]
    assert (
        ":5:28: warning: time went backwards: assistant relativeTime 100 comes after 500 (line 4)" in warning
    )
    assert warning.endswith("read as 100 ms after the previous item (at 600)")
    response = s.timeline[0]
    assert isinstance(response, m.LlmResponse)
    assert [item.ms for item in response.pieces[0].items] == [500, 600]  # type: ignore[union-attr]


def test_an_element_that_is_not_one_is_skipped_with_a_warning(tmp_path: Path) -> None:
    reporter = Reporter()
    s = load(tmp_path, "timeline:\n  - llmResponse:\n      - toolz: [[2000, writeFile]]\n      - assistant: hi\n",
             reporter=reporter)  # fmt: skip
    [warning] = [str(d) for d in reporter.warnings]
    assert ":3:9: warning: an `llmResponse` element `toolz` ignored" in warning
    response = s.timeline[0]
    assert isinstance(response, m.LlmResponse) and [type(p) for p in response.pieces] == [m.Assistant]


@pytest.mark.parametrize(
    "text",
    [
        "timeline:\n  - readFile: {path: /etc/hostname}\n",
        "timeline:\n  - assert: {fs: {exists: [/etc/hostname]}}\n",
        "timeline:\n  - assert: {json: {file: {path: /tmp/x.json, pointer: /a, equals: 1}}}\n",
    ],
)
def test_absolute_paths_may_be_read(tmp_path: Path, text: str) -> None:
    """ "Relative to the workspace unless prefixed with `/`": reading an absolute path is allowed."""
    reporter = Reporter()
    load(tmp_path, text, reporter=reporter)
    assert reporter.warnings == []


def test_an_absolute_edit_is_a_warning_that_it_will_be_refused(tmp_path: Path) -> None:
    reporter = Reporter()
    load(tmp_path, "timeline:\n  - agentEdits: {path: /tmp/x.txt, linesAdded: 1}\n", reporter=reporter)
    [warning] = [d.message for d in reporter.warnings]
    assert warning.startswith(
        "`agentEdits.path` `/tmp/x.txt` is outside the workspace: the write will be refused"
    )
    assert "so that runs stay isolated and repeatable" in warning


def test_keys_seen_in_real_agent_harbor_files_are_known(tmp_path: Path) -> None:
    """`meta` on a userInputs entry is its `_meta`; `repo.commit` says whether the seed is committed;
    the recorder's `expect.snapshots|recording|error_tolerance` and `promptCapabilities.files|richText`
    are accepted and ignored with a note that says so (a warning `--ci` does not refuse)."""
    from workbench.timeline.prepare import prepare

    path = tmp_path / "s.yaml"
    path.write_text("""\
repo: {init: true, commit: false, files: [{path: a.txt, contents: a}]}
acp:
  capabilities:
    loadSession: false
    promptCapabilities: {image: true, files: true, richText: true}
timeline:
  - userInputs:
      - {relativeTime: 0, input: hi, meta: {note: user-meta}}
  - llmResponse:
      - tool: [[100, runCmd], {args: {cmd: echo hi}}, {result: "hi\\n"}, {status: ok}]
  - advanceMs: 10
expect:
  exitCode: 0
  snapshots: {count: 4}
  recording: {format: ahr}
  error_tolerance: {ipc_failures: non_blocking}
""")
    strict = prepare(path, strict=True)
    assert strict.ok, [str(d) for d in strict.diagnostics]
    assert all(not d.ci_error for d in strict.diagnostics)
    notes = sorted(d.message.split(" ")[0] for d in strict.diagnostics)
    assert notes == ["`acp.capabilities.promptCapabilities.files`", "`acp.capabilities.promptCapabilities.richText`",
                     "`expect.error_tolerance`", "`expect.recording`", "`expect.snapshots`"]  # fmt: skip
    assert all("accepted and ignored" in d.message for d in strict.diagnostics)
    scenario = strict.scenario
    assert scenario is not None and scenario.repo is not None and scenario.repo.commit is False
    (inputs,) = [e for e in scenario.timeline if isinstance(e, m.UserInputs)]
    assert dict(inputs.items[0].meta) == {"note": "user-meta"}
    bad = tmp_path / "bad.yaml"
    bad.write_text("timeline:\n  - llmResponse:\n      - tool: [runCmd]\n")
    assert "a `tool` element starts with [ms, toolName]" in str(prepare(bad).errors[0])


def test_repo_commit_false_leaves_the_seed_uncommitted(tmp_path: Path) -> None:
    import subprocess

    from workbench.workspace import Workspace

    for commit, expected in ((True, ""), (False, "?? a.txt")):
        repo = m.Repo(init=True, files=(m.RepoFile("a.txt", b"a", m.Pos("s.yaml")),), commit=commit)
        workspace = Workspace.create(tmp_path, repo)
        try:
            status = subprocess.run(["git", "status", "--porcelain"], cwd=workspace.path, capture_output=True,
                                    text=True, check=True).stdout.strip()  # fmt: skip
        finally:
            workspace.close()
        assert status == expected


def test_a_misspelt_llm_response_element_names_the_nearest_one(tmp_path: Path) -> None:
    reporter = Reporter()
    load(tmp_path, "timeline:\n  - llmResponse:\n      - asistant: [[0, hi]]\n      - tihnk: [[0, hm]]\n",
         reporter=reporter)  # fmt: skip
    assert [str(d).split(": ", 1)[1] for d in reporter.warnings] == [
        "warning: an `llmResponse` element `asistant` ignored; did you mean `assistant`?",
        "warning: an `llmResponse` element `tihnk` ignored; did you mean `think`?",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "timeline:\n  - writeFile: {path: /etc/evil, content: x}\n",
        "timeline:\n  - runCmd: {cmd: ls, cwd: /tmp}\n",
        "timeline:\n  - grep: {pattern: x, path: /etc}\n",
        "timeline:\n  - llmResponse:\n      - agentToolUse: {toolName: Write, args: {file_path: /tmp/x}}\n",
    ],
)
def test_a_tool_expected_to_succeed_outside_the_workspace_cannot_pass(tmp_path: Path, text: str) -> None:
    """Only `readFile` may leave the workspace: any other known tool refuses an absolute path outside it
    every time, so expecting it to succeed is warned about at the path's line and column."""
    reporter = Reporter()
    load(tmp_path, text, reporter=reporter)
    [warning] = [str(d) for d in reporter.warnings]
    line = next(i for i, row in enumerate(text.splitlines(), 1) if " /" in row)
    assert f":{line}:{text.splitlines()[line - 1].index(' /') + 2}: warning: " in warning  # at the path
    assert "is outside the workspace: the tool refuses it when the scenario runs" in warning
    assert "or `status: error` if the refusal is what the step checks" in warning


@pytest.mark.parametrize(
    "text",
    [
        "timeline:\n  - writeFile: {path: /etc/evil, content: x, status: error}\n",
        "timeline:\n  - llmResponse:\n      - agentToolUse: {toolName: my_tool, args: {path: /etc/x}}\n",
    ],
)
def test_an_outside_path_is_fine_where_the_refusal_is_expected_or_the_tool_unknown(
    tmp_path: Path, text: str
) -> None:
    reporter = Reporter()
    load(tmp_path, text, reporter=reporter)
    assert reporter.warnings == []
