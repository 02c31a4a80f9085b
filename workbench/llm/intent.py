"""Scenario tools matched to offered tools by what they do, from the offered schemas.

A scenario says ``writeFile {path, content}``; an agent nobody wrote a profile
for may call that ``save``, ``WriteFile``, ``write_text_file`` or offer only
``apply_patch {input}``. Each offered tool is read for what it can do:

* its **name** and **description**, split into lower-case words
  (``write_text_file`` and ``WriteFile`` both say *write* and *file*);
* the **role** of each input property, from the property's own words and type,
  or its description when its name says nothing (``line``: "the shell
  command"): a path, a file's content, a command (a string, or an array: a list
  of commands or an argv), old and new text, a list of edits, a patch, a
  working directory, a search pattern (:func:`roles`).

A scenario tool is an :class:`Intent`: the roles it needs and the words that
name it. A tool that lacks a needed role, or requires a property the call
cannot fill, is rejected with the reason; the others are scored (the name's
words, the description's words, the roles filled) and the best one is used
(:func:`decide`). A patch-only tool gets a patch made from the write or edit,
in the dialect its description shows (the ``*** Begin Patch`` form or a
unified diff); an edit can also go out as a write of the whole new content.

Every decision says which tool won with which score and why each other tool
was rejected (:meth:`Decision.describe`); a scenario tool nothing matches is a
:class:`Decision` without a call, whose :meth:`Decision.failure` is the
message the run fails with. Nothing here knows an agent by name.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .conversation import ToolDef

Args = dict[str, Any]

# --------------------------------------------------------------------------- words

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def words(text: str) -> tuple[str, ...]:
    """Lower-case words of a name or a sentence: ``write_text_file``, ``WriteFile``, ``filePath``."""
    return tuple(w.lower() for w in _CAMEL.findall(text))


# each role: the property words that say it (any one of them)
ROLE_WORDS: dict[str, frozenset[str]] = {
    "path": frozenset({"path", "file", "filepath", "filename", "target", "notebook", "uri"}),
    "dir": frozenset({"dir", "directory", "folder"}),
    "content": frozenset({"content", "contents", "text", "body", "data", "code", "source"}),
    "old": frozenset({"old", "search", "original", "before", "find"}),
    "new": frozenset({"new", "replace", "replacement", "after", "updated"}),
    "command": frozenset({"cmd", "command", "commands", "cmds", "script", "commandline", "argv"}),
    "cwd": frozenset({"cwd", "workdir", "working"}),
    "patch": frozenset({"patch", "diff"}),
    "pattern": frozenset({"pattern", "regex", "query", "glob", "regexp"}),
    "edits": frozenset({"edits", "changes", "replacements"}),
}


@dataclass(frozen=True)
class Intent:
    """What a scenario tool does: the roles it needs, the optional ones, and its words."""

    needs: tuple[str, ...]
    verbs: frozenset[str]
    optional: tuple[str, ...] = ()
    # words that say a tool does something else (an `edit` tool is no `write`)
    contrary: frozenset[str] = frozenset()


INTENTS: dict[str, Intent] = {
    "runCmd": Intent(("command",), frozenset({"bash", "shell", "exec", "execute", "run", "command", "commands",
                     "terminal", "sh", "cmd", "process"}), ("cwd",)),
    "writeFile": Intent(("path", "content"), frozenset({"write", "save", "create", "put", "overwrite"}),
                        contrary=frozenset({"edit", "replace", "read", "append", "notebook", "patch"})),
    "editFile": Intent(("path", "old", "new"), frozenset({"edit", "replace", "editor", "modify", "update", "str"}),
                       contrary=frozenset({"notebook", "read"})),
    "readFile": Intent(("path",), frozenset({"read", "view", "cat", "open", "show", "get"}),
                       contrary=frozenset({"write", "edit", "list", "search", "grep", "image", "notebook"})),
    "listDir": Intent(("dir",), frozenset({"list", "ls", "dir", "directory", "tree"}),
                      contrary=frozenset({"read", "write", "edit", "grep", "search"})),
    "grep": Intent(("pattern",), frozenset({"grep", "search", "rg", "ripgrep"}), ("dir",),
                   contrary=frozenset({"web", "glob", "google"})),
    "find": Intent(("pattern",), frozenset({"glob", "find"}), ("dir",), contrary=frozenset({"web", "grep"})),
}  # fmt: skip

PATCH_VERBS = frozenset({"patch", "diff", "apply"})


# --------------------------------------------------------------------------- properties


@dataclass(frozen=True)
class Prop:
    """One input property of an offered tool, as matching sees it."""

    name: str
    kind: str  # the JSON type ("" when not declared)
    required: bool
    words: frozenset[str]
    description: str
    items: Mapping[str, Any] = field(default_factory=dict)  # an array's item schema

    @property
    def plural(self) -> bool:
        last = words(self.name)[-1:] or ("",)
        return last[0].endswith("s") and last[0] not in ("is", "args", "contents", "alias")


def properties(tool: ToolDef) -> list[Prop]:
    schema = tool.schema if isinstance(tool.schema, Mapping) else {}
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return []
    out = []
    for name, prop in props.items():
        prop = prop if isinstance(prop, Mapping) else {}
        kind = prop.get("type", "")
        if isinstance(kind, list):  # ["string", "null"]
            kind = next((k for k in kind if str(k).lower() != "null"), "")
        kind = str(kind).lower()  # the Gemini API's schemas (google-genai's `types.Schema`) say `STRING`
        items = prop.get("items")
        out.append(Prop(str(name), str(kind), name in tool.required, frozenset(words(str(name))),
                        str(prop.get("description", "")), items if isinstance(items, Mapping) else {}))  # fmt: skip
    return out


def roles(prop: Prop) -> set[str]:
    """What a property can carry, from its words and type."""
    found = {role for role, said in ROLE_WORDS.items() if prop.words & said}
    if prop.kind == "array":
        item_props = prop.items.get("properties")
        if isinstance(item_props, Mapping):
            inner = {
                r
                for name in item_props
                for r in roles(Prop(str(name), "", False, frozenset(words(str(name))), ""))
            }
            return {"edits"} if {"old", "new"} <= inner else set()
        # an array of strings carries commands (or an argv), nothing else
        return found & {"command"}
    if prop.kind not in ("", "string"):
        return set()
    if "old" in found or "new" in found:
        found -= {"content", "pattern"}  # `new_text`, `old_string` are edit halves, not whole contents
        if "path" in found and prop.words & {"text", "string", "str", "content"}:
            found.discard("path")
    if "path" in found or "dir" in found:
        found -= {"pattern"}
    if "content" in found and found & {"path", "dir"}:  # `file_text` is content, `file_path` is a path
        found -= (
            {"content"} if prop.words & {"path", "dir", "directory", "filepath", "filename"} else {"path"}
        )
    if found & {"path"} and "dir" not in found:
        found.add("dir")  # a path may name a folder
    return found


def path_style(prop: Prop, tool: ToolDef) -> str | None:
    """``absolute`` or ``relative`` when the property or the tool says which paths it takes."""
    if "absolute" in prop.words or "relative" in prop.words:
        return "absolute" if "absolute" in prop.words else "relative"
    for text in (prop.description, tool.description):
        said = set(words(text)) & {"absolute", "relative"}
        if len(said) == 1:  # "relative or absolute" says either will do
            return said.pop()
    return None


# --------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class Candidate:
    tool: str
    score: int
    why: str  # the reasons for the score, or why it was rejected
    args: Args | None = None  # None: rejected


@dataclass(frozen=True)
class Decision:
    """How one scenario tool was matched to the offered tools."""

    scenario_tool: str
    offered: tuple[str, ...]
    candidates: tuple[Candidate, ...]

    @property
    def chosen(self) -> Candidate | None:
        kept = [c for c in self.candidates if c.args is not None]
        return max(kept, key=lambda c: c.score) if kept else None

    def describe(self) -> str:
        """One line for `-v`, the request log and the report."""
        best = self.chosen
        kept = sorted((c for c in self.candidates if c.args is not None), key=lambda c: -c.score)
        head = (
            f"`{self.scenario_tool}` -> `{best.tool}` (score {best.score}: {best.why})"
            if best
            else f"`{self.scenario_tool}` maps to no offered tool"
        )
        others = [f"`{c.tool}` {c.score}" for c in kept[1:]]
        return head + (f"; also fit: {', '.join(others)}" if others else "")

    def failure(self) -> str:
        """The message a run fails with when nothing maps: every offered tool and why it was rejected."""
        rejected = [f"`{c.tool}`: {c.why}" for c in self.candidates if c.args is None]
        offered = ", ".join(f"`{n}`" for n in self.offered) or "none"
        return (
            f"scenario tool `{self.scenario_tool}` maps to no tool the agent offers (offered: {offered}); "
            + ("; ".join(rejected) if rejected else "no tool to compare")
        )


@dataclass(frozen=True)
class Where:
    """Where the call runs: the agent's working directory (relative paths are under it)."""

    cwd: str | None = None


