"""Options given nonsense (a file for a folder, a folder that is not there, a port out of range, a
mask that matches nothing): one line that names the option and what it takes, exit 2, before anything
starts; never a traceback (exit 3) or a run that fails step after step for a reason given at the start."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.conftest import write

HELLO = "name: hello\ntimeline:\n  - assistant: [[10, hi]]\n"


def refused(*args: str, cwd: Path) -> str:
    """The one-line error of a refused command line (its usage lines aside)."""
    done = workbench(*args, cwd=cwd, timeout=60)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "error:" in line]
    return line


@pytest.mark.parametrize("command", ["show", "edit"])
def test_a_web_port_out_of_range_is_refused(command: str, tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", HELLO)
    for port in ("-1", "65536", "http"):
        line = refused(command, "s.yaml", "--web", f"--port={port}", cwd=tmp_path)
        assert "--port" in line and port in line


@pytest.mark.parametrize(
    ("port", "says"),
    [("-1", "must be 0..65535, got -1"), ("65536", "must be 0..65535, got 65536"),
     ("http", "not a port number: 'http'"), ("", "not a port number: ''")],
)  # fmt: skip
def test_both_servers_refuse_a_bad_port_alike_before_reading_a_scenario(
    port: str, says: str, tmp_path: Path
) -> None:
    """`serve llm` and `serve rest` listen from one set of arguments (usage.add_listen_arguments): the same
    check, the same words, while the command line is read (`serve rest` took any integer until then)."""
    write(tmp_path, "s.yaml", "name: broken\ntimeline: 3\n")  # never read: the flag is refused first
    lines = {
        kind: refused("serve", kind, "s.yaml", f"--port={port}", cwd=tmp_path) for kind in ("llm", "rest")
    }
    assert lines["llm"].removeprefix("workbench serve llm") == lines["rest"].removeprefix(
        "workbench serve rest"
    )
    assert lines["llm"] == f"workbench serve llm: error: argument --port: {says}"


def test_the_mock_agents_workspace_must_be_a_folder_that_is_there(tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", HELLO)
    line = refused("mock-agent", "s.yaml", "--workspace", "s.yaml", cwd=tmp_path)
    assert (
        line
        == "workbench mock-agent: error: --workspace s.yaml: is a file; give a folder (where the tools run)"
    )
    line = refused("mock-agent", "s.yaml", "--workspace", "nowhere", cwd=tmp_path)
    assert "--workspace nowhere: no such folder" in line
    assert not (tmp_path / "nowhere").exists()


def test_a_control_socket_nobody_listens_on_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", HELLO)
    line = refused("mock-agent", "s.yaml", "--control", str(tmp_path / "gone.sock"), cwd=tmp_path)
    assert f"--control {tmp_path / 'gone.sock'}: no engine listens there" in line


def test_serve_llm_refuses_an_out_that_is_a_file_and_a_workspace_that_is_not_there(tmp_path: Path) -> None:
    """Both were taken: the request log was lost without a word, every `assert` of a file failed."""
    write(tmp_path, "s.yaml", HELLO)
    line = refused("serve", "llm", "s.yaml", "--out", "s.yaml", cwd=tmp_path)
    assert line == "workbench serve llm: error: --out s.yaml: is a file; give a folder"
    line = refused("serve", "llm", "s.yaml", "--workspace", "nowhere", cwd=tmp_path)
    assert "--workspace nowhere: no such folder" in line


@pytest.mark.parametrize("mask", ["", r"\d*", "(x)?"])
def test_a_mask_that_matches_the_empty_string_is_refused(mask: str, tmp_path: Path) -> None:
    """It put a `*` between every two characters of the screen: every golden failed, or was written so."""
    write(tmp_path, "s.yaml", HELLO)
    line = refused("run", "s.yaml", "--mask", mask, cwd=tmp_path)
    assert f"--mask `{mask}` matches the empty string" in line
    write(tmp_path, "m.yaml", f"masks: ['{mask}']\n" + HELLO)
    done = workbench("validate", "m.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert f"m.yaml:1:9: error: `masks` item `{mask}` matches the empty string" in done.stdout + done.stderr


@pytest.mark.parametrize("command", ["run", "validate"])
def test_lenient_without_ci_is_refused_as_changing_nothing(command: str, tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", HELLO)
    line = refused(command, "s.yaml", "--lenient", cwd=tmp_path)
    assert line == (
        "workbench: error: --lenient only loosens --ci (without --ci, unknown keys are warnings already); "
        "add --ci or drop --lenient"
    )


@pytest.mark.parametrize(
    "args",
    [
        ("run", ""),
        ("run", "s.yaml", "--goldens", ""),
        ("run", "s.yaml", "--out", ""),
        ("run", "s.yaml", "--report", ""),
        ("validate", ""),
        ("timeline", ""),
        ("serve", "llm", ""),
        ("serve", "rest", ""),
        ("report", "merge", ""),
        ("mock-agent", ""),
        ("acp-agent", ""),
    ],
    ids=lambda args: " ".join(a or "''" for a in args),
)
def test_an_empty_path_is_refused_not_taken_for_this_folder(args: tuple[str, ...], tmp_path: Path) -> None:
    """`--goldens "$DIR"` with DIR unset wrote goldens into the current folder; `run "$F"` ran all it held."""
    write(tmp_path, "s.yaml", HELLO)
    line = refused(*args, cwd=tmp_path)
    assert line.endswith("an empty path: give a file or folder name (`.` for this folder)")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp", "s.yaml"]  # nothing ran, nothing written


@pytest.mark.parametrize(
    "args",
    [
        ("run", "s.yaml", "--define", ""),
        ("validate", "s.yaml", "--define", " "),
        ("timeline", "s.yaml", "-D", ""),
        ("serve", "llm", "s.yaml", "--define", ""),
        ("serve", "rest", "s.yaml", "--define", ""),
        ("mock-agent", "s.yaml", "--define", ""),
        ("acp-agent", "s.yaml", "--define", ""),
    ],
    ids=lambda args: " ".join(a or "''" for a in args),
)
def test_an_empty_define_is_refused_not_taken_for_none(args: tuple[str, ...], tmp_path: Path) -> None:
    """`--define "$FLAG"` with FLAG unset ran every `rules` condition without the symbol, without a word."""
    write(tmp_path, "s.yaml", HELLO)
    line = refused(*args, cwd=tmp_path)
    assert "argument --define/-D: an empty define: give KEY=VALUE, such as --define os=linux" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp", "s.yaml"]  # nothing ran, nothing written


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("x", "'x' has no `=`"),
        ("1=2", "'1=2': the key '1' is not a name"),
        ("=on", "'=on' has no key before `=`"),
    ],
)
def test_a_define_that_is_not_key_value_is_a_usage_error_not_one_failure_per_scenario(
    value: str, says: str, tmp_path: Path
) -> None:
    write(tmp_path, "s.yaml", HELLO)
    line = refused("run", "s.yaml", "--define", value, cwd=tmp_path)
    assert f"argument --define/-D: {says}: give KEY=VALUE" in line


@pytest.mark.parametrize("k", ["", "  "])
def test_an_empty_k_expression_is_refused_not_taken_for_every_scenario(k: str, tmp_path: Path) -> None:
    """`-k "$FILTER"` with FILTER unset ran every scenario, as an empty `--tags` did."""
    write(tmp_path, "s.yaml", HELLO)
    assert refused("run", "s.yaml", "-k", k, cwd=tmp_path) == (
        f"workbench: error: -k `{k}`: an empty expression: give words with and, or, not, such as "
        "-k 'git and not slow' (no -k runs every scenario)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp", "s.yaml"]


@pytest.mark.parametrize("tags", ["", " ", ",", " , "])
def test_an_empty_tag_list_is_refused_not_taken_for_every_scenario(tags: str, tmp_path: Path) -> None:
    """`--tags "$TAGS"` with TAGS unset ran every scenario, the ones the job meant to leave out too."""
    write(tmp_path, "s.yaml", HELLO)
    line = refused("run", "s.yaml", "--tags", tags, cwd=tmp_path)
    assert line.endswith(f"argument --tags: no tag in {tags!r}: give a tag or several, comma-separated, such as "
                         "--tags smoke,git")  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp", "s.yaml"]


def test_an_empty_shard_is_refused_not_taken_for_all_of_them(tmp_path: Path) -> None:
    """`--shard "$SHARD"` with SHARD unset ran every scenario in each job of a CI matrix."""
    write(tmp_path, "s.yaml", HELLO)
    assert (
        refused("run", "s.yaml", "--shard", "", cwd=tmp_path)
        == "workbench: error: --shard ``: expected I/N, e.g. 1/4"
    )


def test_a_named_pipe_or_an_endless_device_as_a_scenario_ends_with_an_error(tmp_path: Path) -> None:
    """A named pipe nobody writes to hung `validate`, `run` and `serve` for ever (opening it waited for a
    writer); `/dev/zero` behind a symlink filled the memory. A pipe with a writer is read as before."""
    import os

    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    for args in (("validate", "fifo.yaml"), ("run", "fifo.yaml"), ("serve", "llm", "fifo.yaml")):
        done = workbench(*args, cwd=tmp_path, timeout=60)
        assert done.returncode == 2 and "fifo.yaml:1:1: " in done.stdout + done.stderr
        assert "the file is empty; a scenario needs at least `timeline`" in done.stdout + done.stderr
    line = refused("timeline", "zero.yaml", cwd=tmp_path)
    assert line == "zero.yaml:1:1: error: zero.yaml is larger than 64 MB, more than a scenario file can be"
    read, write_end = os.pipe()
    os.write(write_end, HELLO.encode())
    os.close(write_end)
    try:
        from workbench.scenario.loader import load_scenario

        assert load_scenario(Path(f"/dev/fd/{read}")).name == "hello"
    finally:
        os.close(read)


@pytest.mark.parametrize(
    "command", [("serve", "llm", "s.yaml"), ("serve", "rest", "s.yaml"), ("show", "s.yaml", "--web")]
)
def test_an_empty_host_is_refused_not_taken_for_every_interface(
    command: tuple[str, ...], tmp_path: Path
) -> None:
    """`--host "$HOST"` with HOST unset made a server meant for this machine listen on the network."""
    write(tmp_path, "s.yaml", HELLO)
    line = refused(*command, "--host", "", cwd=tmp_path)
    assert line.endswith(
        "argument --host: an empty address: give 127.0.0.1 (this machine only) or 0.0.0.0 (every interface, on purpose)"
    )


def test_a_report_that_is_a_pipe_or_a_device_is_not_said_to_be_missing(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "r.json")
    for args in (("report", "merge", "r.json"), ("report", "html", "r.json", "-o", "html")):
        line = refused(*args, cwd=tmp_path)
        assert line.endswith(
            "r.json: neither a file nor a folder (a pipe or a device): give a report file or a folder of them"
        )
    assert refused("report", "merge", "gone.json", cwd=tmp_path).endswith("gone.json: no such file or folder")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc (Linux)")
@pytest.mark.parametrize(
    "args",
    [
        ("run", "s.yaml", "--report", "/proc/r.json"),
        ("run", "s.yaml", "--junit", "/proc/j.xml"),
        ("run", "s.yaml", "--html", "/proc/html"),
        ("run", "s.yaml", "--out", "/proc/runs"),
        ("run", "s.yaml", "--goldens", "/proc/goldens"),
        ("report", "merge", "r.json", "--report", "/proc/merged.json"),
    ],
    ids=lambda args: " ".join(args[2:]),
)
def test_an_output_where_no_file_can_be_made_is_refused_before_anything_runs(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    """Root may write anywhere the permissions say, yet not in /proc (nor on a file system that refuses new
    files): every scenario ran, and then the report was lost, or each scenario failed on its run folder."""
    write(tmp_path, "s.yaml", HELLO)
    write(tmp_path, "r.json", '{"version": 1, "summary": {"duration_ms": 1}, "scenarios": []}')
    line = refused(*args, cwd=tmp_path)
    assert line.endswith(f"{args[-2]} {args[-1]}: cannot write in /proc: No such file or directory; give a path in "
                         "a folder that takes files")  # fmt: skip
    assert not (tmp_path / "target").exists()  # nothing ran


@pytest.mark.parametrize("command", [("run",), ("validate",), ("serve", "llm"), ("serve", "rest")])
def test_a_dangling_symlink_or_a_symlink_loop_is_said_to_be_one(
    command: tuple[str, ...], tmp_path: Path
) -> None:
    """Both were "file not found", for a name `ls` lists."""
    (tmp_path / "dangling.yaml").symlink_to("gone.yaml")
    (tmp_path / "one.yaml").symlink_to("two.yaml")
    (tmp_path / "two.yaml").symlink_to("one.yaml")
    done = workbench(*command, "dangling.yaml", "one.yaml", cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "dangling.yaml:1:1: error: a symlink to gone.yaml, which is not there\n" in done.stderr
    assert "one.yaml:1:1: error: a symlink that leads back to itself (a loop)\n" in done.stderr


@pytest.mark.parametrize("command", ["timeline", "mock-agent", "acp-agent"])
def test_a_symlink_loop_for_the_one_scenario_of_a_command_is_invalid_input_not_a_bug(
    command: str, tmp_path: Path
) -> None:
    """`workbench timeline LOOP` ended as a bug (exit 3): naming the file resolved the loop."""
    (tmp_path / "one.yaml").symlink_to("two.yaml")
    (tmp_path / "two.yaml").symlink_to("one.yaml")
    line = refused(command, "one.yaml", cwd=tmp_path)
    assert line == "one.yaml:1:1: error: cannot read one.yaml: Too many levels of symbolic links"


def test_a_bidirectional_control_in_a_name_is_shown_escaped_not_obeyed(tmp_path: Path) -> None:
    """U+202E (right-to-left override) in a key or a name reordered the rest of the line on the terminal:
    `lo<RLO>g` showed as another word, a message could be made to say what it does not."""
    write(tmp_path, "s.yaml", 'name: "ok\\u202eevil"\ntimeline:\n  - "lo\\u2066g": hi\n')
    done = workbench("validate", "s.yaml", cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert "s.yaml:3:5: error: unknown event `lo\\u2066g`; did you mean `log`?" in done.stderr
    write(tmp_path, "s.yaml", 'name: "ok\\u202eevil"\ntimeline:\n  - log: hi\n')
    done = workbench("run", "s.yaml", cwd=tmp_path, timeout=60)
    assert done.returncode == 0 and "PASSED  ok\\u202eevil" in done.stdout and "\u202e" not in done.stdout


@pytest.mark.parametrize(("flag", "example"), [("--report", "report.json"), ("--junit", "junit.xml")])
def test_a_report_named_as_a_scenario_of_the_run_is_refused_not_written_over_it(
    flag: str, example: str, tmp_path: Path
) -> None:
    """`workbench run s.yaml --report s.yaml` (a slip of the shell's completion) ran the scenario, then
    replaced it with its own report."""
    write(tmp_path, "suite/s.yaml", HELLO)
    line = refused("run", "suite", flag, "suite/s.yaml", cwd=tmp_path)
    assert line == (f"workbench: error: {flag} suite/s.yaml: is a scenario file this run reads, which the "
                    f"{flag[2:]} would replace; give the report a name of its own, such as {example}")  # fmt: skip
    assert (tmp_path / "suite" / "s.yaml").read_text() == HELLO and not (tmp_path / "target").exists()


def test_a_misspelt_agent_gets_the_nearest_name(tmp_path: Path) -> None:
    """The standard's nearest valid name: `--agent claude-cod` listed every agent, and named none."""
    write(tmp_path, "s.yaml", HELLO)
    line = refused("run", "s.yaml", "--mode", "real-agent", "--agent", "claude-cod", cwd=tmp_path)
    assert line.startswith(
        "workbench: error: unknown agent `claude-cod` for mode real-agent; did you mean `claude-code`? known: "
    )


@pytest.mark.parametrize("speed", ["1e-300", "1e308", "nan"])
@pytest.mark.parametrize("command", [("run",), ("mock-agent",), ("serve", "llm"), ("serve", "rest")])
def test_a_speed_out_of_range_is_a_usage_error_that_says_what_is_allowed(
    command: tuple[str, ...], speed: str, tmp_path: Path
) -> None:
    """`--speed 1e-300` was taken, and the run then waited for its timeout."""
    write(tmp_path, "s.yaml", HELLO)
    line = refused(*command, "s.yaml", f"--speed={speed}", cwd=tmp_path)
    assert f"invalid speed {speed!r}: use a number from 0.01 to 1000" in line and "`max`" in line, line
