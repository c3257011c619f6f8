"""Where a project's files live (DESIGN section 4)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from orch_tui.core.config.files import CONFIG_NAME, find_project_root
from orch_tui.core.util.records import record

STATE_NAME = "state.json"


@record(frozen=True)
class ProjectPaths:
    """All paths are relative to the folder holding orchestrator.toml (or the current folder)."""

    root: Path
    chosen_workspace: Path | None = None
    """An existing folder named by ``--workspace`` or ``paths.workspace``; None: ``workspace/``."""
    config_file: Path | None = None
    """The file ``--config`` named, whatever its name; None: ``orchestrator.toml`` in ``root``."""

    @classmethod
    def locate(cls, config: Path | None = None, cwd: Path | None = None) -> ProjectPaths:
        if config is not None:
            return cls(config.resolve().parent, config_file=config.resolve())
        return cls(find_project_root(cwd or Path.cwd()))

    @classmethod
    def here(cls, config: Path | None = None, cwd: Path | None = None) -> ProjectPaths:
        """The folder of ``config``, else the current folder itself, never a parent: commands
        that remove files (``reset``) act only where the person ran them or pointed them."""
        if config is not None:
            return cls(config.resolve().parent, config_file=config.resolve())
        return cls((cwd or Path.cwd()).resolve())

    def with_workspace(self, folder: Path | str | None) -> ProjectPaths:
        """These paths working in ``folder`` (relative to ``root``); empty or None: the default."""
        if folder is None or str(folder) == "":
            return self
        chosen = (self.root / Path(folder).expanduser()).resolve()
        if chosen == self.default_workspace.resolve():
            return replace(self, chosen_workspace=None)
        return replace(self, chosen_workspace=chosen)

    @property
    def config(self) -> Path:
        return self.config_file or self.root / CONFIG_NAME

    @property
    def state(self) -> Path:
        return self.root / STATE_NAME

    @property
    def default_workspace(self) -> Path:
        """``workspace/``: created by orch-tui, so reset may empty it."""
        return self.root / "workspace"

    @property
    def workspace(self) -> Path:
        return self.chosen_workspace or self.default_workspace

    @property
    def is_default_workspace(self) -> bool:
        """False for a person's existing folder, whose files orch-tui never deletes."""
        return self.chosen_workspace is None

    @property
    def prompts(self) -> Path:
        """Templates here override the packaged prompts, file by file."""
        return self.root / "prompts"

    @property
    def logs(self) -> Path:
        return self.root / "logs"


def shown_workspace(paths: ProjectPaths) -> str:
    """The workspace as a person would type it from the project folder: ``workspace/``, or
    ``--workspace``'s folder (``../repo``; absolute when that is shorter)."""
    if paths.is_default_workspace:
        return "workspace/"
    absolute = str(paths.workspace)
    relative = os.path.relpath(paths.workspace, paths.root)
    return relative if len(relative) < len(absolute) else absolute
