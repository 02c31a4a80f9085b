"""Loader for the Agent Harbor scenario family: every dialect into one model.

Dialects accepted (see ``reference/agent-harbor-format.md``):

* current Scenario-Format: ``timeline`` of single-key mappings, ``{relativeTime,
  content}`` objects, ``baseTimeDelta``, ACP events, ``rules``, content blocks;
* the Python mock-agent dialect: ``[ms, text]`` tuples, the ``timestamp`` key,
  ``agentActions`` / ``userActions`` wrappers, legacy top-level ``think`` /
  ``assistant`` (each becomes a one-element ``llmResponse``), tool-specific
  events (``runCmd``, ``grep``, ... ``slashCommand``), ``userEdits``,
  ``userCommand``, ``applyPatch``;
* the type-tagged TUI step list (``{type: advanceMs, ms}``, ``{type: screenshot|
  snapshot, name}``, ``{type: userInputs, inputs}``, ``{type: key}``,
  ``{type: assertVm}``, ``{type: sse}``), also under a top-level ``steps`` key;
* the ah-cli task form (``userCommand{program, args, env, expect}``, ``assertGit``);
* the legacy ``turns`` list (``user`` / ``think`` / ``tool`` / ``assistant``);
* our own top-level ``command:`` (argv of the program under test).

Timing forms are recorded, not interpreted (``model.Timing``): ``[ms, text]``
tuples are deltas after the previous item (as the mock agent that wrote them
played them), ``{relativeTime}`` think/assistant items are offsets from their
element's start and must not decrease, ``[ms, input]`` user tuples are offsets in
their segment, and ``{relativeTime, input}`` user objects are absolute.

Unknown keys are warnings (forward compatibility); unknown events, wrong types,
decreasing times and path escapes are errors.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from workbench.records import record

from . import event_schemas as schemas
from . import model as m
from .diagnostics import Pos, Reporter, ScenarioError, did_you_mean, nearest, one_of
from .events import EVENT_KEYS, EventKey, register_key
from .fields import (
    as_bool,
    as_int,
    as_str,
    as_str_list,
    choice,
    expect_list,
    expect_map,
    to_plain,
    type_name,
    warn_unknown,
    wrong_type,
)
from .masks import mask_problem
from .names import check_name
from .on_screen import parse_on_screen
from .paths import OUTSIDE_WHY, check_relative, resolve_inside
from .source import PList, PMap, load_document
from .vocabulary import (
    EVENT_ARGUMENTS,
    OPTIONAL_TEXT_ARGUMENTS,
    READS_ANYWHERE,
    TEXT_ARGUMENTS,
    canonical_name,
)

TOP_LEVEL_KEYS = (
    "name", "tags", "description", "initialPrompt", "terminalRef", "terminal", "compat", "repo", "ah",
    "server", "acp", "timeline", "steps", "turns", "expect", "command", "masks", "hooks", "meta", "rules",
    "onScreen", "mode",
)  # fmt: skip

TOOL_EVENTS = EVENT_ARGUMENTS  # the tool events and their arguments: the one vocabulary's
RECORDER_EXPECTATIONS = ("snapshots", "recording", "error_tolerance")  # seen in Agent Harbor's recorder tests
NON_ACP_PROMPT_CAPABILITIES = ("files", "richText")  # seen in Agent Harbor files, not in ACP's schema
TOOL_RESULT_KEYS = ("result", "status", "progress", "toolCallId", "toolExecution", "_meta", "meta")
TOOL_PATH_ARGS = ("path", "file_path", "notebook_path", "cwd")  # a `cwd` outside is refused as a path is

ACP_EVENTS = (
    "agentPlan", "setMode", "setModel", "agentFileReads", "agentPermissionRequest", "initialize", "sessionStart",
    "agentExtension",
)  # fmt: skip
EXTENSION_KEYS = ("method", "params", "request", "respond", "expectResponse")
SESSION_STATUSES = (
    "queued", "provisioning", "running", "pausing", "paused", "resuming", "stopping", "stopped",
    "completed", "failed", "cancelled",
)  # fmt: skip
PERMISSION_KINDS = ("allow_once", "allow_always", "reject_once", "reject_always")
CONTENT_TYPES = ("text", "image", "audio", "resource", "resource_link", "diff", "plan")
EXECUTION_EVENT_TYPES = ("stdout", "stderr", "progress", "completion")
TOOL_STATUSES = ("ok", "error", "pending", "in_progress", "completed", "failed")  # + ACP ToolCallStatus
LABEL = re.compile(r"[A-Za-z0-9_.-]{1,120}\Z")
"""A screenshot label or a profile name: each names a file or a folder, so at most 120 characters (as a
scenario's `name`: a file system takes 255 bytes, and `.style.json` follows a label)."""


@record
class _Context:
    file: str
    base_dir: Path
    reporter: Reporter
    session_starts: list[Pos] = field(default_factory=list)
    set_models: list[Pos] = field(default_factory=list)


# --------------------------------------------------------------------------- entry points


def load_agent_harbor(doc: Any, file: str, base_dir: Path, reporter: Reporter) -> m.Scenario:
    """Normalise a parsed (rules already resolved) Agent Harbor document."""
    if not isinstance(doc, PMap):
        raise wrong_type(getattr(doc, "pos", Pos(file)), "a scenario", "a mapping of top-level keys", doc)
    ctx = _Context(file, base_dir, reporter)
    _reject_foreign_formats(doc)
    warn_unknown(doc, TOP_LEVEL_KEYS, "the scenario", reporter, top_level=True)

    name = Path(file).stem
    if "name" in doc:
        try:  # a bad name is reported with the timeline's mistakes, not instead of them
            name = _name(doc)
        except ScenarioError as exc:
            for d in exc.diagnostics:
                reporter.error(d.pos, d.message)

    timeline = _timeline_source(doc, ctx)
    events = tuple(timeline)
    _warn_if_nothing_checked(doc, ctx)
    acp = _acp(doc, ctx)
    _check_acp(acp, ctx)
    return m.Scenario(
        name=name,
        file=file,
        format="agent-harbor",
        timeline=events,
        tags=as_str_list(doc["tags"], doc.at_value("tags"), "`tags`") if "tags" in doc else (),
        description=_opt_str(doc, "description"),
        initial_prompt=_opt_str(doc, "initialPrompt"),
        command=_command(doc),
        command_pos=doc.at_value("command") if "command" in doc else None,
        mode=_mode(doc),
        mode_pos=doc.at_value("mode") if "mode" in doc else None,
        **_masks(doc),
        on_screen=parse_on_screen(doc),
        repo=_repo(doc, ctx),
        ah=_ah(doc, ctx),
        server=_server(doc, ctx),
        acp=m.frozen_map(to_plain(acp)) if acp else m.EMPTY,
        terminal=_terminal(doc, ctx),
        expect=_expect(doc, ctx),
        hooks=m.frozen_map(to_plain(doc["hooks"])) if isinstance(doc.get("hooks"), PMap) else m.EMPTY,
        pos=doc.pos,
    )


def _name(doc: PMap) -> str:
    name = as_str(doc["name"], doc.at_value("name"), "`name`", allow_scalars=True).strip()
    if not name:
        raise ScenarioError.at(doc.at_value("name"), "`name` must not be empty")
    check_name(name, doc.at_value("name"))  # it names a folder: `../..` must not write elsewhere
    return name


def _reject_foreign_formats(doc: PMap) -> None:
    for key in ("events", "assertions"):
        if key in doc:
            raise ScenarioError.at(
                doc.at_key(key),
                f"top-level `{key}` belongs to the ACP-bridge JSON-RPC transcript format, which is not a scenario; "
                "write the steps under `timeline`",
            )
    if "timeline" not in doc and "steps" not in doc and "turns" not in doc:
        hint = ""
        if isinstance(doc.get("rules"), PList) and any(
            isinstance(r, PMap) and "if_contains" in r for r in doc["rules"]
        ):
            hint = " (this looks like a legacy mock-server playbook of `if_contains` rules)"
        elif {"version", "summary", "scenarios"} <= doc.keys():
            hint = (" (this is a workbench report, as `--report` writes: write reports outside the folders "
                    "you run, which are read as scenarios)")  # fmt: skip
        raise ScenarioError.at(doc.pos, f"a scenario needs `timeline` (or `steps` / `turns`){hint}")


def _opt_str(doc: PMap, key: str) -> str | None:
    if key not in doc or doc[key] is None:
        return None
    return as_str(doc[key], doc.at_value(key), f"`{key}`", allow_scalars=True)


def _masks(doc: PMap) -> dict[str, Any]:
    """Top-level `masks:` (our extension): regexes for volatile screen text (timings, versions, paths), and
    where each is written (the scenario's ``masks`` and ``mask_places``)."""
    if "masks" not in doc:
        return {}
    seq = expect_list(doc["masks"], doc.at_value("masks"), "`masks`")
    masks, places = [], []
    for value, pos in seq.items_with_pos():
        pattern = as_str(value, pos, "a `masks` item (a regular expression)")
        if (problem := mask_problem(pattern)) is not None:
            raise ScenarioError.at(pos, f"`masks` item {problem}")
        masks.append(pattern)
        places.append(pos)
    return {"masks": tuple(masks), "mask_places": tuple(places)}


def _mode(doc: PMap) -> str | None:
    """Top-level `mode:` (our extension): the mode a scenario is written for, used unless `run --mode` picks
    another; the engine checks the name against its modes."""
    if "mode" not in doc:
        return None
    value, pos = doc["mode"], doc.at_value("mode")
    mode = as_str(value, pos, "`mode`")
    if not re.fullmatch(r"[a-z][a-z0-9-]*", mode):
        raise ScenarioError.at(pos, f"`mode` is a mode name such as simulation or real-agent, got {mode!r}")
    return mode


def _command(doc: PMap) -> tuple[str, ...] | None:
    if "command" not in doc:
        return None
    value, pos = doc["command"], doc.at_value("command")
    if isinstance(value, str):
        raise ScenarioError.at(
            pos, "`command` must be a list (the argv of the program under test), e.g. [python3, -q]"
        )
    argv = as_str_list(value, pos, "`command`")
    if not argv:
        raise ScenarioError.at(pos, "`command` must not be empty")
    return argv


# --------------------------------------------------------------------------- setup sections


def _repo(doc: PMap, ctx: _Context) -> m.Repo | None:
    if "repo" not in doc:
        return None
    repo = expect_map(doc["repo"], doc.at_value("repo"), "`repo`")
    warn_unknown(repo, ("init", "branch", "dir", "files", "mode", "url", "commit"), "`repo`", ctx.reporter)
    files: list[m.RepoFile] = []
    if "files" in repo:
        for item, pos in expect_list(repo["files"], repo.at_value("files"), "`repo.files`").items_with_pos():
            entry = expect_map(item, pos, "a `repo.files` entry")
            warn_unknown(entry, ("path", "contents", "content"), "a `repo.files` entry", ctx.reporter)
            if "path" not in entry:
                raise ScenarioError.at(pos, "a `repo.files` entry needs `path`")
            path = check_relative(
                as_str(entry["path"], entry.at_value("path"), "`path`"),
                entry.at_value("path"),
                "`repo.files[].path`",
                "the workspace",
            )
            key = "contents" if "contents" in entry else "content"
            files.append(m.RepoFile(path, _file_contents(entry.get(key, ""), entry.at_value(key)), pos))
    directory, dpos = None, None
    if "dir" in repo:
        dpos = repo.at_value("dir")
        directory = as_str(repo["dir"], dpos, "`repo.dir`")
        if not resolve_inside(ctx.base_dir, directory, dpos, "`repo.dir`").is_dir():
            raise ScenarioError.at(
                dpos, f"`repo.dir` `{directory}` is not a folder (looked in {ctx.base_dir.resolve()})"
            )
    return m.Repo(
        init=as_bool(repo["init"], repo.at_value("init"), "`repo.init`") if "init" in repo else False,
        branch=as_str(repo["branch"], repo.at_value("branch"), "`repo.branch`") if "branch" in repo else None,
        dir=directory,
        files=tuple(files),
        pos=repo.pos,
        commit=as_bool(repo["commit"], repo.at_value("commit"), "`repo.commit`")
        if "commit" in repo
        else True,
        dir_pos=dpos,
    )


def _file_contents(value: Any, pos: Pos) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, PMap) and set(value) == {"base64"}:
        text = as_str(value["base64"], value.at_value("base64"), "`base64`")
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise ScenarioError.at(value.at_value("base64"), "`base64` is not valid base64") from None
    raise wrong_type(pos, "`contents`", "a string or {base64: ...}", value)


