"""`ScenarioAgent`: a scenario answered as an ACP agent, talked to by the SDK's client connection."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import RequestError

from workbench.acp.agent import ScenarioAgent
from workbench.acp.client import TurnRecord
from workbench.acp.scp import TestContext
from workbench.scenario.loader import load_scenario
from workbench.timeline import compile_schedule

from .helpers import play, scenario_agent, workspace

WRITE_AND_RUN = """\
name: acp-write-run
timeline:
  - userInputs:
      - relativeTime: 0
        input: 'Create hello.txt'
  - llmResponse:
      - think:
          - relativeTime: 0
            content: 'I will write the file.'
      - assistant:
          - relativeTime: 10
            content: 'Writing hello.txt.'
  - agentPlan:
      entries:
        - {content: 'Write hello.txt', priority: high, status: in_progress}
  - agentPermissionRequest:
      options:
        - {id: allow, label: Allow, kind: allow_once}
        - {id: reject, label: Reject, kind: reject_once}
      decision: {outcome: selected, optionId: allow}
  - agentToolUse:
      toolName: writeFile
      args: {path: hello.txt, content: "hi\\n"}
      status: ok
  - agentToolUse:
      toolName: runCmd
      args: {cmd: "cat hello.txt"}
      result: "hi\\n"
      status: ok
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'Done.'
"""


def _one_turn(prompt: str, turns: list[TurnRecord]) -> Any:
    async def script(ctx: TestContext) -> None:
        session = await ctx.start_session()
        turns.append(await session.say(prompt))

    return script


def test_a_turn_streams_thoughts_text_plan_and_tool_calls_and_does_the_work(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    turns: list[TurnRecord] = []
    agent = scenario_agent(tmp_path, WRITE_AND_RUN)
    play(agent, ws, _one_turn("Create hello.txt", turns), serve_files=False)
    turn = turns[0]
    assert turn.stop_reason == "end_turn"
    assert turn.thoughts == "I will write the file."
    assert turn.text == "Writing hello.txt.Done."
    assert turn.plan == [{"content": "Write hello.txt", "priority": "high", "status": "in_progress"}]
    write, run = turn.tool_calls.values()
    assert (write.kind, write.statuses) == ("edit", ["pending", "in_progress", "completed"])
    assert write.locations == [str(ws / "hello.txt")]
    assert (run.kind, run.statuses, run.text) == ("execute", ["pending", "in_progress", "completed"], "hi\n")
    assert (ws / "hello.txt").read_text() == "hi\n"
    assert [(p.tool_call_id, p.option_id) for p in turn.permissions] == [(write.id, "allow")]
    assert turn.meta is None and agent.failures == []


def test_the_work_goes_through_the_clients_fs_and_terminal_when_it_offers_them(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    turns: list[TurnRecord] = []
    seen: dict[str, Any] = {}

    async def script(ctx: TestContext) -> None:
        session = await ctx.start_session()
        turns.append(await session.say("Create hello.txt"))
        seen["fs"] = list(ctx.client.fs_calls)

    play(scenario_agent(tmp_path, WRITE_AND_RUN), ws, script)
    assert seen["fs"] == [("write", str(ws / "hello.txt"))]
    run = list(turns[0].tool_calls.values())[1]
    assert {
        "type": "terminal",
        "terminalId": "term-1",
    } in run.content  # the command ran in the client's terminal
    assert run.raw_output["exitCode"] == 0 and run.text == "hi\n"
    assert (ws / "hello.txt").read_text() == "hi\n"


def test_a_refused_permission_means_the_tool_does_not_run_and_the_expected_answer_is_checked(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    turns: list[TurnRecord] = []
    agent = scenario_agent(tmp_path, WRITE_AND_RUN)
    play(agent, ws, _one_turn("Create hello.txt", turns), answer=lambda call, options: "reject")
    write = next(iter(turns[0].tool_calls.values()))
    assert write.status == "failed" and "permission was refused" in write.text
    assert not (ws / "hello.txt").exists()
    failures = turns[0].meta["workbench"]["failures"]  # type: ignore[index]
    assert [(f["line"], f["message"]) for f in failures] == [
        (16, "permission answer: the client chose `reject`, the scenario expects `allow`"),
        (
            25,
            "runCmd: expected success, the tool failed (exit code 1): 'cat: hello.txt: No such file or directory'",
        ),
    ]
    assert failures[0]["file"] == agent.scenario.file


def test_a_prompt_other_than_the_scenarios_is_a_mismatch_at_its_line(tmp_path: Path) -> None:
    turns: list[TurnRecord] = []
    agent = scenario_agent(tmp_path, WRITE_AND_RUN)
    play(agent, workspace(tmp_path), _one_turn("Something else", turns))
    assert [(f.line, f.message) for f in agent.failures] == [
        (4, "the prompt was 'Something else', the scenario says 'Create hello.txt'")
    ]


SLOW = """\
name: acp-slow
timeline:
  - userInputs:
      - relativeTime: 0
        input: 'go'
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'tick'
          - relativeTime: 600000
            content: 'never'
