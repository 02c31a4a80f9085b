"""Issue 22 point 8: themes are files users own: the top-level themes/ folder, the user's config folder
(a theme there replaces a shipped one of its name), and a bad file is a file:line:col diagnostic."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import opened, run
from tests.conftest import REPO
from workbench.app.themes import SHIPPED, load_themes, theme_dirs, user_theme_dir

DARK = (REPO / "themes" / "dark.toml").read_text(encoding="utf-8")


def test_the_shipped_themes_are_the_top_level_folder() -> None:
    assert SHIPPED.resolve() == (REPO / "themes").resolve()
    assert sorted(p.name for p in SHIPPED.glob("*.toml")) == ["dark.toml", "high-contrast.toml", "light.toml"]


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        ('name = "x"\nprimary = "#123456"\nbackground = "#12345\n', ":3:21:", "Illegal character"),  # TOML
        ('name = "x"\nprimary = "#123456"\nbackgrund = "#000000"\n', ":3:1:", "did you mean `background`?"),
        (
            'name = "x"\nprimary = "#123456"\n\n[variables]\n  diff-changed = "reddish"\n',
            ":5:3:",
            "not a colour",
        ),
        ('name = "x"\nbackground = "#000000"\n', ":1:1:", "needs at least `primary`"),
    ],
)
def test_a_bad_theme_file_is_a_diagnostic_with_its_place(
    tmp_path: Path, text: str, where: str, says: str
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    themes, warnings = load_themes([tmp_path])
    assert themes == [] and len(warnings) == 1
    assert f"{path}{where}" in warnings[0] and says in warnings[0], warnings[0]


def test_a_users_theme_replaces_the_shipped_one_and_a_bad_one_never_stops_the_app(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = user_theme_dir()
    assert mine == work / "config" / "workbench" / "themes" and mine in theme_dirs()
    mine.mkdir(parents=True)
    (mine / "dark.toml").write_text(
        DARK.replace('diff-changed = "', 'diff-changed = "#123456" #'), encoding="utf-8"
    )
    (mine / "broken.toml").write_text("name = [\n", encoding="utf-8")

    async def body() -> None:
        async with opened(work / "scenarios" / "hello-agent.yaml", work, (120, 40)) as pilot:
            app = pilot.app
            assert app.current_theme.name == "workbench-dark"
            assert app.current_theme.variables["diff-changed"] == "#123456", "the user's file won"
            messages = [n.message for n in app._notifications]
            assert any(f"{mine / 'broken.toml'}:" in m and "theme skipped" in m for m in messages), messages

    run(body)
