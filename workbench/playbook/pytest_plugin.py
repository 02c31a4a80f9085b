"""The pytest plugin (entry point `pytest11: workbench`): scenario files as test items, and fixtures.

Collection: ``pytest scenarios/`` collects every scenario file under the folders
named by the ini option ``workbench_scenarios`` (default: ``scenarios``; paths
relative to the rootdir), and any scenario file named on the command line. So a
project's own ``pytest`` (its ``testpaths``) collects nothing new, and data files
that happen to be YAML or JSON inside test folders are left alone. Discovery
follows `workbench run` (folders starting with `_` or `.`, screenshot sidecars
and `target/` are skipped). An item's id is the scenario's name, its markers are
its tags (registered on the fly, so ``--strict-markers`` is fine), and ``-k``
matches both.

Options: ``--update-goldens``, ``--speed N|max``, ``--mode MODE``, the options
the modes declare (``--agent NAME``, ``--agent-ui``, ``--checkpoint-cmd``: see
:mod:`workbench.engine.drivers`; ``--agent`` alone means the agent mode),
``--workbench-ci`` (never write goldens), ``--goldens DIR`` (default
``<rootdir>/screenshots``). A failing item shows what `workbench run` shows: each
failure with its scenario line, the screenshot diff, the last screen, the run
folder (for `workbench show`).

Fixtures:

* ``workbench_run(scenario, **options)``: run a scenario file, YAML text, a dict,
  or a :class:`~workbench.playbook.Playbook`; returns a :class:`RunOutcome`
  (goldens of a scenario written in the test go under ``screenshots/<test name>/``);
* ``mock_llm(playbook)``: a started :class:`~workbench.playbook.server.MockLlm`
  (``base_url``, ``openai_base_url``, ``api_key``, ``events``, ``check()``), for
  agents that run in the test's own process; checked when the test ends;
* ``terminal(argv, ...)``: any program in a real pty (:class:`Terminal`): type,
  wait for text or quiet, read the screen, compare screenshots with goldens.

Under pytest-xdist each item and fixture has its own workspace, free ports, run
folder (per test under ``tmp_path``, or `<stamp>-<pid>` for collected items) and
goldens folder (per scenario name, per test for ``terminal``), so nothing collides.

This module is imported by every pytest run in an environment where the
workbench is installed: it imports nothing heavy until a hook or fixture needs it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from workbench.names import SCENARIO_SUFFIXES, SCP_USER_FILE

if TYPE_CHECKING:
    from concurrent.futures import Future

    from workbench.engine.options import RunOptions
    from workbench.engine.report import ScenarioResult
    from workbench.playbook.dsl import Playbook
    from workbench.playbook.server import MockLlm
    from workbench.terminal import PtySession

SUFFIXES = SCENARIO_SUFFIXES
DEFAULT_FOLDERS = "scenarios"


def pytest_addoption(parser: pytest.Parser) -> None:
    # The mode registry alone (a few ms): imported here, not with this module, like everything else.
    from workbench.engine.drivers import flag_help, mode_flags

    group = parser.getgroup("workbench", "Scenario Workbench")
    group.addoption(
        "--update-goldens", action="store_true", help="workbench: rewrite goldens that do not match"
    )
    group.addoption(
        "--speed", default="max", help="workbench: 1 = real time, N = N times faster, max (default)"
    )
    group.addoption("--mode", default=None, help="workbench: how scenarios are played (default: mock-agent)")
    for takers in mode_flags().values():  # the options the modes declare; `--agent` alone also picks a mode
        option = takers[0][1]
        group.addoption(option.flag, dest=f"workbench_{option.dest}", default=None, metavar=option.metavar,
                        help=f"workbench: {flag_help(takers)}")  # fmt: skip
    group.addoption(
        "--workbench-ci", action="store_true", help="workbench: never write goldens; missing ones fail"
    )
    group.addoption(
        "--goldens", default=None, help="workbench: the goldens folder (default <rootdir>/screenshots)"
    )
    group.addoption("--workbench-command", default=None, metavar="CMD",
                    help="workbench: the program under test for every scenario instead of its `command` "
                         "(as `workbench run --command`)")  # fmt: skip
    parser.addini("workbench_scenarios", type="pathlist", default=[DEFAULT_FOLDERS],
                  help="folders whose scenario files pytest collects (default: scenarios)")  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    """Bad workbench options are a usage error at once, not a traceback in every item."""
    speed = str(config.getoption("--speed"))
    if speed != "max":
        from workbench.clock import parse_speed

        try:
            parse_speed(speed)
        except ValueError as exc:
            raise pytest.UsageError(f"--speed {speed}: {exc}") from None
    from workbench.engine.drivers import DRIVERS, ModeError, mode_options

    mode = chosen_mode(config)
    given = mode_option_values(config)
    try:
        mode_options(mode, given)
    except ModeError as exc:  # without --mode, a mode an item's file declares may take them (chosen_mode)
        if config.getoption("--mode"):
            raise pytest.UsageError(f"--mode {mode}: {exc}") from None
        names = [name for name, value in given.items() if value is not None]
        takers = [m for m in DRIVERS if all(DRIVERS[m].option(name) for name in names)]
        for taker in takers:
            try:
                mode_options(taker, given)
                break
            except ModeError as why:  # the flags are the mode's, a value is not: say which
                exc = why
                mode = taker
        else:
            raise pytest.UsageError(f"--mode {mode}: {exc}") from None
    command_of(config)


def command_of(config: pytest.Config) -> tuple[str, ...]:
    """The argv ``--workbench-command`` gives (() when not given); a usage error for one that is not one."""
    from workbench.engine.options import command_argv

    line = config.getoption("--workbench-command")
    if line is None:
        return ()
    if config.getoption("--agent"):
        raise pytest.UsageError("--workbench-command and --agent both name the program under test; give one")
    try:
        return command_argv(str(line))
    except ValueError as exc:
        raise pytest.UsageError(f"--workbench-command {line!r}: {exc}") from None


def chosen_mode(config: pytest.Config, declared: str | None = None) -> str:
    """``--mode``, else the mode the item's file declares when it takes the flags given (``--drift``,
    ``--agent codex-acp``), else the agent mode when ``--agent`` names an agent, else the default mode, as
    ``workbench run`` chooses (:func:`~workbench.engine.drivers.implied_mode`)."""
    from workbench.engine.drivers import implied_mode

    if config.getoption("--mode"):
        return str(config.getoption("--mode"))
    given = mode_option_values(config)
    agent = given.get("agent")
    return implied_mode(given, [agent] if agent else [], {declared} if declared else set())


def mode_option_values(config: pytest.Config) -> dict[str, str | None]:
    from workbench.engine.drivers import mode_flags

    return {name: config.getoption(takers[0][1].flag) for name, takers in mode_flags().items()}


# --------------------------------------------------------------------------- collection


def _wanted(file_path: Path, config: pytest.Config) -> Path | None:
    """The scenario `workbench run` would take for this file: the file, or for an SCP folder's
    ``mock_user.py`` the folder; named on the command line, or found in a scenario folder as its discovery
    finds scenarios (sidecars, `_data`, `target` and the other files of SCP folders left out)."""
    if file_path.suffix.lower() not in SUFFIXES and file_path.name != SCP_USER_FILE:
        return None  # the common case, before anything is imported
    from workbench.scenario.loader import is_discovered, is_scenario_name
    from workbench.scenario.scp_folder import is_scp_folder

    if file_path.name == SCP_USER_FILE:
        if not is_scp_folder(file_path.parent):
            return None
        scenario = file_path.parent  # the folder is the scenario; pytest reaches it through this file
    elif is_scenario_name(file_path):
        scenario = file_path
    else:
        return None
    named = {str(Path(a.split("::")[0]).resolve()) for a in config.args}
    if str(scenario) in named or str(file_path) in named:
        return scenario
    folders = config.getini("workbench_scenarios")
    return scenario if any(is_discovered(scenario, Path(folder).resolve()) for folder in folders) else None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    scenario = _wanted(file_path, parent.config)
    if scenario is not None:
        collector = ScenarioFile.from_parent(parent, path=file_path)
        collector.scenario = scenario
        return collector
    return None


class ScenarioFile(pytest.File):
    scenario: Path
    """The scenario's path: this file, or the SCP folder of this ``mock_user.py``."""

    def collect(self) -> Iterator[pytest.Item]:
        from workbench.scenario.loader import try_load

        loaded = try_load(self.scenario)
        scenario = loaded.scenario
        name = scenario.name if scenario is not None else self.scenario.stem
        item = ScenarioItem.from_parent(self, name=name)
        item.scenario = self.scenario
        item.declared = scenario.mode if scenario is not None else None
        if scenario is None:
            item.diagnostics = [str(d) for d in loaded.diagnostics if d.severity.value == "error"]
        for tag in scenario.tags if scenario is not None else ():
            marker = re.sub(r"\W", "_", tag)
            self.config.addinivalue_line("markers", f"{marker}: scenario tag `{tag}`")
            item.add_marker(marker)
        yield item


