"""Session files where and how Claude Code 2.1.12 writes them, so ``--resume`` finds them.

The config folder is ``$CLAUDELESS_CONFIG_DIR``, else ``$CLAUDE_CONFIG_DIR``,
else a private folder of this user under the temp folder
(``$TMPDIR/workbench-claude-<uid>``, mode 0700), never ``~/.claude``: a mock
must not write into the real Claude Code's sessions, and the folder still
outlives one call, so ``--resume`` and ``--continue`` work. A session is ``projects/<cwd with every character that is
not a letter or digit turned into ->/<session id>.jsonl``: two
``queue-operation`` lines, the user's prompt, one ``assistant`` line per
content block, a ``user`` line per tool result (``toolUseResult``,
``sourceToolAssistantUUID``) followed by a ``result`` line, all chained by
``parentUuid``; an API failure is an assistant line with
``isApiErrorMessage``. The project's ``sessions-index.json`` lists the
sessions; ``TodoWrite`` writes ``todos/<id>-agent-<id>.json`` and
``ExitPlanMode`` a plan under ``plans/``.

Beside Claude Code's files, the rules' state (how often each rule matched, the
turn sequence in progress) is kept per session in
``workbench/rules-state/<id>.json``, so a resumed call goes on where the last
one stopped (Claudeless starts each process from zero).
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.agent.claude import events as ev
from workbench.agent.claude.conversation import Conversation
from workbench.atomic import write_atomic


def config_dir(environ: Mapping[str, str]) -> Path:
    for name in ("CLAUDELESS_CONFIG_DIR", "CLAUDE_CONFIG_DIR"):
        if environ.get(name):
            return Path(environ[name])
    return private_config_dir(Path(environ.get("TMPDIR") or tempfile.gettempdir()))


def private_config_dir(temp: Path) -> Path:
    """This user's own config folder under ``temp``: made 0700; one another user owns (or a link
    someone planted) is never used, a fresh folder is made instead."""
    path = temp / f"workbench-claude-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.lstat()
    except OSError:
        return Path(tempfile.mkdtemp(prefix="workbench-claude-"))
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return Path(tempfile.mkdtemp(prefix="workbench-claude-", dir=temp))
    return path


def project_dir(config: Path, cwd: str) -> Path:
    return config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd)


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{datetime.now(UTC).microsecond // 1000:03d}Z"


def find(config: Path, cwd: str, session_id: str) -> Path | None:
    """The transcript of ``session_id``: in this folder's project first, then in any project."""
    own = project_dir(config, cwd) / f"{session_id}.jsonl"
    if own.is_file():
        return own
    for candidate in sorted((config / "projects").glob(f"*/{session_id}.jsonl")):
        return candidate
    return None


def latest(config: Path, cwd: str) -> str | None:
    """The most recently written session of this folder (``--continue``)."""
    files = list(project_dir(config, cwd).glob("*.jsonl"))
    if not files:
        return None
    return max(files, key=lambda p: p.stat().st_mtime_ns).stem


def last_uuid(path: Path) -> str | None:
    found = None
    try:
        with path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    found = json.loads(line).get("uuid") or found
                except ValueError:
                    continue
    except OSError:
        return None
    return found


def git_branch(cwd: Path) -> str:
    """The current branch, read from ``.git/HEAD`` (no git process: the shim must stay fast)."""
    for folder in (cwd, *cwd.parents):
        head = folder / ".git" / "HEAD"
        if head.is_file():
            text = head.read_text(encoding="utf-8", errors="replace").strip()
            return text.removeprefix("ref: refs/heads/") if text.startswith("ref: ") else "HEAD"
    return ""


