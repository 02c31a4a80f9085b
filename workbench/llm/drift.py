"""Drift: what an agent sends now, compared with what it sent when a scenario was recorded.

A recorded scenario (``workbench record``) keeps, beside it, the shape of every
conversation request the agent made: the tools it offered (name, type, the
property names and a hash of each input schema), the system prompt's length
and hash, and the request's scalar parameters (model, ``max_tokens``,
``temperature``, ``stream``...). ``workbench run --mode real-agent --drift
warn|fail`` compares each conversation request of the replay, in order, with
the recorded one and says what changed: a tool added, removed, renamed (one
gone and one new with the same schema), re-schemed or re-described (its description, as the system
prompt is compared, from sidecars that keep it), a prompt grown or
shrunk, a parameter changed. That is the stale-cassette problem made visible
when an agent is upgraded. The sidecar is ``<scenario stem>.requests.json``.

Agents tell the model where they run and when (the working directory, HOME,
today's date, the time): the replay runs in another workspace, HOME and second.
So the system prompt is compared as :func:`stable_system` makes it: the run's
own folders (and the folder the request says it runs in) as ``<path>``, also
where an agent folds one into a name (Claude Code's project memory folder
``-tmp-run-wb-ws-x1y2``) or names a folder after the workspace's name (Gemini
CLI's ``~/.gemini/tmp/wb-ws-x1y2``), every run of digits as ``#``. A version-2 sidecar
took the folders only as they are written, and everything after the stated
working directory on its line; a version-1 sidecar hashed the text as it was;
each is compared as it was made.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.scenario.diagnostics import count

from .conversation import ChatRequest

SIDECAR_SUFFIX = ".requests.json"
SIDECAR_VERSION = 3
MODES = ("warn", "fail")
_CONVERSATION_KEYS = frozenset({"messages", "system", "tools", "input", "contents", "systemInstruction",
                                "system_instruction", "instructions", "metadata", "prompt_cache_key",
                                "client_metadata"})  # fmt: skip


class DriftError(Exception):
    """A sidecar that cannot be read."""


def sidecar_path(scenario: Path) -> Path:
    return scenario.with_name(scenario.stem + SIDECAR_SUFFIX)


def _hash(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def system_text(chat: ChatRequest) -> str:
    """The system prompt: the system field and every system or developer message."""
    parts = [chat.system, *(m.text for m in chat.messages if m.role in ("system", "developer"))]
    return "\n".join(p for p in parts if p)


def stable_system(text: str, places: Sequence[str], *, folded: bool = True) -> str:
    """``text`` without what differs from run to run: each of ``places`` (the run's folders, longest
    first) as ``<path>``, with ``folded`` also written with other separators between its names, every
    run of digits (dates, times, ports, ids) as ``#``."""
    for place in sorted({p for p in places if len(p) > 1}, key=len, reverse=True):
        text = text.replace(place, "<path>")
        if folded:
            text = _folded(place).sub("<path>", text)
    return re.sub(r"\d+", "#", text)


def _folded(place: str) -> re.Pattern[str]:
    """``place`` with any separators (not spaces) between its names, and before and after them if it starts or
    ends with one: ``/tmp/run/wb-ws-x_1`` also as ``-tmp-run-wb-ws-x-1``, a folder an agent names after its
    working one. (A temporary folder's random name may end in ``_``: its folded ``-`` was left behind, a
    character more in the system prompt of one run in 37.)"""
    sep = r"[^A-Za-z0-9\s]+"
    names = re.findall(r"[A-Za-z0-9]+", place)
    lead = r"[^A-Za-z0-9\s]" if re.match(r"[^A-Za-z0-9]", place) else r"(?<![A-Za-z0-9])"
    trail = sep if re.search(r"[^A-Za-z0-9]\Z", place) else ""
    return re.compile(lead + sep.join(map(re.escape, names)) + trail + r"(?![A-Za-z0-9])")


