"""The JSON report and JUnit of a run with every status, read as CI and a script written against the contract read them.

The contract is the JSON shape in docs/design.md §6: every key it shows is in every entry, with the
type it shows. JUnit is what CI pages read: one testcase per scenario, the failure's message, and the
file and line where the page puts its annotation.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.cli_process import workbench
from tests.conftest import SCENARIOS, write

DESIGN = Path(__file__).resolve().parents[2] / "docs" / "design.md"
SKIPPED = "name: needs-tool\ntimeline:\n  - runCmd:\n      cmd: no-such-tool-here --build\n      status: ok\n"
INVALID = "name: invalid\ntimeline:\n  - asert:\n      text:\n        contains: [x]\n"
FAILED = "name: failed\ntimeline:\n  - llmResponse:\n      - assistant: [[10, hi]]\n  - assert:\n      text:\n        contains: [bye]\n"


def _contract() -> dict[str, Any]:
    """The report shape of docs/design.md: its first JSON block after 'The JSON report'."""
    text = DESIGN.read_text(encoding="utf-8")
    block = re.search(r"The JSON report.*?```json\n(.*?)```", text, re.S)
    assert block, "docs/design.md shows the JSON report"
    return json.loads(block.group(1))  # type: ignore[no-any-return]


def _same_shape(shape: Any, value: Any, where: str) -> None:
    if isinstance(shape, dict):
        assert isinstance(value, dict), where
        missing = sorted(set(shape) - set(value))
        assert not missing, f"{where} lacks {missing}"
        for key, sub in shape.items():
            _same_shape(sub, value[key], f"{where}.{key}")
    elif isinstance(shape, list):
        assert isinstance(value, list), where
        for n, item in enumerate(value):
            _same_shape(shape[0], item, f"{where}[{n}]")
    elif isinstance(shape, str) and "|" in shape:
        assert value in shape.split("|"), f"{where}: {value!r}"
    else:
        assert type(value) is type(shape), f"{where}: {value!r}"


def test_every_entry_has_every_key_of_the_contract_and_junit_points_at_the_failing_line(
    tmp_path: Path,
) -> None:
    shutil.copy(SCENARIOS / "hello-agent.yaml", tmp_path / "hello-agent.yaml")
    for name, text in (("skipped", SKIPPED), ("invalid", INVALID), ("failed", FAILED)):
        write(tmp_path, f"{name}.yaml", text)
    done = workbench("run", ".", "--report", "r.json", "--junit", "j.xml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr  # an invalid scenario
    report = json.loads((tmp_path / "r.json").read_text())
    _same_shape(_contract(), report, "report")
    entries = {e["name"]: e for e in report["scenarios"]}
    assert {n: e["status"] for n, e in entries.items()} == {
        "hello-agent": "passed", "needs-tool": "skipped", "invalid": "error", "failed": "failed"
    }  # fmt: skip
    assert "no-such-tool-here" in entries["needs-tool"]["reason"]
    assert entries["needs-tool"]["reason"] == entries["needs-tool"]["skip_reason"]
    assert [e["reason"] for n, e in entries.items() if n != "needs-tool"] == ["", "", ""]
    assert {e["agent"] for e in entries.values()} == {""}

    cases = {c.get("name"): c for c in ET.parse(tmp_path / "j.xml").getroot().iter("testcase")}
    assert set(cases) == set(entries), "one testcase per scenario"
    for name, status in (("failed", "failure"), ("invalid", "error")):
        first = entries[name]["failures"][0]
        case = cases[name]
        assert (case.get("file"), case.get("line")) == (entries[name]["file"], str(first["line"]))
        node = case.find(status)
        assert node is not None and node.get("message") == first["message"], name
    assert cases["hello-agent"].get("line") is None and cases["needs-tool"].find("skipped") is not None
    assert cases["hello-agent"].get("classname") == "hello-agent", "CI splits at the last dot: not `yaml`"
    assert entries["invalid"]["failures"][0]["col"] == 5, "the column of the unknown key"
    merged = workbench("report", "merge", "r.json", "--junit", "m.xml", cwd=tmp_path)
    assert merged.returncode == 2, "exit codes as the run's: a scenario that did not load is invalid input"
    assert "invalid.yaml:3:5: validation: unknown event `asert`" in merged.stdout, merged.stdout
    assert "invalid.yaml:3:5: validation" in (tmp_path / "m.xml").read_text(), (
        "the column, as the run said it"
    )


def test_a_skipped_entry_with_only_the_contracts_reason_keeps_it_through_report_merge(tmp_path: Path) -> None:
    entry = {"name": "a", "file": "a.yaml", "mode": "mock-agent", "status": "skipped", "reason": "needs `cargo`",
             "agent": "", "duration_ms": 0, "virtual_ms": 0, "failures": [], "screenshots": []}  # fmt: skip
    summary = {"passed": 0, "failed": 0, "errors": 0, "skipped": 1, "duration_ms": 0}
    write(tmp_path, "shard.json", json.dumps({"version": 1, "summary": summary, "scenarios": [entry]}))
    done = workbench("report", "merge", "shard.json", "--junit", "j.xml", "--html", "html", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    [case] = ET.parse(tmp_path / "j.xml").getroot().iter("testcase")
    skipped = case.find("skipped")
    assert skipped is not None and skipped.get("message") == "needs `cargo`"
    assert "needs `cargo`" in (tmp_path / "html" / "data" / "report.js").read_text()


@given(st.text(), st.text())
@example("unknown event `asert\x01\x1b[31m`", "\x00\ufffe\ud800 é 漢 🎉")
def test_junit_is_well_formed_xml_whatever_a_message_holds(message: str, reason: str) -> None:
    """A message quoting what a scenario or a program wrote (an escape sequence, a NUL) leaves the JUnit
    readable to CI; what XML cannot hold is written as its escape, the rest is kept as it was."""
    from workbench.engine.report import Failure, RunReport, ScenarioResult

    failed = ScenarioResult("failed", "a.yaml", status="failed", failures=[Failure(1, 2, "assert", message)])
    skipped = ScenarioResult("skipped", "b.yaml", status="skipped", skip_reason=reason)
    root = ET.fromstring(RunReport([failed, skipped]).to_junit().encode("utf-8"))
    failure, skip = root.find("testcase/failure"), root.find("testcase/skipped")
    assert failure is not None and skip is not None
    for sent, got in ((message, failure.get("message")), (reason, skip.get("message"))):
        assert got is not None
        if all(
            c in "\t\n\r" or " " <= c <= "\ud7ff" or "\ue000" <= c <= "\ufffd" or c > "\uffff" for c in sent
        ):
            assert got == sent.replace("\r", "\n") or got == sent
        else:
            assert "\\x" in got or "\\u" in got


def test_junit_escapes_exactly_the_characters_xml_cannot_hold() -> None:
    """Every code point, against XML 1.0's ``Char`` production: those outside it are escaped, the rest kept."""
    from workbench.engine.report import xml_safe

    def xml_char(code: int) -> bool:
        return (
            code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000
        )

    kept = [code for code in range(0x110000) if xml_safe(chr(code)) == chr(code)]
    assert kept == [code for code in range(0x110000) if xml_char(code)]


@pytest.mark.parametrize(
    ("file", "classname"),
    [("scenarios/hello-agent.yaml", "scenarios.hello-agent"), ("a.b.json", "a.b"), ("scp/case", "scp.case"),
     ("v1.2/rules", "v1.2.rules")],
)  # fmt: skip
def test_a_junit_class_is_the_scenarios_path_dotted_without_its_suffix(file: str, classname: str) -> None:
    from workbench.engine.report import junit_class

    assert junit_class(file) == classname