class Transcript:
    """Appends one call's lines to a session's JSONL file."""

    def __init__(self, path: Path, call: ev.Call, branch: str, parent: str | None) -> None:
        self.path = path
        self.call = call
        self.branch = branch
        self.parent = parent
        self.lines: list[dict[str, Any]] = []

    def _envelope(self) -> dict[str, Any]:
        return {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": self.call.cwd,
                "sessionId": self.call.session_id, "version": self.call.version, "gitBranch": self.branch}  # fmt: skip

    def _add(self, line: dict[str, Any], uuid: str) -> None:
        self.lines.append(line)
        self.parent = uuid

    def record(self, prompt: str, conv: Conversation) -> None:
        sid = self.call.session_id
        for _ in range(2):
            self.lines.append(
                {"type": "queue-operation", "operation": "dequeue", "timestamp": now(), "sessionId": sid}
            )
        uid = ev._id()
        self._add({**self._envelope(), "type": "user", "message": {"role": "user", "content": prompt},
                   "uuid": uid, "timestamp": now()}, uid)  # fmt: skip
        for turn in conv.turns:
            for block in ev.blocks(turn):
                uid = ev._id()
                msg = {"model": self.call.api_model, "id": turn.message_id, "type": "message", "role": "assistant",
                       "content": [block], "stop_reason": None, "stop_sequence": None,
                       "usage": {"input_tokens": turn.input_tokens, "cache_creation_input_tokens": 0,
                                 "cache_read_input_tokens": 0,
                                 "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                                 "output_tokens": turn.output_tokens, "service_tier": "standard"}}  # fmt: skip
                self._add({**self._envelope(), "message": msg, "requestId": turn.request_id, "type": "assistant",
                           "uuid": uid, "timestamp": now()}, uid)  # fmt: skip
            source = self.parent
            for use in turn.tool_uses:
                if use.run is None:
                    continue
                uid = ev._id()
                content: list[dict[str, Any]] = [
                    {"tool_use_id": use.id, "type": "tool_result", "content": use.run.content}
                ]
                if use.run.is_error:
                    content[0]["is_error"] = True
                structured = use.run.tool_use_result
                self._add({**self._envelope(), "type": "user", "message": {"role": "user", "content": content},
                           "uuid": uid, "timestamp": now(),
                           "toolUseResult": structured if structured is not None else use.run.content,
                           "sourceToolAssistantUUID": source}, uid)  # fmt: skip
                self.lines.append({"type": "result", "toolUseId": use.id, "content": use.run.content,
                                   "timestamp": now()})  # fmt: skip
        if conv.failure is not None:
            uid = ev._id()
            msg = {"id": ev._id(), "model": "<synthetic>", "role": "assistant", "stop_reason": "stop_sequence",
                   "stop_sequence": "", "type": "message",
                   "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0,
                             "cache_read_input_tokens": 0},
                   "content": [{"type": "text", "text": conv.failure.text}]}  # fmt: skip
            self._add({**self._envelope(), "type": "assistant", "uuid": uid, "timestamp": now(), "message": msg,
                       "error": conv.failure.error_class, "isApiErrorMessage": True}, uid)  # fmt: skip

    def save(self, first_prompt: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            for line in self.lines:
                f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        _index(self.path, self.call, self.branch, first_prompt, len(self.lines))


def _index(path: Path, call: ev.Call, branch: str, prompt: str, added: int) -> None:
    index_file = path.parent / "sessions-index.json"
    try:
        index = json.loads(index_file.read_text(encoding="utf-8"))
        entries = index["entries"] if isinstance(index.get("entries"), list) else []
    except (OSError, ValueError, AttributeError, KeyError):
        entries = []
    stamp = now()
    entry = next((e for e in entries if isinstance(e, dict) and e.get("sessionId") == call.session_id), None)
    if entry is None:
        entry = {"sessionId": call.session_id, "fullPath": str(path), "fileMtime": 0, "firstPrompt": prompt,
                 "messageCount": 0, "created": stamp, "modified": stamp, "gitBranch": branch,
                 "projectPath": call.cwd, "isSidechain": False}  # fmt: skip
        entries.append(entry)
    entry["messageCount"] = int(entry.get("messageCount", 0)) + added
    entry["modified"] = stamp
    entry["fileMtime"] = path.stat().st_mtime_ns // 1_000_000
    write_json(index_file, {"version": 1, "entries": entries}, indent=2)


def write_json(path: Path, data: Any, indent: int | None = None) -> None:
    write_atomic(path, json.dumps(data, indent=indent, ensure_ascii=False))


def write_todos(config: Path, session_id: str, todos: list[Any]) -> None:
    write_json(config / "todos" / f"{session_id}-agent-{session_id}.json", todos, indent=2)


_PLAN_WORDS = (("bright", "calm", "eager", "gentle", "lucid", "quiet", "swift", "tidy"),
               ("building", "drawing", "mapping", "planning", "sketching", "weaving"),
               ("harbor", "meadow", "orchard", "river", "summit", "valley"))  # fmt: skip


def write_plan(config: Path, session_id: str, plan: str, home: str | None = None) -> str:
    """Save a plan as ``plans/<adjective>-<verb>-<noun>.md`` (chosen from the session id: stable); return
    the plans folder as the tool result names it (``~/.claude/plans/`` for the usual config folder)."""
    n = int(session_id.replace("-", "")[:8] or "0", 16)
    name = "-".join(words[(n >> (4 * i)) % len(words)] for i, words in enumerate(_PLAN_WORDS)) + ".md"
    target = config / "plans" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(plan, encoding="utf-8")
    folder = str(target.parent)
    if home and (folder == home or folder.startswith(home.rstrip("/") + "/")):
        folder = "~" + folder[len(home.rstrip("/")) :]
    return folder + "/"


def rules_state_file(config: Path, session_id: str) -> Path:
    return config / "workbench" / "rules-state" / f"{session_id}.json"


def load_rules_state(config: Path, session_id: str) -> dict[str, Any]:
    try:
        data = json.loads(rules_state_file(config, session_id).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}
