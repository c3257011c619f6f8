"""The sandbox every check runs in: bubblewrap when it is there (DESIGN section 13).

Generated code is untrusted. Under bubblewrap (``bwrap``, the Debian package ``bubblewrap``) a
check gets (docs/sandbox.md has the table of what it can and cannot reach):

- a user namespace where it is the unprivileged uid and gid 65534, with every capability dropped
  (``--cap-drop ALL``), so even when orch-tui runs as root it cannot remount, unmount or ptrace;
- no network (``--unshare-net``: a loopback of its own, nothing of this machine's 127.0.0.1);
- its own PID namespace (``--unshare-pid``): it cannot see or signal orch-tui, and when the
  check's first process exits the kernel kills everything left in the namespace, ``setsid()``
  children included;
- an empty root with only what a check needs, read-only: the system folders (``/usr``, ``/bin``,
  ``/lib*``, ``/sbin``), a few files of ``/etc`` (:data:`ETC_FILES`; never ``shadow`` and its
  kind), and the Python environments it runs with; the workspace and the folder its JUnit
  report goes to are its only writable places, with ``.venv`` and ``.git`` in it read-only.
  The project folder (``.env``, ``orchestrator.toml``, ``state.json``, ``logs/``), the home
  folder, ``/run`` and host sockets are not there at all;
- a private ``/tmp`` of bounded size, fresh ``/proc`` and ``/dev``, ``HOME=/tmp``, and process
  and memory limits (:class:`Limits`, set by a small launcher inside before the command starts);
- ``--die-with-parent``: it dies with orch-tui, however orch-tui dies.

The sandbox wraps the check's command (:meth:`Sandbox.wrap`) and knows nothing else about
checks, so whatever builds the command (a project virtualenv, say) composes with it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orch_tui.core.config.files import SandboxMode
from orch_tui.core.util.records import record

if TYPE_CHECKING:  # status resolves the sandbox without loading the config models
    from orch_tui.core.config.models import ChecksConfig

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
)

SANDBOX_UID = 65534
"""The uid and gid a check has inside its user namespace (``nobody``)."""

SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Bound read-only (or recreated as the symlinks they are, on a merged /usr)."""

ETC_FILES = (
    "alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
    "nsswitch.conf", "passwd", "group", "hosts", "host.conf", "protocols", "services",
    "mime.types", "os-release", "locale.alias", "ssl", "ca-certificates", "pki",
    "python3", f"python{sys.version_info.major}.{sys.version_info.minor}",
)  # fmt: skip
"""What of /etc a check sees: what the loader, Python and its standard library read. No
``shadow``, ``gshadow``, ``sudoers``, ``ssh``, nor anything else that holds a secret."""

# Runs as ``python -I -S -c LAUNCHER nproc as_bytes command...`` inside the sandbox: the limits
# are set in there, on the check's own processes only, then the command replaces it.
_LAUNCHER = """\
import os, resource, sys
resource.setrlimit(resource.RLIMIT_NPROC, (int(sys.argv[1]),) * 2)
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]),) * 2)
os.execvp(sys.argv[3], sys.argv[3:])
"""

_MIB = 1024 * 1024


class SandboxError(Exception):
    """``checks.sandbox = "bwrap"`` and bubblewrap cannot be used; the message says why."""


@record(frozen=True)
class Limits:
    """What a sandboxed check may use: its /tmp's size, its processes, each one's memory."""

    tmp_bytes: int = 512 * _MIB
    max_processes: int = 256
    max_memory_bytes: int = 4096 * _MIB

    @classmethod
    def from_config(cls, checks: ChecksConfig) -> Limits:
        return cls(
            tmp_bytes=checks.tmp_size_mb * _MIB,
            max_processes=checks.max_processes,
            max_memory_bytes=checks.max_memory_mb * _MIB,
        )


@record(frozen=True)
class Sandbox:
    """How checks are confined: ``name`` is ``"bwrap"`` or ``"none"``; ``why`` says why, for
    people (the header, ``status``, the run log)."""

    name: str
    why: str
    bwrap: str | None = None
    limits: Limits = Limits()

    @property
    def confined(self) -> bool:
        return self.bwrap is not None

    def describe(self) -> str:
        return f"{self.name} ({self.why})"

    def with_limits(self, limits: Limits) -> Sandbox:
        return dataclasses.replace(self, limits=limits)

    def wrap(
        self,
        command: Sequence[str],
        workspace: Path,
        writable: Sequence[Path] = (),
        read_only: Sequence[Path] = (),
    ) -> list[str]:
        """``command`` as run in this sandbox, with ``workspace`` (its working folder) and the
        ``writable`` folders the only places it may write besides its private /tmp; the
        existing ``read_only`` paths inside them (the project's ``.venv``, ``.git``) stay
        read-only."""
        if self.bwrap is None:
            return list(command)
        workspace = workspace.resolve()
        args = [*_bwrap_args(self.bwrap, self.limits.tmp_bytes)]
        for folder in _environments(command, workspace):
            args += ["--ro-bind", str(folder), str(folder)]
        for folder in (workspace, *(path.resolve() for path in writable)):
            args += ["--bind", str(folder), str(folder)]
        for path in read_only:  # after the writable binds, so that they cover them
            if path.exists():
                args += ["--ro-bind", str(path.resolve()), str(path.resolve())]
        limits = self.limits
        launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER]
        launcher += [str(limits.max_processes), str(limits.max_memory_bytes)]
        # The root is a tmpfs of bwrap's holding the mount points: read-only once they are made.
        args += ["--remount-ro", "/", "--chdir", str(workspace)]
        return [*args, "--", *launcher, *command]


