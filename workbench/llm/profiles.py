"""Tool profiles: the scenario's tool names, spoken in each agent's own tools.

A scenario says ``runCmd {cmd}`` or ``writeFile {path, content}``; Claude Code
calls those ``Bash {command}`` and ``Write {file_path, content}`` (with an
absolute path, which its Write requires), Codex runs everything through
``exec_command {cmd, workdir}``, and pi has ``bash``, ``read``, ``write`` and
``edit {path, edits: [{oldText, newText}]}``. A call goes through two steps:

1. :func:`canonical` turns any known spelling (the scenario's own names, the
   legacy snake_case ones, or an agent's tool names such as ``Write`` or
   ``exec_command``) into the canonical name and arguments;
2. the profile maps the canonical call to a tool the request offers, falling
   back to the agent's shell tool where the agent has no dedicated tool (Claude
   Code 2.1 has no Grep/Glob/LS; Codex 0.169 edits files through its shell).

A tool name the scenario spells in no known way is sent as written. Arguments
are finally fitted to the schema the offered tool declares (:func:`fit`): a
call that already fits is sent unchanged; otherwise each argument is renamed to
the property the tool declares for it (synonym groups of
:mod:`workbench.scenario.vocabulary`: ``cmd``/``command``,
``path``/``file_path``/``filePath``, ``old_string``/``oldString``...), keys the
tool does not declare are left out, and a required property nothing maps to
is reported (:attr:`Call.missing`), never dropped silently.

A named profile is used only when the request's tools match its snapshot (the
names it knows, with the properties it knows); an agent whose tools share the
names but not the schemas (another agent's ``write {filePath}``) gets the
generic profile, which speaks any agent's tools through the vocabulary.

Tool sets and property names come from the captured requests of Claude Code
2.1.197, Codex 0.169.0, pi 0.73.1 and Gemini CLI 0.61.0, plus the names of
tools older versions had (their properties are not checked). ``--strict-tools``
compares a request's tool definitions with that snapshot: a tool the profile
does not know, a known tool whose properties changed, or a tool the scenario
needs that the request does not offer is a difference.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from workbench.scenario.vocabulary import ALIASES, ARGUMENTS, argument_for

from .conversation import ToolDef
from .intent import Where, decide, in_dir, path_style, place, properties, words

Args = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    # required properties of the offered tool that no argument of the call maps to
    missing: tuple[str, ...] = field(default=(), compare=False)
    # how the tool was chosen by what it does (:mod:`workbench.llm.intent`), for `-v` and the report
    decision: str = field(default="", compare=False)
    # why no offered tool does the job: the call cannot be sent, the run fails at its line
    unmapped: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class MapContext:
    """What a mapping may look at: the offered tools and the agent's working directory."""

    offered: Mapping[str, ToolDef]
    cwd: str | None = None

    def has(self, name: str) -> bool:
        return name in self.offered


# --------------------------------------------------------------------------- canonical names


