"""The app's widgets, one module per pane: browser, editor, timeline, terminal, diff."""
