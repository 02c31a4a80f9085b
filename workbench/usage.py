"""Exit codes and the argument parser shared by every command, the CLI's and the servers'.

It sits below every layer so that a server started on its own (`workbench serve
llm`) reports bad flags exactly as the CLI does, without importing the CLI.

Exit codes, for every command: 0 success; 1 a scenario failed; 2 invalid input
(a scenario, a config, a flag) with diagnostics on stderr; 3 internal error (a
bug: the traceback goes to a file whose path is printed).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from workbench.names import EXIT_FAILED, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, EXIT_TERMINATED

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "Terminated",
    "UsageError",
    "UsageParser",
    "add_define",
    "add_listen_arguments",
    "check_folder",
    "check_output",
    "define_arg",
    "host_arg",
    "not_there",
    "path_arg",
    "path_exists",
    "port_number",
    "stop_signals",
    "tags_arg",
]


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI runner cancelling) or SIGHUP (the terminal closed): handled exactly as Ctrl-C is, but
    the command exits 128 + that signal (143, 129)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


def stop_signals() -> tuple[signal.Signals, ...]:
    """The signals besides Ctrl-C that end a command as Ctrl-C does (:class:`Terminated`): SIGTERM, and
    SIGHUP unless this process ignores it (``nohup``: then it goes on ignoring it, as asked)."""
    if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
        return (signal.SIGTERM,)
    return (signal.SIGTERM, signal.SIGHUP)


class UsageError(Exception):
    """A bad flag or argument: reported like a diagnostic, exit 2."""


class UsageParser(argparse.ArgumentParser):
    """argparse that exits 2 (invalid input) on a bad flag, as every command of the workbench does."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID)


def path_exists(path: Path) -> bool:
    """``path.exists()``; a name the file system refuses (too long, a symlink loop) is a usage error."""
    try:
        return path.exists()
    except OSError as exc:
        raise UsageError(f"{path}: cannot be looked up: {exc.strerror or exc}") from None


def not_there(path: Path) -> str:
    """Why ``path``, which :func:`path_exists` says is not there, is not: no such file, or a symlink whose
    target is not there, or a symlink that leads back to itself (both were "file not found", for a name the
    user sees listed)."""
    if not path.is_symlink():
        return "file not found"
    try:
        path.resolve(strict=True)
    except FileNotFoundError:
        return f"a symlink to {os.readlink(path)}, which is not there"
    except (RuntimeError, OSError):  # Python 3.11 says RuntimeError for a loop, later ones OSError (ELOOP)
        return "a symlink that leads back to itself (a loop)"
    return "file not found"  # pragma: no cover - it came back while we looked


def check_output(
    path: Path | None, flag: str, *, folder: bool = False, example: str = "report.json", writes: bool = True
) -> None:
    """UsageError unless ``path`` (given with ``flag``) can be written: a file (or with ``folder``, a folder)
    there or none, in a folder that is there or can be made, and that this user may write in (unless
    nothing ``writes`` there: `--ci` only reads `--goldens`).

    Checked before anything runs, so that a CI job does not run every scenario to lose the report at the end.
    """
    if path is None:
        return
    if path_exists(path) and path.is_dir() != folder:
        hint = "give a folder" if folder else f"give a file name, such as {path / example}"
        raise UsageError(f"{flag} {path}: is a {'file' if folder else 'folder'}; {hint}")
    place = Path(os.path.abspath(path if folder else path.parent))
    while not path_exists(place):
        place = place.parent
    if not place.is_dir():
        raise UsageError(f"{flag} {path}: {place} is a file, so no folder can be made there")
    if writes and not os.access(place, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: cannot write in {place} (permission denied)")
    if writes:
        _probe(place, path, flag)


def _probe(place: Path, path: Path, flag: str) -> None:
    """UsageError unless a file can be made in ``place``: root may write anywhere the permissions say, yet
    not in /proc or /sys, nor where the file system refuses new files; a nameless temp file (O_TMPFILE,
    else one removed at once) asks the file system itself."""
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=place):
            pass
    except OSError as exc:
        raise UsageError(
            f"{flag} {path}: cannot write in {place}: {exc.strerror or exc}; give a path in a folder that takes files"
        ) from None


