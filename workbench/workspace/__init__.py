"""The run's workspace: temp folder, real git, patches, path confinement and checks."""

from .git import IDENTITY, GitError, git
from .workspace import Check, Workspace, WorkspaceError, confine, json_pointer

__all__ = ["IDENTITY", "Check", "GitError", "Workspace", "WorkspaceError", "confine", "git", "json_pointer"]