def _ah(doc: PMap, ctx: _Context) -> m.AhInvocation | None:
    if "ah" not in doc:
        return None
    ah = expect_map(doc["ah"], doc.at_value("ah"), "`ah`")
    warn_unknown(ah, ("cmd", "flags", "env"), "`ah`", ctx.reporter)
    env: dict[str, str] = {}
    if "env" in ah:
        for k, v in expect_map(ah["env"], ah.at_value("env"), "`ah.env`").items():
            env[k] = as_str(v, ah["env"].at_value(k), f"`ah.env.{k}`", allow_scalars=True)
    return m.AhInvocation(
        cmd=as_str(ah["cmd"], ah.at_value("cmd"), "`ah.cmd`") if "cmd" in ah else None,
        flags=as_str_list(ah["flags"], ah.at_value("flags"), "`ah.flags`") if "flags" in ah else (),
        env=m.frozen_map(env),
        pos=ah.pos,
    )


def _server(doc: PMap, ctx: _Context) -> m.ServerConfig:
    if "server" not in doc:
        return m.ServerConfig()
    s = expect_map(doc["server"], doc.at_value("server"), "`server`")
    warn_unknown(s, ("mode", "llmApiStyle", "coalesceThinkingWithToolUse"), "`server`", ctx.reporter)
    return m.ServerConfig(
        mode=choice(s["mode"], s.at_value("mode"), "`server.mode`", ("none", "mock", "real"))
        if "mode" in s
        else "none",
        llm_api_style=choice(
            s["llmApiStyle"], s.at_value("llmApiStyle"), "`server.llmApiStyle`", ("openai", "anthropic")
        )
        if "llmApiStyle" in s
        else "openai",
        coalesce_thinking_with_tool_use=as_bool(
            s["coalesceThinkingWithToolUse"],
            s.at_value("coalesceThinkingWithToolUse"),
            "`coalesceThinkingWithToolUse`",
        )
        if "coalesceThinkingWithToolUse" in s
        else True,
        pos=s.pos,
    )


def _acp(doc: PMap, ctx: _Context) -> PMap | None:
    if "acp" not in doc:
        return None
    acp = expect_map(doc["acp"], doc.at_value("acp"), "`acp`")
    warn_unknown(
        acp, ("capabilities", "cwd", "mcpServers", "unstable", "authenticate"), "`acp`", ctx.reporter
    )
    if "authenticate" in acp and not isinstance(acp["authenticate"], str):
        raise ScenarioError.at(
            acp.at_value("authenticate"), "`acp.authenticate` is the id of an auth method (a string)"
        )
    if "capabilities" in acp:
        caps = expect_map(acp["capabilities"], acp.at_value("capabilities"), "`acp.capabilities`")
        warn_unknown(
            caps, ("loadSession", "promptCapabilities", "mcpCapabilities"), "`acp.capabilities`", ctx.reporter
        )
        if "loadSession" in caps:
            as_bool(caps["loadSession"], caps.at_value("loadSession"), "`acp.capabilities.loadSession`")
        for group, keys in (
            ("promptCapabilities", ("image", "audio", "embeddedContext")),
            ("mcpCapabilities", ("http", "sse")),
        ):
            if group in caps:
                g = expect_map(caps[group], caps.at_value(group), f"`acp.capabilities.{group}`")
                extra = NON_ACP_PROMPT_CAPABILITIES if group == "promptCapabilities" else ()
                warn_unknown(g, (*keys, *extra), f"`acp.capabilities.{group}`", ctx.reporter)
                for k in (k for k in extra if k in g):
                    ctx.reporter.warn(g.at_key(k), f"`acp.capabilities.promptCapabilities.{k}` is not in ACP v1's "
                                      "PromptCapabilities (image, audio, embeddedContext); accepted and ignored")  # fmt: skip
                for k in keys:
                    if k in g:
                        as_bool(g[k], g.at_value(k), f"`acp.capabilities.{group}.{k}`")
    if "mcpServers" in acp:
        mcp = _sub_map(_sub_map(acp, "capabilities"), "mcpCapabilities")
        for server, pos in expect_list(
            acp["mcpServers"], acp.at_value("mcpServers"), "`acp.mcpServers`"
        ).items_with_pos():
            entry = expect_map(server, pos, "an `acp.mcpServers` entry")
            if "command" not in entry:
                if not (mcp.get("http") or mcp.get("sse")):
                    raise ScenarioError.at(
                        pos, "an MCP server without `command` needs the `http` or `sse` MCP capability"
                    )
                if mcp.get("sse") and not mcp.get("http"):
                    ctx.reporter.warn(pos, "MCP over SSE is deprecated in ACP; prefer `http`")
    if "unstable" in acp:
        as_bool(acp["unstable"], acp.at_value("unstable"), "`acp.unstable`")
    return acp


def _sub_map(parent: PMap, key: str) -> PMap:
    value = parent.get(key)
    return value if isinstance(value, PMap) else PMap(parent.pos)


