"""The run's workspace: temp folder, real git, patches, path confinement and checks."""

from workbench.scenario.outcomes import CheckOutcome

from .confine import WorkspaceError, confine
from .git import IDENTITY, GitError, git
from .globs import glob_match
from .jsonpointer import json_pointer
from .workspace import Snapshot, Workspace, json_equal

__all__ = [
    "IDENTITY",
    "CheckOutcome",
    "GitError",
    "Snapshot",
    "Workspace",
    "WorkspaceError",
    "confine",
    "git",
    "glob_match",
    "json_equal",
    "json_pointer",
]