def _stated_cwd(chat: ChatRequest, whole_line: bool) -> str | None:
    """The working directory the request states: the first word of what follows its label (the rest of a
    line such as 'Working directory: /w. Never delete files.' is the agent's prompt); a version-2 sidecar
    took the whole line."""
    cwd = chat.agent_cwd()
    if not cwd or whole_line:
        return cwd
    return cwd.split()[0].rstrip(".,;:)")


def request_shape(
    chat: ChatRequest, path: str, places: Sequence[str] | None = (), *, version: int = SIDECAR_VERSION
) -> dict[str, Any]:
    """What a request says about the agent (never its conversation: that is the scenario's). ``places``:
    the run's own folders, the workspace first, left out of the system prompt's hash (:func:`stable_system`)
    as a sidecar of ``version`` left them out (from version 3 the workspace's name alone too: Gemini CLI
    keeps `~/.gemini/tmp/<its name>/`); None hashes the prompt as it is (a version-1 sidecar)."""
    folders: list[str] | None = None
    if places is not None:
        cwd = _stated_cwd(chat, whole_line=version < 3)
        named = [Path(places[0]).name] if places and version >= 3 else []
        folders = [*places, *named, *([cwd] if cwd else [])]

    def stable(text: str) -> str:
        return text if folders is None else stable_system(text, folders, folded=version >= 3)

    tools = []
    for tool in chat.tools:
        props = sorted(tool.properties) if tool.properties is not None else None
        tools.append({"name": tool.name, "type": tool.type, "properties": props, "schema": _hash(tool.schema),
                      "description": _hash(stable(tool.description))})  # fmt: skip
    system = stable(system_text(chat))
    params = {k: v for k, v in chat.raw.items()
              if k not in _CONVERSATION_KEYS and isinstance(v, str | int | float | bool)}  # fmt: skip
    return {"style": chat.style, "path": path, "tools": tools,
            "system": {"chars": len(system), "sha256": _hash(system)}, "params": params}  # fmt: skip


def write_sidecar(path: Path, shapes: Sequence[Mapping[str, Any]], write: Any) -> None:
    """Write the sidecar with ``write(path, text)`` (the recording's redacting, atomic writer)."""
    write(path, json.dumps({"version": SIDECAR_VERSION, "requests": list(shapes)}, indent=1) + "\n")


def read_sidecar(path: Path) -> list[dict[str, Any]]:
    return _read(path)[1]


def drift_check(path: Path, places: Sequence[str]) -> DriftCheck:
    """The check of a replay against the sidecar at ``path``; ``places``: the replay's own folders."""
    version, requests = _read(path)
    return DriftCheck(requests, places, version)