def decide(canon: str, args: Mapping[str, Any], offered: Iterable[ToolDef], where: Where) -> Decision:
    """Score every offered tool for the canonical call ``canon(args)``."""
    tools = [t for t in offered if t.type == "function" or t.schema is not None]
    intent = INTENTS.get(canon)
    out: list[Candidate] = []
    for tool in tools:
        if intent is None:
            out.append(_by_name(canon, args, tool))
            continue
        out.append(_score(canon, intent, args, tool, where))
    if canon == "editFile" and not any(c.args is not None for c in out):
        out.extend(_edit_as_write(args, tools, where))
    return Decision(canon, tuple(t.name for t in tools), tuple(out))


_CANONICAL_KEY = {"path": "path", "dir": "path", "content": "content", "old": "old_string", "new": "new_string",
                  "command": "cmd", "cwd": "cwd", "pattern": "pattern"}  # fmt: skip


def reverse(tool: ToolDef, args: Mapping[str, Any]) -> list[tuple[str, Args]]:
    """The canonical calls a call of ``tool`` with ``args`` may stand for, read from its schema the way
    :func:`decide` fills it (``put_file {target, body}`` as ``writeFile {path, content}``); the
    arguments no role takes stay under their names. Candidates only: :mod:`workbench.record` keeps the
    one the server maps back to exactly this call."""
    props = properties(tool)
    out: list[tuple[str, Args]] = []
    for canon, intent in INTENTS.items():
        taken: set[str] = set()
        found: Args = {}
        for role in [*intent.needs, *intent.optional]:
            prop = _pick(props, role, taken)
            if prop is None or prop.name not in args or role not in _CANONICAL_KEY:
                if role in intent.needs:
                    break
                continue
            taken.add(prop.name)
            found[_CANONICAL_KEY[role]] = _unshaped(role, args[prop.name], prop)
        else:
            out.append((canon, {**{k: v for k, v in args.items() if k not in taken}, **found}))
    return out


