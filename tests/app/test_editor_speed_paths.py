"""The editor's fast paths give what Textual's slow ones give.

Two shortcuts make a keystroke in a long scenario cheap: the parser reads the
text in large chunks (:mod:`workbench.app.widgets.parsed_document`), and an
edit re-renders only the rows whose text or highlights changed. Each is checked
here against the plain path: a fresh parse of the whole text, and Textual's own
uncached rendering of every row.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from textual._tree_sitter import get_language
from textual.document._syntax_aware_document import SyntaxAwareDocument
from textual.widgets import TextArea

from tests.app.conftest import SIZE, long_scenario, make_app, run, settle
from workbench.app.widgets.parsed_document import CHUNK, ChunkReadDocument

YAML = get_language("yaml")
TEXT = "name: demo\ntimeline:\n  - llmResponse:\n      - assistant:\n          - [10, 'hi ü 中']\n"
PIECES = ["'", '"', "#", ":", "- ", "\n", "  ", "x", "ü", "中", "[", "]", "{", "}", "\r\n", "key: 'v'\n"]


def tree(document: SyntaxAwareDocument) -> str:
    assert document._syntax_tree is not None
    return str(document._syntax_tree.root_node)


edits = st.lists(
    st.tuples(st.integers(0, 10_000), st.integers(0, 40), st.sampled_from(PIECES)), min_size=1, max_size=12
)


@settings(max_examples=150)
@given(edits)
@example([(0, 0, "'")])  # a quote that turns the rest of the text into a string
@example([(10_000, 0, "#")])
def test_incremental_parses_read_in_chunks_match_a_fresh_parse(steps: list[tuple[int, int, str]]) -> None:
    document = SyntaxAwareDocument(TEXT, YAML)
    ChunkReadDocument.adopt(document)
    assert type(document) is ChunkReadDocument
    for at, length, text in steps:
        start = document.get_location_from_index(at % (len(document.text) + 1)) if at else (0, 0)
        end_index = min(len(document.text), document.get_index_from_location(start) + length)
        document.replace_range(start, document.get_location_from_index(end_index), text)
        assert tree(document) == tree(SyntaxAwareDocument(document.text, YAML)), document.text


def test_a_document_longer_than_a_chunk_parses_whole() -> None:
    text = "timeline:\n" + "".join(f"  - note: 'line {i} ü'\n" for i in range(CHUNK // 10))
    document = SyntaxAwareDocument(text, YAML)
    ChunkReadDocument.adopt(document)
    document.replace_range((1, 2), (1, 2), "'")  # reopens a string near the start: the rest re-parses
    assert len(text.encode()) > 2 * CHUNK
    assert tree(document) == tree(SyntaxAwareDocument(document.text, YAML))


def test_only_the_syntax_aware_document_is_adopted() -> None:
    from textual.document._document import Document

    plain = Document("a: b\n")
    ChunkReadDocument.adopt(plain)
    assert type(plain) is Document


def test_an_edit_redraws_every_row_it_changes_and_serves_the_rest_from_the_cache(work: Path) -> None:
    path = work / "long.yaml"
    long_scenario(path, 60)

    def uncached_rows(editor: TextArea) -> list[str]:
        return [
            "".join(s.text + str(s.style) for s in editor._render_line(y)) for y in range(editor.size.height)
        ]

    def shown_rows(editor: TextArea) -> list[str]:
        return [
            "".join(s.text + str(s.style) for s in TextArea.render_line(editor, y))
            for y in range(editor.size.height)
        ]

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.main_screen.editor_pane.validate_now = lambda: (
                None
            )  # diagnostics would resize the editor mid-test
            editor = app.main_screen.editor
            editor.focus()
            assert shown_rows(editor) == uncached_rows(editor)
            # Each edit changes the highlights of rows other than its own (a string or a comment that
            # runs on, a key that becomes a value), or the number of rows, or the gutter's width.
            for location, text in [((4, 13), "'"), ((4, 13), ""), ((3, 0), "#"), ((6, 0), "\n" * 60),
                                   ((2, 4), "x: "), ((0, 0), "'"), ((8, 0), "- a\n- b\n")]:  # fmt: skip
                if text:
                    editor.insert(text, location)
                else:
                    editor.delete(location, (location[0], location[1] + 1))
                await pilot.pause(0.05)
                assert shown_rows(editor) == uncached_rows(editor), f"after {text!r} at {location}"
            row = next(
                r for r in range(editor.document.line_count) if "'message 5'" in editor.document.get_line(r)
            )
            editor.move_cursor((row, editor.document.get_line(row).index("'") + 3))
            await pilot.pause(0.05)
            rendered: list[int] = []
            render = editor._render_line
            editor._render_line = lambda y: rendered.append(editor.scroll_offset.y + y) or render(y)
            await pilot.press("z")
            await pilot.pause(0.05)
            assert editor.document.get_line(row).endswith("'mezssage 5']")
            assert set(rendered) == {row}, "a keystroke inside a string re-renders its own row only"
            del editor._render_line
            assert shown_rows(editor) == uncached_rows(editor)

    run(body)


def test_what_the_screen_shows_after_each_edit_equals_a_full_repaint(work: Path) -> None:
    """Only changed rows are repainted; after every kind of edit and move the screen must be as if all were."""
    path = work / "long.yaml"
    long_scenario(
        path, 80, head=("name: long", "tags: [one,", "  two]")
    )  # a bracket whose match is another row

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            main.editor_pane.validate_now = lambda: (
                None
            )  # its diagnostics would change the layout between two reads
            editor = main.editor
            editor.focus()
            editor.cursor_blink = False  # a blinking cursor would differ between two reads

            def shown() -> list[str]:
                strips = app.screen._compositor.render_strips()
                region = editor.region
                rows = strips[region.y : region.bottom]
                return [
                    "".join(s.text + str(s.style) for s in strip.crop(region.x, region.right))
                    for strip in rows
                ]

            async def check(what: str) -> None:
                await pilot.pause(0.02)
                partial = shown()
                editor._line_cache.clear()
                editor._rendered_rows.clear()
                editor.refresh()
                await pilot.pause(0.02)
                assert partial == shown(), f"the screen after {what} is not a full repaint's"

            await check("opening")
            editor.move_cursor((4, 18))
            steps: list[tuple[str, ...]] = [
                ("x",), ("'",), ("backspace",), ("enter",), ("x", ":", "space", "y"), ("backspace",) * 5,
                ("shift+down", "shift+down", "shift+right"), ("z",), ("ctrl+z",), ("ctrl+y",),
                ("up", "up", "end"), ("left", "left", "left"),  # onto a bracket: its match is marked
                ("right",), ("home",), ("#",), ("pagedown",), ("x",), ("ctrl+home",), ("down",) * 3,
                ("shift+end",), ("delete",), ("ctrl+z",), ("end", "enter", "-", "space", "a"),
            ]  # fmt: skip
            for keys in steps:
                await pilot.press(*keys)
                await check(" ".join(keys))
            editor.move_cursor((0, 0))
            await check("the cursor at the start")
            editor.move_cursor((1, 6))  # onto `[`: its match `]` on the next row is marked
            await check("a cursor on a bracket")
            editor.move_cursor((0, 0))  # and unmarked when the cursor leaves
            await check("the cursor off the bracket")
            editor.current_step_line = 30  # the timeline's step, off screen, then on screen
            await check("a step row off screen")
            editor.scroll_to(y=20, animate=False, immediate=True)
            editor.current_step_line = 25
            await check("a step row in a scrolled view")
            editor.find("message 9")
            await check("a find")
            editor.insert("'", (editor.cursor_location[0], 0))
            await check("a quote that opens a string over the following rows")
            editor.language = None  # plain text (no grammar installed): the same rows logic, no highlights
            await check("the highlighting turned off")
            editor.load_text(editor.text.replace("message", "massage"))  # another text of the same shape
            await check("another document of the same size")
            await pilot.press("q")
            await check("a key in plain text")

    run(body)