class ScenarioFailed(Exception):
    """A scenario item failed; the message is what `workbench run` prints for it."""


class ScenarioItem(pytest.Item):
    diagnostics: list[str] | None = None
    scenario: Path
    declared: str | None = None  # the file's own `mode:`

    def runtest(self) -> None:
        if self.diagnostics:
            raise ScenarioFailed("\n".join(self.diagnostics))
        import asyncio

        from workbench.engine.drivers import ModeError
        from workbench.engine.runner import run_scenario
        from workbench.timeline.prepare import prepare

        # --workbench-ci checks as `run --ci` does: a misspelt key inside a known structure is an error
        prepared = prepare(self.scenario, strict=bool(self.config.getoption("--workbench-ci")))
        try:
            options = run_options(self.config, self.declared, out_dir=_items_out_dir(self.config))
        except ModeError as exc:
            raise ScenarioFailed(f"{self.scenario}: {exc}") from None
        result = asyncio.run(run_scenario(self.scenario, options, prepared=prepared))
        if result.status == "skipped":
            pytest.skip(result.skip_reason or "skipped")
        if result.status != "passed":
            raise ScenarioFailed(explain(result))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self.name}"


def _items_out_dir(config: pytest.Config) -> Path:
    return Path(config.rootpath) / "target" / "tmp" / "workbench"


