"""Screenshots: the golden text format, the style sidecar, and the ANSI and SVG renderings."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET

from wcwidth import wcswidth

from workbench.terminal import Shot

from .helpers import ours

SVG = "{http://www.w3.org/2000/svg}"


def test_text_is_height_rows_of_width_columns_without_trailing_newline() -> None:
    shot = ours("hello\r\n\x1b[1;31mworld\x1b[0m \u4e2d\u6587", width=12, height=3).snapshot()
    text = shot.text()
    assert not text.endswith("\n") and "\x1b" not in text
    lines = text.split("\n")
    assert lines == ["hello       ", "world \u4e2d\u6587  ", " " * 12]
    assert all(wcswidth(line) == 12 for line in lines)


def test_a_shot_is_a_value() -> None:
    a = ours("same").snapshot()
    b = ours("same").snapshot()
    assert a == b and hash(a.rows) == hash(b.rows)
    assert a != ours("other").snapshot()


def test_from_text_pads_and_cuts_rows_by_display_columns() -> None:
    shot = Shot.from_text("ab\n\u4e2d\u6587\u5b57\nlong line here", width=5, height=4)
    assert shot.text().split("\n") == ["ab   ", "\u4e2d\u6587 ", "long ", "     "]


def test_style_sidecar_has_runs_of_non_default_style_only() -> None:
    shot = ours("plain \x1b[1;31mred\x1b[0m \x1b[2;4;38:2::1:2:3mx\x1b[0m", width=20, height=2).snapshot()
    style = shot.style_json()
    assert style["version"] == 1 and style["width"] == 20 and style["height"] == 2
    assert style["rows"][0] == [
        {"col": 6, "len": 3, "fg": "red", "bg": "default", "bold": True},
        {"col": 10, "len": 1, "fg": "010203", "bg": "default", "dim": True, "underscore": True},
    ]
    assert style["rows"][1] == []
    assert style["cursor"] == {"row": 0, "col": 11, "visible": True}
    json.dumps(style)  # serialisable as it is


def test_ansi_rendering_round_trips_through_the_screen() -> None:
    source = ours(
        "a \x1b[1;31mred\x1b[0m \x1b[44;97mbox\x1b[0m \x1b[38;5;208mo\x1b[0m \u4e2d", width=16, height=2
    )
    shot = source.snapshot()
    again = ours(shot.to_ansi().replace("\n", "\r\n"), width=16, height=2).snapshot()
    assert again.rows == shot.rows
    assert again.styles == shot.styles


def test_svg_is_well_formed_and_shows_text_colours_and_cursor() -> None:
    shot = ours("<tag> & \x1b[7mrev\x1b[0m \x1b[32mgreen\x1b[0m \u4e2d", width=24, height=2).snapshot()
    root = ET.fromstring(shot.to_svg())
    assert root.tag == f"{SVG}svg"
    texts = [(t.text or "") for t in root.iter(f"{SVG}text")]
    assert "<tag> & " in texts and "rev" in texts and "green" in texts
    fills = {t.get("fill") for t in root.iter(f"{SVG}text")}
    assert "#0dbc79" in fills  # green
    assert any(r.get("class") == "cursor" for r in root.iter(f"{SVG}rect"))
    backgrounds = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#d4d4d4"]
    assert backgrounds  # the reversed "rev" has the foreground colour as background


def test_svg_of_a_shot_without_cells_uses_the_same_columns() -> None:
    live = ours("\u4e2dx \x1b[31mr\x1b[0m", width=8, height=1).snapshot()
    plain = Shot(width=8, height=1, rows=live.rows, styles=live.styles, cursor=live.cursor)
    assert plain.to_svg() == live.to_svg()


def test_a_shot_with_replaced_rows_is_rendered_from_its_rows() -> None:

    live = ours("took 15ms \u4e2d", width=12, height=1).snapshot()
    masked = dataclasses.replace(live, rows=("took * \u4e2d".ljust(11),))
    assert masked.text() == "took * \u4e2d   "
    assert "took * " in masked.to_svg()
