"""Extending the workbench touches only the files the docs promise (issue 21's "done when").

A temporary package, outside `workbench/`, adds:

* a control event (`beep`): its model class, one spec line (`workbench.scenario.events.register`)
  and its handler (`workbench.engine.steps.register_handler`): the README's example;
* an execution mode with an option (`shout --shout-prefix`): its driver module and its registry line;
* an agent (`tiny`): one module that registers itself (`workbench.llm.agents.register`): the README's
  example;
* an agent event of an existing kind (`say`): one timeline key, its parser and schema
  (`workbench.scenario.events.register_key`);
* a wire style (`plain`): one module that registers itself (`workbench.llm.wire.register_wire`);

and a scenario runs through each. A new *agent* event kind is a member of `StepKind`:
strict mypy on a copy of the package with one more member names exactly the players that
must handle it (every `match` ends with `assert_never`). The greps of the issue hold too.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.conftest import REPO, write
from workbench.engine import drivers
from workbench.engine.options import RunOptions
from workbench.engine.runner import run_scenario
from workbench.engine.steps import HANDLERS
from workbench.llm import LlmServer, agents, wire
from workbench.record.exchange import Exchange
from workbench.record.proxy import RecordingProxy
from workbench.record.redact import Redactor
from workbench.record.writer import Recording, conversation, write_recording
from workbench.scenario import agent_harbor
from workbench.scenario import model as m
from workbench.scenario.events import EVENT_KEYS, EVENT_SPECS
from workbench.scenario.loader import load_scenario

PACKAGE = REPO / "workbench"


def readme_example(section: str, index: int = 0) -> str:
    """The ``index``-th Python block of the README's section ``section``: the docs' examples are what runs here."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, re.S)[index]


BEEP = readme_example("Adding an event")
SAY = readme_example("Adding an event", 1)
PLAIN = readme_example("Adding a wire style")
TINY = readme_example("Adding an agent")

SHOUT = '''
"""A mode `shout`: `cat` is the program, the agent's messages are typed in upper case after --shout-prefix."""
from workbench.engine.program import Program
from workbench.timeline import StepKind


class ShoutDriver:
    def __init__(self, ctx):
        self.ctx = ctx

    async def start(self, program):
        await self.ctx.spawn(Program(("cat",), program.env, mock_agent=False))

    async def play(self, step):
        if step.kind is not StepKind.ASSISTANT:
            return None
        await self.settle()
        self.ctx.write(f"{self.ctx.options.option('shout-prefix', '')}{step.text.text.upper()}<Enter>")
        return []

    async def settle(self):
        await self.ctx.session.wait_stable(100, timeout=10)

    async def finish(self):
        return None

    async def stop(self):
        return None
'''

CHAT_PROGRAM = """#!{python}
import sys
import openai

base_url, key, prompt = sys.argv[1:4]
client = openai.OpenAI(base_url=base_url, api_key=key, max_retries=0)
reply = client.chat.completions.create(model="mock-model", messages=[{{"role": "user", "content": prompt}}])
print(reply.choices[0].message.content, flush=True)
"""

PLAIN_PROGRAM = """#!{python}
import sys
import httpx

base_url, prompt = sys.argv[1:3]
print(httpx.post(base_url + "/plain/ask", json={{"prompt": prompt}}).json()["text"], flush=True)
"""

TINY_SCENARIO = """\
name: tiny
timeline:
  - userInputs: [[0, "write a note"]]
  - writeFile: {path: note.txt, content: "from tiny\\n"}
  - llmResponse:
      - assistant: [[0, "wrote note.txt"]]
  - assert: {fs: {exists: [note.txt]}, text: {contains: [wrote note.txt]}}
"""

