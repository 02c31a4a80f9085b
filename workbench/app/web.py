"""`workbench --web` and `workbench show --web RUN`: the same app in a browser, served by textual-serve.

textual-serve starts one app process per browser tab and streams its screen to
xterm.js in the page; each tab runs ``python -m workbench <the same command>``,
so the browser shows exactly what the terminal would (a CI run's trace opened
by a teammate, for instance). The server listens on 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import shlex
import sys

DEFAULT_PORT = 8000


def app_command(argv: list[str]) -> str:
    """The shell command each browser tab runs: this interpreter, this package, ``argv``."""
    return shlex.join([sys.executable, "-m", "workbench", *argv])


def serve(argv: list[str], *, host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> int:
    """Serve ``workbench <argv>`` at http://host:port until interrupted."""
    from textual_serve.server import Server

    print(f"workbench: serving the app at http://{host}:{port} (ctrl+c stops)", file=sys.stderr)
    Server(app_command(argv), host=host, port=port, title="Scenario Workbench").serve()
    return 0
