"""The report folder: ``index.html`` with its style and script inline, and ``data/`` beside it.

Everything the page shows is in the folder, so it opens from ``file://`` (a CI
artifact unpacked anywhere) with no server and no request to any other host:

* ``index.html``: the page, its CSS and JavaScript inline, and a strict
  Content-Security-Policy that allows no connection at all;
* ``data/report.js``: the summary (every scenario's line and its JSON report entry);
* ``data/screens.js``: every screen once (see :mod:`.screens`), loaded with the first scenario page;
* ``data/s/<n>.js``: scenario n's page (steps, source, screenshots, recording, traffic).

Data files are scripts (``WB.report({...});``), not JSON, because a page opened
from ``file://`` may load scripts beside it but may not fetch files. The same
files are read back by `workbench report merge` (:func:`read_report_dir`).

The folder is built beside the target and renamed into place, so a reader never
sees half a report; an existing folder is replaced only when it is a report.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from workbench.report.collect import ScenarioInput, scenario_page, summary_row
from workbench.report.screens import BG, FG, ScreenStore

GENERATOR = "scenario-workbench html report"
VERSION = 1
STATUS_ORDER = ("failed", "error", "cancelled", "passed", "skipped")  # failures first, as Playwright does


class ReportError(ValueError):
    """The report cannot be written there (the folder is not empty and not a report, or not writable)."""


@dataclass
class Built:
    """A report in memory: the summary, each scenario's page, and the shared screens."""

    summary: dict[str, Any]
    pages: list[dict[str, Any]]
    screens: dict[str, Any]


def build(
    items: Sequence[ScenarioInput], *, duration_ms: int = 0, title: str = "Scenario Workbench"
) -> Built:
    """Gather every scenario's page; failures first, then as given."""
    ordered = sorted(items, key=lambda i: status_rank(str(i.entry.get("status", ""))))
    store = ScreenStore()
    rows = [summary_row(n, item) for n, item in enumerate(ordered)]
    pages = [scenario_page(item, store) for item in ordered]
    return Built(summary_of(rows, duration_ms, title), pages, store.to_json())


def status_rank(status: str) -> int:
    return STATUS_ORDER.index(status) if status in STATUS_ORDER else len(STATUS_ORDER)


def summary_of(rows: list[dict[str, Any]], duration_ms: int, title: str) -> dict[str, Any]:
    counts = {status: sum(1 for r in rows if r["status"] == status) for status in STATUS_ORDER}
    return {"version": VERSION, "title": title, "generated": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "duration_ms": duration_ms, "counts": counts, "scenarios": rows}  # fmt: skip


def _script(call: str, *args: Any) -> str:
    text = ", ".join(json.dumps(a, ensure_ascii=False, separators=(",", ":")) for a in args)
    return f"WB.{call}({text});\n"


def _asset(name: str) -> str:
    return (resources.files("workbench.report") / "assets" / name).read_text(encoding="utf-8")


def index_html(title: str) -> str:
    style = _asset("report.css").replace("/*SCREEN_FG*/", FG).replace("/*SCREEN_BG*/", BG)
    script = _asset("report.js").replace("</", "<\\/")
    # the page's one inline script is allowed by its hash: markup that got into the page another way
    # (an agent's output, escaped everywhere, but still) could never run a script or an event handler
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    page = _asset("index.html")
    for key, value in (
        ("TITLE", _escape(title)),
        ("GENERATOR", GENERATOR),
        ("SCRIPT_HASH", f"sha256-{digest}"),
    ):
        page = page.replace(f"{{{{{key}}}}}", value)
    return page.replace("/*STYLE*/", style).replace("/*SCRIPT*/", script)


def _escape(text: str) -> str:
    from html import escape

    return escape(text)


def is_report_dir(path: Path) -> bool:
    """Whether ``path`` holds a report this module wrote."""
    try:
        head = (path / "index.html").read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError:
        return False
    return GENERATOR in head and (path / "data" / "report.js").is_file()


def check_target(out: Path) -> None:
    """ReportError unless ``out`` is a place for a report: absent, an empty folder, or a report to replace."""
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out}: is a file; give a folder for the HTML report")
    if out.is_dir() and any(out.iterdir()) and not is_report_dir(out):
        raise ReportError(
            f"{out}: the folder is not empty and holds no workbench report; give a new or empty folder"
        )


def write(built: Built, out: Path) -> Path:
    """Write the report folder ``out`` whole (see the module docstring); the path of its ``index.html``."""
    out = Path(out)
    check_target(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    except OSError as exc:
        raise ReportError(f"{out}: cannot write the report: {exc.strerror}") from None
    try:
        os.chmod(stage, 0o755)
        (stage / "data" / "s").mkdir(parents=True)
        (stage / "index.html").write_text(index_html(built.summary["title"]), encoding="utf-8")
        (stage / "data" / "report.js").write_text(_script("report", built.summary), encoding="utf-8")
        (stage / "data" / "screens.js").write_text(_script("screens", built.screens), encoding="utf-8")
        for n, page in enumerate(built.pages):
            (stage / "data" / "s" / f"{n}.js").write_text(_script("page", n, page), encoding="utf-8")
        _swap(stage, out)
    except OSError as exc:
        shutil.rmtree(stage, ignore_errors=True)
        raise ReportError(f"{out}: cannot write the report: {exc.strerror}") from None
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return out / "index.html"


def _swap(stage: Path, out: Path) -> None:
    """Put ``stage`` where ``out`` is: an old report moves aside first and is removed after."""
    old = None
    if out.is_dir():
        if any(out.iterdir()):
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
        else:
            out.rmdir()
    os.replace(stage, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_report(items: Sequence[ScenarioInput], out: Path, *, duration_ms: int = 0) -> Path:
    """Gather and write: what `workbench run --html` and `workbench report html` do."""
    return write(build(items, duration_ms=duration_ms), out)


# --------------------------------------------------------------------------- reading back (for merge)


def _unwrap(path: Path, call: str) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    prefix = f"WB.{call}("
    if not (text.startswith(prefix) and text.rstrip().endswith(");")):
        raise ValueError(f"{path}: not a data file of a workbench report")
    return list(json.loads("[" + text[len(prefix) : text.rstrip().rindex(")")] + "]"))


def read_report_dir(path: Path) -> Built:
    """A report folder read back: its summary, pages and screens, as :func:`build` made them."""
    try:
        (summary,) = _unwrap(path / "data" / "report.js", "report")
        (screens,) = _unwrap(path / "data" / "screens.js", "screens")
        pages = []
        for n in range(len(summary["scenarios"])):
            _, page = _unwrap(path / "data" / "s" / f"{n}.js", "page")
            pages.append(page)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReportError(f"{path}: not a readable workbench HTML report ({exc})") from None
    if summary.get("version") != VERSION:
        raise ReportError(
            f"{path}: report version {summary.get('version')!r}; this workbench reads {VERSION}"
        )
    return Built(summary, pages, screens)
