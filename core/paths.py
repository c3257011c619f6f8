"""Where a project's files live (DESIGN section 4)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.config import CONFIG_NAME, find_project_root
from core.state import STATE_NAME


@dataclass(frozen=True)
class ProjectPaths:
    """All paths are relative to the folder holding orchestrator.toml (or the current folder)."""

    root: Path

    @classmethod
    def locate(cls, config: Path | None = None, cwd: Path | None = None) -> ProjectPaths:
        if config is not None:
            return cls(config.resolve().parent)
        return cls(find_project_root(cwd or Path.cwd()))

    @property
    def config(self) -> Path:
        return self.root / CONFIG_NAME

    @property
    def state(self) -> Path:
        return self.root / STATE_NAME

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def logs(self) -> Path:
        return self.root / "logs"
