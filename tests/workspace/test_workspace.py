"""The workspace, with real git and real files: creation, confinement, changes, patches and checks."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.scenario import model as m
from workbench.scenario.diagnostics import Pos
from workbench.workspace import CheckOutcome, Workspace, WorkspaceError, confine, git, json_pointer

POS = Pos("scenario.yaml", 3, 1)


def repo(
    *,
    init: bool = False,
    branch: str | None = None,
    dir: str | None = None,
    files: dict[str, bytes] | None = None,
) -> m.Repo:
    return m.Repo(
        init=init,
        branch=branch,
        dir=dir,
        files=tuple(m.RepoFile(path, contents, POS) for path, contents in (files or {}).items()),
        pos=POS,
    )


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (outside `.git`) with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


@pytest.fixture
def scenario_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "scenario"
    (folder / "seed" / "sub").mkdir(parents=True)
    (folder / "seed" / "app.py").write_text("print('seed')\n")
    (folder / "seed" / "sub" / "data.txt").write_text("data\n")
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret\n")
    return folder


@pytest.fixture
def ws(temp_root: Path, scenario_dir: Path) -> Iterator[Workspace]:
    with Workspace.create(scenario_dir, None) as workspace:
        yield workspace


def head(path: Path) -> str:
    return git(path, "rev-parse", "HEAD").stdout.strip()


# --------------------------------------------------------------------------- creation


def test_create_without_repo_is_an_empty_folder(temp_root: Path, scenario_dir: Path) -> None:
    with Workspace.create(scenario_dir, None) as workspace:
        assert workspace.path.is_dir()
        assert workspace.path.parent == temp_root.resolve()
        assert list(workspace.path.iterdir()) == []


def test_create_with_init_commits_files_on_main(temp_root: Path, scenario_dir: Path) -> None:
    files = {"README.md": b"# hello\n", "bin/blob.dat": b"\x00\xff\x01binary", "src/a.py": b"x = 1\n"}
    with Workspace.create(scenario_dir, repo(init=True, files=files)) as workspace:
        assert tree(workspace.path) == files
        log = git(workspace.path, "log", "--format=%s|%an|%ae|%aI").stdout.strip().splitlines()
        assert log == ["Initial commit|Workbench|workbench@example.invalid|2024-01-01T00:00:00+00:00"]
        assert git(workspace.path, "rev-parse", "--abbrev-ref", "HEAD").stdout.strip() == "main"
        assert git(workspace.path, "status", "--porcelain").stdout == ""  # everything is committed
        committed = git(workspace.path, "ls-files").stdout.split()
        assert sorted(committed) == sorted(files)


def test_create_with_init_uses_the_branch(temp_root: Path, scenario_dir: Path) -> None:
    with Workspace.create(scenario_dir, repo(init=True, branch="feature/x")) as workspace:
        assert git(workspace.path, "rev-parse", "--abbrev-ref", "HEAD").stdout.strip() == "feature/x"
        assert git(workspace.path, "log", "--format=%s").stdout.strip() == "Initial commit"


def test_create_without_init_has_no_git(temp_root: Path, scenario_dir: Path) -> None:
    with Workspace.create(scenario_dir, repo(files={"a.txt": b"a"})) as workspace:
        assert not (workspace.path / ".git").exists()
        assert tree(workspace.path) == {"a.txt": b"a"}


def test_create_copies_the_dir_and_files_win(temp_root: Path, scenario_dir: Path) -> None:
    spec = repo(init=True, dir="seed", files={"sub/data.txt": b"overridden\n", "extra.txt": b"extra\n"})
    with Workspace.create(scenario_dir, spec) as workspace:
        assert tree(workspace.path) == {
            "app.py": b"print('seed')\n",
            "extra.txt": b"extra\n",
            "sub/data.txt": b"overridden\n",
        }
        assert "sub/data.txt" in git(workspace.path, "ls-files").stdout.split()
    # the scenario folder is only read
    assert (scenario_dir / "seed" / "sub" / "data.txt").read_text() == "data\n"
    assert not (scenario_dir / "seed" / "extra.txt").exists()


def test_two_creations_give_the_same_head(temp_root: Path, scenario_dir: Path) -> None:
    spec = repo(init=True, dir="seed", files={"b.bin": b"\x00\x01", "c/d.txt": b"d\n"})
    with Workspace.create(scenario_dir, spec) as first, Workspace.create(scenario_dir, spec) as second:
        assert first.path != second.path
        assert head(first.path) == head(second.path)
        # a different content gives a different hash: the equality above is not vacuous
        with Workspace.create(scenario_dir, repo(init=True, files={"b.bin": b"\x00\x02"})) as third:
            assert head(third.path) != head(first.path)


# --------------------------------------------------------------------------- escapes at creation


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_repo_dir_escapes_are_rejected(
    kind: str, temp_root: Path, scenario_dir: Path, outside: Path, tmp_path: Path
) -> None:
    if kind == "symlink":
        (scenario_dir / "link").symlink_to(outside, target_is_directory=True)
        rel = "link"
    elif kind == "absolute":
        rel = str(outside)
    else:
        rel = "../outside"
    before = tree(tmp_path)
    with pytest.raises(WorkspaceError) as info:
        Workspace.create(scenario_dir, repo(init=True, dir=rel))
    assert f"`{rel}`" in str(info.value)
    assert list(temp_root.iterdir()) == []  # the half-made workspace is removed
    assert tree(tmp_path) == before


def test_repo_dir_that_does_not_exist(temp_root: Path, scenario_dir: Path) -> None:
    with pytest.raises(WorkspaceError, match="not found"):
        Workspace.create(scenario_dir, repo(dir="missing"))
    assert list(temp_root.iterdir()) == []


@pytest.mark.parametrize("rel", ["../escape.txt", "a/../../escape.txt", "../../escape.txt", "ABSOLUTE"])
def test_repo_file_escapes_are_rejected(
    rel: str, temp_root: Path, scenario_dir: Path, tmp_path: Path
) -> None:
    if rel == "ABSOLUTE":
        rel = str(tmp_path / "escape.txt")
    before = tree(tmp_path)
    with pytest.raises(WorkspaceError) as info:
        Workspace.create(scenario_dir, repo(init=True, files={"ok.txt": b"ok", rel: b"escaped"}))
    assert "`repo.files` path" in str(info.value)
    assert f"`{rel}`" in str(info.value)
    assert list(temp_root.iterdir()) == []
    assert tree(tmp_path) == before
    assert not list(tmp_path.rglob("escape.txt"))


def test_repo_file_through_a_copied_symlink_is_rejected(
    temp_root: Path, scenario_dir: Path, outside: Path, tmp_path: Path
) -> None:
    (scenario_dir / "seed" / "out").symlink_to(outside, target_is_directory=True)
    before = tree(tmp_path)
    with pytest.raises(WorkspaceError, match="`seed` holds symlinks that lead outside it: out"):
        Workspace.create(scenario_dir, repo(dir="seed", files={"out/planted.txt": b"planted"}))
    assert not (outside / "planted.txt").exists()
    assert tree(tmp_path) == before
    assert list(temp_root.iterdir()) == []


def test_repo_dir_with_a_symlink_out_is_rejected_before_copying(
    temp_root: Path, scenario_dir: Path, outside: Path, tmp_path: Path
) -> None:
    (scenario_dir / "seed" / "sub" / "secret").symlink_to(outside / "secret.txt")
    before = tree(tmp_path)
    with pytest.raises(WorkspaceError, match=r"symlinks that lead outside it: sub/secret"):
        Workspace.create(scenario_dir, repo(dir="seed"))
    assert tree(tmp_path) == before
    assert list(temp_root.iterdir()) == []


def test_resolve_scenario_path_names_the_scenario_folder(scenario_dir: Path) -> None:
    assert Workspace.resolve_scenario_path(scenario_dir, "seed/app.py", "patch") == (
        scenario_dir.resolve() / "seed" / "app.py"
    )
    with pytest.raises(WorkspaceError, match=r"patch `../x` escapes the scenario folder"):
        Workspace.resolve_scenario_path(scenario_dir, "../x", "patch")
    with pytest.raises(WorkspaceError, match=r"patch `/etc/passwd` is absolute"):
        Workspace.resolve_scenario_path(scenario_dir, "/etc/passwd", "patch")
    (scenario_dir / "away").symlink_to(scenario_dir.parent, target_is_directory=True)
    with pytest.raises(WorkspaceError, match=r"patch `away/x.patch` leads outside the scenario folder"):
        Workspace.resolve_scenario_path(scenario_dir, "away/x.patch", "patch")


@pytest.mark.parametrize("rel", ["", "a\x00b"])
def test_confine_rejects_unusable_paths(rel: str, tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="not a usable path"):
        confine(tmp_path, rel, "path")


# --------------------------------------------------------------------------- keep / close


def test_close_removes_and_is_idempotent(temp_root: Path, scenario_dir: Path) -> None:
    workspace = Workspace.create(scenario_dir, repo(init=True, files={"a": b"a"}))
    assert workspace.path.is_dir()
    assert workspace.close() is None
    assert not workspace.path.exists()
    assert workspace.close() is None
    assert list(temp_root.iterdir()) == []


def test_context_manager_removes(temp_root: Path, scenario_dir: Path) -> None:
    with Workspace.create(scenario_dir, None) as workspace:
        path = workspace.path
        (path / "f").write_text("x")
    assert not path.exists()


def test_keep_keeps_and_returns_the_path(temp_root: Path, scenario_dir: Path) -> None:
    workspace = Workspace.create(scenario_dir, repo(files={"a": b"a"}), keep=True)
    assert workspace.close() == workspace.path
    assert (workspace.path / "a").read_bytes() == b"a"
    assert workspace.close() == workspace.path  # idempotent
    shutil.rmtree(workspace.path)


def test_keep_for_failure_keeps(temp_root: Path, scenario_dir: Path) -> None:
    workspace = Workspace.create(scenario_dir, repo(files={"a": b"a"}))
    workspace.keep_for_failure()
    kept = workspace.close()
    assert kept == workspace.path
    assert (kept / "a").is_file()
    shutil.rmtree(kept)


def test_attach_never_removes(tmp_path: Path) -> None:
    folder = tmp_path / "existing"
    folder.mkdir()
    (folder / "f.txt").write_text("keep me")
    workspace = Workspace.attach(folder)
    assert workspace.path == folder.resolve()
    assert workspace.close() is None
    assert (folder / "f.txt").read_text() == "keep me"
    workspace.keep_for_failure()
    with workspace:
        pass
    assert (folder / "f.txt").read_text() == "keep me"


# --------------------------------------------------------------------------- changes


def test_snapshot_and_changed_files(temp_root: Path, scenario_dir: Path) -> None:
    spec = repo(init=True, files={"a.txt": b"a\n", "b.txt": b"b\n", "c.txt": b"c\n", "d/keep.txt": b"k"})
    with Workspace.create(scenario_dir, spec) as workspace:
        before = workspace.snapshot()
        assert set(before) == {"a.txt", "b.txt", "c.txt", "d/keep.txt"}  # no `.git`, no folders
        assert before["a.txt"][0] == 2

        (workspace.path / "a.txt").write_text("a longer text\n")
        (workspace.path / "b.txt").unlink()
        (workspace.path / "new" / "deep").mkdir(parents=True)
        (workspace.path / "new" / "deep" / "n.txt").write_text("n")
        (workspace.path / ".git" / "scratch").write_text("ignored")
        git(workspace.path, "add", "-A")  # changes the index inside .git, which is ignored
        after = workspace.snapshot()

        assert Workspace.changed_files(before, after) == [
            {"path": "a.txt", "change": "modified"},
            {"path": "b.txt", "change": "deleted"},
            {"path": "new/deep/n.txt", "change": "added"},
        ]
        assert Workspace.changed_files(after, after) == []


def test_changed_files_sees_a_same_size_rewrite_by_mtime() -> None:
    before = {"f": (3, 1_000)}
    assert Workspace.changed_files(before, {"f": (3, 2_000)}) == [{"path": "f", "change": "modified"}]
    assert Workspace.changed_files(before, {"f": (3, 1_000)}) == []


PATCH_OK = """\
--- a/hello.txt
+++ b/hello.txt
@@ -1,2 +1,2 @@
 hello
