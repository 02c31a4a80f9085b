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

An agent's own profile lives in its module (:mod:`workbench.llm.agents`): its
mapper, shell, tool snapshot and the signature (tool names) that identifies its
requests; this module is what every profile shares, and the generic profile.
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


def rest_args(args: Mapping[str, Any], *used: str) -> Args:
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
        return Call(canon, {**rest_args(a, "cmd", "command", "cwd", "workdir"), **clean_args(out)})
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
        return Call(canon, {**rest_args(a, *used), **clean_args(out)})
    if canon == "find":
        pattern = _pick(a, "name", "pattern")
        if isinstance(pattern, str) and pattern.startswith("**/"):
            pattern = pattern[3:]
        return Call(canon, {**rest_args(a, "name", "pattern"), **clean_args({"name": pattern})})
    if canon == "todoWrite" and "plan" in a and "todos" not in a:
        todos = [
            {"content": p.get("step", ""), "status": p.get("status", "pending")}
            for p in a["plan"]
            if isinstance(p, Mapping)
        ]
        return Call(canon, {"todos": todos})
    return Call(canon, a)


def clean_args(args: Mapping[str, Any]) -> Args:
    return {k: v for k, v in args.items() if v is not None}


# a known spelling by its words in any case: `WriteFile`, `write-file` and `WRITE_FILE` are `write_file`
_SPELLING_BY_WORDS = {words(name): name for name in ALIASES}


# --------------------------------------------------------------------------- shell fallbacks


def _q(value: Any) -> str:
    return shlex.quote(str(value))


def cd_into(cmd: str, cwd: Any) -> str:
    return f"cd {_q(cwd)} && {cmd}" if cwd not in (None, "", ".") else cmd


def shell_command(call: Call) -> str | None:
    """A shell command that does what a file or search tool would, for agents
    whose only tool is a shell. Exact for contents: no heredocs, no echo."""
    a = call.args
    path = a.get("path", ".")
    if call.name == "runCmd":
        return cd_into(str(a.get("cmd", "")), a.get("cwd"))
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
Shell = Callable[[str, Call, MapContext], Call | None]
Snapshot = Mapping[str, frozenset[str] | None]
"""An agent's tools as captured: each name with its input properties (None: the name only)."""


def props(*names: str) -> frozenset[str]:
    """A tool's input properties, for a :data:`Snapshot`."""
    return frozenset(names)


@dataclass(frozen=True)
class Signature:
    """The tool names that say a request comes from one agent: all of ``all_of`` and one of ``any_of``."""

    all_of: frozenset[str] = frozenset()
    any_of: frozenset[str] = frozenset()

    def matches(self, names: set[str]) -> bool:
        return self.all_of <= names and bool(names & self.any_of)


@dataclass(frozen=True)
class ToolProfile:
    """How the mock LLM server speaks one agent's tools. An agent module declares its own
    (:mod:`workbench.llm.agents`); the generic one (:data:`GENERIC`) speaks any agent's."""

    name: str
    schemas: Snapshot
    mapper: Mapper
    shell: Shell | None = None
    signature: Signature = Signature()  # how a request is recognised as this agent's (empty: never)

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
                    mapped = generic_shell(command, canon, ctx)  # the shell the request does offer
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


def absolute_path(path: Any, ctx: MapContext) -> Any:
    if not isinstance(path, str) or os.path.isabs(path) or not ctx.cwd:
        return path
    return os.path.normpath(os.path.join(ctx.cwd, path))


# ----- any other agent


def _offered(canon: str, ctx: MapContext) -> str | None:
    """The offered tool that is a spelling of ``canon``."""
    return next((name for name in ctx.offered if ALIASES.get(name) == canon), None)


def generic_call(call: Call, ctx: MapContext) -> Call | None:
    """Use whichever spelling of the tool the request offers; :func:`fit` renames the arguments."""
    name = _offered(call.name, ctx)
    if name is None:
        return None
    args = dict(call.args)
    tool = ctx.offered[name]
    if call.name == "runCmd" and tool.properties and argument_for("cwd", tool.properties) is None:
        args["cmd"] = cd_into(str(args.get("cmd", "")), args.pop("cwd", None))
    pi_style = (
        tool.properties and "edits" in tool.properties and argument_for("old_string", tool.properties) is None
    )
    if tool.properties and "file_path" in tool.properties:  # Claude-style file tools take absolute paths only
        for key in ("path", "file_path"):
            if key in args:
                args[key] = absolute_path(args[key], ctx)
    if call.name == "editFile" and pi_style:  # a list of {oldText, newText}
        edit = {"oldText": args.get("old_string", ""), "newText": args.get("new_string", "")}
        args = {"path": args.get("path"), "edits": [edit]}
    return Call(name, args)


def generic_shell(command: str, call: Call, ctx: MapContext) -> Call | None:
    shell = _offered("runCmd", ctx)
    if shell:
        return Call(shell, {"cmd": command})
    decision = decide("runCmd", {"cmd": command}, ctx.offered.values(), Where(ctx.cwd))
    chosen = decision.chosen
    return None if chosen is None else Call(chosen.tool, chosen.args or {}, decision=decision.describe())


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


GENERIC = ToolProfile("generic", {}, generic_call, generic_shell)
"""Any agent's tools, spoken through the vocabulary alone."""


def profile_by_names(profiles: Iterable[ToolProfile], tool_names: Iterable[str]) -> ToolProfile:
    """Which of ``profiles`` a request's tools belong to, by their names alone (the first whose
    signature matches), else :data:`GENERIC`."""
    names = set(tool_names)
    return next((p for p in profiles if p.signature.matches(names)), GENERIC)


def detect_profile(profiles: Iterable[ToolProfile], tools: Iterable[ToolDef | str]) -> ToolProfile:
    """The profile to speak a request's tools with: one of ``profiles`` when the
    names and the schemas match its snapshot, else the generic one. MCP tools
    count by their own names (see :meth:`ToolProfile.map`)."""
    given = [ToolDef(t) if isinstance(t, str) else t for t in tools]
    _, full = unprefixed({t.name: t for t in given})
    named = profile_by_names(profiles, [t.name for t in given if t.name not in full.values()] + list(full))
    # an MCP tool is the adapter's own implementation under a known name: only plain tools must match
    return named if named.fits(t for t in given if t.name not in full.values()) else GENERIC
