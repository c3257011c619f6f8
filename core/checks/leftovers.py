"""What a killed orch-tui leaves behind, and clearing it on the next start (under the lock).

While a check runs, its process group id and the start time of the group's leader are in a
small file under ``orch-running/`` in the project folder (:func:`recorded`); the file goes when
the group was killed, and the folder with its last file. A kill -9 of orch-tui leaves the file, and the next start kills the
group (:func:`clear`). A pid can be reused by an unrelated process, so:

- the leader still alive with the recorded start time: the group is ours; kill it;
- the leader alive with another start time: the pid was reused, so our group is gone
  (Linux reuses no number that still names a process group); leave it;
- the leader gone: only members of our group can still carry its id; kill the group.

A trial run's scratch copy and a check's report folder (``orch-trial-<tag>-*`` in a temporary
folder, the tag naming the workspace) are removed at the next start too, and so are the temp
files of atomic writes cut short in the project folder and ``logs/`` (a run's own folder is
swept when its log opens).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

from orch_tui.core.util.atomic import remove_temp_files
from orch_tui.core.util.digests import sha256_hex

PROC = Path("/proc")
"""Linux's process table; absent elsewhere, where start times are unknown (None)."""

RUNNING_DIR = "orch-running"
"""Folder in the project holding one file per running check's process group."""


def trial_prefix(workspace: Path) -> str:
    """The name prefix of the temporary folders of ``workspace``'s checks (trial copies, report
    folders): tells this project's from others'."""
    tag = sha256_hex(str(workspace.resolve()).encode())[:12]
    return f"orch-trial-{tag}-"


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks after boot), or None: gone or not Linux."""
    try:
        stat = (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()  # the name, in parentheses, may hold spaces
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


@contextlib.contextmanager
def recorded(folder: Path | None, pgid: int) -> Iterator[None]:
    """Keep a record of the group ``pgid`` in ``folder`` while the block runs (None: no record).

    The caller kills the group before the block ends; the record goes after that.
    """
    if folder is None:
        yield
        return
    record = folder / f"{pgid}.json"
    path: Path | None = record
    try:
        text = json.dumps({"pgid": pgid, "start": start_time(pgid)})
        for _ in range(3):  # another check's end may remove the folder between the two calls
            folder.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                record.write_text(text, encoding="utf-8")  # one write: whole or empty, never torn
                break
        else:
            path = None
    except OSError:
        path = None  # a full disk must not stop the check; parent-death signals still hold
    try:
        yield
    finally:
        if path is not None:
            path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):  # not empty: another check of this run is on
                folder.rmdir()


def clear(root: Path, workspace: Path) -> None:
    """Kill the check groups a killed run left, and remove its trial copies and temp files."""
    remove_temp_files(root)  # state.json's
    remove_temp_files(root / "logs")  # the history index's
    folder = root / RUNNING_DIR
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        _kill_recorded(path)
        path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # absent, or a file nobody recorded: leave it
        folder.rmdir()
    remove_trial_copies(workspace)


def remove_trial_copies(workspace: Path) -> None:
    """Remove every trial copy and report folder of ``workspace`` in the temporary folders."""
    prefix = trial_prefix(workspace)
    for folder in temp_folders():
        try:
            with os.scandir(folder) as entries:
                found = [entry.path for entry in entries if entry.name.startswith(prefix)]
        except OSError:  # absent, or not ours to read
            continue
        for scratch in found:
            shutil.rmtree(scratch, ignore_errors=True)


def temp_folders() -> list[str]:
    """Every folder ``tempfile`` may have made a trial copy in, without importing it (with
    ``random``, ~1.5 ms of every run's start): it takes the first of these it can write in,
    which may have changed since (a full disk, another ``$TMPDIR``), so all are swept."""
    if os.name != "posix":
        import tempfile

        return [tempfile.gettempdir()]
    loaded = sys.modules.get("tempfile")  # its folder, when this process set or asked for it
    named = [getattr(loaded, "tempdir", None)]
    named += [os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")]
    candidates = [*(name for name in named if name), "/tmp", "/var/tmp", "/usr/tmp"]
    with contextlib.suppress(OSError):  # its last resort
        candidates.append(os.getcwd())
    return list(dict.fromkeys(os.path.abspath(folder) for folder in candidates))


def _kill_recorded(path: Path) -> None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pgid, started = int(data["pgid"]), data.get("start")
    except (OSError, ValueError, KeyError, TypeError):
        return  # empty: killed between creating and writing it; the parent-death signal held
    if pgid <= 1:
        return
    now = start_time(pgid)
    if now is not None and started is not None and now != started:
        return  # the leader's pid belongs to another process now
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