def _pick(args: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in args and args[key] is not None:
            return args[key]
    return None


def _rest(args: Mapping[str, Any], *used: str) -> Args:
    return {k: v for k, v in args.items() if k not in used}


def _command_text(value: Any) -> str:
    if isinstance(value, list):
        words = [str(w) for w in value]
        if len(words) == 3 and words[0] in ("bash", "sh", "zsh") and words[1] in ("-lc", "-c"):
            return words[2]
        return shlex.join(words)
    return "" if value is None else str(value)


def canonical(name: str, args: Mapping[str, Any]) -> Call | None:
    """The canonical form of a known tool spelling, or None for an unknown name."""
    canon = ALIASES.get(name)
    if canon is None:
        return None
    a = dict(args)
    if canon == "runCmd":
        out = {"cmd": _command_text(_pick(a, "cmd", "command")), "cwd": _pick(a, "cwd", "workdir")}
        return Call(canon, {**_rest(a, "cmd", "command", "cwd", "workdir"), **_clean(out)})
    if canon in ("readFile", "writeFile", "appendFile", "editFile", "listDir", "notebookEdit"):
        path = _pick(a, "path", "file_path", "notebook_path", "dir", "directory")
        out = {"path": path}
        used = ["path", "file_path", "notebook_path", "dir", "directory"]
        if canon in ("writeFile", "appendFile"):
            out["content"] = _pick(a, "content", "text")
            used += ["content", "text"]
        if canon == "editFile":
            out["old_string"] = _pick(a, "old_string", "oldText", "old_text", "old", "search")
            out["new_string"] = _pick(a, "new_string", "newText", "new_text", "new", "replace")
            used += [
                "old_string",
                "oldText",
                "old_text",
                "old",
                "search",
                "new_string",
                "newText",
                "new_text",
                "new",
                "replace",
            ]
        return Call(canon, {**_rest(a, *used), **_clean(out)})
    if canon == "find":
        pattern = _pick(a, "name", "pattern")
        if isinstance(pattern, str) and pattern.startswith("**/"):
            pattern = pattern[3:]
        return Call(canon, {**_rest(a, "name", "pattern"), **_clean({"name": pattern})})
    if canon == "todoWrite" and "plan" in a and "todos" not in a:
        todos = [
            {"content": p.get("step", ""), "status": p.get("status", "pending")}
            for p in a["plan"]
            if isinstance(p, Mapping)
        ]
        return Call(canon, {"todos": todos})
    return Call(canon, a)


def _clean(args: Mapping[str, Any]) -> Args:
    return {k: v for k, v in args.items() if v is not None}


# a known spelling by its words in any case: `WriteFile`, `write-file` and `WRITE_FILE` are `write_file`
_SPELLING_BY_WORDS = {words(name): name for name in ALIASES}


# --------------------------------------------------------------------------- shell fallbacks


def _q(value: Any) -> str:
    return shlex.quote(str(value))


def _in_dir(cmd: str, cwd: Any) -> str:
    return f"cd {_q(cwd)} && {cmd}" if cwd not in (None, "", ".") else cmd


def shell_command(call: Call) -> str | None:
    """A shell command that does what a file or search tool would, for agents
    whose only tool is a shell. Exact for contents: no heredocs, no echo."""
    a = call.args
    path = a.get("path", ".")
    if call.name == "runCmd":
        return _in_dir(str(a.get("cmd", "")), a.get("cwd"))
    if call.name == "readFile":
        offset, limit = a.get("offset"), a.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            first = int(offset or 0) + 1
            last = f"{first + int(limit) - 1}" if isinstance(limit, int) else "$"
            return f"sed -n '{first},{last}p' {_q(path)}"
        return f"cat {_q(path)}"
    if call.name in ("writeFile", "appendFile"):
        op = ">" if call.name == "writeFile" else ">>"
        parent = os.path.dirname(str(path))
        mkdir = f"mkdir -p {_q(parent)} && " if parent else ""
        return f"{mkdir}printf '%s' {_q(a.get('content', ''))} {op} {_q(path)}"
    if call.name == "editFile":
        count = "" if a.get("replace_all") else ", 1"
        script = (
            "import pathlib,sys;p=pathlib.Path(sys.argv[1]);s=p.read_text();"
            f"sys.exit('old_string not found') if sys.argv[2] not in s else p.write_text(s.replace(sys.argv[2],sys.argv[3]{count}))"
        )
        return (
            f"python3 -c {_q(script)} {_q(path)} {_q(a.get('old_string', ''))} {_q(a.get('new_string', ''))}"
        )
    if call.name == "grep":
        flags = "-rn" + ("i" if a.get("-i") else "")
        return f"grep {flags} -e {_q(a.get('pattern', ''))} {_q(path)}"
    if call.name == "listDir":
        return f"find {_q(path)} -print" if a.get("recursive") else f"ls -la {_q(path)}"
    if call.name == "find":
        kind = f" -type {_q(a['type'])}" if a.get("type") else ""
        name = f" -name {_q(a['name'])}" if a.get("name") else ""
        return f"find {_q(path)}{name}{kind}"
    if call.name == "sed":
        inplace = "-i " if a.get("inplace") else ""
        return f"sed {inplace}-e {_q(a.get('expression', ''))} {_q(path)}"
    return None


# --------------------------------------------------------------------------- profiles

Mapper = Callable[[Call, MapContext], Call | None]


@dataclass(frozen=True)
class ToolProfile:
    name: str
    schemas: Mapping[str, frozenset[str] | None]
    mapper: Mapper
    shell: Callable[[str, Call, MapContext], Call | None] | None = None

    def map(self, name: str, args: Mapping[str, Any], ctx: MapContext) -> tuple[Call, str | None]:
        """The call to send for a scenario tool use, and a note when it could not be mapped.

        MCP tools (``mcp__<server>__<Name>``, as Claude-based agents such as the ACP adapters offer
        ``mcp__acp__Write``) count as ``<Name>`` when no plain ``<Name>`` is offered; the call goes
        out under the full name."""
        plain, full = unprefixed(ctx.offered)
        if full:
            call, note = self._map(name, args, MapContext(plain, ctx.cwd))
            return replace(call, name=full.get(call.name, call.name)), note
        return self._map(name, args, ctx)

    def _map(self, name: str, args: Mapping[str, Any], ctx: MapContext) -> tuple[Call, str | None]:
        """The profile's own mapping, else the offered tool that does the job (by intent), else
        the profile's shell; a call none of them can send is ``unmapped``, with every offered
        tool and why it does not fit."""
        canon = canonical(name, args) or canonical(_SPELLING_BY_WORDS.get(words(name), name), args)
        if canon is None:
            if ctx.has(name) or not ctx.offered:
                return Call(name, dict(args)), None
            return self._by_intent(name, Call(name, dict(args)), ctx)
        mapped = self.mapper(canon, ctx)
        unmapped = Call(name, dict(args))
        if mapped is not None and ctx.offered and not ctx.has(mapped.name):
            # never a tool the request does not offer: look for one that does the job (and, if none
            # does, say so under the profile's name, which `--strict-tools` lists as not offered)
            unmapped, mapped = Call(mapped.name, dict(args)), None
        if mapped is None and ctx.offered:
            call, note = self._by_intent(name, canon, ctx)
            if not call.unmapped:
                return call, note
            unmapped = replace(call, name=unmapped.name)
        if mapped is None and self.shell is not None:
            command = shell_command(canon)
            if command is not None:
                mapped = self.shell(command, canon, ctx)
                if mapped is not None and ctx.offered and not ctx.has(mapped.name):
                    mapped = _generic_shell(command, canon, ctx)  # the shell the request does offer
        if mapped is None:
            if not unmapped.unmapped or ctx.has(name):
                return replace(unmapped, unmapped=""), None
            return unmapped, unmapped.unmapped
        fitted, missing = fit(mapped.args, ctx.offered.get(mapped.name), ctx.cwd)
        if missing and ctx.offered:  # the profile's tool wants more than the call has: one that does the job?
            call, _ = self._by_intent(name, canon, ctx)
            if not call.unmapped:
                return call, None
        return Call(mapped.name, fitted, missing, decision=mapped.decision), None

    def _by_intent(self, name: str, canon: Call, ctx: MapContext) -> tuple[Call, str | None]:
        decision = decide(canon.name, canon.args, ctx.offered.values(), Where(ctx.cwd))
        chosen = decision.chosen
        if chosen is None or chosen.args is None:
            return Call(name, dict(canon.args), unmapped=decision.failure()), decision.failure()
        return Call(chosen.tool, chosen.args, decision=decision.describe()), None

    def fits(self, offered: Iterable[ToolDef]) -> bool:
        """Whether the offered tools this profile knows have the properties it knows."""
        for tool in offered:
            known = self.schemas.get(tool.name)
            if known is not None and tool.properties is not None and tool.properties != known:
                return False
        return True

    def diff(self, offered: Iterable[ToolDef], needed: Iterable[str]) -> list[str]:
        """How a request's tool definitions differ from this profile (empty: they match)."""
        offered = list(offered)
        names = {t.name for t in offered}
        lines: list[str] = []
        for tool in offered:
            if tool.name not in self.schemas:
                lines.append(f"+ {tool.name}: a tool the {self.name} profile does not know")
                continue
            known = self.schemas[tool.name]
            if known is None or tool.properties is None or tool.properties == known:
                continue
            change = [f"new {', '.join(sorted(tool.properties - known))}"] if tool.properties - known else []
            change += (
                [f"gone {', '.join(sorted(known - tool.properties))}"] if known - tool.properties else []
            )
            lines.append(f"~ {tool.name}: input properties changed ({'; '.join(change)})")
        for name in sorted(set(needed) - names):
            lines.append(f"- {name}: the scenario calls it, the request does not offer it")
        return lines


def fit(
    args: Mapping[str, Any], tool: ToolDef | None, cwd_of: str | None = None
) -> tuple[Args, tuple[str, ...]]:
    """The arguments in the offered tool's words, and the required properties
    still missing (see the module docstring). A tool that declares no
    properties takes the arguments as they are. A path goes out absolute or
    relative to ``cwd_of`` when the tool's schema says which it takes; a
    working directory the tool has no property for becomes a ``cd`` before the command."""
    if tool is None or not tool.properties:
        return dict(args), ()
    declared = tool.properties
    props = {p.name: p for p in properties(tool)}
    out: Args = {}
    cwd: Any = None
    for key, value in args.items():
        target = argument_for(key, declared)
        if target is not None and target not in out:
            value = _as_declared(key, value, _property(tool, target))
            if key in ARGUMENTS["path"] and isinstance(value, str) and target in props:
                value = place(value, path_style(props[target], tool), Where(cwd_of))
            out[target] = value
        elif target is None and key in ARGUMENTS["cwd"] and value not in (None, "", "."):
            cwd = value  # the tool takes no working directory: the command changes to it
    command = next((k for k in out if argument_for("cmd", [k]) == k), None)
    if cwd is not None and command is not None:
        out[command] = in_dir(out[command], str(cwd))
    return out, tuple(sorted(tool.required - out.keys()))


def _property(tool: ToolDef, name: str) -> Mapping[str, Any]:
    props = tool.schema.get("properties") if isinstance(tool.schema, Mapping) else None
    prop = props.get(name) if isinstance(props, Mapping) else None
    return prop if isinstance(prop, Mapping) else {}


def _as_declared(key: str, value: Any, prop: Mapping[str, Any]) -> Any:
    """A command as the type the property declares: an argv list or one string."""
    kind = str(prop.get("type", "")).lower()
    if key in ARGUMENTS["cmd"]:
        if kind == "array" and isinstance(value, str):
            return ["bash", "-lc", value]
        if kind == "string" and isinstance(value, list):
            return _command_text(value)
    return value


def _abs(path: Any, ctx: MapContext) -> Any:
    if not isinstance(path, str) or os.path.isabs(path) or not ctx.cwd:
        return path
    return os.path.normpath(os.path.join(ctx.cwd, path))


# ----- Claude Code


def _claude(call: Call, ctx: MapContext) -> Call | None:
    a = dict(call.args)
    path = _abs(a.pop("path", None), ctx)
    n = call.name
    if n == "runCmd":
        return Call(
            "Bash", {**_rest(a, "cmd", "cwd"), "command": _in_dir(str(a.get("cmd", "")), a.get("cwd"))}
        )
    if n == "readFile":
        return Call("Read", {**_rest(a, "encoding"), "file_path": path})
    if n == "writeFile":
        return Call("Write", {"file_path": path, "content": a.get("content", "")})
    if n == "editFile":
        edits = a.pop("edits", None)
        if isinstance(edits, list) and edits and isinstance(edits[0], Mapping):
            first = canonical("edit", edits[0])
            a.update(first.args if first else {})
        return Call("Edit", {**_clean(a), "file_path": path})
    if n == "grep" and ctx.has("Grep"):
        return Call("Grep", _clean({**a, "path": path}))
    if n == "listDir":
        if ctx.has("LS"):
            return Call("LS", {"path": path or ctx.cwd or "."})
        if a.get("pattern") and ctx.has("Glob"):
            return Call("Glob", _clean({"pattern": a["pattern"], "path": path}))
    if n == "find" and ctx.has("Glob") and a.get("name"):
        return Call("Glob", _clean({"pattern": f"**/{a['name']}", "path": path}))
    if n == "task":
        return Call("Agent" if ctx.has("Agent") or not ctx.has("Task") else "Task", a)
    if n == "todoWrite" and not ctx.has("TodoWrite") and ctx.has("TaskCreate"):
        todos = [t for t in a.get("todos") or [] if isinstance(t, Mapping)]
        subject = "; ".join(str(t.get("content", "")) for t in todos) or "Task"
        return Call("TaskCreate", {"subject": subject, "description": subject})
    if n == "bashOutput" and not ctx.has("BashOutput"):
        return Call("TaskOutput", {"task_id": a.get("bash_id", ""), "block": True, "timeout": 30000})
    if n == "killShell" and not ctx.has("KillShell"):
        return Call("TaskStop", {"shell_id": a.get("shell_id", "")})
    if n == "slashCommand" and not ctx.has("SlashCommand"):
        word, _, rest = str(a.get("command", "")).lstrip("/").partition(" ")
        return Call("Skill", _clean({"skill": word, "args": rest or None}))
    if n == "notebookEdit":
        return Call("NotebookEdit", {**a, "notebook_path": path})
    direct = {"webFetch": "WebFetch", "webSearch": "WebSearch", "todoWrite": "TodoWrite", "exitPlanMode": "ExitPlanMode",
              "bashOutput": "BashOutput", "killShell": "KillShell", "slashCommand": "SlashCommand"}  # fmt: skip
    if n in direct:
        return Call(direct[n], a)
    return None


def _claude_shell(command: str, call: Call, ctx: MapContext) -> Call:
    return Call("Bash", {"command": command})


# ----- Codex


def _codex(call: Call, ctx: MapContext) -> Call | None:
    if call.name == "runCmd":
        a = call.args
        rest = _rest(a, "cmd", "cwd", "timeout", "description", "run_in_background")
        return _codex_shell(str(a.get("cmd", "")), call, ctx, cwd=a.get("cwd"), extra=rest)
    if call.name == "todoWrite" and ctx.has("update_plan"):
        todos = [t for t in call.args.get("todos") or [] if isinstance(t, Mapping)]
        plan = [{"step": str(t.get("content", "")), "status": str(t.get("status", "pending"))} for t in todos]
        return Call("update_plan", {"plan": plan})
    if call.name == "webSearch" and ctx.has("web_search") and ctx.offered["web_search"].type == "function":
        return Call("web_search", dict(call.args))
    return None


def _codex_shell(
    command: str, call: Call, ctx: MapContext, *, cwd: Any = None, extra: Mapping[str, Any] | None = None
) -> Call:
    if ctx.has("shell") and not ctx.has("exec_command"):
        return Call("shell", _clean({"command": ["bash", "-lc", command], "workdir": cwd}))
    return Call("exec_command", {**(extra or {}), **_clean({"cmd": command, "workdir": cwd})})


# ----- pi


def _pi(call: Call, ctx: MapContext) -> Call | None:
    a = dict(call.args)
    n = call.name
    if n == "runCmd":
        timeout = a.get("timeout")
        return Call(
            "bash", _clean({"command": _in_dir(str(a.get("cmd", "")), a.get("cwd")), "timeout": timeout})
        )
    if n == "readFile":
        return Call(
            "read", _clean({"path": a.get("path"), "offset": a.get("offset"), "limit": a.get("limit")})
        )
    if n == "writeFile":
        return Call("write", {"path": a.get("path"), "content": a.get("content", "")})
    if n == "editFile":
        edits = a.get("edits")
        if not isinstance(edits, list):
            edits = [{"oldText": a.get("old_string", ""), "newText": a.get("new_string", "")}]
        return Call("edit", {"path": a.get("path"), "edits": edits})
    if n == "grep" and ctx.has("grep"):
        return Call("grep", _clean({"pattern": a.get("pattern"), "path": a.get("path"), "glob": a.get("glob"),
                                    "ignoreCase": a.get("-i")}))  # fmt: skip
    if n == "listDir" and ctx.has("ls"):
        return Call("ls", _clean({"path": a.get("path")}))
    if n == "find" and ctx.has("find"):
        return Call("find", _clean({"pattern": a.get("name"), "path": a.get("path")}))
    return None


def _pi_shell(command: str, call: Call, ctx: MapContext) -> Call:
    return Call("bash", {"command": command})


# ----- any other agent


def _offered(canon: str, ctx: MapContext) -> str | None:
    """The offered tool that is a spelling of ``canon``."""
    return next((name for name in ctx.offered if ALIASES.get(name) == canon), None)


def _generic(call: Call, ctx: MapContext) -> Call | None:
    """Use whichever spelling of the tool the request offers; :func:`fit` renames the arguments."""
    name = _offered(call.name, ctx)
    if name is None:
        return None
    args = dict(call.args)
    tool = ctx.offered[name]
    if call.name == "runCmd" and tool.properties and argument_for("cwd", tool.properties) is None:
        args["cmd"] = _in_dir(str(args.get("cmd", "")), args.pop("cwd", None))
    pi_style = (
        tool.properties and "edits" in tool.properties and argument_for("old_string", tool.properties) is None
    )
    if tool.properties and "file_path" in tool.properties:  # Claude-style file tools take absolute paths only
        for key in ("path", "file_path"):
            if key in args:
                args[key] = _abs(args[key], ctx)
    if call.name == "editFile" and pi_style:  # a list of {oldText, newText}
        edit = {"oldText": args.get("old_string", ""), "newText": args.get("new_string", "")}
        args = {"path": args.get("path"), "edits": [edit]}
    return Call(name, args)


def _generic_shell(command: str, call: Call, ctx: MapContext) -> Call | None:
    shell = _offered("runCmd", ctx)
    if shell:
        return Call(shell, {"cmd": command})
    decision = decide("runCmd", {"cmd": command}, ctx.offered.values(), Where(ctx.cwd))
    chosen = decision.chosen
    return None if chosen is None else Call(chosen.tool, chosen.args or {}, decision=decision.describe())


# ----- snapshots (from corpus/agent-wire, 2026-11-22)


def _props(*names: str) -> frozenset[str]:
    return frozenset(names)


CLAUDE_CODE_TOOLS: dict[str, frozenset[str] | None] = {
    "Agent": _props("description", "isolation", "model", "prompt", "run_in_background", "subagent_type"),
    "AskUserQuestion": _props("annotations", "answers", "metadata", "questions"),
    "Bash": _props("command", "dangerouslyDisableSandbox", "description", "run_in_background", "timeout"),
    "CronCreate": _props("cron", "durable", "prompt", "recurring"),
    "CronDelete": _props("id"),
    "CronList": _props(),
    "DesignSync": _props(
        "assets",
        "counts",
        "deletes",
        "files",
        "localDir",
        "method",
        "name",
        "path",
        "paths",
        "planId",
        "projectId",
        "writes",
    ),
    "Edit": _props("file_path", "new_string", "old_string", "replace_all"),
    "EnterPlanMode": _props(),
    "EnterWorktree": _props("name", "path"),
    "ExitPlanMode": _props("allowedPrompts"),
    "ExitWorktree": _props("action", "discard_changes"),
    "NotebookEdit": _props("cell_id", "cell_type", "edit_mode", "new_source", "notebook_path"),
    "Read": _props("file_path", "limit", "offset", "pages"),
    "ReportFindings": _props("findings", "level"),
    "ScheduleWakeup": _props("delaySeconds", "prompt", "reason"),
    "SendMessage": _props("message", "summary", "to"),
    "Skill": _props("args", "skill"),
    "TaskCreate": _props("activeForm", "description", "metadata", "subject"),
    "TaskGet": _props("taskId"),
    "TaskList": _props(),
    "TaskOutput": _props("block", "task_id", "timeout"),
    "TaskStop": _props("shell_id", "task_id"),
    "TaskUpdate": _props(
        "activeForm",
        "addBlockedBy",
        "addBlocks",
        "description",
        "metadata",
        "owner",
        "status",
        "subject",
        "taskId",
    ),
    "WebFetch": _props("prompt", "url"),
    "WebSearch": _props("allowed_domains", "blocked_domains", "query"),
    "Workflow": _props("args", "description", "name", "resumeFromRunId", "script", "scriptPath", "title"),
    "Write": _props("content", "file_path"),
    # tools of earlier versions (2.0.x): names only
    **dict.fromkeys(
        (
            "Task",
            "Glob",
            "Grep",
            "LS",
            "MultiEdit",
            "NotebookRead",
            "TodoWrite",
            "BashOutput",
            "KillShell",
            "KillBash",
            "SlashCommand",
        ),
        None,
    ),
}

CODEX_TOOLS: dict[str, frozenset[str] | None] = {
    "create_goal": _props("objective", "token_budget"),
    "exec_command": _props(
        "cmd",
        "justification",
        "login",
        "max_output_tokens",
        "prefix_rule",
        "sandbox_permissions",
        "shell",
        "tty",
        "workdir",
        "yield_time_ms",
    ),
    "get_goal": _props(),
    "list_mcp_resource_templates": _props("cursor", "server"),
    "list_mcp_resources": _props("cursor", "server"),
    "mcp__codex_tui": None,
    "multi_agent_v1": None,
    "read_mcp_resource": _props("server", "uri"),
    "request_user_input": _props("questions"),
    "update_goal": _props("status"),
    "view_image": _props("path"),
    "web_search": None,
    "write_stdin": _props("chars", "max_output_tokens", "session_id", "yield_time_ms"),
    # earlier versions and other model families
    **dict.fromkeys(("shell", "apply_patch", "update_plan", "local_shell"), None),
}

PI_TOOLS: dict[str, frozenset[str] | None] = {
    "bash": _props("command", "timeout"),
    "edit": _props("edits", "path"),
    "read": _props("limit", "offset", "path"),
    "write": _props("content", "path"),
    # off by default in 0.73.1
    **dict.fromkeys(("grep", "find", "ls"), None),
}

GEMINI_CLI_TOOLS: dict[str, frozenset[str] | None] = {  # Gemini CLI 0.61.0 (tests/llm/data)
    "activate_skill": _props("name"),
    "enter_plan_mode": _props("reason"),
    "glob": _props("case_sensitive", "dir_path", "pattern", "respect_gemini_ignore", "respect_git_ignore"),
    "google_web_search": _props("query"),
    "grep_search": _props(
        "dir_path",
        "exclude_pattern",
        "include_pattern",
        "max_matches_per_file",
        "names_only",
        "pattern",
        "total_max_matches",
    ),
    "invoke_agent": _props("agent_name", "prompt", "wait_for_previous"),
    "list_background_processes": _props("wait_for_previous"),
    "list_directory": _props("dir_path", "file_filtering_options", "ignore"),
    "read_background_output": _props("delay_ms", "lines", "pid", "wait_for_previous"),
    "read_file": _props("end_line", "file_path", "start_line"),
    "replace": _props("allow_multiple", "file_path", "instruction", "new_string", "old_string"),
    "run_shell_command": _props("command", "delay_ms", "description", "dir_path", "is_background"),
    "update_topic": _props("strategic_intent", "summary", "title", "wait_for_previous"),
    "web_fetch": _props("prompt"),
    "write_file": _props("content", "file_path"),
    # tools of earlier versions: names only
    **dict.fromkeys(("search_file_content", "read_many_files", "save_memory", "write_todos"), None),
}

PROFILES: dict[str, ToolProfile] = {
    "claude-code": ToolProfile("claude-code", CLAUDE_CODE_TOOLS, _claude, _claude_shell),
    "codex": ToolProfile("codex", CODEX_TOOLS, _codex, lambda cmd, call, ctx: _codex_shell(cmd, call, ctx)),
    "pi": ToolProfile("pi", PI_TOOLS, _pi, _pi_shell),
    # Gemini CLI's tools are spoken through the vocabulary alone; the snapshot is for --strict-tools
    "gemini-cli": ToolProfile("gemini-cli", GEMINI_CLI_TOOLS, _generic, _generic_shell),
    "generic": ToolProfile("generic", {}, _generic, _generic_shell),
}


def profile_by_names(tool_names: Iterable[str]) -> ToolProfile:
    """Which known agent's tool set a request offers, by the tools' names alone."""
    names = set(tool_names)
    if "Bash" in names and names & {"Read", "Write", "Edit"}:
        return PROFILES["claude-code"]
    if names & {"exec_command", "shell", "apply_patch", "write_stdin"}:
        return PROFILES["codex"]
    if {"bash", "read"} <= names and names & {"write", "edit"}:
        return PROFILES["pi"]
    if "run_shell_command" in names and names & {"write_file", "replace", "read_file"}:
        return PROFILES["gemini-cli"]
    return PROFILES["generic"]


def unprefixed(offered: Mapping[str, ToolDef]) -> tuple[dict[str, ToolDef], dict[str, str]]:
    """``offered`` with each MCP tool ``mcp__<server>__<Name>`` also known as ``<Name>`` when no plain
    ``<Name>`` is offered, and the map from those short names back to the full ones (empty: none)."""
    plain = dict(offered)
    full: dict[str, str] = {}
    for name, tool in offered.items():
        short = name.rsplit("__", 1)[-1] if name.startswith("mcp__") else ""
        if short and short not in offered and short not in full:
            plain[short] = tool
            full[short] = name
    return plain, full


def detect_profile(tools: Iterable[ToolDef | str]) -> ToolProfile:
    """The profile to speak a request's tools with: a known agent's when the
    names and the schemas match its snapshot, else the generic one. MCP tools
    count by their own names (see :meth:`ToolProfile.map`)."""
    given = [ToolDef(t) if isinstance(t, str) else t for t in tools]
    _, full = unprefixed({t.name: t for t in given})
    named = profile_by_names([t.name for t in given if t.name not in full.values()] + list(full))
    # an MCP tool is the adapter's own implementation under a known name: only plain tools must match
    return named if named.fits(t for t in given if t.name not in full.values()) else PROFILES["generic"]


def profile_named(name: str) -> ToolProfile:
    """A profile by name; raises KeyError listing the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise KeyError(f"unknown tool profile `{name}`; known: {', '.join(PROFILES)}") from None
