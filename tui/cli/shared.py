"""What the commands share: the project's paths and config, its lock (failing with a message
is :mod:`failing`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from orch_tui.core.config.files import ConfigError, SandboxMode, read_toml
from orch_tui.core.config.glance import glance_config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.asking import Question
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.workspace.lock import ProjectLock, ProjectLocked
from orch_tui.tui.cli.failing import Refused, fail

if TYPE_CHECKING:
    from orch_tui.core.config.models import Config
    from orch_tui.core.config.plain import PlainConfig


def load_project(
    config_path: Path | None, workspace: Path | None = None
) -> tuple[ProjectPaths, Config]:
    """Paths and config; ``--workspace`` (relative to the current folder) beats ``paths.workspace``."""
    from orch_tui.core.config.models import load_config

    paths = _located(config_path)
    config = load_config(paths.config)
    chosen = workspace.resolve() if workspace is not None else config.paths.workspace
    return paths.with_workspace(chosen), config


def doctor_project(
    config_path: Path | None, provider: str | None
) -> tuple[ProjectPaths, Config | PlainConfig]:
    """:func:`load_project` for ``doctor``: without the config models when the config is
    plainly valid and the provider (``provider``, else the configured one) needs no API; the
    models read it otherwise, and refuse a bad config in their words."""
    from orch_tui.core.config.plain import plain_config

    paths = _located(config_path)
    plain = plain_config(read_toml(paths.config)) if paths.config.exists() else plain_config({})
    if plain is None or (provider or plain.model.provider) not in OFFLINE_PROVIDERS:
        return load_project(config_path)
    return paths.with_workspace(plain.workspace), plain


OFFLINE_PROVIDERS = ("scripted", "claude-code")
"""The providers ``doctor`` checks without a request, so without the whole config."""


def glance_project(config_path: Path | None) -> tuple[ProjectPaths, SandboxMode]:
    """Paths and sandbox mode as :func:`load_project` finds them, without the config models."""
    paths = _located(config_path)
    glance = glance_config(paths.config)
    return paths.with_workspace(glance.workspace), glance.sandbox


def _located(config_path: Path | None) -> ProjectPaths:
    paths = ProjectPaths.locate(config_path)
    if config_path is not None and not config_path.is_file():
        raise ConfigError(f"{config_path}: no such file")
    return paths


def holding_lock(paths: ProjectPaths, work: Callable[[], int]) -> int:
    """Do ``work`` holding the project's lock: a run, ``reset`` and ``restore`` all write the
    workspace and the state, so only one of them at a time (``status``, ``history`` only read)."""
    try:
        lock = acquire_lock(paths)
    except Refused as exc:
        return fail(exc.message, exc.code)
    try:
        return work()
    finally:
        lock.release()


def acquire_lock(paths: ProjectPaths) -> ProjectLock:
    """The project's lock, held; Refused: another run holds it, or it cannot be made."""
    lock = ProjectLock(paths.root, paths.workspace)
    try:
        lock.acquire()
    except ProjectLocked as exc:
        raise Refused(str(exc)) from None
    except OSError as exc:
        raise Refused(f"cannot lock {lock.path}: {exc.strerror or exc}") from None
    return lock


def question_lines(question: Question, spec: str) -> list[str]:
    return [
        *map(escape_controls, question.lines()),
        f'answer with: orch-tui {spec} --auto --guidance "TEXT" (or an option\'s number)',
    ]