TINY_PROGRAM = """#!{python}
import json, pathlib, sys
import openai

base_url, key, prompt = sys.argv[1:4]
client = openai.OpenAI(base_url=base_url, api_key=key, max_retries=0)
tools = [{{"type": "function", "function": {{"name": "writeFile", "description": "write a file", "parameters": {{
    "type": "object", "properties": {{"path": {{"type": "string"}}, "content": {{"type": "string"}}}}}}}}}}]
messages = [{{"role": "user", "content": prompt}}]
while True:
    message = client.chat.completions.create(model="mock-model", messages=messages, tools=tools).choices[0].message
    if message.content:
        print(message.content, flush=True)
    if not message.tool_calls:
        break
    messages.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        pathlib.Path(args["path"]).write_text(args["content"])
        messages.append({{"role": "tool", "tool_call_id": call.id, "content": "ok"}})
"""


@pytest.fixture
def extension(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The temporary package, importable; the registries as they were afterwards."""
    package = tmp_path / "ext" / "wbext"
    modules = (
        ("__init__", ""),
        ("beep", BEEP),
        ("shout", SHOUT),
        ("tiny", TINY),
        ("say", SAY),
        ("plain", PLAIN),
    )
    for name, text in modules:
        write(package, f"{name}.py", textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(package.parent))
    specs, keys, handlers, known = dict(EVENT_SPECS), dict(EVENT_KEYS), dict(HANDLERS), dict(agents.AGENTS)
    styles = list(wire.WIRES)
    try:
        yield package
    finally:
        for registry, saved in (
            (EVENT_SPECS, specs),
            (EVENT_KEYS, keys),
            (HANDLERS, handlers),
            (agents.AGENTS, known),
        ):
            registry.clear()
            registry.update(saved)  # type: ignore[arg-type]
        wire.WIRES[:] = styles
        for name in [n for n in sys.modules if n == "wbext" or n.startswith("wbext.")]:
            del sys.modules[name]


def run(path: Path, tmp_path: Path, **options: object) -> dict:  # type: ignore[type-arg]
    opts = RunOptions(out_dir=tmp_path / "runs", goldens_dir=tmp_path / "goldens", ci=False, **options)  # type: ignore[arg-type]
    result = asyncio.run(run_scenario(path, opts))
    return result.to_json() if hasattr(result, "to_json") else result.__dict__  # type: ignore[no-any-return]


def test_a_control_event_is_its_model_class_a_spec_line_and_a_handler(
    extension: Path, tmp_path: Path
) -> None:
    import wbext.beep  # noqa: F401  (the spec line and the handler register on import)

    from workbench.scenario.schema import scenario_schema

    assert "beep" in json.dumps(scenario_schema())  # `workbench schema` has it
    scenario = write(tmp_path, "beep.yaml", 'name: beep\ncommand: [cat]\ntimeline:\n  - beep: hello-beep\n'
                                            '  - assert: {text: {contains: [hello-beep]}}\n')  # fmt: skip
    result = run(scenario, tmp_path, mode="program")
    assert result["status"] == "passed", result
    trace = [
        json.loads(line) for line in next((tmp_path / "runs").rglob("trace.jsonl")).read_text().splitlines()
    ]
    (step,) = [r for r in trace if r.get("action") == "beep"]
    assert step["summary"] == "beep hello-beep" and step["checks"] == [
        {"ok": True, "message": "beeped hello-beep"}
    ]


def test_the_loader_and_the_schema_read_one_table_of_timeline_keys() -> None:
    """Every key `workbench schema` offers is a row of `EVENT_KEYS`, and the loader parses with that row."""
    from workbench.scenario.diagnostics import Reporter
    from workbench.scenario.schema import scenario_schema
    from workbench.scenario.source import parse_yaml

    offered = [
        next(iter(alt["properties"])) for alt in scenario_schema()["definitions"]["event"]["oneOf"][1:]
    ]
    assert sorted(offered) == sorted(EVENT_KEYS) and "runCmd" in offered and "agentPlan" in offered
    assert not hasattr(agent_harbor, "PARSERS")
    seen: list[str] = []
    row = EVENT_KEYS["log"]
    EVENT_KEYS["log"] = replace(row, parse=lambda value, *rest: seen.append(value) or row.parse(value, *rest))
    try:
        doc = parse_yaml("name: t\ntimeline:\n  - log: hi\n", "t.yaml")
        agent_harbor.load_agent_harbor(doc, "t.yaml", REPO, Reporter())
    finally:
        EVENT_KEYS["log"] = row
    assert seen == ["hi"]


def test_a_mode_with_an_option_is_its_driver_module_and_its_registry_line(
    extension: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = drivers.Mode("wbext.shout:ShoutDriver", "the agent's messages, shouted into `cat`",
                        options=(drivers.Option("shout-prefix", "put before each message", metavar="TEXT"),))  # fmt: skip
    monkeypatch.setitem(drivers.DRIVERS, "shout", line)  # the registry line
    from workbench.cli import build_parser
    from workbench.cli.common import mode_option_values

    args = build_parser("run").parse_args(["run", "--mode", "shout", "--shout-prefix", ">> ", str(tmp_path)])
    chosen = drivers.mode_options(args.mode, mode_option_values(args))
    assert chosen == {"shout-prefix": ">> "}
    with pytest.raises(drivers.ModeError, match="--shout-prefix needs --mode shout"):
        drivers.mode_options("mock-agent", {"shout-prefix": "x"})
    scenario = write(tmp_path, "shout.yaml", "name: shout\ntimeline:\n  - assistant: [[0, hello]]\n"
                                             "  - assert: {text: {contains: ['>> HELLO']}}\n")  # fmt: skip
    result = run(scenario, tmp_path, mode="shout", mode_options=chosen)
    assert result["status"] == "passed", result


def test_an_agent_is_one_module(extension: Path, tmp_path: Path) -> None:
    import wbext.tiny  # noqa: F401  (it registers itself)

    prefix = tmp_path / "prefix"
    write(prefix / "bin", "tiny-agent", TINY_PROGRAM.format(python=sys.executable)).chmod(0o755)
    os.environ["WORKBENCH_AGENTS"] = str(prefix)
    try:
        assert "tiny" in drivers.DRIVERS["real-agent"].options[0].choices()  # type: ignore[misc]
        scenario = write(tmp_path, "tiny.yaml", TINY_SCENARIO)
        result = run(
            scenario, tmp_path, mode="real-agent", mode_options={"agent": "tiny", "agent-ui": "print"}
        )
    finally:
        del os.environ["WORKBENCH_AGENTS"]
    assert result["status"] == "passed", result


def test_an_installed_agent_module_is_found_by_the_command_line(tmp_path: Path) -> None:
    """An agent module in the user's own package reaches `workbench run --agent NAME` through the entry
    point group `workbench.agents` of its distribution (nothing imported it before: `--agent tiny` was an
    unknown preset); one that fails to import is a warning naming it, never a traceback."""
    site = tmp_path / "site"
    write(site, "tiny_agent_ext.py", textwrap.dedent(TINY))
    write(
        site / "tiny_agent_ext-1.0.dist-info",
        "METADATA",
        "Metadata-Version: 2.1\nName: tiny-agent-ext\nVersion: 1.0\n",
    )
    write(site / "tiny_agent_ext-1.0.dist-info", "entry_points.txt",
          "[workbench.agents]\ntiny = tiny_agent_ext\n")  # fmt: skip
    prefix = tmp_path / "prefix"
    write(prefix / "bin", "tiny-agent", TINY_PROGRAM.format(python=sys.executable)).chmod(0o755)
    write(tmp_path, "tiny.yaml", TINY_SCENARIO)
    env = {"PYTHONPATH": str(site), "WORKBENCH_AGENTS": str(prefix)}
    helped = workbench("run", "--help", cwd=tmp_path, env=env)
    assert "tiny" in helped.stdout, helped.stdout
    done = workbench("run", "tiny.yaml", "--mode", "real-agent", "--agent", "tiny", "--agent-ui", "print",
                     cwd=tmp_path, env=env)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    write(site, "tiny_agent_ext.py", "raise ImportError('the SDK is not installed')\n")
    broken = workbench("run", "tiny.yaml", "--mode", "real-agent", "--agent", "tiny", cwd=tmp_path, env=env)
    assert broken.returncode == 2 and "Traceback" not in broken.stdout + broken.stderr
    assert "the agent module `tiny = tiny_agent_ext` (entry point group workbench.agents) failed to load: " \
           "ImportError: the SDK is not installed" in broken.stderr, broken.stderr  # fmt: skip


def test_an_agent_event_is_one_timeline_key(extension: Path, tmp_path: Path) -> None:
    import wbext.say  # noqa: F401  (its row registers on import)

    from workbench.scenario.schema import scenario_schema

    assert "the model says it" in json.dumps(scenario_schema())
    program = write(tmp_path, "chat-agent", CHAT_PROGRAM.format(python=sys.executable))
    program.chmod(0o755)
    scenario = write(tmp_path, "say.yaml", textwrap.dedent(f"""\
        name: say
        command: ["{program}", "{{openai_base_url}}", "{{api_key}}", "{{prompt}}"]
        timeline:
          - userInputs: [[0, "greet me"]]
          - say: hello from a new agent event
          - assert: {{text: {{contains: [hello from a new agent event]}}}}
        """))  # fmt: skip
    result = run(scenario, tmp_path, mode="real-agent", mode_options={"agent-ui": "print"})
    assert result["status"] == "passed", result


def test_a_wire_style_is_one_module_and_its_registry_line(extension: Path, tmp_path: Path) -> None:
    import wbext.plain  # noqa: F401  (it registers itself)

    assert wire.wire_named("plain").title == "Plain"
    program = write(tmp_path, "plain-agent", PLAIN_PROGRAM.format(python=sys.executable))
    program.chmod(0o755)
    scenario = write(tmp_path, "plain.yaml", textwrap.dedent(f"""\
        name: plain
        command: ["{program}", "{{base_url}}", "{{prompt}}"]
        timeline:
          - userInputs: [[0, "greet me"]]
          - llmResponse:
              - assistant: [[0, "hello over the plain wire"]]
          - assert: {{text: {{contains: [hello over the plain wire]}}}}
        """))  # fmt: skip
    result = run(scenario, tmp_path, mode="real-agent", mode_options={"agent-ui": "print"})
    assert result["status"] == "passed", result
    requests = next((tmp_path / "runs").rglob("llm-requests.jsonl")).read_text()
    assert '"plain"' in requests and "/plain/ask" in requests


def test_a_wire_style_is_recorded_as_a_built_in_one_is(extension: Path, tmp_path: Path) -> None:
    """`workbench record` through a style registered from outside: its exchange is a turn, its reply is read
    by its own wire (`read_body`), and the scenario written from it says what the model said and replays."""
    import wbext.plain  # noqa: F401  (it registers itself)

    program = write(tmp_path, "plain-agent", PLAIN_PROGRAM.format(python=sys.executable))
    program.chmod(0o755)
    upstream_scenario = m.Scenario(
        name="upstream", file="upstream.yaml", format="claudeless",
        rules=m.RuleSet((), m.Reply("hello over the plain wire"), timeouts=m.Timeouts(response_delay_ms=0)),
    )  # fmt: skip

    async def record() -> list[Exchange]:
        upstream = LlmServer([upstream_scenario])
        proxy = RecordingProxy(await upstream.start(), Redactor({}), {})
        url = await proxy.start()
        try:
            process = await asyncio.create_subprocess_exec(
                str(program), url, "greet me", stdout=asyncio.subprocess.PIPE
            )
            said, _ = await process.communicate()
            assert said.decode().strip() == "hello over the plain wire"
        finally:
            await proxy.stop()
            await upstream.stop()
        return proxy.exchanges

    exchanges = asyncio.run(record())
    turns = conversation(exchanges)
    assert [(t.exchange.style, t.reply.text) for t in turns] == [("plain", "hello over the plain wire")]
    recording = Recording(name="plain", command=(str(program), "{base_url}", "greet me"), agent=None,
                          width=80, height=24, workspace=tmp_path / "ws", home=tmp_path / "home",
                          upstream="http://upstream", exchanges=exchanges)  # fmt: skip
    written = write_recording(recording, tmp_path / "plain.yaml", tmp_path / "goldens", Redactor({}))
    replies = [e for e in load_scenario(written.scenario, env={}).timeline if isinstance(e, m.LlmResponse)]
    said = ["".join(i.text for i in p.items) for r in replies for p in r.pieces if isinstance(p, m.Assistant)]
    assert said == ["hello over the plain wire"], written.scenario.read_text()
    written.scenario.write_text(
        written.scenario.read_text()
        + "  - assert: {text: {contains: [hello over the plain wire]}}\n"  # the replay printed the reply
    )
    result = run(written.scenario, tmp_path, mode="real-agent", mode_options={"agent-ui": "print"})
    assert result["status"] == "passed", result


PLAYERS = {
    "workbench/agent/mock_agent.py", "workbench/rest/events.py", "workbench/acp/agent.py",
    "workbench/acp/expect.py", "workbench/acp/script.py", "workbench/llm/responders/timeline.py",
    "workbench/engine/runner.py", "workbench/engine/drivers/mock_agent.py", "workbench/engine/drivers/real_agent.py",
    "workbench/engine/drivers/acp.py", "workbench/engine/drivers/simulation.py",
}  # fmt: skip


@pytest.mark.slow
def test_a_new_agent_event_kind_is_named_by_the_type_checker_in_every_player(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(PACKAGE, copy / "workbench", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", copy / "pyproject.toml")
    events = copy / "workbench" / "scenario" / "events.py"
    text = events.read_text(encoding="utf-8")
    events.write_text(
        text.replace('    ACP = "acp"\n', '    ACP = "acp"\n    PLAN = "plan"\n', 1), encoding="utf-8"
    )
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                          cwd=copy, capture_output=True, text=True, check=False, timeout=900)  # fmt: skip
    named = {
        line.split(":", 1)[0] for line in done.stdout.splitlines() if 'assert_never" has incompatible' in line
    }
    assert done.returncode == 1 and named == PLAYERS, done.stdout


def test_no_mode_name_comparisons_outside_the_drivers_and_no_action_chains() -> None:
    modes = "|".join(re.escape(name) for name in drivers.DRIVERS)
    compare = re.compile(rf"""(==|!=)\s*["']({modes})["']|["']({modes})["']\s*(==|!=)""")
    action = re.compile(r"""\.action\s*(==|!=|in\b|not in\b)|action\s*==\s*["']""")
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(REPO).as_posix()
        source = path.read_text(encoding="utf-8")
        if not rel.startswith("workbench/engine/drivers/"):
            assert not compare.search(source), rel
        if not rel.startswith("workbench/app/"):  # the app's `action` is Textual's (key bindings)
            assert not action.search(source), rel
    for player in PLAYERS:
        assert "assert_never(" in (REPO / player).read_text(encoding="utf-8"), player


NOTES_PANE = '''
"""A pane of notes: the extension test's new pane (its file, with its look, its view and its action)."""

from typing import ClassVar

from textual.widgets import Static


class NotesPane(Static, can_focus=True):
    DEFAULT_CSS = "NotesPane { height: 1fr; border: round $primary; }"
    BORDER_TITLE = "Notes"
    VIEW: ClassVar[str] = "notes"

    shouted = False

    def action_shout(self) -> None:
        self.shouted = True
        self.update("NOTES SHOUTED")
'''

NOTES_DRIVE = """
import asyncio, sys
from pathlib import Path

from workbench.app.app import WorkbenchApp
from workbench.app.commands import COMMANDS


async def main(width, height):
    app = WorkbenchApp(Path("s.yaml"), goldens_dir=Path("g"), out_dir=Path("runs"))
    async with app.run_test(size=(width, height)) as pilot:
        await pilot.pause(0.5)
        main = app.main_screen
        notes = main.query_one("NotesPane")
        main.editor.focus()
        await pilot.press("alt+7")  # its number key, from the actions table
        await pilot.pause(0.2)
        assert main.workspace.view_name == "notes" and notes.has_focus, (main.workspace.view_name, app.focused)
        assert main.panes.active == "tab-notes" and all(n.display for n in (notes, *notes.ancestors))
        main.editor.focus()
        await pilot.press("ctrl+y")  # its own action, anywhere: the screen brings it forward and runs it
        await pilot.pause(0.2)
        assert notes.shouted
        assert main.panes.active == "tab-notes"
        rows = app.key_rows()
        assert any(row[2] == "Shout" for row in rows), rows
        assert any(title == "notes: shout" for title, *_ in COMMANDS)
    print("ok", width, height)


for size in ((120, 40), (80, 24)):
    asyncio.run(main(*size))
"""


def test_a_pane_is_its_widget_file_one_compose_line_and_its_action_rows(tmp_path: Path) -> None:
    """Issue 22's structure: a copy of the package gains a pane by its widget file, one line in the run panes'
    compose (and its import) and its rows in the actions table: its number key, its tab, its key anywhere,
    its palette entry and its help row follow; the main screen and the workspace are not touched."""
    copy = tmp_path / "copy"
    shutil.copytree(PACKAGE, copy / "workbench", ignore=shutil.ignore_patterns("__pycache__"))
    app = copy / "workbench" / "app"
    (app / "widgets" / "notes.py").write_text(NOTES_PANE, encoding="utf-8")  # the widget file
    panes = app / "widgets" / "run_panes.py"
    text = panes.read_text(encoding="utf-8")
    text = text.replace('        yield FailuresList(id="failures")\n',
                        '        yield FailuresList(id="failures")\n        yield NotesPane(id="notes")\n', 1)  # fmt: skip
    text = text.replace("from workbench.app.widgets.inspector import StepInspector\n",
                        "from workbench.app.widgets.inspector import StepInspector\n"
                        "from workbench.app.widgets.notes import NotesPane\n", 1)  # fmt: skip
    panes.write_text(text, encoding="utf-8")
    actions = app / "actions.py"
    text = actions.read_text(encoding="utf-8")
    text = text.replace('"shots", "failures")', '"shots", "failures", "notes")', 1)
    text = text.replace('"Screenshots", "Failures")', '"Screenshots", "Failures", "Notes")', 1)
    text = text.replace("MAIN_ACTIONS: tuple[Action, ...] = (\n", 'MAIN_ACTIONS: tuple[Action, ...] = (\n'
                        '    Action("shout", "ctrl+y", "Shout", "notes-shout", "notes: shout", "shout the notes",\n'
                        '           priority=True, pane="NotesPane", anywhere=True),\n', 1)  # fmt: skip
    actions.write_text(text, encoding="utf-8")
    for unchanged in ("screens/main.py", "widgets/workspace.py", "app.py", "commands.py"):
        assert (app / unchanged).read_bytes() == (PACKAGE / "app" / unchanged).read_bytes()
    write(copy, "s.yaml", "name: s\ntimeline:\n  - advanceMs: 10\n")
    env = dict(
        os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), WORKBENCH_KEYMAP=str(tmp_path / "k.toml")
    )
    done = subprocess.run([sys.executable, "-c", NOTES_DRIVE], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0 and done.stdout.split() == ["ok", "120", "40", "ok", "80", "24"], (
        done.stdout + done.stderr[-3000:]
    )