def _check_acp(acp: PMap | None, ctx: _Context) -> None:
    if len(ctx.session_starts) > 1:
        raise ScenarioError.at(
            ctx.session_starts[1],
            f"only one `sessionStart` is allowed (the first is at line {ctx.session_starts[0].line})",
        )
    caps = acp.get("capabilities") if acp is not None else None
    if isinstance(caps, PMap) and "loadSession" in caps:
        load = caps["loadSession"]
        if load is True and not ctx.session_starts:
            raise ScenarioError.at(
                caps.at_value("loadSession"), "`loadSession: true` needs a `sessionStart` event"
            )
        if load is False and ctx.session_starts:  # a departure corpus files make: said, not refused
            ctx.reporter.warn(
                ctx.session_starts[0],
                f"`sessionStart` needs `acp.capabilities.loadSession: true` (it is false at line "
                f"{caps.at_value('loadSession').line}); the events before it are played as live ones",
            )
    if ctx.set_models and not (acp is not None and acp.get("unstable") is True):
        raise ScenarioError.at(ctx.set_models[0], "`setModel` needs `acp.unstable: true`")


_PROFILE_NAME = re.compile(r"(?:.*?-)?(\d+)x(\d+)\Z")


def _terminal(doc: PMap, ctx: _Context) -> m.TerminalProfile:
    if "terminalRef" in doc:
        pos = doc.at_value("terminalRef")
        ref = as_str(doc["terminalRef"], pos, "`terminalRef`")
        if ref.endswith(".json") or "/" in ref:
            path = resolve_inside(ctx.base_dir, ref, pos, "`terminalRef`")
            profile = load_document(path, str(path))
            return _profile(profile, pos, "the terminal profile", ctx)  # unnamed: `<width>x<height>`
        sized = _PROFILE_NAME.match(ref)
        if not sized:
            raise ScenarioError.at(
                pos,
                f"`terminalRef` `{ref}` is neither a profile file (`*.json`, relative to the scenario) "
                "nor a name ending in <width>x<height> such as `default-100x30`",
            )
        return m.TerminalProfile(name=ref, width=int(sized.group(1)), height=int(sized.group(2)))
    if "terminal" in doc:
        return _profile(doc["terminal"], doc.at_value("terminal"), "`terminal`", ctx)
    return m.TerminalProfile()


def _profile(value: Any, pos: Pos, what: str, ctx: _Context) -> m.TerminalProfile:
    p = expect_map(value, getattr(value, "pos", pos), what)
    warn_unknown(p, ("name", "width", "height", "theme", "rendering"), what, ctx.reporter)
    width = (
        as_int(p["width"], p.at_value("width"), "`width`", minimum=2, maximum=1000) if "width" in p else 80
    )
    height = (
        as_int(p["height"], p.at_value("height"), "`height`", minimum=2, maximum=1000)
        if "height" in p
        else 24
    )
    if width > 1000 or height > 1000:
        raise ScenarioError.at(p.pos, f"terminal size {width}x{height} is too large (at most 1000x1000)")
    name = as_str(p["name"], p.at_value("name"), "`name`") if "name" in p else None
    if name is not None and not LABEL.match(name):
        raise ScenarioError.at(
            p.at_value("name") if "name" in p else pos,
            f"profile name `{_shown(name)}` may only use letters, digits, _ . -, at most 120 of them (it names a "
            "folder)",
        )
    rendering = (
        expect_map(p["rendering"], p.at_value("rendering"), "`rendering`") if "rendering" in p else None
    )
    return m.TerminalProfile(
        name=name,
        width=width,
        height=height,
        theme=as_str(p["theme"], p.at_value("theme"), "`theme`") if "theme" in p else "default",
        rendering=m.frozen_map(to_plain(rendering)),
    )


def _expect(doc: PMap, ctx: _Context) -> m.Expect:
    if "expect" not in doc:
        return m.Expect()
    e = expect_map(doc["expect"], doc.at_value("expect"), "`expect`")
    warn_unknown(e, ("exitCode", "artifacts", *RECORDER_EXPECTATIONS), "`expect`", ctx.reporter)
    for key in RECORDER_EXPECTATIONS:
        if key in e:
            ctx.reporter.warn(e.at_key(key), f"`expect.{key}` is an expectation of Agent Harbor's recorder "
                              "(`ah agent record`); accepted and ignored: the workbench does not record ah snapshots")  # fmt: skip
    artifacts: list[m.Artifact] = []
    if "artifacts" in e:
        for item, pos in expect_list(
            e["artifacts"], e.at_value("artifacts"), "`expect.artifacts`"
        ).items_with_pos():
            a = expect_map(item, pos, "an artifact")
            warn_unknown(a, ("type", "pattern"), "an artifact", ctx.reporter)
            if "pattern" not in a:
                raise ScenarioError.at(pos, "an artifact needs `pattern` (a glob relative to the workspace)")
            pattern = as_str(a["pattern"], a.at_value("pattern"), "`pattern`")
            check_relative(pattern, a.at_value("pattern"), "artifact `pattern`", "the workspace")
            kind = as_str(a["type"], a.at_value("type"), "`type`") if "type" in a else "file"
            artifacts.append(m.Artifact(kind, pattern, pos))
    exit_code = (
        as_int(e["exitCode"], e.at_value("exitCode"), "`expect.exitCode`", minimum=None)
        if "exitCode" in e
        else None
    )
    exit_code_pos = e.at_value("exitCode") if "exitCode" in e else None
    return m.Expect(exit_code=exit_code, artifacts=tuple(artifacts), exit_code_pos=exit_code_pos)


# --------------------------------------------------------------------------- the timeline


def _timeline_source(doc: PMap, ctx: _Context) -> list[m.Event]:
    events: list[m.Event] = []
    for key in ("timeline", "steps"):
        if key in doc:
            items = expect_list(doc[key], doc.at_value(key), f"`{key}`")
            for item, pos in items.items_with_pos():
                events.extend(_collecting(_item, item, pos, ctx))
    if "turns" in doc:
        items = expect_list(doc["turns"], doc.at_value("turns"), "`turns`")
        for item, pos in items.items_with_pos():
            events.extend(_collecting(_turn, item, pos, ctx))
    return events


def _warn_if_nothing_checked(doc: PMap, ctx: _Context) -> None:
    """`timeline: []` and no `expect` runs the program and passes, whatever it does: worth a word."""
    keys = [k for k in ("timeline", "steps", "turns") if k in doc]
    if "expect" in doc or not keys or any(not isinstance(doc[k], PList) or doc[k] for k in keys):
        return
    ctx.reporter.warn(doc.at_value(keys[0]), f"`{keys[0]}` is empty and there is no `expect`: the scenario "
                      "checks nothing and passes whatever the program does; add steps (an `assert`, a "
                      "`screenshot`) or `expect: {exitCode: 0}`")  # fmt: skip


def _collecting(
    parse: Callable[[Any, Pos, _Context], list[m.Event]], item: Any, pos: Pos, ctx: _Context
) -> list[m.Event]:
    """Parse one timeline item; its errors are kept and the next item is read all the same.

    One typo must not hide the next mistake (`advanceMs: -5` three items
    later): the loader raises every error together once the file is read.
    """
    try:
        return parse(item, pos, ctx)
    except ScenarioError as exc:
        for d in exc.diagnostics:
            ctx.reporter.error(d.pos, d.message)
        return []


def _item(item: Any, pos: Pos, ctx: _Context) -> list[m.Event]:
    if isinstance(item, str):
        raise ScenarioError.at(
            pos,
            f"timeline item `{item}` must be a mapping such as `- {item}: ...`; "
            + did_you_mean(item, ALL_EVENTS, "allowed events:"),
        )
    entry = expect_map(item, pos, "a timeline item")
    if "type" in entry:
        return [_typed_step(entry, ctx)]
    keys = [k for k in entry if k not in ("_meta", "meta")]
    if not keys:
        raise ScenarioError.at(pos, f"empty timeline item; {did_you_mean('', ALL_EVENTS, 'allowed events:')}")
    name = keys[0]
    parsers = EVENT_KEYS
    if name not in parsers:
        known = tuple(parsers)
        raise ScenarioError.at(
            entry.at_key(name), f"unknown event `{name}`; {did_you_mean(name, known, 'allowed events:')}"
        )
    for extra in keys[1:]:
        if extra == "target" and name == "userInputs":
            continue
        if extra in parsers:
            raise ScenarioError.at(
                entry.at_key(extra), f"one event per timeline item: `{name}` and `{extra}` share one item"
            )
        ctx.reporter.unknown(
            entry.at_key(extra),
            f"unknown key `{extra}` beside `{name}`",
            did_you_mean(extra, ("_meta", "target") if name == "userInputs" else ("_meta",), "known keys:"),
        )
    meta = _meta(entry)
    if name == "userInputs" and "target" in entry:
        return [_user_inputs(entry[name], entry.at_value(name), entry.at_key(name), _target(entry), ctx)]
    return parsers[name].parse(entry[name], entry.at_value(name), entry.at_key(name), meta, ctx)


def _meta(entry: PMap) -> Mapping[str, Any]:
    if "_meta" in entry:
        return m.frozen_map(to_plain(expect_map(entry["_meta"], entry.at_value("_meta"), "`_meta`")))
    return m.EMPTY


Parser = Callable[[Any, Pos, Pos, Mapping[str, Any], _Context], list[m.Event]]


