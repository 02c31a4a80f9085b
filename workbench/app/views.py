"""The panes a narrow window shows one at a time, in the order of their number keys (1-5, alt+1-5 anywhere)."""

VIEWS = ("browser", "editor", "terminal", "shots", "failures")
VIEW_LABELS = ("Scenarios", "Editor", "Terminal", "Screenshots", "Failures")
