"""The sandbox every check runs in: bubblewrap when it is there (DESIGN section 13).

Generated code is untrusted. Under bubblewrap (``bwrap``, the Debian package ``bubblewrap``) a
check gets:

- no network (``--unshare-net``: a loopback of its own, nothing of this machine's 127.0.0.1);
- its own PID namespace (``--unshare-pid``): it cannot see or signal orch-tui, and when the
  check's first process exits the kernel kills everything left in the namespace, ``setsid()``
  children included;
- the whole file system read-only (``--ro-bind / /``), except the workspace and the folder
  its JUnit report goes to, a private empty ``/tmp`` and fresh ``/proc`` and ``/dev``; so
  ``$HOME`` is not writable, and neither is the project's ``.venv`` in the workspace (its
  interpreter later runs the installer outside the sandbox);
- ``--die-with-parent``: it dies with orch-tui, however orch-tui dies.

The sandbox wraps the check's command (:meth:`Sandbox.wrap`) and knows nothing else about
checks, so whatever builds the command (a project virtualenv, say) composes with it.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from orch_tui.core.config.models import SandboxMode

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
)


class SandboxError(Exception):
    """``checks.sandbox = "bwrap"`` and bubblewrap cannot be used; the message says why."""


@dataclass(frozen=True)
class Sandbox:
    """How checks are confined: ``name`` is ``"bwrap"`` or ``"none"``; ``why`` says why, for
    people (the header, ``status``, the run log)."""

    name: str
    why: str
    bwrap: str | None = None

    @property
    def confined(self) -> bool:
        return self.bwrap is not None

    def describe(self) -> str:
        return f"{self.name} ({self.why})"

    def wrap(
        self,
        command: Sequence[str],
        workspace: Path,
        writable: Sequence[Path] = (),
        read_only: Sequence[Path] = (),
    ) -> list[str]:
        """``command`` as run in this sandbox, with ``workspace`` (its working folder) and the
        ``writable`` folders the only places it may write besides its private /tmp; the
        existing ``read_only`` folders inside them (the project's ``.venv``) stay read-only."""
        if self.bwrap is None:
            return list(command)
        binds = [workspace.resolve(), *(folder.resolve() for folder in writable)]
        args = _bwrap_args(self.bwrap, binds, _programs_under_tmp(command))
        for folder in read_only:  # after the writable binds, so that they cover them
            if folder.is_dir():
                args += ["--ro-bind", str(folder.resolve()), str(folder.resolve())]
        return [*args, "--chdir", str(binds[0]), "--", *command]


NO_SANDBOX = Sandbox("none", 'checks.sandbox is "none"')


def _programs_under_tmp(command: Sequence[str]) -> list[Path]:
    """Folders under /tmp the check needs to read: the private /tmp would hide them.

    This interpreter's environment (``sys.prefix``: a virtualenv made in /tmp, as CI may) and
    the environment of the command's program (``<env>/bin/python``).
    """
    found = shutil.which(command[0]) if command else None
    candidates = [Path(sys.prefix)]
    if found:
        candidates.append(Path(found).parent.parent)
    tmp = Path("/tmp")
    folders: list[Path] = []
    for folder in candidates:
        resolved = folder.resolve()
        if resolved != tmp and resolved.is_relative_to(tmp) and resolved not in folders:
            folders.append(resolved)
    return folders


def _bwrap_args(bwrap: str, writable: Sequence[Path], readable: Sequence[Path] = ()) -> list[str]:
    args = [
        bwrap,
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
        "--new-session",
    ]  # fmt: skip
    # After the tmpfs, so that folders under /tmp (a workspace there) are bound on top of it.
    for folder in readable:
        args += ["--ro-bind", str(folder), str(folder)]
    for folder in writable:
        args += ["--bind", str(folder), str(folder)]
    return args


def resolve_sandbox(mode: SandboxMode) -> Sandbox:
    """The sandbox ``mode`` gives on this machine.

    ``"auto"``: bubblewrap if it is on the PATH and works here, else none (``why`` says which).
    ``"bwrap"``: bubblewrap or :class:`SandboxError`. ``"none"``: none.
    """
    if mode == "none":
        return NO_SANDBOX
    found, problem = _probe_bwrap()
    if found is not None:
        return Sandbox("bwrap", "no network, own PID namespace, read-only file system", found)
    if mode == "bwrap":
        raise SandboxError(f'checks.sandbox is "bwrap" but {problem}; {INSTALL_HINT}')
    return Sandbox("none", f"{problem}; {INSTALL_HINT} to confine checks")


@functools.cache
def _probe_bwrap() -> tuple[str | None, str]:
    """bwrap's path, or None and why it cannot be used (it may be installed yet refused by the
    kernel, e.g. without unprivileged user namespaces). Probed once per process."""
    found = shutil.which("bwrap")
    if found is None:
        return None, "bwrap is not on the PATH"
    probe = [*_bwrap_args(found, ()), "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bwrap does not run here ({exc})"
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "it failed"
        return None, f"bwrap does not work here ({reason})"
    return found, ""