def _unshaped(role: str, value: Any, prop: Prop) -> Any:
    """A value as the scenario writes it, :func:`_shaped` undone: a command sent as a list (an argv such as
    ``exec {argv: [bash, -lc, CMD]}``, or a list of commands) is one string, as ``runCmd``'s ``cmd`` is."""
    if role != "command" or prop.kind != "array" or not isinstance(value, list):
        return value
    words = [str(w) for w in value]
    if prop.plural:
        return " && ".join(words)
    if len(words) == 3 and words[0] in ("bash", "sh") and words[1] in ("-lc", "-c"):
        return words[2]
    return shlex.join(words)


def _edit_as_write(args: Mapping[str, Any], tools: list[ToolDef], where: Where) -> list[Candidate]:
    """An edit sent as a write of the file's whole new content (for agents with no edit tool)."""
    path = str(args.get("path", ""))
    before = _read(path, where)
    old, new = str(args.get("old_string", "")), str(args.get("new_string", ""))
    if before is None or old not in before:
        return []
    after = before.replace(old, new, -1 if args.get("replace_all") else 1)
    out = []
    for tool in tools:
        c = _score("writeFile", INTENTS["writeFile"], {"path": path, "content": after}, tool, where)
        if c.args is not None and not c.why.startswith("a patch tool"):
            out.append(
                Candidate(tool.name, c.score - 3, f"{c.why}; the edit as the file's new content", c.args)
            )
    return out