def _read(path: Path) -> tuple[int, list[dict[str, Any]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DriftError(f"{path}: no recorded requests to compare with (record the scenario with "
                         "`workbench record`, which writes this file beside it)") from None  # fmt: skip
    except (OSError, ValueError) as exc:
        raise DriftError(f"{path}: not a request sidecar: {exc}") from None
    requests = data.get("requests") if isinstance(data, dict) else None
    if not isinstance(requests, list) or not all(isinstance(r, dict) for r in requests):
        raise DriftError(
            f'{path}: not a request sidecar (expected {{"version": {SIDECAR_VERSION}, "requests": [...]}})'
        )
    version = data.get("version")
    return (version if isinstance(version, int) else SIDECAR_VERSION), requests


def compare(recorded: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """What changed between a recorded request shape and the replay's (empty: nothing)."""
    out: list[str] = []
    before = {t["name"]: t for t in recorded.get("tools") or () if isinstance(t, Mapping) and "name" in t}
    after = {t["name"]: t for t in now.get("tools") or () if isinstance(t, Mapping) and "name" in t}
    gone, new = sorted(before.keys() - after.keys()), sorted(after.keys() - before.keys())
    for name in list(gone):
        twin = next((n for n in new if after[n].get("schema") == before[name].get("schema")), None)
        if twin is not None:
            out.append(f"tool `{name}` renamed to `{twin}` (same input schema)")
            gone.remove(name)
            new.remove(twin)
    out += [f"tool `{name}` no longer offered" for name in gone]
    out += [f"tool `{name}` newly offered" for name in new]
    for name in sorted(before.keys() & after.keys()):
        was, is_ = before[name], after[name]
        if "description" in was and was["description"] != is_.get(
            "description"
        ):  # a sidecar before: not kept
            out.append(f"tool `{name}` re-described (what it tells the model it does changed)")
        if was.get("schema") == is_.get("schema"):
            continue
        wp, ip = set(was.get("properties") or ()), set(is_.get("properties") or ())
        detail = "; ".join(
            part
            for part in (
                f"new {', '.join(sorted(ip - wp))}" if ip - wp else "",
                f"gone {', '.join(sorted(wp - ip))}" if wp - ip else "",
            )
            if part
        )
        out.append(f"tool `{name}` re-schemed ({detail or 'same properties, changed types or descriptions'})")
    sb, sa = recorded.get("system") or {}, now.get("system") or {}
    if sb.get("sha256") != sa.get("sha256"):
        cb, ca = int(sb.get("chars", 0)), int(sa.get("chars", 0))
        how = "grew" if ca > cb else "shrank" if ca < cb else "changed"
        out.append(f"system prompt {how}: {cb} -> {ca} characters")
    pb, pa = recorded.get("params") or {}, now.get("params") or {}
    for key in sorted(pb.keys() | pa.keys()):
        if key not in pa:
            out.append(f"parameter `{key}` no longer sent (it was {json.dumps(pb[key])})")
        elif key not in pb:
            out.append(f"parameter `{key}` newly sent: {json.dumps(pa[key])}")
        elif pb[key] != pa[key]:
            out.append(f"parameter `{key}`: {json.dumps(pb[key])} -> {json.dumps(pa[key])}")
    return out


def fold(found: Sequence[tuple[int, str]]) -> list[str]:
    """``(request number, change)`` pairs as one line per change, naming every request it was seen in
    (``requests 1-3, 5: tool `x` newly offered``): an upgraded agent changes every request alike."""
    where: dict[str, list[int]] = {}
    for number, change in found:
        where.setdefault(change, []).append(number)
    return [f"{_requests(numbers)}: {change}" for change, numbers in where.items()]


def _requests(numbers: list[int]) -> str:
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    text = ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)
    return f"request {text}" if len(numbers) == 1 else f"requests {text}"


class DriftCheck:
    """Compares the conversation requests of one replay, in order, with the recorded ones."""

    def __init__(
        self,
        recorded: Sequence[Mapping[str, Any]],
        places: Sequence[str] = (),
        version: int = SIDECAR_VERSION,
    ) -> None:
        self.recorded = list(recorded)
        self.places: Sequence[str] | None = places if version >= 2 else None  # version 1 hashed it as it was
        self.version = version
        self.seen = 0
        self.found: list[tuple[int, str]] = []  # (request number, what changed)

    def check(self, chat: ChatRequest, path: str) -> None:
        index = self.seen
        self.seen += 1
        now = request_shape(chat, path, self.places, version=self.version)
        if index >= len(self.recorded):
            self.found.append((index + 1, f"the recording has only {count(len(self.recorded), 'request')}"))
        else:
            self.found += [(index + 1, change) for change in compare(self.recorded[index], now)]

    def report(self) -> list[str]:
        """What changed, one line per change (:func:`fold`), then a request count that fell short."""
        lines = fold(self.found)
        if self.seen < len(self.recorded):
            lines.append(
                f"the agent sent {count(self.seen, 'conversation request')}, the recording {len(self.recorded)}"
            )
        return lines