-world
+there
"""

PATCH_BAD = """\
--- a/hello.txt
+++ b/hello.txt
@@ -1,2 +1,2 @@
 goodbye
-moon
+there
"""


@pytest.mark.parametrize("init", [True, False])
def test_apply_patch(init: bool, temp_root: Path, scenario_dir: Path) -> None:
    (scenario_dir / "fix.patch").write_text(PATCH_OK)
    with Workspace.create(scenario_dir, repo(init=init, files={"hello.txt": b"hello\nworld\n"})) as workspace:
        workspace.apply_patch(scenario_dir / "fix.patch")
        assert (workspace.path / "hello.txt").read_text() == "hello\nthere\n"


def test_apply_patch_that_does_not_apply(temp_root: Path, scenario_dir: Path) -> None:
    (scenario_dir / "broken.patch").write_text(PATCH_BAD)
    with Workspace.create(scenario_dir, repo(init=True, files={"hello.txt": b"hello\nworld\n"})) as workspace:
        with pytest.raises(WorkspaceError) as info:
            workspace.apply_patch(scenario_dir / "broken.patch")
        message = str(info.value)
        assert "`broken.patch` does not apply" in message
        assert "patch failed" in message or "patch does not apply" in message  # git's own words
        assert (workspace.path / "hello.txt").read_text() == "hello\nworld\n"


def test_apply_patch_that_is_missing(ws: Workspace, scenario_dir: Path) -> None:
    with pytest.raises(WorkspaceError, match="not found"):
        ws.apply_patch(scenario_dir / "nope.patch")


def test_a_patch_that_is_a_named_pipe_or_a_folder_is_said_to_be_one(
    ws: Workspace, scenario_dir: Path
) -> None:
    """A patch that was there but no file was said to be "not found"."""
    os.mkfifo(scenario_dir / "pipe.patch")
    (scenario_dir / "folder.patch").mkdir()
    for name, kind in (("pipe.patch", "a named pipe"), ("folder.patch", "a folder")):
        with pytest.raises(WorkspaceError) as info:
            ws.apply_patch(scenario_dir / name)
        assert (
            str(info.value)
            == f"patch `{scenario_dir / name}` is {kind}, not a file: a patch is a unified diff in a file"
        )


def test_repo_dir_with_a_named_pipe_is_refused_before_copying_naming_it(
    temp_root: Path, scenario_dir: Path, tmp_path: Path
) -> None:
    """A seed folder holding a named pipe failed with the copy's raw list of (source, target, reason)."""
    os.mkfifo(scenario_dir / "seed" / "pipe")
    with pytest.raises(WorkspaceError) as info:
        Workspace.create(scenario_dir, repo(dir="seed"))
    assert str(info.value) == ("`repo.dir`: `seed` holds what is no file: pipe (a named pipe); a seed folder holds "
                               "files, folders and symlinks")  # fmt: skip
    assert list(temp_root.iterdir()) == []