def _by_name(canon: str, args: Mapping[str, Any], tool: ToolDef) -> Candidate:
    """A scenario tool with no intent (a web fetch, a todo list): the same words, any case."""
    if words(tool.name) == words(canon):
        return Candidate(tool.name, 10, "the same name", dict(args))
    return Candidate(tool.name, 0, f"not named `{canon}` in any case or spelling")


def _score(canon: str, intent: Intent, args: Mapping[str, Any], tool: ToolDef, where: Where) -> Candidate:
    props = properties(tool)
    name_words = set(words(tool.name))
    desc_words = set(words(tool.description[:400]))
    if words(tool.name) == words(canon):
        name_score, said = 8, "its name"
    else:
        hits = name_words & intent.verbs
        name_score, said = 3 * min(len(hits), 2), ", ".join(sorted(hits))
    against = name_words & intent.contrary - intent.verbs
    patching = bool(name_words & PATCH_VERBS) or any("patch" in roles(p) for p in props)
    if canon in ("writeFile", "editFile") and patching and not _plain_roles(intent, props):
        return _patch(canon, args, tool, props, where)
    if against and name_score < 8:  # `view_image` views, but images: no file reader
        return Candidate(tool.name, 0, f"its name says {', '.join(sorted(against))}")
    built, problem = _fill(canon, intent, args, tool, props, where)
    if built is None:
        return Candidate(tool.name, 0, problem)
    desc_score = min(len(desc_words & intent.verbs), 2)
    if name_score == 0 and desc_score == 0 and len(intent.needs) < 2:
        return Candidate(tool.name, 0, f"neither its name nor its description says {_VERB[canon]}")
    score = name_score + desc_score + 2 * len(intent.needs) - 2 * len(against)
    reasons = [f"name says {said}" if name_score else "", "description agrees" if desc_score else "",
               f"takes {', '.join(intent.needs)}"]  # fmt: skip
    return Candidate(tool.name, score, "; ".join(r for r in reasons if r), built)


def _plain_roles(intent: Intent, props: list[Prop]) -> bool:
    have = {r for p in props for r in roles(p)}
    needs = set(intent.needs)
    return needs <= have or (needs == {"path", "old", "new"} and {"path", "edits"} <= have)


def _pick(props: list[Prop], role: str, taken: set[str]) -> Prop | None:
    fitting = [p for p in props if role in roles(p) and p.name not in taken]
    # a property that says only this role, then a required one, then the first declared
    fitting.sort(key=lambda p: (len(roles(p)) > (2 if role in ("path", "dir") else 1), not p.required))
    if fitting:
        return fitting[0]
    # no name says it (`line`, `where`): a text property whose name says nothing, whose description does
    # (`the shell command`); the one whose description names the fewest roles ("file path" before "the
    # new text of the file")
    described = [p for p in props if p.name not in taken and p.kind in ("", "string") and not roles(p)
                 and role in described_roles(p)]  # fmt: skip
    described.sort(key=lambda p: (len(described_roles(p)), not p.required))
    return described[0] if described else None


def described_roles(prop: Prop) -> set[str]:
    """The roles a property's description names (its first 200 characters)."""
    said = set(words(prop.description[:200]))
    return {role for role, role_words in ROLE_WORDS.items() if said & role_words}