"""


def _cancel_once_shown(text: str, turns: list[TurnRecord]) -> Any:
    """A script that prompts `go`, cancels once the turn's text shows ``text``, and keeps the turn."""

    async def script(ctx: TestContext) -> None:
        session = await ctx.start_session()
        await session.send("go")
        while text not in getattr(ctx.client.turns.get(session.id), "text", ""):
            await asyncio.sleep(0.01)
        await session.cancel()
        turns.append(await session.wait_turn())

    return script


def test_session_cancel_mid_turn_stops_it_with_cancelled(tmp_path: Path) -> None:
    turns: list[TurnRecord] = []
    play(scenario_agent(tmp_path, SLOW, speed=1.0), workspace(tmp_path), _cancel_once_shown("tick", turns))
    assert (turns[0].stop_reason, turns[0].text) == ("cancelled", "tick")


EXPECT_CANCEL = """\
name: acp-expect-cancel
timeline:
  - userInputs:
      - relativeTime: 0
        input: 'go'
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'working'
  - userCancelSession: true
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'not reached'
"""


def test_user_cancel_session_is_where_the_client_must_cancel(tmp_path: Path) -> None:
    turns: list[TurnRecord] = []
    agent = scenario_agent(tmp_path, EXPECT_CANCEL)
    play(agent, workspace(tmp_path), _cancel_once_shown("working", turns))
    assert (turns[0].stop_reason, turns[0].text, agent.failures) == ("cancelled", "working", [])


HISTORY = """\
name: acp-history
acp:
  capabilities:
    loadSession: true
timeline:
  - userInputs:
      - relativeTime: 0
        input: 'earlier question'
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'earlier answer'
  - sessionStart:
      sessionId: 'sess-1'
  - userInputs:
      - relativeTime: 0
        input: 'now'
  - setMode:
      modeId: architect
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'live answer'
"""


