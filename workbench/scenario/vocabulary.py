"""The tool vocabulary: one table of tool names and argument names for every layer.

A scenario names tools in its own canonical words (``runCmd {cmd}``,
``writeFile {path, content}``) or in any agent's words (``Bash``,
``exec_command``, ``write_file``, ``run_shell_command``...). The scenario
loader, the mock agent's tools, its renderer and the mock LLM server's tool
profiles all read these tables, so a spelling known to one is known to all:

* :data:`SPELLINGS` — each canonical tool and the names agents give it;
  :func:`canonical_name` maps any of them back;
* :data:`ARGUMENTS` — each canonical argument and the property names agents use
  for it, preferred first (``path``, ``file_path``, ``filePath``, ``dir_path``);
  :func:`argument_for` picks the one a tool's schema declares, and
  :func:`canonical_args` maps them back to the canonical words;
* :data:`EVENT_ARGUMENTS` — the tools a scenario may write as events of their
  own (``runCmd: {cmd: ls}``), by canonical name, and the arguments each takes
  (the scenario loader's event keys and the JSON Schema's);
* :data:`OUTPUT_TOOLS` — the tools whose output a scenario's ``result`` is
  compared with (what a file write returns is the agent's own wording);
* :data:`TITLES` — how the mock agent titles a tool call on screen.

Adding an agent's spelling is one word in one tuple here.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

SPELLINGS: dict[str, tuple[str, ...]] = {
    "runCmd": ("runCmd", "run_command", "run_cmd", "Bash", "bash", "shell", "exec_command",
               "run_shell_command", "local_shell"),
    "readFile": ("readFile", "read_file", "Read", "read"),
    "writeFile": ("writeFile", "write_file", "Write", "write", "create_file"),
    "editFile": ("editFile", "edit_file", "Edit", "edit", "replaceInFile", "replace_in_file", "replace_text",
                 "replace", "str_replace"),
    "appendFile": ("appendFile", "append_file"),
    "grep": ("grep", "Grep", "grep_search", "search_file_content"),
    "listDir": ("listDir", "list_dir", "LS", "ls", "list_directory", "list"),
    "find": ("find", "Glob", "glob"),
    "sed": ("sed",),
    "task": ("task", "Task", "Agent"),
    "webFetch": ("webFetch", "WebFetch", "web_fetch", "webfetch"),
    "webSearch": ("webSearch", "WebSearch", "google_web_search", "web_search"),
    "todoWrite": ("todoWrite", "TodoWrite", "todo_write", "todowrite", "update_plan", "write_todos"),
    "notebookEdit": ("notebookEdit", "NotebookEdit"),
    "exitPlanMode": ("exitPlanMode", "ExitPlanMode"),
    "bashOutput": ("bashOutput", "BashOutput"),
    "killShell": ("killShell", "KillShell"),
    "slashCommand": ("slashCommand", "SlashCommand"),
}  # fmt: skip

ALIASES: dict[str, str] = {name: canon for canon, names in SPELLINGS.items() for name in names}

ARGUMENTS: dict[str, tuple[str, ...]] = {
    "cmd": ("cmd", "command", "commandLine", "script"),
    "cwd": ("cwd", "workdir", "dir_path", "working_directory", "directory"),
    "path": ("path", "file_path", "filePath", "filepath", "file", "filename", "absolute_path", "target_file",
             "notebook_path", "dir_path", "directory", "dir"),
    "content": ("content", "contents", "text", "file_text"),
    "old_string": ("old_string", "oldString", "old_text", "oldText", "old_str", "old", "search"),
    "new_string": ("new_string", "newString", "new_text", "newText", "new_str", "new", "replacement",
                   "replace"),
    "pattern": ("pattern", "query", "regex"),
    "name": ("name", "pattern", "glob"),
    "url": ("url", "uri"),
    "query": ("query", "q"),
}  # fmt: skip

EVENT_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "runCmd": ("cmd", "command", "cwd", "timeout", "description", "run_in_background"),
    "grep": ("pattern", "path", "glob", "output_mode", "-B", "-A", "-C", "-n", "-i", "type", "head_limit",
             "multiline"),
    "readFile": ("path", "encoding", "offset", "limit"),
    "listDir": ("path", "recursive", "pattern"),
    "find": ("path", "name", "type"),
    "sed": ("expression", "path", "inplace"),
    "editFile": ("path", "old_string", "new_string", "replace_all"),
    "writeFile": ("path", "content", "text"),
    "task": ("description", "prompt", "subagent_type"),
    "webFetch": ("url", "prompt"),
    "webSearch": ("query", "allowed_domains", "blocked_domains"),
    "todoWrite": ("todos",),
    "notebookEdit": ("notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"),
    "exitPlanMode": ("plan",),
    "bashOutput": ("bash_id", "filter"),
    "killShell": ("shell_id",),
    "slashCommand": ("command",),
}  # fmt: skip

TEXT_ARGUMENTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "runCmd": (("cmd", "command"),), "readFile": (("path",),), "writeFile": (("path",),),
    "editFile": (("path",),), "sed": (("expression",), ("path",)), "grep": (("pattern",),),
    "notebookEdit": (("notebook_path",),), "bashOutput": (("bash_id",),), "killShell": (("shell_id",),),
}  # fmt: skip
"""The arguments a tool event cannot run without, each a string (one of its spellings): the mock agent's
tools refuse a call without them, so a scenario that expects such a call to succeed cannot pass."""

OPTIONAL_TEXT_ARGUMENTS = ("path",)
"""Arguments that, where a tool takes them at all, must be strings (a folder to search defaults to `.`)."""

READS_ANYWHERE = frozenset({"readFile"})
"""The tools whose absolute path may lead anywhere (reading outside the workspace is allowed). Every
other tool's path, and a command's `cwd`, stays in the workspace: the mock agent refuses one outside it."""

OUTPUT_TOOLS = frozenset({"runCmd", "readFile", "grep", "listDir", "find", "sed", "bashOutput"})

TITLES: dict[str, str] = {
    "runCmd": "Bash", "readFile": "Read", "writeFile": "Write", "editFile": "Update", "appendFile": "Append",
    "listDir": "List", "grep": "Search", "find": "Find", "webFetch": "Fetch", "webSearch": "Web Search",
    "todoWrite": "Update Todos", "notebookEdit": "Edit Notebook",
}  # fmt: skip


def canonical_name(name: str) -> str:
    """The canonical name of a tool written under any known spelling (an unknown name stays as it is)."""
    return ALIASES.get(name, name)


def argument_for(key: str, declared: Collection[str]) -> str | None:
    """The property a tool declaring ``declared`` uses for the argument ``key``
    (``key`` itself when declared, else its first declared synonym), or None."""
    if key in declared:
        return key
    canon = key if key in ARGUMENTS else next((c for c, names in ARGUMENTS.items() if key in names), None)
    if canon is None:
        return None
    return next((name for name in ARGUMENTS[canon] if name in declared), None)


def canonical_args(args: Mapping[str, Any], accepted: Collection[str]) -> dict[str, Any]:
    """``args`` with each key a tool does not accept renamed to the canonical argument it
    stands for, when the tool accepts that one and it is not given already
    (``filePath`` -> ``path``, ``oldString`` -> ``old_string``); other keys as they are."""
    out = dict(args)
    for key in args:
        if key in accepted or key in ARGUMENTS:  # a canonical word keeps its own meaning (Glob's `pattern`)
            continue
        canon = next((c for c, names in ARGUMENTS.items() if key in names and c in accepted), None)
        if canon is not None and canon not in out:
            out[canon] = out.pop(key)
    return out
