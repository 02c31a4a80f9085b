"""The panes a narrow window shows one at a time, in the order of their number keys (1-6, alt+1-6 anywhere)."""

VIEWS = ("browser", "editor", "terminal", "step", "shots", "failures")
VIEW_LABELS = ("Scenarios", "Editor", "Terminal", "Step", "Screenshots", "Failures")
