"""Linux process hardening through ``prctl``, used with or without the sandbox.

- :func:`make_non_dumpable`: orch-tui's ``/proc/<pid>/environ`` (where ``ANTHROPIC_API_KEY``
  lives), ``mem`` and the like become readable by root only, so a check running as the same
  user cannot read the key from its parent.
  (Root, or a check holding ``CAP_SYS_PTRACE``, can still read it: only the sandbox stops that.)
- :func:`die_with_parent`: for ``preexec_fn``; the check gets SIGKILL when orch-tui dies,
  even by kill -9.

Both do nothing where ``prctl`` is missing (macOS); what that leaves open is in the README.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import signal
import sys

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4


def _load_prctl() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    return libc.prctl


# Loaded now, not in a forked child: loading a library between fork and exec can deadlock.
_PRCTL = _load_prctl()


def make_non_dumpable() -> bool:
    """Make this process non-dumpable; True if it now is."""
    prctl = _PRCTL
    return prctl is not None and prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0  # type: ignore[operator]


def die_with_parent() -> None:
    """In a child between fork and exec: be killed when the parent dies."""
    prctl = _PRCTL
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # type: ignore[operator]