def _fill(
    canon: str, intent: Intent, args: Mapping[str, Any], tool: ToolDef, props: list[Prop], where: Where
) -> tuple[Args | None, str]:
    """The call's arguments in the tool's properties, or None and why not."""
    out: Args = {}
    taken: set[str] = set()
    values = _values(canon, args)
    needs = list(intent.needs)
    if canon == "editFile" and _pick(props, "old", taken) is None and _pick(props, "edits", taken):
        needs = ["path", "edits"]
    picked: dict[str, str] = {}  # role -> the property that takes it
    for role in [*needs, *intent.optional]:
        prop = _pick(props, role, taken)
        if prop is None and role == "dir":
            prop = _pick(props, "path", taken)
        if prop is None and role == "content" and not any(p.required and "old" in roles(p) for p in props):
            prop = _pick(props, "new", taken)  # an editor whose old text is optional writes whole files
        if prop is None:
            if role in needs:
                return None, f"no property takes the {_ROLE_NAMES[role]}"
            continue
        value = values.get(role)
        if value is None:
            continue
        taken.add(prop.name)
        picked[role] = prop.name
        out[prop.name] = _shaped(role, value, prop, tool, where)
    if canon == "runCmd" and "cwd" not in picked:
        command_prop = picked["command"]
        cwd = values.get("cwd")
        if cwd not in (None, "", "."):
            out[command_prop] = in_dir(out[command_prop], str(cwd))
    # the rest of the scenario's arguments, where the tool declares them under the same name
    declared = {p.name for p in props}
    for key, value in args.items():
        if key in declared and key not in out and key not in _CANONICAL_KEYS:
            out[key] = value
    unfilled = sorted(p.name for p in props if p.required and p.name not in out)
    if unfilled:
        return None, f"requires {', '.join(unfilled)}, which `{canon}` does not give"
    return out, ""


_ROLE_NAMES = {"path": "path", "dir": "folder path", "content": "file content", "old": "old text",
               "new": "new text", "command": "command", "cwd": "working directory", "patch": "patch",
               "pattern": "search pattern", "edits": "edits"}  # fmt: skip
_VERB = {"runCmd": "run", "readFile": "read", "listDir": "list", "grep": "search", "find": "find",
         "writeFile": "write", "editFile": "edit"}  # fmt: skip
_CANONICAL_KEYS = frozenset({"cmd", "cwd", "path", "content", "old_string", "new_string", "pattern", "name"})


def _values(canon: str, args: Mapping[str, Any]) -> dict[str, Any]:
    path = args.get("path")
    return {
        "path": path,
        "dir": path if path is not None else ".",
        "content": args.get("content"),
        "old": args.get("old_string"),
        "new": args.get("new_string"),
        "edits": [{"oldText": args.get("old_string", ""), "newText": args.get("new_string", "")}],
        "command": args.get("cmd"),
        "cwd": args.get("cwd"),
        "pattern": args.get("pattern", args.get("name")),
    }


def _shaped(role: str, value: Any, prop: Prop, tool: ToolDef, where: Where) -> Any:
    """A value as the property wants it: a path absolute or relative, a command as a list."""
    if role in ("path", "dir", "cwd") and isinstance(value, str):
        return place(value, path_style(prop, tool), where)
    if role == "command" and prop.kind == "array" and isinstance(value, str):
        return [value] if prop.plural else ["bash", "-lc", value]
    if role == "edits" and isinstance(value, list):
        names = list(prop.items.get("properties") or {})
        old = next(
            (n for n in names if "old" in roles(Prop(n, "", False, frozenset(words(n)), ""))), "oldText"
        )
        new = next(
            (n for n in names if "new" in roles(Prop(n, "", False, frozenset(words(n)), ""))), "newText"
        )
        return [{old: e["oldText"], new: e["newText"]} for e in value]
    return value