def run_options(config: pytest.Config, declared: str | None = None, **overrides: Any) -> RunOptions:
    """The run options the command line asked for, for a file that declares the mode ``declared`` (each
    item and fixture adds its own folders). ModeError: the mode takes not every flag given."""
    from workbench.clock import parse_speed
    from workbench.engine.drivers import mode_options
    from workbench.engine.options import RunOptions

    goldens = config.getoption("--goldens")
    mode = chosen_mode(config, declared)
    values: dict[str, Any] = {
        "speed": parse_speed(str(config.getoption("--speed"))),
        "ci": bool(config.getoption("--workbench-ci")),
        "update_goldens": bool(config.getoption("--update-goldens")),
        "goldens_dir": Path(goldens) if goldens else Path(config.rootpath) / "screenshots",
        "mode": mode,
        "mode_options": mode_options(mode, mode_option_values(config)),
        "command": command_of(config),
    }
    values.update(overrides)
    return RunOptions(**values)


def explain(result: ScenarioResult) -> str:
    """A failed result as `workbench run` prints it, plus the last screen of its trace."""
    lines = [f"scenario {result.name} {result.status}:"]
    for f in result.failures:
        lines.append(f"{f.file or result.file}:{f.line}{f':{f.col}' if f.col else ''}: {f.kind}: {f.message}")
        if f.diff:
            lines.append(f.diff)
    screen = _last_screen(result.run_dir)
    if screen:
        lines += ["the screen at the end:", screen]
    if result.kept_workspace:
        lines.append(f"workspace kept at {result.kept_workspace}")
    if result.run_dir:
        lines.append(
            f"trace and recording in {result.run_dir} (open it with: workbench show {result.run_dir})"
        )
    return "\n".join(lines)


def _last_screen(run_dir: str | None) -> str:
    if not run_dir or not (Path(run_dir) / "trace.jsonl").exists():
        return ""
    from workbench.engine.trace import Trace

    steps = Trace.read(Path(run_dir)).steps
    if not steps:
        return ""
    rows = [str(r).rstrip() for r in steps[-1].get("screen", [])]
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join("  | " + r for r in rows)


# --------------------------------------------------------------------------- workbench_run