def check_folder(path: Path | None, flag: str, purpose: str) -> None:
    """UsageError unless ``path`` (given with ``flag``) is a folder that is there: one that is read from
    (``purpose`` says what for), where a file or a missing name would only fail later, one step at a time."""
    if path is None:
        return
    if not path_exists(path):
        raise UsageError(f"{flag} {path}: no such folder ({purpose})")
    if not path.is_dir():
        raise UsageError(f"{flag} {path}: is a file; give a folder ({purpose})")


def port_number(text: str) -> int:
    """The argparse type of a ``--port``: 0 to 65535 (0: a free one), or argparse's usage error, exit 2."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0..65535, got {port}")
    return port


def path_arg(text: str) -> Path:
    """The argparse type of a file or folder argument: an empty one (an unset variable in a CI step,
    ``--goldens "$DIR"``) is refused, where ``Path("")`` is the current folder: goldens, runs or a
    whole scan would have gone there without a word."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path: give a file or folder name (`.` for this folder)")
    return Path(text)


def host_arg(text: str) -> str:
    """The argparse type of a ``--host``: an empty one (an unset variable) is refused, where the socket
    layer takes it for every interface, and a server meant for this machine would listen on the network."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "an empty address: give 127.0.0.1 (this machine only) or 0.0.0.0 (every interface, on purpose)"
        )
    return text


DEFINE_FORM = "KEY=VALUE, such as --define os=linux (KEY: a letter or _, then letters, digits, _ . -)"


def define_arg(text: str) -> str:
    """The argparse type of a ``--define``: ``KEY=VALUE``. An empty one (an unset variable, ``-D "$FLAGS"``)
    is refused, where it was taken for no define at all, and so is one with no ``=`` or a bad key: a usage
    error naming the option, not one validation error per scenario."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty define: give {DEFINE_FORM}")
    from workbench.scenario.rules import DEFINE_KEY

    key, sep, _value = text.strip().partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r} has no `=`: give {DEFINE_FORM}")
    if not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} has no key before `=`: give {DEFINE_FORM}")
    if not DEFINE_KEY.match(key.strip()):
        raise argparse.ArgumentTypeError(
            f"{text!r}: the key {key.strip()!r} is not a name: give {DEFINE_FORM}"
        )
    return text


def add_define(p: argparse.ArgumentParser, help: str = "a symbol for `rules` conditions") -> None:
    """The ``--define K=V`` option (repeatable) every command that loads scenarios has, checked by
    :func:`define_arg`; `AH_SCENARIO_DEFINES=K=V,...` gives more (the command line wins)."""
    p.add_argument("--define", "-D", action="append", default=[], type=define_arg, metavar="K=V",
                   help=f"{help} (also from AH_SCENARIO_DEFINES=K=V,...)")  # fmt: skip


def tags_arg(text: str) -> str:
    """The argparse type of a ``--tags`` list: at least one tag. An empty one (``--tags "$TAGS"`` with the
    variable unset, or ``,``) is refused, where it selected every scenario as if no ``--tags`` were given."""
    if not any(tag.strip() for tag in text.split(",")):
        raise argparse.ArgumentTypeError(
            f"no tag in {text!r}: give a tag or several, comma-separated, such as --tags smoke,git"
        )
    return text


def add_listen_arguments(p: argparse.ArgumentParser) -> None:
    """What every scenario server (`serve llm`, `serve rest`) takes to listen: its SCENARIO files or folders,
    ``--host`` and ``--port``, checked alike (:func:`path_arg`, :func:`host_arg`, :func:`port_number`)."""
    p.add_argument("paths", nargs="+", type=path_arg, metavar="SCENARIO", help="scenario files or folders")
    p.add_argument("--host", type=host_arg, default="127.0.0.1",
                   help="address to bind (default 127.0.0.1, loopback only)")  # fmt: skip
    p.add_argument("--port", type=port_number, default=0, help="port, 0..65535 (default 0: a free one)")
