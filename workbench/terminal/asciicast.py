"""Recording of the raw terminal stream as an asciicast v2 file, playable by asciinema.

The first line is a JSON header; each further line is ``[seconds, code, data]``:
``"o"`` output, ``"m"`` a marker (our screenshot labels, so a player can jump to
them), ``"r"`` a resize ``"WxH"``. Lines are flushed as they are written, so a
run that is killed still leaves a playable recording of what happened.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TextIO


class AsciicastRecorder:
    def __init__(self, path: Path, width: int, height: int, *, title: str | None = None) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO | None = path.open("w", encoding="utf-8")
        self._start = time.monotonic()
        header: dict[str, object] = {
            "version": 2, "width": width, "height": height, "timestamp": int(time.time()),
            "env": {"TERM": "xterm-256color", "SHELL": "/bin/sh"},
        }  # fmt: skip
        if title:
            header["title"] = title
        self._write(header)

    def _write(self, record: object) -> None:
        if self._file is None:
            return
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()

    def _event(self, code: str, data: str) -> None:
        self._write([round(time.monotonic() - self._start, 6), code, data])

    def output(self, text: str) -> None:
        if text:
            self._event("o", text)

    def marker(self, label: str) -> None:
        self._event("m", label)

    def resize(self, width: int, height: int) -> None:
        self._event("r", f"{width}x{height}")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