def in_dir(command: Any, cwd: str) -> Any:
    """A command (a string, a one-command list or a ``bash -lc`` argv) run in ``cwd``."""
    cd = f"cd {shlex.quote(cwd)} && "
    if isinstance(command, str):
        return cd + command
    if isinstance(command, list) and len(command) == 1:
        return [cd + str(command[0])]
    if isinstance(command, list) and len(command) == 3 and command[:2] == ["bash", "-lc"]:
        return ["bash", "-lc", cd + str(command[2])]
    return command


def place(path: str, style: str | None, where: Where) -> str:
    """``path`` absolute (under the working directory) or relative to it, as ``style`` says."""
    if where.cwd is None or style is None:
        return path
    if style == "absolute" and not os.path.isabs(path):
        return os.path.normpath(os.path.join(where.cwd, path))
    if style == "relative" and os.path.isabs(path):
        rel = os.path.relpath(path, where.cwd)
        return path if rel.startswith("..") else rel
    return path


# --------------------------------------------------------------------------- patches


def _patch(canon: str, args: Mapping[str, Any], tool: ToolDef, props: list[Prop], where: Where) -> Candidate:
    strings = [p for p in props if p.kind in ("", "string")]
    prop = next((p for p in strings if "patch" in roles(p)), None)
    if prop is None:
        required = [p for p in strings if p.required]
        prop = required[0] if len(required) == 1 else (strings[0] if len(strings) == 1 else None)
    if prop is None:
        return Candidate(tool.name, 0, "a patch tool, but no one string property to put the patch in")
    others = sorted(p.name for p in props if p.required and p.name != prop.name)
    if others:
        return Candidate(tool.name, 0, f"a patch tool that also requires {', '.join(others)}")
    dialect = patch_dialect(tool, prop)
    path = str(args.get("path", ""))
    before = _read(path, where)
    if canon == "writeFile":
        after = str(args.get("content", ""))
    else:
        old, new = str(args.get("old_string", "")), str(args.get("new_string", ""))
        if before is None:
            return Candidate(tool.name, 0, f"a patch tool, but `{path}` cannot be read to make the patch")
        if old not in before:
            return Candidate(tool.name, 0, f"a patch tool, but the old text is not in `{path}`")
        after = before.replace(old, new, -1 if args.get("replace_all") else 1)
    rel = place(path, "relative", where)
    text = begin_patch(rel, before, after) if dialect == "begin-patch" else unified_diff(rel, before, after)
    return Candidate(tool.name, 6, f"a patch tool ({dialect}, in `{prop.name}`)", {prop.name: text})


def patch_dialect(tool: ToolDef, prop: Prop) -> str:
    """``begin-patch`` when the tool shows the ``*** Begin Patch`` form, else ``unified``."""
    text = f"{tool.description}\n{prop.description}"
    return "begin-patch" if "*** Begin Patch" in text or "Begin Patch" in text else "unified"


def _read(path: str, where: Where) -> str | None:
    full = Path(path) if os.path.isabs(path) or where.cwd is None else Path(where.cwd) / path
    try:
        return full.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def unified_diff(path: str, before: str | None, after: str) -> str:
    """A ``git apply``/``patch -p1`` diff turning ``before`` (None: no file) into ``after``."""
    old = (before or "").splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    lines = list(difflib.unified_diff(old, new, "/dev/null" if before is None else f"a/{path}", f"b/{path}"))
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def begin_patch(path: str, before: str | None, after: str) -> str:
    """The ``*** Begin Patch`` form: an added file, or an update with context hunks."""
    if before is None:
        body = "".join(f"+{line}\n" for line in after.splitlines())
        return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"
    hunks: list[str] = []
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=3)
    for line in list(diff)[2:]:
        hunks.append("@@" if line.startswith("@@") else line)
    return f"*** Begin Patch\n*** Update File: {path}\n" + "\n".join(hunks) + "\n*** End Patch\n"