def test_commit_in_a_repo_and_outside_one(temp_root: Path, scenario_dir: Path) -> None:
    with Workspace.create(scenario_dir, repo(init=True, files={"a": b"a"})) as workspace:
        (workspace.path / "b").write_text("b")
        workspace.commit("Add b for the feature")
        log = git(workspace.path, "log", "--format=%s").stdout.split("\n")
        assert log[:2] == ["Add b for the feature", "Initial commit"]
        assert git(workspace.path, "status", "--porcelain").stdout == ""

    with Workspace.create(scenario_dir, repo(files={"a": b"a"})) as workspace:
        workspace.commit("First")
        assert git(workspace.path, "log", "--format=%s").stdout.strip() == "First"
        assert git(workspace.path, "rev-parse", "--abbrev-ref", "HEAD").stdout.strip() == "main"


PATCH_ESCAPE = """\
--- a/../planted.txt
+++ b/../planted.txt
@@ -0,0 +1 @@
+planted
"""

PATCH_THROUGH_LINK = """\
--- /dev/null
+++ b/link/planted.txt
@@ -0,0 +1 @@
+planted
"""


@pytest.mark.parametrize("init", [True, False])
def test_apply_patch_cannot_write_outside(
    init: bool, temp_root: Path, scenario_dir: Path, outside: Path, tmp_path: Path
) -> None:
    (scenario_dir / "escape.patch").write_text(PATCH_ESCAPE)
    (scenario_dir / "link.patch").write_text(PATCH_THROUGH_LINK)
    with Workspace.create(scenario_dir, repo(init=init, files={"a.txt": b"a\n"})) as workspace:
        (workspace.path / "link").symlink_to(outside, target_is_directory=True)
        before = tree(tmp_path)
        for name in ("escape.patch", "link.patch"):
            with pytest.raises(WorkspaceError, match=f"`{name}` does not apply"):
                workspace.apply_patch(scenario_dir / name)
        assert tree(tmp_path) == before
        assert not (outside / "planted.txt").exists()
        assert not (temp_root / "planted.txt").exists()