@dataclass
class RunOutcome:
    """One run made by the ``workbench_run`` fixture."""

    result: ScenarioResult
    events: Any = None  # a playbook run's Events
    playbook_failures: Sequence[Any] = ()

    @property
    def passed(self) -> bool:
        return self.result.status in ("passed", "skipped")

    @property
    def run_dir(self) -> Path | None:
        return Path(self.result.run_dir) if self.result.run_dir else None

    @property
    def screen(self) -> str:
        """The last recorded screen (rows joined by newlines, trailing spaces cut)."""
        if self.run_dir is None:
            return ""
        from workbench.engine.trace import Trace

        steps = Trace.read(self.run_dir).steps
        return "\n".join(str(r).rstrip() for r in steps[-1]["screen"]) if steps else ""

    def explain(self) -> str:
        return explain(self.result)

    def check(self) -> None:
        """Fail the test with `workbench run`'s account of the failures, if there are any."""
        if not self.passed:
            pytest.fail(self.explain(), pytrace=False)


@pytest.fixture
def workbench_run(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., RunOutcome]:
    """Run a scenario file, YAML text, a dict, or a Playbook; ``agent=``/``command=`` for playbooks;
    any other keyword is a RunOptions field."""
    counter = iter(range(1, 1_000_000))

    def run(scenario: Path | str | Mapping[str, Any] | Playbook, *, agent: str | None = None,
            command: Sequence[str] | None = None, **options: Any) -> RunOutcome:  # fmt: skip
        import asyncio

        from workbench.playbook.dsl import Playbook

        options.setdefault("out_dir", tmp_path / "runs")
        in_memory = isinstance(scenario, Playbook | Mapping) or (
            isinstance(scenario, str) and "\n" in scenario
        )
        if in_memory and "goldens_dir" not in options and not request.config.getoption("--goldens"):
            # a scenario written in the test has its goldens under the test's name: two tests never share them
            test = re.sub(r"[^\w.-]+", "_", request.node.name)[:100]
            options["goldens_dir"] = Path(request.config.rootpath) / "screenshots" / test
        if isinstance(scenario, Playbook):
            from workbench.playbook.run import run_playbook

            run_opts = run_options(request.config, **options)
            chosen = agent or request.config.getoption("--agent") or "mock-agent"
            done = asyncio.run(run_playbook(scenario, agent=chosen, command=command, options=run_opts))
            return RunOutcome(done.result, done.events, done.failures)
        path, text = _scenario_source(scenario, tmp_path, next(counter))
        from workbench.engine.drivers import ModeError
        from workbench.engine.runner import run_scenario
        from workbench.timeline.prepare import prepare

        # a scenario written in the test is loaded from memory, as if it were at `path`: nothing is written
        strict = bool(options.get("ci", request.config.getoption("--workbench-ci")))
        prepared = prepare(path, defines=tuple(options.get("defines", ())), text=text, strict=strict)
        declared = prepared.scenario.mode if prepared.scenario is not None else None
        try:  # the options of the mode the file declares, as its collected item has them
            run_opts = run_options(request.config, declared, **options)
        except ModeError as exc:  # the flags given are not this file's mode's: said as its item says it
            pytest.fail(f"{path}: {exc}", pytrace=False)
        return RunOutcome(asyncio.run(run_scenario(path, run_opts, prepared=prepared)))

    return run


def _scenario_source(
    scenario: Path | str | Mapping[str, Any], tmp_path: Path, n: int
) -> tuple[Path, str | None]:
    """Where the scenario is (or, written in the test, where it is said to be: relative paths resolve
    from there) and its text when it is not a file (None: read the file)."""
    if isinstance(scenario, Path):
        return scenario, None
    if isinstance(scenario, Mapping):
        import json

        return tmp_path / f"scenario-{n}.json", json.dumps(scenario)
    if "\n" not in scenario and Path(scenario).suffix.lower() in SUFFIXES and Path(scenario).exists():
        return Path(scenario), None
    return tmp_path / f"scenario-{n}.yaml", scenario


# --------------------------------------------------------------------------- mock_llm


@pytest.fixture
def mock_llm(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[Playbook], MockLlm]]:
    """``mock_llm(playbook)``: a started mock LLM server playing ``playbook``; checked when the test
    function returns (a broken playbook fails the test itself, with every diagnostic) and stopped after."""
    from workbench.playbook.server import MockLlm

    servers: list[MockLlm] = []
    request.node.stash[LLMS] = servers

    def start(playbook: Playbook, *, speed: float | None = None) -> MockLlm:
        server = MockLlm(playbook, speed=speed, out_dir=tmp_path / f"llm-{len(servers) + 1}").start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


