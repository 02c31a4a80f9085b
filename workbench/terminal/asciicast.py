"""Recording of the raw terminal stream as an asciicast v2 file, playable by asciinema.

The first line is a JSON header (``version`` 2, ``width``, ``height``,
``timestamp``, ``env``); each further line is ``[seconds, code, data]`` with
seconds since the recording started: ``"o"`` output as the program wrote it
(escape sequences included), ``"m"`` a marker (our screenshot labels, so a
player can jump to them), ``"r"`` a resize ``"WxH"``. Lines are flushed as they
are written, so a run that is killed still leaves a playable recording.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import TracebackType
from typing import TextIO


class AsciicastRecorder:
    """Writes one asciicast v2 file; the pty session calls :meth:`output` with each decoded read."""

    def __init__(self, path: Path, width: int, height: int, *, title: str | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO | None = self.path.open("w", encoding="utf-8")
        self._start = time.monotonic()
        header: dict[str, object] = {
            "version": 2, "width": width, "height": height, "timestamp": int(time.time()),
            "env": {"TERM": "xterm-256color", "SHELL": "/bin/sh"},
        }  # fmt: skip
        if title:
            header["title"] = title
        self._write(header)

    @property
    def closed(self) -> bool:
        return self._file is None

    def _write(self, record: object) -> None:
        if self._file is None:
            return
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()

    def _event(self, code: str, data: str) -> None:
        self._write([round(time.monotonic() - self._start, 6), code, data])

    def output(self, text: str) -> None:
        """Program output, as decoded text."""
        if text:
            self._event("o", text)

    def marker(self, label: str) -> None:
        """A named point in the recording (asciinema's players can jump between markers)."""
        self._event("m", label)

    def resize(self, width: int, height: int) -> None:
        self._event("r", f"{width}x{height}")

    def close(self) -> None:
        """Finish the file; later events are ignored. Idempotent."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> AsciicastRecorder:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
