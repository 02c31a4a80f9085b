"""Run folders are data that may be damaged: a run killed mid-write, a file edited by hand, a hostile one.

The report shows what can be read and never fails on the rest: no traceback, no
hang, no huge allocation from a claimed 10^9-column terminal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.cli_process import workbench
from tests.report.conftest import data_of
from workbench.report.collect import ScenarioInput
from workbench.report.inputs import gather
from workbench.report.write import build

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
STEP_KEYS = ("index", "at_ms", "wall_ms", "actor", "action", "summary", "line", "screen", "cursor", "files",
             "checks", "style", "diffs")  # fmt: skip


def _run_folder(root: Path, header: dict[str, Any], steps: list[dict[str, Any]], tail: str = "") -> Path:
    run_dir = root / "run"
    run_dir.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"type": "run", **header})] + [json.dumps({"type": "step", **s}) for s in steps]
    (run_dir / "trace.jsonl").write_text("\n".join(lines) + "\n" + tail, encoding="utf-8")
    return run_dir


@settings(
    max_examples=150,
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture],
)
@given(
    profile=JSON,
    steps=st.lists(st.fixed_dictionaries({}, optional=dict.fromkeys(STEP_KEYS, JSON)), max_size=4),
)
@example(
    profile={"width": 10**9, "height": 10**9},
    steps=[{"screen": ["x"], "style": {"rows": [[{"col": -5, "len": 10**9}]]}}],
)
@example(
    profile={"width": 4, "height": 2},
    steps=[{"screen": ["ab", 7, None], "cursor": ["a", 1], "files": [{"path": 3}]}],
)
def test_any_trace_content_makes_a_page(tmp_path: Path, profile: Any, steps: list[dict[str, Any]]) -> None:
    run_dir = _run_folder(
        tmp_path / str(abs(hash(json.dumps([profile, steps], default=str)))), {"profile": profile}, steps
    )
    entry = {"name": "x", "file": "x.yaml", "mode": "", "status": "failed", "failures": [], "screenshots": []}
    built = build([ScenarioInput(entry, run_dir)])
    [page] = built.pages
    assert len(page["steps"]) == len(steps)
    if page["profile"]:
        assert 1 <= page["profile"]["width"] <= 1000 and 1 <= page["profile"]["height"] <= 1000
    assert all(len(rows) == page["profile"]["height"] for rows in built.screens["screens"])


@settings(max_examples=60)
@given(header=JSON, events=st.lists(JSON, max_size=6))
@example(
    header={"width": 10**9, "height": "24"}, events=[[0.1, "r", "99999999x2"], [0.2, "o", "hi"], [0.3, "o"]]
)
def test_any_recording_makes_frames_or_none(header: Any, events: list[Any]) -> None:
    import tempfile

    from workbench.report.cast import cast_frames
    from workbench.report.screens import ScreenStore

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "terminal.cast"
        path.write_text("\n".join(json.dumps(x) for x in [header, *events]) + "\n", encoding="utf-8")
        store = ScreenStore()
        cast = cast_frames(path, store)
    assert cast is None or all(0 <= screen < len(store.screens) for _, screen in cast["frames"])
    assert all(len(rows) <= 1000 for rows in store.screens)


def test_a_run_killed_mid_write_shows_the_steps_it_recorded_as_an_error(tmp_path: Path) -> None:
    header = {"version": 1, "scenario": "killed", "file": "killed.yaml", "steps": 5,
              "profile": {"id": "20x2", "width": 20, "height": 2}}  # fmt: skip
    steps = [{"index": 0, "action": "input", "summary": "typed", "screen": ["hello", ""], "line": 3}]
    run_dir = _run_folder(tmp_path, header, steps, tail='{"type": "step", "index": 1, "scr')
    [item] = gather([run_dir])
    assert (
        item.entry["status"] == "error"
        and "after 1 of its 5 steps without writing its result" in (item.entry["failures"][0]["message"])
    )
    done = workbench("report", "html", str(run_dir), "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [row] = data_of(tmp_path / "out" / "data" / "report.js")[0]["scenarios"]
    assert (row["name"], row["status"]) == ("killed", "error")
    assert [s["summary"] for s in data_of(tmp_path / "out" / "data" / "s" / "0.js")[1]["steps"]] == ["typed"]


def test_a_report_naming_other_files_copies_none_of_them_and_never_blocks(tmp_path: Path) -> None:
    import os

    secret = tmp_path / "secret.txt"
    secret.write_text("password=hunter2\n")
    os.mkfifo(tmp_path / "pipe.golden")
    entry = {"name": "sly", "file": str(secret), "mode": "mock-agent", "status": "failed", "duration_ms": 0,
             "virtual_ms": 0, "failures": [],
             "screenshots": [{"label": "a", "golden": str(secret), "actual": str(tmp_path / "pipe.golden"),
                              "status": "mismatch"}]}  # fmt: skip
    report = {"version": 1, "summary": {"passed": 0, "failed": 1, "errors": 0, "skipped": 0, "duration_ms": 0},
              "scenarios": [entry]}  # fmt: skip
    (tmp_path / "r.json").write_text(json.dumps(report))
    done = workbench("report", "html", "r.json", "-o", "out", cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    written = "".join(p.read_text() for p in (tmp_path / "out").rglob("*.js"))
    assert "hunter2" not in written
    page = data_of(tmp_path / "out" / "data" / "s" / "0.js")[1]
    assert page["source"] == [] and page["shots"][0]["golden"] is None and page["shots"][0]["actual"] is None


def test_a_frame_shows_the_screen_from_the_time_its_last_output_arrived(tmp_path: Path) -> None:
    """Output closer together than a frame is one frame, at the time of its last piece: the player never
    shows at 0.01 s what the program printed at 0.02 s; before the first output the terminal is blank."""
    from workbench.report.cast import cast_frames
    from workbench.report.screens import ScreenStore

    events = [[0.01, "o", "a"], [0.02, "o", "b"], [1.0, "o", "c"]]
    path = tmp_path / "terminal.cast"
    path.write_text("\n".join(json.dumps(x) for x in [{"width": 5, "height": 1}, *events]) + "\n")
    store = ScreenStore()
    cast = cast_frames(path, store)
    assert cast is not None
    shown = [(t, store.rows[store.screens[screen][0]]) for t, screen in cast["frames"]]
    assert shown == [(0.0, ""), (0.02, "ab"), (1.0, "abc")]
