"""Linux process hardening through ``prctl``, used with or without the sandbox.

- :func:`make_non_dumpable`: orch-tui's ``/proc/<pid>/environ`` (where ``ANTHROPIC_API_KEY``
  lives), ``mem`` and the like become readable by root only, so a check running as the same
  user cannot read the key from its parent.
  (Root, or a check holding ``CAP_SYS_PTRACE``, can still read it: only the sandbox stops that.)
- :func:`die_with_parent`: for ``preexec_fn``; the check gets SIGKILL when orch-tui dies,
  even by kill -9.
- :func:`guarded`: a command behind a small guard process that takes its whole process group
  down when orch-tui dies. Needed for bubblewrap: bwrap changes its credentials while it sets
  the sandbox up, which clears the parent-death signal; it arms its own again afterwards, but a
  kill -9 of orch-tui in between (a few milliseconds) left bwrap and the check running forever
  (measured: 21 of 40 kills landing in the first 10 ms). The guard also ends only after every
  process the command left has ended (it is their subreaper): the sandbox's init outlives
  bwrap's own exit by a moment.

Both do nothing where ``prctl`` is missing (macOS); what that leaves open is in the README.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Sequence

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4


def _load_prctl() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    # The interpreter's own symbols, libc's among them: ``find_library("c")`` would run
    # ``ldconfig -p`` in a child process on every start.
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):  # a libc without it, or no symbols of the interpreter's
        return None


# Loaded now, not in a forked child: loading a library between fork and exec can deadlock.
_PRCTL = _load_prctl()


def make_non_dumpable() -> bool:
    """Make this process non-dumpable; True if it now is."""
    prctl = _PRCTL
    return prctl is not None and prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0  # type: ignore[operator]


def die_with_parent() -> None:
    """In a child between fork and exec: be killed when the parent dies."""
    _signal_on_parent_death(signal.SIGKILL)


def _signal_on_parent_death(signum: int) -> None:
    prctl = _PRCTL
    if prctl is None:
        return
    prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)  # type: ignore[operator]
    if os.getppid() != _PARENT:  # the parent died before the signal was armed: it never comes
        os.kill(os.getpid(), signal.SIGKILL)


# The process that imported this module is the one that starts checks; its children compare
# their parent with it (orch-tui never forks a Python child that starts checks itself).
_PARENT = os.getpid()


# Runs as ``python -I -S -c GUARD command...``, in its own process group (the check's): on
# SIGTERM, its parent-death signal, it kills the whole group, the command and all it started.
# The command starts only once the handler is in place, so no moment is left unguarded.
#
# It is also the subreaper of what the command leaves, and exits only once that has ended too.
# bubblewrap's outer process exits as soon as the check's first process reports its status;
# the sandbox's init, its child, exits a moment later, once the kernel has killed everything
# left in the PID namespace (a ``setsid()`` child still running code in between). Reparented
# to the guard, that init is waited for, so a check has ended only when its sandbox is empty.
_GUARD = """\
import ctypes, os, signal, sys
signal.signal(signal.SIGTERM, lambda *_: os.killpg(0, signal.SIGKILL))
try:
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
except (AttributeError, OSError):
    pass
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
"""


def guarded(command: Sequence[str]) -> list[str]:
    """``command`` behind the guard; start it with :func:`guard_with_parent` as preexec_fn."""
    return [sys.executable, "-I", "-S", "-c", _GUARD, *command]


def guard_with_parent() -> None:
    """``preexec_fn`` for :func:`guarded`: the guard gets SIGTERM when the parent dies."""
    _signal_on_parent_death(signal.SIGTERM)