def test_a_plain_workspace_inside_a_repository_does_not_borrow_it(tmp_path: Path, scenario_dir: Path) -> None:
    """git must not find the enclosing repository: `git apply` would skip paths, `git log` read its history."""
    parent = tmp_path / "parent-repo"
    (parent / "ws").mkdir(parents=True)
    git(parent, "init", "-q", "-b", "main")
    git(parent, "commit", "-q", "--allow-empty", "-m", "the parent's commit")
    workspace = Workspace.attach(parent / "ws")
    (workspace.path / "hello.txt").write_text("hello\nworld\n")
    (scenario_dir / "fix.patch").write_text(PATCH_OK)
    workspace.apply_patch(scenario_dir / "fix.patch")
    assert (workspace.path / "hello.txt").read_text() == "hello\nthere\n"
    check = workspace.check_git_commit_message_contains("parent")
    assert check == CheckOutcome(
        False, "no commit to look for 'parent' in: the workspace is not a git repository"
    )
    assert git(workspace.path, "rev-parse", "--show-toplevel", check=False).returncode != 0


def test_user_git_config_has_no_say(
    temp_root: Path, scenario_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Someone Else\n\temail = else@example.com\n"
        "[commit]\n\tgpgsign = true\n[init]\n\tdefaultBranch = trunk\n"
    )
    spec = repo(init=True, files={"a.txt": b"a\n"})
    with Workspace.create(scenario_dir, spec) as plain:
        expected = head(plain.path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setenv("TZ", "Pacific/Auckland")
    with Workspace.create(scenario_dir, spec) as configured:
        assert head(configured.path) == expected
        assert git(configured.path, "log", "-1", "--format=%an %ae").stdout.strip() == (
            "Workbench workbench@example.invalid"
        )
        assert git(configured.path, "rev-parse", "--abbrev-ref", "HEAD").stdout.strip() == "main"


def test_commits_are_deterministic_too(temp_root: Path, scenario_dir: Path) -> None:
    heads = []
    for _ in range(2):
        with Workspace.create(scenario_dir, repo(init=True, files={"a": b"a"})) as workspace:
            (workspace.path / "b").write_text("b")
            workspace.commit("Add b")
            heads.append(head(workspace.path))
    assert heads[0] == heads[1]


def test_snapshot_skips_every_git_folder_and_sees_links(ws: Workspace, outside: Path) -> None:
    (ws.path / "vendor" / "lib" / ".git").mkdir(parents=True)
    (ws.path / "vendor" / "lib" / ".git" / "HEAD").write_text("ref")
    (ws.path / "vendor" / "lib" / "x.c").write_text("int x;")
    (ws.path / "out").symlink_to(outside, target_is_directory=True)  # not followed
    assert set(ws.snapshot()) == {"vendor/lib/x.c", "out"}


def test_snapshot_sees_a_same_size_rewrite(ws: Workspace) -> None:
    path = ws.path / "f.txt"
    path.write_text("abc")
    before = ws.snapshot()
    os.utime(path, ns=(1, 1))
    path.write_text("xyz")
    assert ws.changed_files(before, ws.snapshot()) == [{"path": "f.txt", "change": "modified"}]


# --------------------------------------------------------------------------- checks


def test_check_fs_exists_and_not_exists(temp_root: Path, scenario_dir: Path) -> None:
    with Workspace.create(scenario_dir, repo(files={"dir/a.txt": b"a"})) as workspace:
        assert workspace.check_fs_exists("dir/a.txt") == CheckOutcome(True, "`dir/a.txt` exists")
        assert workspace.check_fs_exists("dir").ok
        assert workspace.check_fs_exists("b.txt") == CheckOutcome(False, "`b.txt` does not exist")
        assert workspace.check_fs_not_exists("b.txt") == CheckOutcome(True, "`b.txt` does not exist")
        assert workspace.check_fs_not_exists("dir/a.txt") == CheckOutcome(False, "`dir/a.txt` exists")


def test_checks_on_escaping_paths_fail_with_the_reason(ws: Workspace) -> None:
    rel = "../x"
    for check in (ws.check_fs_exists(rel), ws.check_fs_not_exists(rel), ws.check_json_file(rel, "/a", 1)):
        assert not check.ok
        assert f"`{rel}`" in check.message
        assert "outside" in check.message


def test_checks_read_absolute_paths_anywhere(ws: Workspace, tmp_path: Path) -> None:
    """Asserts read: "relative to the workspace unless prefixed with /" lets them look outside."""
    doc = tmp_path / "elsewhere.json"
    doc.write_text('{"a": 1}')
    assert ws.check_fs_exists(str(doc)) == CheckOutcome(True, f"`{doc}` exists")
    assert ws.check_fs_not_exists(str(tmp_path / "absent")).ok
    assert ws.check_json_file(str(doc), "/a", 1).ok


DOC = {"a": [{"b": 1}, {"b": [True, None]}], "x/y": "slash", "m~n": "tilde", "": "empty key", "n": 2.0}


def test_check_json_file(ws: Workspace) -> None:
    (ws.path / "conf.json").write_text(json.dumps(DOC))
    assert ws.check_json_file("conf.json", "/a/0/b", 1) == CheckOutcome(True, "`conf.json` /a/0/b is 1")
    assert ws.check_json_file("conf.json", "/a/1/b", [True, None]).ok
    assert ws.check_json_file("conf.json", "/x~1y", "slash").ok
    assert ws.check_json_file("conf.json", "/m~0n", "tilde").ok

    wrong = ws.check_json_file("conf.json", "/a/0/b", 2)
    assert wrong == CheckOutcome(False, "`conf.json` /a/0/b is 1, expected 2")

    missing = ws.check_json_file("conf.json", "/a/0/c", 1)
    assert not missing.ok
    assert "no key 'c'" in missing.message
    assert "/a/0/c" in missing.message

    out_of_range = ws.check_json_file("conf.json", "/a/5", 1)
    assert not out_of_range.ok
    assert "no item 5 in a list of 2" in out_of_range.message

    numbers = ws.check_json_file("conf.json", "/n", 2)
    assert numbers.ok  # 2.0 in the file is the JSON number 2
    assert not ws.check_json_file("conf.json", "/a/1/b/0", 1).ok  # true is not 1
    assert ws.check_json_file("conf.json", "", DOC).ok


def test_check_json_file_that_is_missing_or_not_json(ws: Workspace) -> None:
    (ws.path / "bad.json").write_text("{not json")
    assert not ws.check_json_file("bad.json", "/a", 1).ok
    assert not ws.check_json_file("absent.json", "/a", 1).ok


@pytest.mark.parametrize(
    ("pointer", "value"),
    [
        ("", DOC),
        ("/a/0/b", 1),
        ("/a/1/b/0", True),
        ("/x~1y", "slash"),
        ("/m~0n", "tilde"),
        ("/", "empty key"),
    ],
)
def test_json_pointer(pointer: str, value: object) -> None:
    assert json_pointer(DOC, pointer) == value


@pytest.mark.parametrize(
    ("pointer", "message"),
    [
        ("/nope", "no key 'nope' (keys: 'a', 'x/y', 'm~n', '', 'n')"),
        ("/a/x", "'x' is not an index into a list of 2"),
        ("/a/01", "'01' is not an index into a list of 2"),
        ("/a/-", "'-' is not an index into a list of 2"),
        ("/a/\u00b2", "'\u00b2' is not an index into a list of 2"),  # a digit to str.isdigit, not to int
        ("/a/\u0661", "'\u0661' is not an index into a list of 2"),  # Arabic-Indic 1: no index of JSON's
        ("/a/2", "no item 2 in a list of 2"),
        ("/a/0/b/c", "cannot look up 'c' in 1"),
        ("a", "the pointer 'a' must be empty or start with `/`"),
    ],
)
def test_json_pointer_errors(pointer: str, message: str) -> None:
    with pytest.raises(LookupError) as info:
        json_pointer(DOC, pointer)
    assert str(info.value) == message


def test_json_pointer_unescapes_in_order() -> None:
    # `~01` is `~1` (a tilde then a one), not a slash
    assert json_pointer({"~1": "tilde-one", "/": "slash"}, "/~01") == "tilde-one"


def test_check_git_commit_message_contains(temp_root: Path, scenario_dir: Path) -> None:
    with Workspace.create(scenario_dir, repo(init=True)) as workspace:
        workspace.commit("Fix the parser (closes #12)")
        ok = workspace.check_git_commit_message_contains("closes #12")
        assert ok.ok
        assert "Fix the parser" in ok.message
        bad = workspace.check_git_commit_message_contains("refactor")
        assert not bad.ok
        assert "'refactor'" in bad.message


def test_check_git_commit_message_without_a_repo(ws: Workspace) -> None:
    check = ws.check_git_commit_message_contains("anything")
    assert not check.ok
    assert "no commit" in check.message


@pytest.mark.parametrize(
    ("files", "pattern", "ok"),
    [
        (["top.py"], "*.py", True),
        (["pkg/mod.py"], "*.py", False),  # a pattern without a slash is top level only
        (["out/a.txt"], "out/*.txt", True),
        (["out/deep/a.txt"], "out/*.txt", False),
        (["deep/out/a.txt"], "out/*.txt", False),  # anchored at the workspace root
        (["out/a.log"], "out/*.txt", False),
        (["root.log"], "**/*.log", True),  # `**/` may be no folder at all
        (["logs/x/y/run.log"], "**/*.log", True),
        (["logs/run.txt"], "**/*.log", False),
        (["src/a.py"], "src/**/*.py", True),
        (["src/x/y/a.py"], "src/**/*.py", True),
        (["other/a.py"], "src/**/*.py", False),
        (["a/b/c"], "**", True),
        (["src/a.ts"], "src/*.{ts,tsx}", True),  # braces, as ripgrep and Claude Code's Glob have them
        (["src/a.tsx"], "src/*.{ts,tsx}", True),
        (["src/a.js"], "src/*.{ts,tsx}", False),
        (["build/x/out.bin"], "build/**", True),
        (["a1.txt"], "a[0-9].txt", True),
        (["ab.txt"], "a[!0-9].txt", True),
        (["a1.txt"], "a[!0-9].txt", False),
        (["a?.txt"], "a\\?.txt", True),  # a backslash makes the next character literal
        (["ab.txt"], "a\\?.txt", False),
        (["x/a.txt"], "./x/a.txt", True),
        (["{x.txt"], "{x.txt", True),  # an unclosed brace is literal
    ],
)
def test_check_artifacts_globs(files: list[str], pattern: str, ok: bool, tmp_path: Path) -> None:
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    check = Workspace.attach(tmp_path).check_artifacts([pattern])
    assert check.ok is ok, check.message
    if not ok:
        assert check.message == f"no file matches `{pattern}`"


def test_check_artifacts_names_every_missing_pattern_and_ignores_git(
    temp_root: Path, scenario_dir: Path
) -> None:
    with Workspace.create(scenario_dir, repo(init=True, files={"a.py": b""})) as workspace:
        assert workspace.check_artifacts(["a.py", "*.py"]) == CheckOutcome(
            True, "every artifact pattern matches (`a.py`, `*.py`)"
        )
        check = workspace.check_artifacts(["*.py", "*.md", "**/HEAD"])
        assert check == CheckOutcome(False, "no file matches `*.md`, `**/HEAD`")


# --------------------------------------------------------------------------- confinement, generally


@pytest.fixture(scope="module")
def confined_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("confine")
    root = base / "ws"
    (root / "a" / "b").mkdir(parents=True)
    (base / "elsewhere").mkdir()
    (root / "out").symlink_to(base / "elsewhere", target_is_directory=True)
    (root / "up").symlink_to("..", target_is_directory=True)
    (root / "inner").symlink_to("a", target_is_directory=True)
    return root


SEGMENTS = st.sampled_from(["a", "b", "..", ".", "", "out", "up", "inner", "x"])
PATHS = st.one_of(
    st.text(alphabet="/.abx", max_size=24),
    st.builds(
        lambda lead, parts: lead + "/".join(parts),
        st.sampled_from(["", "/", "./"]),
        st.lists(SEGMENTS, max_size=8),
    ),
)


@settings(max_examples=400)
@given(rel=PATHS)
def test_any_path_resolves_inside_or_raises(confined_root: Path, rel: str) -> None:
    root = confined_root.resolve()
    workspace = Workspace.attach(confined_root)
    try:
        target = workspace.resolve(rel)
    except WorkspaceError as exc:
        assert f"`{rel}`" in str(exc)
        return
    assert target == root or root in target.parents
    assert os.path.realpath(target) == str(target)  # already resolved: no symlink left to lead out


@pytest.mark.parametrize(
    ("rel", "expected"),
    [("inner/x", "a/x"), ("a/../b", "b"), ("up/ws/a", "a"), (".", ""), ("out/x", None), ("up/x", None)],
)
def test_symlinks_are_followed(confined_root: Path, rel: str, expected: str | None) -> None:
    workspace = Workspace.attach(confined_root)
    if expected is None:
        with pytest.raises(WorkspaceError, match="leads outside the workspace"):
            workspace.resolve(rel)
    else:
        assert workspace.resolve(rel) == confined_root.resolve() / expected
