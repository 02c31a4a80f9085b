"""The app's headless core: what the panes show, worked out without Textual (an import-linter contract)."""
