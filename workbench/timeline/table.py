"""Render a schedule as the plain-text table of `workbench timeline`."""

from __future__ import annotations

from .compiler import Schedule


def format_ms(ms: int) -> str:
    """Virtual time as seconds with millisecond precision: `12.345`."""
    return f"{ms // 1000}.{ms % 1000:03d}"


EVENT_WIDTH = 72


def _clip(text: str) -> str:
    return text if len(text) <= EVENT_WIDTH else text[: EVENT_WIDTH - 1] + "…"


def render_table(schedule: Schedule) -> str:
    header = ("#", "time (s)", "actor", "event", "line")
    rows = [
        (str(s.index), format_ms(s.at_ms), s.actor, _clip(s.summary), str(s.pos.line)) for s in schedule.steps
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    right = {0, 1, 4}

    def line(cells: tuple[str, ...]) -> str:
        parts = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(cells)]
        return "  ".join(parts).rstrip()

    out = [line(header), line(tuple("-" * w for w in widths))]
    out += [line(r) for r in rows]
    sc = schedule.scenario
    out.append("")
    out.append(f"{sc.name}: {len(schedule.steps)} steps, {format_ms(schedule.duration_ms)} s of virtual time")
    return "\n".join(out) + "\n"