def _typed_step(entry: PMap, ctx: _Context) -> m.Event:
    kind = as_str(entry["type"], entry.at_value("type"), "`type`")
    pos = entry.at_value("type")
    fields: dict[str, tuple[str, ...]] = {
        "advanceMs": ("ms",), "baseTimeDelta": ("ms",), "screenshot": ("name",), "snapshot": ("name",),
        "userInputs": ("inputs", "target"), "key": ("key",), "assertVm": (), "sse": ("event",),
        "waitFor": (),
    }  # fmt: skip
    if kind not in fields:
        hint = (
            " (this looks like a pexpect-style script, not a scenario)"
            if kind in ("expect", "send", "wait")
            else ""
        )
        raise ScenarioError.at(pos, f"unknown step type `{kind}`{hint}; {did_you_mean(kind, fields)}")
    for needed in fields[kind][:1]:
        if needed not in entry:
            raise ScenarioError.at(entry.pos, f"a `{kind}` step needs `{needed}`")
    if kind in ("advanceMs", "baseTimeDelta"):
        return m.AdvanceMs(pos, as_int(entry["ms"], entry.at_value("ms"), "`ms`"))
    if kind in ("screenshot", "snapshot"):
        return m.Screenshot(pos, _label(entry["name"], entry.at_value("name")))
    if kind == "userInputs":
        return _user_inputs(entry["inputs"], entry.at_value("inputs"), pos, _target(entry), ctx)
    if kind == "key":
        return m.KeyPress(pos, as_str(entry["key"], entry.at_value("key"), "`key`"))
    if kind == "waitFor":
        return _wait_for_map(entry, entry.pos, pos)
    if kind == "sse":
        return m.SseEvent(
            pos, m.frozen_map(to_plain(expect_map(entry["event"], entry.at_value("event"), "`event`")))
        )
    checks = {k: v for k, v in to_plain(entry).items() if k != "type"}
    ctx.reporter.warn(
        pos,
        "`assertVm` is not checked by this runner: it asserts the view model of Agent Harbor's own TUI, "
        "which no program run here exposes; the step is reported as a skipped check, never as a pass",
    )
    return m.AssertVm(pos, m.frozen_map(checks))


def _target(entry: PMap) -> str | None:
    if "target" not in entry:
        return None
    return choice(entry["target"], entry.at_value("target"), "`target`", ("tui", "webui", "cli"))


def _shown(text: str) -> str:
    """``text`` in a message: its start, when it is long."""
    return text if len(text) <= 60 else text[:60] + "…"


def _label(value: Any, pos: Pos) -> str:
    label = as_str(value, pos, "a screenshot label", allow_scalars=True)
    if not LABEL.match(label):
        raise ScenarioError.at(
            pos,
            f"screenshot label `{_shown(label)}` may only use letters, digits, _ . -, at most 120 of them "
            "(it names a file)",
        )
    return label


# ----- timed text


def _timed_items(
    value: Any, pos: Pos, what: str, ctx: _Context, *, allow_blocks: bool
) -> tuple[m.TimedText, ...]:
    if isinstance(value, str):
        return (m.TimedText(0, m.Timing.DELTA, value, pos),)
    if isinstance(value, PMap):
        value = _as_list(value)
    items = expect_list(value, pos, what)
    out: list[m.TimedText] = []
    last_offset: tuple[int, Pos] | None = None
    for item, ipos in items.items_with_pos():
        if isinstance(item, PList):
            if len(item) != 2:
                raise ScenarioError.at(ipos, f"a {what} tuple must be [ms, text], got {len(item)} items")
            ms = as_int(item[0], item.at(0), f"the {what} time")
            out.append(
                m.TimedText(ms, m.Timing.DELTA, _content(item[1], item.at(1), ctx, allow_blocks), ipos)
            )
        elif isinstance(item, PMap):
            time_key = (
                "relativeTime" if "relativeTime" in item else "timestamp" if "timestamp" in item else None
            )
            text_key = next((k for k in ("content", "text", "message") if k in item), None)
            if text_key is None:
                raise ScenarioError.at(ipos, f"a {what} item needs `content` (or `text`)")
            ms = as_int(item[time_key], item.at_value(time_key), f"`{time_key}`") if time_key else 0
            warn_unknown(item, ("relativeTime", "timestamp", "content", "text", "message", "expectOutput", "_meta"),
                         f"a {what} item", ctx.reporter)  # fmt: skip
            tpos = item.at_value(time_key) if time_key else ipos
            if last_offset is not None and ms < last_offset[0]:
                # A departure the format's own example makes (offsets written as deltas): read it as
                # a delta from the previous item, and say so.
                ctx.reporter.warn(
                    tpos,
                    f"time went backwards: {what} relativeTime {ms} comes after {last_offset[0]} (line {last_offset[1].line}); "
                    "relativeTime is an offset from the start of the element and must not decrease; "
                    f"read as {ms} ms after the previous item (at {last_offset[0] + ms})",
                )
                ms += last_offset[0]
            last_offset = (ms, tpos)
            out.append(
                m.TimedText(
                    ms,
                    m.Timing.OFFSET,
                    _content(item[text_key], item.at_value(text_key), ctx, allow_blocks),
                    ipos,
                )
            )
        elif isinstance(item, str):
            out.append(m.TimedText(0, m.Timing.DELTA, item, ipos))
        else:
            raise wrong_type(ipos, f"a {what} item", "[ms, text] or {relativeTime, content}", item)
    return tuple(out)


def _content(value: Any, pos: Pos, ctx: _Context, allow_blocks: bool) -> m.Content:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if allow_blocks and isinstance(value, PMap | PList):
        blocks = value if isinstance(value, PList) else [value]
        positions = value.item_pos if isinstance(value, PList) else [value.pos]
        return tuple(_block(b, p, ctx) for b, p in zip(blocks, positions, strict=False))
    raise wrong_type(pos, "content", "a string or content blocks" if allow_blocks else "a string", value)


def _block(value: Any, pos: Pos, ctx: _Context) -> m.ContentBlock:
    b = expect_map(value, pos, "a content block")
    if "type" not in b:
        raise ScenarioError.at(pos, f"a content block needs `type`: one of {one_of(CONTENT_TYPES)}")
    kind = choice(b["type"], b.at_value("type"), "content block `type`", CONTENT_TYPES)
    if kind == "text" and not isinstance(b.get("text"), str):
        raise ScenarioError.at(pos, "a `text` block needs `text` (a string)")
    if kind in ("image", "audio"):
        if "path" not in b and "data" not in b:
            raise ScenarioError.at(
                pos, f"an `{kind}` block needs `path` (relative to the scenario) or `data` (base64)"
            )
        if "path" in b:
            resolve_inside(
                ctx.base_dir,
                as_str(b["path"], b.at_value("path"), "`path`"),
                b.at_value("path"),
                f"{kind} `path`",
            )
        if "data" in b:
            try:
                base64.b64decode(as_str(b["data"], b.at_value("data"), "`data`"), validate=True)
            except (binascii.Error, ValueError):
                raise ScenarioError.at(b.at_value("data"), f"{kind} `data` is not valid base64") from None
        mime = b.get("mimeType")
        if mime is not None and not (isinstance(mime, str) and mime.startswith(f"{kind}/")):
            raise ScenarioError.at(
                b.at_value("mimeType"), f"{kind} `mimeType` must start with `{kind}/`, got `{mime}`"
            )
    if kind == "resource" and not isinstance(b.get("resource"), PMap):
        raise ScenarioError.at(pos, "a `resource` block needs `resource: {uri, mimeType, text}`")
    if kind == "resource_link" and not isinstance(b.get("uri"), str):
        raise ScenarioError.at(pos, "a `resource_link` block needs `uri`")
    if kind == "diff" and not isinstance(b.get("path"), str):
        raise ScenarioError.at(pos, "a `diff` block needs `path`, `oldText` and `newText`")
    return m.ContentBlock(kind, m.frozen_map(to_plain(b)), pos)


# ----- agent events