LLMS = pytest.StashKey[list[Any]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After a test that used ``mock_llm`` returns: each server's playbook must be intact."""
    result = yield
    failures = []
    for server in item.stash.get(LLMS, []):
        try:
            server.check()
        except AssertionError as exc:
            failures.append(str(exc))
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)
    return result


# --------------------------------------------------------------------------- terminal


class Terminal:
    """A program in a real pty, driven from synchronous test code (its loop runs on a thread of its own)."""

    def __init__(self, argv: Sequence[str], *, width: int, height: int, cwd: Path, env: Mapping[str, str],
                 goldens: Path, name: str, update: bool, ci: bool) -> None:  # fmt: skip
        import asyncio
        import threading

        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="workbench-terminal", daemon=True)
        self._thread.start()
        self.width, self.height = width, height
        self.goldens, self.name, self.update, self.ci = goldens, name, update, ci
        from workbench.terminal import PtySession

        async def spawn() -> PtySession:
            return await PtySession.spawn(list(argv), env=dict(env), cwd=str(cwd), width=width, height=height)

        self.session: PtySession = self._run(spawn())

    def _run(self, coro: Any, timeout: float = 120) -> Any:
        import asyncio

        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout=timeout)

    def type(self, text: str) -> None:
        """Type ``text`` in key notation (``<Enter>``, ``<C-c>``, ``<Up>``) as a person does: into a TUI, a key
        per read (:meth:`~workbench.terminal.PtySession.type_keys`)."""
        from workbench.terminal.keys import split_keys

        self._run(self.session.type_keys(split_keys(text)))

    def wait_for(self, pattern: str | re.Pattern[str], timeout: float = 10) -> str:
        """Wait until the screen shows ``pattern`` (text or regex); returns the match. Fails with the screen."""
        return str(self._run(self.session.wait_for_text(pattern, timeout), timeout + 5))

    def wait_stable(self, ms: int = 150, timeout: float = 10) -> None:
        """Wait until the screen has not changed for ``ms`` milliseconds."""
        self._run(self.session.wait_stable(ms, timeout), timeout + 5)

    def wait_exit(self, timeout: float = 10) -> int:
        return int(self._run(self.session.wait_exit(timeout), timeout + 5))

    @property
    def text(self) -> str:
        """The screen's rows, trailing spaces cut, joined by newlines."""
        return "\n".join(row.rstrip() for row in self.session.screen.text_rows())

    def screenshot(self, label: str, *, stable_ms: int = 150) -> str:
        """Compare the settled screen with the golden ``label`` (written when new); fail with the diff."""
        from workbench.terminal import GoldenStore

        self.wait_stable(stable_ms)
        shot = self.session.screen.snapshot()
        store = GoldenStore(self.goldens, self.name, f"{self.width}x{self.height}", ci=self.ci, update=self.update,
                            actual_dir=self.goldens.parent / "target" / "tmp" / "workbench")  # fmt: skip
        outcome = store.check(label, shot)
        if outcome.status in ("mismatch", "missing"):
            pytest.fail(f"screenshot `{label}`: {outcome.status}\n{outcome.diff or ''}", pytrace=False)
        return shot.text()

    def close(self) -> None:
        if self._thread.is_alive():
            try:
                self._run(self.session.terminate(), 15)
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(timeout=10)
        self._loop.close()


@pytest.fixture
def terminal(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Terminal]]:
    """``terminal(argv, width=80, height=24, cwd=tmp_path, env=None)``: a program in a pty; stopped at the end.
    Goldens go to ``<goldens>/<test name>/<W>x<H>/<label>.golden``."""
    terminals: list[Terminal] = []
    options = run_options(request.config)
    name = re.sub(r"[^\w.-]+", "_", request.node.name)[:100]

    def start(argv: Sequence[str], *, width: int = 80, height: int = 24, cwd: Path | None = None,
              env: Mapping[str, str] | None = None) -> Terminal:  # fmt: skip
        environment = {
            k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "HOME")
        }
        environment.update({"TERM": "xterm-256color", "COLUMNS": str(width), "LINES": str(height)})
        environment.update(env or {})
        term = Terminal(argv, width=width, height=height, cwd=cwd or tmp_path, env=environment,
                        goldens=options.goldens_dir, name=name, update=options.update_goldens, ci=options.ci)  # fmt: skip
        terminals.append(term)
        return term

    yield start
    for term in terminals:
        term.close()