NO_SANDBOX = Sandbox("none", 'checks.sandbox is "none"')


def _environments(command: Sequence[str], workspace: Path) -> list[Path]:
    """The Python environments and program folders a check needs to read: orch-tui's own
    interpreter (it runs the launcher) and its base installation, and the environment of the
    command's program (``<env>/bin/python``), each as given and resolved.

    Left out: what the system folders already hold, and any folder that is or holds the
    workspace (the project folder around it) or the home folder.
    """
    found = shutil.which(command[0]) if command else None
    target = os.path.realpath(found) if found else None  # a recreated .venv: a new answer
    resolved_home = _resolved_home(os.environ.get("HOME", ""))
    return [
        folder
        for folder in _program_folders(found, target)
        if not workspace.is_relative_to(folder) and not resolved_home.is_relative_to(folder)
    ]


@functools.lru_cache(maxsize=16)
def _program_folders(found: str | None, target: str | None) -> tuple[Path, ...]:
    """:func:`_environments` for the program found at ``found`` (a link to ``target``) before
    the workspace and the home folder are left out: the same for every check of a process,
    so worked out once per program, not per workspace (the evidence's scratch runs check a
    new copy of the workspace every attempt)."""
    candidates = list(_own_installation())
    if found and target:
        candidates += [Path(found).parent.parent.resolve(), Path(target).parent.parent]
    folders: list[Path] = []
    for resolved in candidates:
        covered = any(resolved.is_relative_to(system) for system in SYSTEM_FOLDERS)
        if not covered and resolved not in folders and resolved.is_dir():
            folders.append(resolved)
    return tuple(folders)


@functools.cache
def _own_installation() -> tuple[Path, ...]:
    """orch-tui's own interpreter's environment, its base installation and its folder,
    resolved: the same for every check this process runs (resolving them was most of the cost
    of wrapping a check)."""
    own = (Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent)
    return tuple(folder.resolve() for folder in own)


@functools.lru_cache(maxsize=4)
def _resolved_home(home: str) -> Path:
    """The home folder (``HOME``, else the password database's) resolved, once per value."""
    return (Path(home) if home else Path.home()).resolve()


@functools.cache
def _system_binds() -> tuple[str, ...]:
    """The system folders' arguments: a symlink recreated (a merged /usr), a folder bound."""
    args: list[str] = []
    for folder in SYSTEM_FOLDERS:
        path = Path(folder)
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), folder]
        elif path.is_dir():
            args += ["--ro-bind", folder, folder]
    return tuple(args)


def _bwrap_args(bwrap: str, tmp_bytes: int) -> list[str]:
    args = [
        bwrap,
        "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
        "--cap-drop", "ALL",
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
    ]  # fmt: skip
    args += _system_binds()
    for name in ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--dev", "/dev", "--proc", "/proc", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    return [*args, "--setenv", "HOME", "/tmp"]


def resolve_sandbox(mode: SandboxMode) -> Sandbox:
    """The sandbox ``mode`` gives on this machine.

    ``"auto"``: bubblewrap if it is on the PATH and works here, else none (``why`` says which).
    ``"bwrap"``: bubblewrap or :class:`SandboxError`. ``"none"``: none.
    """
    if mode == "none":
        return NO_SANDBOX
    if _early_probe is not None:
        _early_probe.join()  # its answer is the cached one below
    found, problem = _probe_bwrap()
    if found is not None:
        return Sandbox("bwrap", _CONFINED, found)
    if mode == "bwrap":
        raise SandboxError(f'checks.sandbox is "bwrap" but {problem}; {INSTALL_HINT}')
    return Sandbox("none", f"{problem}; {INSTALL_HINT} to confine checks")


_early_probe: threading.Thread | None = None


def probe_early() -> None:
    """Start bubblewrap's probe on a thread: a run's imports and set-up overlap the process it
    waits for, and :func:`resolve_sandbox` takes its answer. Once per process."""
    global _early_probe
    if _early_probe is None:
        _early_probe = threading.Thread(target=_probe_bwrap, name="bwrap-probe", daemon=True)
        _early_probe.start()


_CONFINED = (
    "no network, own PID namespace, unprivileged user without capabilities, only the workspace "
    "writable"
)


@functools.cache
def _probe_bwrap() -> tuple[str | None, str]:
    """bwrap's path, or None and why it cannot be used (it may be installed yet refused by the
    kernel, e.g. without unprivileged user namespaces). Probed once per process."""
    found = shutil.which("bwrap")
    if found is None:
        return None, "bwrap is not on the PATH"
    probe = [*_bwrap_args(found, Limits().tmp_bytes), "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bwrap does not run here ({exc})"
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "it failed"
        return None, f"bwrap does not work here ({reason})"
    return found, ""