def _llm_response(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    if isinstance(value, PMap):
        value = _one_key_maps(value)
    elements = expect_list(value, pos, "`llmResponse`")
    pieces: list[m.Thinking | m.Assistant | m.LlmError | m.ToolUse] = []
    allowed = ("think", "assistant", "error", "fault", "agentToolUse", "agent_tool_use", "tool")
    for element, epos in elements.items_with_pos():
        e = expect_map(element, epos, "an `llmResponse` element")
        keys = [k for k in e if k not in ("_meta", "meta")]
        if len(keys) == 1 and keys[0] not in allowed:
            close = nearest(keys[0], allowed)
            ctx.reporter.unknown(
                e.at_key(keys[0]),
                f"an `llmResponse` element `{keys[0]}`",
                f"did you mean `{close}`?"
                if close
                else f"the elements are {one_of(allowed)} (a tool call is `agentToolUse`)",
            )
            continue
        if len(keys) != 1:
            bad = next((k for k in keys if k not in allowed), keys[1] if len(keys) > 1 else None)
            where = e.at_key(bad) if bad else epos
            raise ScenarioError.at(
                where, f"an `llmResponse` element has exactly one of {one_of(allowed)}; got {one_of(keys)}"
            )
        if "meta" in e:
            ctx.reporter.warn(e.at_key("meta"), "`meta` is not `_meta`; ignored")
        key = keys[0]
        if key == "think":
            pieces.append(
                m.Thinking(
                    _timed_items(e[key], e.at_value(key), "think", ctx, allow_blocks=False), e.at_key(key)
                )
            )
        elif key == "assistant":
            pieces.append(
                m.Assistant(
                    _timed_items(e[key], e.at_value(key), "assistant", ctx, allow_blocks=True), e.at_key(key)
                )
            )
        elif key == "error":
            pieces.append(_llm_error(e[key], e.at_value(key), ctx))
        elif key == "tool":
            pieces.append(_tool_element(e[key], e.at_value(key), e.at_key(key), ctx))
        elif key == "fault":
            pieces.append(_llm_fault(e[key], e.at_value(key), ctx))
        else:
            pieces.append(_tool_use_event(e[key], e.at_value(key), e.at_key(key), m.EMPTY, ctx))
    return [m.LlmResponse(kpos, tuple(pieces), meta)]


def _tool_element(value: Any, pos: Pos, kpos: Pos, ctx: _Context) -> m.ToolUse:
    """`tool: [[ms, toolName], {args: ...}, {result: ...}, {status: ...}]`: the older Python mock agent's
    tool call inside an `llmResponse` (Agent Harbor's `interactive_development_scenario`), read as an
    `agentToolUse` of the maps merged. Its ``ms`` is not used: a tool call starts when the text before it
    has been shown, as for `agentToolUse`."""
    items = expect_list(value, pos, "a `tool` element")
    head = items[0] if items else None
    if not isinstance(head, PList) or len(head) != 2:
        raise ScenarioError.at(items.at(0) if items else pos,
                               "a `tool` element starts with [ms, toolName], then maps such as {args: {...}}")  # fmt: skip
    as_int(head[0], head.at(0), "the tool's time")
    name = as_str(head[1], head.at(1), "`toolName`")
    merged = PMap(pos)
    for item, ipos in list(items.items_with_pos())[1:]:
        part = expect_map(item, ipos, "a map of a `tool` element")
        for key in part:
            merged[key] = part[key]
            merged.key_pos[key], merged.value_pos[key] = part.at_key(key), part.at_value(key)
    warn_unknown(merged, ("args", *TOOL_RESULT_KEYS), "a `tool` element", ctx.reporter)
    args = expect_map(merged["args"], merged.at_value("args"), "`args`") if "args" in merged else PMap(pos)
    _check_tool_paths(args)
    return _tool(merged, name, args, kpos, m.EMPTY, "agentToolUse", ctx)


def _llm_error(value: Any, pos: Pos, ctx: _Context) -> m.LlmError:
    e = expect_map(value, pos, "`error`")
    warn_unknown(
        e, ("errorType", "message", "statusCode", "details", "retryAfterSeconds"), "`error`", ctx.reporter
    )
    for key in ("errorType", "message"):
        if key not in e:
            raise ScenarioError.at(pos, f"`error` needs `{key}`")
    status = (
        as_int(e["statusCode"], e.at_value("statusCode"), "`statusCode`", minimum=100)
        if "statusCode" in e
        else 400
    )
    if status > 599:
        raise ScenarioError.at(
            e.at_value("statusCode"), f"`statusCode` must be an HTTP status (100-599), got {status}"
        )
    return m.LlmError(
        as_str(e["errorType"], e.at_value("errorType"), "`errorType`"),
        as_str(e["message"], e.at_value("message"), "`message`"),
        e.pos,
        status,
        to_plain(e.get("details")),
        as_int(e["retryAfterSeconds"], e.at_value("retryAfterSeconds"), "`retryAfterSeconds`")
        if "retryAfterSeconds" in e
        else None,
    )


def _llm_fault(value: Any, pos: Pos, ctx: _Context) -> m.LlmError:
    """`fault: {type, ...}`: a failure on the wire, with Claudeless's failure types and fields (our extension;
    `workbench record` writes it for a stream the upstream broke)."""
    from .claudeless import FAILURE_FIELDS

    f = expect_map(value, pos, "`fault`")
    if "type" not in f:
        raise ScenarioError.at(pos, f"`fault` needs `type`: one of {one_of(tuple(FAILURE_FIELDS))}")
    kind = choice(f["type"], f.at_value("type"), "`fault` `type`", tuple(FAILURE_FIELDS))
    fields = FAILURE_FIELDS[kind]
    warn_unknown(f, ("type", *(name for name, _ in fields)), "`fault`", ctx.reporter)
    params: dict[str, Any] = {}
    for name, kind_of in fields:
        if name not in f:
            raise ScenarioError.at(pos, f"a `{kind}` fault needs `{name}`")
        where, what = f.at_value(name), f"`{name}`"
        params[name] = (
            as_str(f[name], where, what) if kind_of == "str" else as_int(f[name], where, what, minimum=0)
        )
    fault = m.Fault(kind, m.frozen_map(params), f.pos)
    return m.LlmError(kind, f"injected fault: {kind}", f.pos, fault=fault)


def _legacy_text(kind: str) -> Parser:
    def parse(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
        items = _timed_items(value, pos, kind, ctx, allow_blocks=kind == "assistant")
        piece: m.Thinking | m.Assistant = (
            m.Thinking(items, kpos) if kind == "think" else m.Assistant(items, kpos)
        )
        return [m.LlmResponse(kpos, (piece,), meta, legacy=True)]

    return parse


def _tool_use(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    return [_tool_use_event(value, pos, kpos, meta, ctx)]


def _tool_use_event(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> m.ToolUse:
    t = expect_map(value, pos, "`agentToolUse`")
    warn_unknown(t, ("toolName", "args", "rawInput", *TOOL_RESULT_KEYS), "`agentToolUse`", ctx.reporter)
    if "toolName" not in t:
        raise ScenarioError.at(pos, "`agentToolUse` needs `toolName`")
    name = as_str(t["toolName"], t.at_value("toolName"), "`toolName`")
    args = expect_map(t["args"], t.at_value("args"), "`args`") if "args" in t else PMap(t.pos)
    _check_tool_paths(args)
    return _tool(t, name, args, kpos, meta, "agentToolUse", ctx)


def _tool(
    t: PMap, name: str, args: PMap, kpos: Pos, meta: Mapping[str, Any], written_as: str, ctx: _Context
) -> m.ToolUse:
    status = choice(t["status"], t.at_value("status"), "`status`", TOOL_STATUSES) if "status" in t else "ok"
    if status != "error":
        _check_outside_paths(name, args, ctx)
    progress = _progress(t["progress"], t.at_value("progress"), ctx) if "progress" in t else ()
    tool_meta = meta
    for key in ("_meta", "meta"):
        if key in t:
            tool_meta = m.frozen_map(to_plain(expect_map(t[key], t.at_value(key), f"`{key}`")))
    return m.ToolUse(
        kpos,
        tool_name=name,
        args=m.frozen_map(to_plain(args)),
        progress=progress,
        result=to_plain(t.get("result")),
        status=status,
        tool_call_id=as_str(t["toolCallId"], t.at_value("toolCallId"), "`toolCallId`")
        if "toolCallId" in t
        else None,
        execution=_execution(t["toolExecution"], t.at_value("toolExecution"), ctx)
        if "toolExecution" in t
        else (),
        meta=tool_meta,
        written_as=written_as,
    )


def _check_tool_paths(args: PMap) -> None:
    for key in TOOL_PATH_ARGS:
        if key in args and isinstance(args[key], str) and args[key] not in (".", ""):
            _workspace_path(args[key], args.at_value(key), f"tool argument `{key}`")


def _check_outside_paths(name: str, args: PMap, ctx: _Context) -> None:
    """A known tool expected to succeed with an absolute path it may not leave the workspace for: where
    the call runs (the mock agent's tools), it is refused every time, as the run's workspace is a new
    temporary folder that no path written in the file is inside. A warning, not an error for ``--ci``:
    a scenario played to a client only (ACP, simulation) may name its own `/workspace/...` paths."""
    tool = canonical_name(name)
    if tool not in TOOL_EVENTS or tool in READS_ANYWHERE:
        return
    for key in TOOL_PATH_ARGS:
        value = args.get(key)
        if isinstance(value, str) and value.startswith("/"):
            ctx.reporter.warn(
                args.at_value(key),
                f"`{name}` argument `{key}` `{value}` is outside the workspace: the tool refuses it when the "
                f"scenario runs ({OUTSIDE_WHY}); give a path relative to the workspace, or `status: error` "
                "if the refusal is what the step checks",
            )


def _workspace_path(
    path: str, pos: Pos, what: str, ctx: _Context | None = None, *, writes: bool = False
) -> str:
    """A path relative to the workspace unless it starts with `/` (the format's rule).

    An absolute path may be read (asserts, `readFile`); a write there is refused when the scenario
    runs, and a scenario event that always writes (``agentEdits``) is warned about here."""
    if not path.startswith("/"):
        return check_relative(path, pos, what, "the workspace")
    if "\x00" in path:
        raise ScenarioError.at(pos, f"{what} `{path}` contains a NUL byte")
    if writes and ctx is not None:
        ctx.reporter.warn(
            pos,
            f"{what} `{path}` is outside the workspace: the write will be refused when the scenario runs "
            f"({OUTSIDE_WHY})",
        )
    return path


def _progress(value: Any, pos: Pos, ctx: _Context) -> tuple[m.TimedText, ...]:
    items = _timed_items(value, pos, "progress", ctx, allow_blocks=False)
    # Progress times are increments after the previous progress line, in every form.
    return tuple(m.TimedText(i.ms, m.Timing.DELTA, i.content, i.pos) for i in items)


def _execution(value: Any, pos: Pos, ctx: _Context) -> tuple[m.ExecutionEvent, ...]:
    x = expect_map(value, pos, "`toolExecution`")
    warn_unknown(x, ("startTimeMs", "events"), "`toolExecution`", ctx.reporter)
    out: list[m.ExecutionEvent] = []
    last = -1
    for item, ipos in expect_list(
        x.get("events", PList(pos)), x.at_value("events"), "`toolExecution.events`"
    ).items_with_pos():
        e = expect_map(item, ipos, "a `toolExecution` event")
        warn_unknown(e, ("type", "timeMs", "content", "exitCode"), "a `toolExecution` event", ctx.reporter)
        kind = choice(e.get("type", "stdout"), e.at_value("type"), "`type`", EXECUTION_EVENT_TYPES)
        time_ms = as_int(e.get("timeMs", 0), e.at_value("timeMs"), "`timeMs`")
        if time_ms < last:
            raise ScenarioError.at(
                e.at_value("timeMs"), f"time went backwards: `timeMs` {time_ms} comes after {last}"
            )
        last = time_ms
        exit_code = (
            as_int(e["exitCode"], e.at_value("exitCode"), "`exitCode`", minimum=None)
            if "exitCode" in e
            else None
        )
        content = e.get("content", "")
        out.append(
            m.ExecutionEvent(
                kind,
                time_ms,
                as_str(content, e.at_value("content"), "`content`", allow_scalars=True)
                if content is not None
                else "",
                ipos,
                exit_code,
            )
        )
    return tuple(out)


def _tool_event(name: str) -> Parser:
    known = TOOL_EVENTS[name]

    def parse(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
        if name == "slashCommand" and isinstance(value, str):
            fields = PMap(pos)
            fields["command"] = value
            fields.value_pos["command"] = pos
            value = fields
        t = expect_map(value, pos, f"`{name}`")
        args = PMap(t.pos)
        for key in t:
            if key in TOOL_RESULT_KEYS:
                continue
            if key not in known:
                ctx.reporter.unknown(
                    t.at_key(key), f"unknown `{name}` argument `{key}`", did_you_mean(key, known, "known:")
                )
            args[key] = t[key]
            args.key_pos[key] = t.at_key(key)
            args.value_pos[key] = t.at_value(key)
        _check_tool_paths(args)
        misspelt = any(key not in known for key in args)  # said above: a missing argument is likely that one
        if t.get("status", "ok") != "error" and not misspelt:  # a call meant to fail may lack what it needs
            _check_text_arguments(name, args, kpos, ctx)
        return [_tool(t, name, args, kpos, meta, name, ctx)]

    return parse


def _check_text_arguments(name: str, args: PMap, kpos: Pos, ctx: _Context) -> None:
    """A tool event expected to succeed whose required argument is missing, or a string argument given
    as a list, a number or a mapping: the tool refuses it every time (`needs `path``), so it cannot pass."""
    for spellings in TEXT_ARGUMENTS.get(name, ()):
        if not any(args.get(s) is not None for s in spellings):
            ctx.reporter.doubtful(
                kpos, f"`{name}` needs `{spellings[0]}`, a string: the tool fails without it"
            )
    required = (s for spellings in TEXT_ARGUMENTS.get(name, ()) for s in spellings)
    for key in dict.fromkeys((*required, *OPTIONAL_TEXT_ARGUMENTS)):
        value = args.get(key)
        if key in TOOL_EVENTS[name] and value is not None and not isinstance(value, str):
            quote = " (quote it)" if isinstance(value, int | float) else ""
            ctx.reporter.doubtful(args.at_value(key), f"`{name}` argument `{key}` must be a string{quote}, "
                                  f"got {type_name(value)}: the tool refuses it")  # fmt: skip


def _agent_edits(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    e = expect_map(value, pos, "`agentEdits`")
    if "path" not in e:
        raise ScenarioError.at(pos, "`agentEdits` needs `path`")
    path = _workspace_path(
        as_str(e["path"], e.at_value("path"), "`path`"),
        e.at_value("path"),
        "`agentEdits.path`",
        ctx,
        writes=True,
    )
    extra = {k: to_plain(v) for k, v in e.items() if k not in ("path", "linesAdded", "linesRemoved")}
    return [
        m.FileEdit(
            kpos,
            path=path,
            lines_added=as_int(e.get("linesAdded", 0), e.at_value("linesAdded"), "`linesAdded`"),
            lines_removed=as_int(e.get("linesRemoved", 0), e.at_value("linesRemoved"), "`linesRemoved`"),
            extra=m.frozen_map(extra),
        )
    ]


def _acp_event(name: str) -> Parser:
    def parse(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
        if name == "sessionStart":
            if not isinstance(value, PMap):
                raise wrong_type(pos, "`sessionStart`", "a mapping such as {sessionId: s1}", value)
            ctx.session_starts.append(kpos)
        elif name == "setModel":
            ctx.set_models.append(kpos)
            if not isinstance(value, PMap) or "modelId" not in value:
                raise ScenarioError.at(pos, "`setModel` needs `modelId`")
        elif name == "setMode":
            if not isinstance(value, PMap) or "modeId" not in value:
                raise ScenarioError.at(pos, "`setMode` needs `modeId`")
        elif name == "agentPlan":
            _check_plan(value, pos)
        elif name == "agentPermissionRequest":
            _check_permission(value, pos)
        elif name == "agentExtension":
            _check_extension(value, pos, ctx)
        elif name == "agentFileReads":
            f = expect_map(value, pos, "`agentFileReads`")
            for item, ipos in expect_list(
                f.get("files"), f.at_value("files"), "`agentFileReads.files`"
            ).items_with_pos():
                entry = expect_map(item, ipos, "a file read")
                if "path" not in entry:
                    raise ScenarioError.at(ipos, "a file read needs `path`")
        elif value is not None and not isinstance(value, PMap):
            raise wrong_type(pos, f"`{name}`", "a mapping", value)
        return [m.AcpEvent(kpos, name=name, data=to_plain(value), meta=meta)]

    return parse


def _check_extension(value: Any, pos: Pos, ctx: _Context) -> None:
    """`agentExtension` (our extension): an ACP extension message of the agent, `method` (starting with
    `_`, as ACP reserves), `params`; a request (`request: true`, or an `expectResponse`) or a notification."""
    e = expect_map(value, pos, "`agentExtension`")
    warn_unknown(e, EXTENSION_KEYS, "`agentExtension`", ctx.reporter)
    if "method" not in e:
        raise ScenarioError.at(pos, "`agentExtension` needs `method`, such as `_scp/html_panel/show`")
    method = as_str(e["method"], e.at_value("method"), "`agentExtension.method`")
    if not method.startswith("_") or len(method) < 2:
        raise ScenarioError.at(e.at_value("method"), f"`agentExtension.method` `{method}` must start with `_`: "
                               "ACP reserves the other names for its own methods")  # fmt: skip
    for key in ("params", "respond", "expectResponse"):
        if key in e:
            expect_map(e[key], e.at_value(key), f"`agentExtension.{key}`")
    if "request" in e:
        as_bool(e["request"], e.at_value("request"), "`agentExtension.request`")


def _check_plan(value: Any, pos: Pos) -> None:
    p = expect_map(value, pos, "`agentPlan`")
    for item, ipos in expect_list(
        p.get("entries", PList(pos)), p.at_value("entries"), "`entries`"
    ).items_with_pos():
        entry = expect_map(item, ipos, "a plan entry")
        if "content" not in entry:
            raise ScenarioError.at(ipos, "a plan entry needs `content`")
        if "priority" in entry:
            choice(entry["priority"], entry.at_value("priority"), "`priority`", ("high", "medium", "low"))
        if "status" in entry:
            choice(
                entry["status"], entry.at_value("status"), "`status`", ("pending", "in_progress", "completed")
            )


def _check_permission(value: Any, pos: Pos) -> None:
    p = expect_map(value, pos, "`agentPermissionRequest`")
    for item, ipos in expect_list(
        p.get("options", PList(pos)), p.at_value("options"), "`options`"
    ).items_with_pos():
        option = expect_map(item, ipos, "a permission option")
        if "kind" in option:
            choice(option["kind"], option.at_value("kind"), "option `kind`", PERMISSION_KINDS)
    if "decision" in p:
        d = expect_map(p["decision"], p.at_value("decision"), "`decision`")
        if "outcome" in d:
            choice(d["outcome"], d.at_value("outcome"), "`outcome`", ("selected", "cancelled"))


# ----- user events


def _user_inputs_parser(
    value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context
) -> list[m.Event]:
    target = None
    if isinstance(value, PMap) and "inputs" in value:
        target = _target(value)
        value, pos = value["inputs"], value.at_value("inputs")
    return [_user_inputs(value, pos, kpos, target, ctx)]


def _user_inputs(value: Any, pos: Pos, kpos: Pos, target: str | None, ctx: _Context) -> m.UserInputs:
    if isinstance(value, str | PMap):
        wrapped = PList(getattr(value, "pos", pos))
        wrapped.append(value)
        wrapped.item_pos.append(getattr(value, "pos", pos))
        value = wrapped
    items: list[m.InputItem] = []
    last: tuple[int, Pos] | None = None
    for item, ipos in expect_list(value, pos, "`userInputs`").items_with_pos():
        if isinstance(item, str):
            items.append(m.InputItem(0, m.Timing.SEGMENT, item, ipos, target))
            continue
        if isinstance(item, PList):
            if len(item) != 2:
                raise ScenarioError.at(
                    ipos, f"a `userInputs` tuple must be [ms, input], got {len(item)} items"
                )
            ms = as_int(item[0], item.at(0), "the input time")
            tpos, timing, content = item.at(0), m.Timing.SEGMENT, _content(item[1], item.at(1), ctx, True)
            entry_target, expected, imeta = target, m.EMPTY, m.EMPTY
        else:
            e = expect_map(item, ipos, "a `userInputs` entry")
            warn_unknown(e, ("relativeTime", "timestamp", "input", "target", "_meta", "meta", "expectedResponse"),
                         "a `userInputs` entry", ctx.reporter)  # fmt: skip
            if "input" not in e:
                raise ScenarioError.at(ipos, "a `userInputs` entry needs `input`")
            key = "relativeTime" if "relativeTime" in e else "timestamp" if "timestamp" in e else None
            ms = as_int(e[key], e.at_value(key), f"`{key}`") if key else 0
            tpos = e.at_value(key) if key else ipos
            timing = m.Timing.ABSOLUTE if key else m.Timing.SEGMENT
            content = _content(e["input"], e.at_value("input"), ctx, True)
            entry_target = _target(e) or target
            expected = (
                m.frozen_map(
                    to_plain(
                        expect_map(
                            e["expectedResponse"], e.at_value("expectedResponse"), "`expectedResponse`"
                        )
                    )
                )
                if "expectedResponse" in e
                else m.EMPTY
            )
            meta_key = (
                "_meta" if "_meta" in e else "meta" if "meta" in e else None
            )  # `meta`: the Rust spelling
            imeta = (
                m.frozen_map(to_plain(expect_map(e[meta_key], e.at_value(meta_key), f"`{meta_key}`")))
                if meta_key
                else m.EMPTY
            )
        if last is not None and ms < last[0] and timing is items[-1].timing:
            raise ScenarioError.at(
                tpos, f"time went backwards: input time {ms} comes after {last[0]} (line {last[1].line})"
            )
        last = (ms, tpos)
        items.append(m.InputItem(ms, timing, content, ipos, entry_target, expected, imeta))
    _warn_foreign_target(items, ctx)
    return m.UserInputs(kpos, tuple(items), target)


_TARGET_WARNING = (
    "inputs for `target: webui` are not typed in a terminal run (only `tui` and `cli` inputs are)"
)


def _warn_foreign_target(items: list[m.InputItem], ctx: _Context) -> None:
    """Once per file: an input meant for the web UI never reaches a terminal; the trace notes each one."""
    foreign = next((item for item in items if item.target == "webui"), None)
    if foreign is not None and not any(d.message.startswith(_TARGET_WARNING) for d in ctx.reporter.warnings):
        ctx.reporter.warn(foreign.pos, f"{_TARGET_WARNING}; each is noted in the trace and skipped")


def _user_edits(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    e = expect_map(value, pos, "`userEdits`")
    if "patch" not in e:
        raise ScenarioError.at(pos, "`userEdits` needs `patch` (a patch file relative to the scenario)")
    patch = as_str(e["patch"], e.at_value("patch"), "`patch`")
    resolve_inside(ctx.base_dir, patch, e.at_value("patch"), "`userEdits.patch`")
    return [m.UserEdits(kpos, patch)]


def _user_command(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    if isinstance(value, str):
        return [m.UserCommand(kpos, cmd=value)]
    c = expect_map(value, pos, "`userCommand`")
    warn_unknown(c, ("cmd", "cwd", "program", "args", "env", "expect"), "`userCommand`", ctx.reporter)
    if "cmd" not in c and "program" not in c and "args" not in c:
        raise ScenarioError.at(
            pos,
            "`userCommand` needs `cmd` (a shell command), or `program` and/or `args` (argv; the program defaults to `ah`)",
        )
    cwd = None
    if "cwd" in c:
        cwd = check_relative(
            as_str(c["cwd"], c.at_value("cwd"), "`cwd`"),
            c.at_value("cwd"),
            "`userCommand.cwd`",
            "the workspace",
        )
    env = {k: as_str(v, c["env"].at_value(k), f"`env.{k}`", allow_scalars=True)
           for k, v in expect_map(c["env"], c.at_value("env"), "`env`").items()} if "env" in c else {}  # fmt: skip
    return [
        m.UserCommand(
            kpos,
            cmd=as_str(c["cmd"], c.at_value("cmd"), "`cmd`") if "cmd" in c else None,
            cwd=cwd,
            program=as_str(c["program"], c.at_value("program"), "`program`")
            if "program" in c
            else "ah"
            if "cmd" not in c
            else None,
            args=as_str_list(c["args"], c.at_value("args"), "`args`") if "args" in c else (),
            env=m.frozen_map(env),
            expect=m.frozen_map(to_plain(expect_map(c["expect"], c.at_value("expect"), "`expect`")))
            if "expect" in c
            else m.EMPTY,
        )
    ]


def _cancel(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    return [m.UserCancelSession(kpos)] if as_bool(value, pos, "`userCancelSession`") else []


def _wrapper(actor: str) -> Parser:
    def parse(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
        if isinstance(value, PMap):
            value = _one_key_maps(value)
        out: list[m.Event] = []
        for item, ipos in expect_list(value, pos, f"`{actor}Actions`").items_with_pos():
            for event in _item(item, ipos, ctx):
                if event.actor == ("user" if actor == "agent" else "agent"):
                    raise ScenarioError.at(event.pos, f"`{event.kind}` is not an {actor} action")
                out.append(event)
        return out

    return parse


# ----- control events


def _advance(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    return [m.AdvanceMs(kpos, as_int(value, pos, "the time advance (ms)"))]


def _screenshot(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    if isinstance(value, PMap) and "name" in value:
        value, pos = value["name"], value.at_value("name")
    return [m.Screenshot(kpos, _label(value, pos))]


def _wait_for(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    """`waitFor: TEXT` or `waitFor: {text | regex, timeoutMs}` (our extension)."""
    if not isinstance(value, PMap):
        return [m.WaitFor(kpos, text=as_str(value, pos, "`waitFor` text", allow_scalars=True))]
    warn_unknown(value, ("text", "regex", "timeoutMs"), "`waitFor`", ctx.reporter)
    return [_wait_for_map(value, pos, kpos)]


def _wait_for_map(w: PMap, pos: Pos, kpos: Pos) -> m.WaitFor:
    if ("text" in w) == ("regex" in w):
        raise ScenarioError.at(
            pos, "`waitFor` needs one of `text` (shown on the screen) or `regex` (searched in it)"
        )
    text = as_str(w["text"], w.at_value("text"), "`text`", allow_scalars=True) if "text" in w else None
    regex = as_str(w["regex"], w.at_value("regex"), "`regex`") if "regex" in w else None
    if regex is not None:
        try:
            re.compile(regex, re.M)
        except re.error as exc:
            raise ScenarioError.at(
                w.at_value("regex"), f"`regex` is not a valid regular expression: {exc}"
            ) from None
    timeout = (
        as_int(w["timeoutMs"], w.at_value("timeoutMs"), "`timeoutMs`", minimum=1)
        if "timeoutMs" in w
        else 10_000
    )
    return m.WaitFor(kpos, text=text, regex=regex, timeout_ms=timeout)


def _log(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    return [m.Log(kpos, as_str(value, pos, "`log`", allow_scalars=True))]


def _status(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    return [m.Status(kpos, choice(value, pos, "`status`", SESSION_STATUSES))]


def _flag(cls: type[m.Complete] | type[m.Merge], name: str) -> Parser:
    def parse(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
        return [cls(kpos, as_bool(value, pos, f"`{name}`"))]

    return parse


ASSERT_KEYS = ("fs", "text", "json", "git", "acp")


def _assert(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    a = _undot(expect_map(value, pos, "`assert`"))
    warn_unknown(a, ASSERT_KEYS, "`assert`", ctx.reporter)
    exists: tuple[str, ...] = ()
    not_exists: tuple[str, ...] = ()
    if "fs" in a:
        fs = expect_map(a["fs"], a.at_value("fs"), "`assert.fs`")
        warn_unknown(fs, ("exists", "notExists"), "`assert.fs`", ctx.reporter)
        exists = _workspace_paths(fs, "exists")
        not_exists = _workspace_paths(fs, "notExists")
    contains: tuple[str, ...] = ()
    if "text" in a:
        t = expect_map(a["text"], a.at_value("text"), "`assert.text`")
        warn_unknown(t, ("contains",), "`assert.text`", ctx.reporter)
        contains = (
            as_str_list(t["contains"], t.at_value("contains"), "`text.contains`") if "contains" in t else ()
        )
    json_checks: list[m.JsonFileCheck] = []
    if "json" in a:
        j = expect_map(a["json"], a.at_value("json"), "`assert.json`")
        warn_unknown(j, ("file",), "`assert.json`", ctx.reporter)
        files = j.get("file")
        if isinstance(files, PMap):
            files = _as_list(files)
        for item, ipos in expect_list(files, j.at_value("file"), "`json.file`").items_with_pos():
            f = expect_map(item, ipos, "a `json.file` check")
            for key in ("path", "pointer", "equals"):
                if key not in f:
                    raise ScenarioError.at(ipos, f"a `json.file` check needs `{key}`")
            pointer = as_str(f["pointer"], f.at_value("pointer"), "`pointer`")
            if pointer and not pointer.startswith("/"):
                raise ScenarioError.at(
                    f.at_value("pointer"), f"`pointer` `{pointer}` must be a JSON pointer such as /a/0/b"
                )
            path = _workspace_path(
                as_str(f["path"], f.at_value("path"), "`path`"), f.at_value("path"), "`json.file.path`"
            )
            json_checks.append(m.JsonFileCheck(path, pointer, to_plain(f["equals"]), ipos))
    messages: tuple[str, ...] = ()
    if "git" in a:
        g = expect_map(a["git"], a.at_value("git"), "`assert.git`")
        warn_unknown(g, ("commit",), "`assert.git`", ctx.reporter)
        if "commit" in g:
            c = expect_map(g["commit"], g.at_value("commit"), "`git.commit`")
            warn_unknown(c, ("messageContains",), "`git.commit`", ctx.reporter)
            if "messageContains" in c:
                messages = as_str_list(
                    c["messageContains"], c.at_value("messageContains"), "`messageContains`"
                )
    acp = (
        m.frozen_map(to_plain(expect_map(a["acp"], a.at_value("acp"), "`assert.acp`")))
        if "acp" in a
        else m.EMPTY
    )
    return [m.Assert(kpos, exists, not_exists, contains, tuple(json_checks), messages, acp)]


def _as_list(value: PMap) -> PList:
    """A mapping written where a list is allowed: the list of that one mapping."""
    seq = PList(value.pos)
    seq.append(value)
    seq.item_pos.append(value.pos)
    return seq


def _one_key_maps(value: PMap) -> PList:
    """A mapping written where a list of one-key items is meant (``{think: .., assistant: ..}``):
    one item per key, in order, each at its key's position."""
    seq = PList(value.pos)
    for k in value:
        one = PMap(value.at_key(k))
        one[k] = value[k]
        one.key_pos[k] = value.at_key(k)
        one.value_pos[k] = value.at_value(k)
        seq.append(one)
        seq.item_pos.append(value.at_key(k))
    return seq


def _undot(a: PMap) -> PMap:
    """Accept `fs.exists: [...]` as well as `fs: {exists: [...]}`."""
    if not any("." in k for k in a):
        return a
    out = PMap(a.pos)
    for key, value in a.items():
        head, _, rest = key.partition(".")
        if not rest:
            out[key], out.key_pos[key], out.value_pos[key] = value, a.at_key(key), a.at_value(key)
            continue
        inner = out.get(head)
        if not isinstance(inner, PMap):
            inner = PMap(a.at_key(key))
            out[head], out.key_pos[head], out.value_pos[head] = inner, a.at_key(key), a.at_key(key)
        inner[rest], inner.key_pos[rest], inner.value_pos[rest] = value, a.at_key(key), a.at_value(key)
        out[head] = _undot(inner)
    return out


def _workspace_paths(m_: PMap, key: str) -> tuple[str, ...]:
    if key not in m_:
        return ()
    paths = as_str_list(m_[key], m_.at_value(key), f"`fs.{key}`")
    return tuple(_workspace_path(p, m_.at_value(key), f"`fs.{key}` path") for p in paths)


def _assert_git(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    g = expect_map(value, pos, "`assertGit`")
    warn_unknown(g, ("branch", "exists", "commitsAheadOf", "commitCount", "headMessageContains", "remoteExists"),
                 "`assertGit`", ctx.reporter)  # fmt: skip
    return [m.AssertGit(kpos, m.frozen_map(to_plain(g)))]


def _apply_patch(value: Any, pos: Pos, kpos: Pos, meta: Mapping[str, Any], ctx: _Context) -> list[m.Event]:
    p = expect_map(value, pos, "`applyPatch`")
    warn_unknown(p, ("path", "commit", "message"), "`applyPatch`", ctx.reporter)
    if "path" not in p:
        raise ScenarioError.at(pos, "`applyPatch` needs `path` (a patch file relative to the scenario)")
    path = as_str(p["path"], p.at_value("path"), "`path`")
    resolve_inside(ctx.base_dir, path, p.at_value("path"), "`applyPatch.path`")
    return [
        m.ApplyPatch(
            kpos,
            path,
            as_bool(p["commit"], p.at_value("commit"), "`commit`") if "commit" in p else False,
            as_str(p["message"], p.at_value("message"), "`message`") if "message" in p else None,
        )
    ]


# ----- the legacy `turns` list


def _turn(item: Any, pos: Pos, ctx: _Context) -> list[m.Event]:
    t = expect_map(item, pos, "a turn")
    keys = list(t)
    allowed = ("user", "think", "assistant", "tool")
    if len(keys) != 1 or keys[0] not in allowed:
        raise ScenarioError.at(pos, f"a turn has exactly one of {one_of(allowed)}")
    key = keys[0]
    value, vpos, kpos = t[key], t.at_value(key), t.at_key(key)
    if key == "user":
        return [m.UserInputs(kpos, (m.InputItem(0, m.Timing.SEGMENT, as_str(value, vpos, "`user`"), vpos),))]
    if key in ("think", "assistant"):
        return _legacy_text(key)(value, vpos, kpos, m.EMPTY, ctx)
    tool = expect_map(value, vpos, "`tool`")
    if "name" not in tool:
        raise ScenarioError.at(vpos, "a `tool` turn needs `name`")
    args = expect_map(tool["args"], tool.at_value("args"), "`args`") if "args" in tool else PMap(tool.pos)
    _check_tool_paths(args)
    return [
        _tool(tool, as_str(tool["name"], tool.at_value("name"), "`name`"), args, kpos, m.EMPTY, "tool", ctx)
    ]


# this loader's rows of the event table (workbench.scenario.events.EVENT_KEYS): each timeline key, its parser
# and its JSON Schema fragment (workbench.scenario.event_schemas)
for _row in (
    EventKey("llmResponse", _llm_response, schemas.llm_response),
    EventKey("think", _legacy_text("think"), schemas.think),
    EventKey("assistant", _legacy_text("assistant"), schemas.assistant),
    EventKey("agentToolUse", _tool_use, schemas.agent_tool_use),
    EventKey("agentEdits", _agent_edits, schemas.agent_edits),
    *(EventKey(name, _tool_event(name), schemas.tool_call(name), "tool") for name in TOOL_EVENTS),
    *(EventKey(name, _acp_event(name), schemas.acp(name), "acp") for name in ACP_EVENTS),
    EventKey("userInputs", _user_inputs_parser, schemas.user_inputs),
    EventKey("userEdits", _user_edits, schemas.user_edits),
    EventKey("userCommand", _user_command, schemas.user_command),
    EventKey("userCancelSession", _cancel, schemas.user_cancel_session),
    EventKey("agentActions", _wrapper("agent"), schemas.agent_actions),
    EventKey("userActions", _wrapper("user"), schemas.user_actions),
    EventKey("advanceMs", _advance, schemas.advance_ms),
    EventKey("baseTimeDelta", _advance, schemas.base_time_delta),
    EventKey("screenshot", _screenshot, schemas.screenshot),
    EventKey("waitFor", _wait_for, schemas.wait_for),
    EventKey("log", _log, schemas.log),
    EventKey("status", _status, schemas.status),
    EventKey("assert", _assert, schemas.assert_),
    EventKey("assertGit", _assert_git, schemas.assert_git),
    EventKey("complete", _flag(m.Complete, "complete"), schemas.complete),
    EventKey("merge", _flag(m.Merge, "merge"), schemas.merge),
    EventKey("applyPatch", _apply_patch, schemas.apply_patch),
):
    register_key(_row)
ALL_EVENTS = tuple(k for k, row in EVENT_KEYS.items() if row.group != "extension")  # the built-in events