def test_session_load_replays_the_history_then_plays_the_live_turns(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def script(ctx: TestContext) -> None:
        assert ctx.init is not None and ctx.init.agent_capabilities is not None
        seen["load"] = ctx.init.agent_capabilities.load_session
        session = await ctx.load_session("sess-1")
        seen["history"] = [(u["sessionUpdate"], u["content"]["text"]) for u in ctx.client.history["sess-1"]]
        seen["turn"] = await session.say("now")
        await session.set_mode("default")

    agent = scenario_agent(tmp_path, HISTORY)
    play(agent, workspace(tmp_path), script)
    assert seen["load"] is True
    assert seen["history"] == [
        ("user_message_chunk", "earlier question"),
        ("agent_message_chunk", "earlier answer"),
    ]
    assert (seen["turn"].text, seen["turn"].modes) == ("live answer", ["architect"])
    assert agent.failures == []


def test_a_new_session_plays_every_turn_live_and_loading_another_id_is_refused(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def script(ctx: TestContext) -> None:
        session = await ctx.start_session()
        seen["ids"] = session.id
        seen["texts"] = [(await session.say("earlier question")).text, (await session.say("now")).text]
        try:
            await ctx.load_session("other")
        except RequestError as exc:
            seen["error"] = str(exc.data)

    agent = scenario_agent(tmp_path, HISTORY)
    play(agent, workspace(tmp_path), script)
    assert seen["ids"] == "sess-1"
    assert seen["texts"] == ["earlier answer", "live answer"]
    assert "the scenario's is 'sess-1'" in seen["error"]
    assert [f.line for f in agent.failures] == [13]


FILE_READS = """\
name: acp-reads
timeline:
  - initialize:
      protocolVersion: 1
      clientCapabilities:
        fs: {readTextFile: true}
  - userInputs:
      - relativeTime: 0
        input: 'read'
  - agentFileReads:
      files:
        - path: notes.txt
          expectedContent: 'expected'
"""


def test_file_reads_and_initialize_parameters_are_checked_against_the_scenario(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws / "notes.txt").write_text("actual")

    async def script(ctx: TestContext) -> None:
        await (await ctx.start_session()).say("read")

    agent = scenario_agent(tmp_path, FILE_READS)
    play(agent, ws, script)
    assert [(f.line, f.message) for f in agent.failures] == [
        (10, "agentFileReads notes.txt: the content is 'actual', expected 'expected'")
    ]
    agent = scenario_agent(tmp_path, FILE_READS)
    play(agent, ws, script, serve_files=False)  # no fs offered: read in the workspace; initialize differs
    assert [f.line for f in agent.failures] == [3, 10]
    assert "clientCapabilities.fs.readTextFile` is False, expected True" in agent.failures[0].message


def test_a_prompt_beyond_the_scenario_and_a_prompt_never_sent_are_reported(tmp_path: Path) -> None:
    async def script(ctx: TestContext) -> None:
        session = await ctx.start_session()
        await session.say("earlier question")

    agent = scenario_agent(tmp_path, HISTORY)
    play(agent, workspace(tmp_path), script)
    assert [(f.line, f.message) for f in agent.unplayed()] == [(16, "the client never sent the prompt 'now'")]


MODES_AND_MODELS = """\
name: acp-modes
acp:
  unstable: true
timeline:
  - userInputs:
      - relativeTime: 0
        input: 'switch'
  - setMode:
      modeId: plan
  - setModel:
      modelId: fast-model
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'switched'
"""


def test_set_mode_and_set_model_are_announced_and_the_client_may_set_them_back(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def script(ctx: TestContext) -> None:
        session = await ctx.start_session()
        turn = await session.say("switch")
        seen["modes"] = turn.modes
        seen["config"] = [u for u in turn.updates if u["sessionUpdate"] == "config_option_update"]
        await session.set_mode("default")
        answer = await ctx.conn.set_config_option(
            config_id="model", session_id=session.id, value="fast-model"
        )
        seen["model"] = answer.config_options[0].root.current_value if hasattr(answer.config_options[0], "root") \
            else answer.config_options[0].current_value  # fmt: skip
        try:
            await session.set_mode("nope")
        except RequestError as exc:
            seen["bad mode"] = exc.data

    play(scenario_agent(tmp_path, MODES_AND_MODELS), workspace(tmp_path), script)
    assert seen["modes"] == ["plan"]
    option = seen["config"][0]["configOptions"][0]
    assert (option["id"], option["currentValue"]) == ("model", "fast-model")
    assert seen["model"] == "fast-model"
    assert seen["bad mode"] == {"modeId": "nope", "details": "modes are default, plan"}


def test_a_client_that_answers_a_permission_request_with_an_error_denies_it_and_is_reported(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    turns: list[TurnRecord] = []

    def broken(call: dict[str, Any], options: list[Any]) -> str | None:
        raise RequestError.internal_error({"details": "the dialog crashed"})

    agent = scenario_agent(tmp_path, WRITE_AND_RUN)
    play(agent, ws, _one_turn("Create hello.txt", turns), answer=broken)
    assert turns[0].stop_reason == "end_turn" and not (ws / "hello.txt").exists()
    assert agent.failures[0].line == 16
    assert agent.failures[0].message.startswith("session/request_permission failed: Internal error")


CLAUDELESS = """\
name = "rules-as-acp"

[default_response]
text = "I only know ping."

[[responses]]
pattern = { type = "exact", text = "ping" }
response = "pong"

[[responses]]
pattern = { type = "contains", text = "write" }
[responses.response]
text = "Writing."
[[responses.response.tool_calls]]
tool = "Write"
input = { file_path = "note.txt", content = "noted\\n" }
"""


def test_claudeless_rules_answer_as_an_acp_agent_with_real_tools(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    path = tmp_path / "rules.toml"
    path.write_text(CLAUDELESS)
    texts: list[str] = []
    calls: list[Any] = []

    async def script(ctx: TestContext) -> None:
        session = await ctx.start_session()
        for prompt in ("ping", "please write a note", "what?"):
            turn = await session.say(prompt)
            texts.append(turn.text)
            calls.extend(turn.tool_calls.values())

    agent = ScenarioAgent(compile_schedule(load_scenario(path)))
    play(agent, ws, script)
    assert texts == ["pong", "Writing.", "I only know ping."]
    assert [(c.kind, c.statuses) for c in calls] == [("edit", ["pending", "in_progress", "completed"])]
    assert (ws / "note.txt").read_text() == "noted\n" and agent.failures == []


PACED_RULES = """\
[[responses]]
on = { contains = "deploy" }
say = "Deploying."
[[responses.tools]]
call = "Bash"
input = { command = "echo deployed" }
[[responses.then]]
on = { contains = "deployed" }
say = " Deployed; all good."

[[responses]]
on = { contains = "slow" }
say = "Checking."
[[responses.tools]]
call = "Bash"
input = { command = "echo checked" }
[[responses.then]]
on = { contains = "checked" }
say = "Never said."
delay_ms = 600000
"""


def test_claudeless_rules_say_text_after_their_tools_and_a_cancel_during_delay_ms_ends_the_turn(
    tmp_path: Path,
) -> None:
    """A rules reply with tools goes on with its `then` turn (the tools' output is its input), as the Claude
    shim does; `delay_ms` is waited for, and a `session/cancel` during the wait ends the turn `cancelled`."""
    ws = workspace(tmp_path)
    path = tmp_path / "rules.toml"
    path.write_text(PACED_RULES)
    turns: list[TurnRecord] = []

    async def script(ctx: TestContext) -> None:
        session = await ctx.start_session()
        turns.append(await session.say("deploy please"))
        tool_done = asyncio.Event()

        def watch(session_id: str, update: dict[str, Any]) -> None:
            if update.get("sessionUpdate") == "tool_call_update" and update.get("status") == "completed":
                tool_done.set()

        ctx.client.on_update = watch
        await session.send("a slow one")
        await tool_done.wait()  # the `then` reply waits its delay_ms now
        await session.cancel()
        turns.append(await session.wait_turn())

    agent = ScenarioAgent(compile_schedule(load_scenario(path)), speed=1.0)
    play(agent, ws, script, timeout=120)
    deploy, slow = turns
    assert (deploy.stop_reason, deploy.text) == ("end_turn", "Deploying. Deployed; all good.")
    (call,) = deploy.tool_calls.values()
    assert (call.statuses, call.text) == (["pending", "in_progress", "completed"], "deployed\n")
    assert (slow.stop_reason, slow.text) == ("cancelled", "Checking.")
    assert agent.failures == []


EXTENSIONS = """\
name: acp-extensions
timeline:
  - userInputs:
      - relativeTime: 0
        input: 'Review this'
  - agentExtension:
      method: _scp/html_panel/show
      params: {html: '<b>Review</b>'}
  - agentExtension:
      method: _scp/file_comment/show
      params: {path: a.py, line: 3, comment: 'Off by one'}
      expectResponse: {accepted: true}
      respond: {accepted: true}  # what a client playing this file answers (`--mode acp`)
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'Shown.'
"""


def test_a_scenario_sends_acp_extension_messages_and_checks_the_clients_answer(tmp_path: Path) -> None:
    """Symposium's `_scp/html_panel/show` (a notification) and `_scp/file_comment/show` (a request whose
    answer the scenario checks), through the SDK's ext_notification / ext_method on both sides."""
    ws = workspace(tmp_path)
    turns: list[TurnRecord] = []

    def script(answer: dict[str, Any]) -> Any:
        async def run(ctx: TestContext) -> None:
            ctx.client.extension_answers["_scp/file_comment/show"] = [answer]
            session = await ctx.start_session()
            turns.append(await session.say("Review this"))

        return run

    agent = scenario_agent(tmp_path, EXTENSIONS)
    play(agent, ws, script({"accepted": True}))
    assert agent.failures == [] and turns[0].text == "Shown."
    assert [(e["kind"], e["method"], e["params"]) for e in turns[0].extensions] == [
        ("notification", "_scp/html_panel/show", {"html": "<b>Review</b>"}),
        ("request", "_scp/file_comment/show", {"path": "a.py", "line": 3, "comment": "Off by one"}),
    ]
    assert turns[0].extensions[1]["answer"] == {"accepted": True}
    agent = scenario_agent(tmp_path, EXTENSIONS)
    play(agent, ws, script({"accepted": False}))
    assert [(f.line, f.message) for f in agent.failures] == [
        (9, "agentExtension _scp/file_comment/show: the client's `response.accepted` is False, expected True")]  # fmt: skip


def test_an_extension_method_must_start_with_an_underscore(tmp_path: Path) -> None:
    from workbench.timeline.prepare import prepare

    path = tmp_path / "s.yaml"
    path.write_text("timeline:\n  - agentExtension: {method: scp/show}\n")
    (error,) = prepare(path).errors
    assert str(error).endswith(
        "s.yaml:2:30: error: `agentExtension.method` `scp/show` must start with `_`: "
        "ACP reserves the other names for its own methods"
    )
