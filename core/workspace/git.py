"""The git side of a run in an existing repository (DESIGN section 12), through the ``git`` CLI.

A run in a git work tree starts from a clean tree (tracked files) on a new branch
``orch/<run_id>``; every applied attempt becomes one commit whose message carries the trailers
``Orch-Run`` and ``Orch-Attempt``. Those trailers make committing idempotent: after a crash the
engine applies the attempt again and :meth:`Repo.commit_attempt` sees that HEAD already holds it.
``.git`` is never written by hand.

Every git command runs with hooks and the file-system monitor off (:data:`SAFE_CONFIG`) and a
scrubbed environment (:func:`git_env`): a check may have planted ``.git/hooks/post-commit`` or
``core.fsmonitor`` while it ran, and git runs outside the sandbox, where the API keys are.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from orch_tui.core.util.records import record

RUN_TRAILER = "Orch-Run"
ATTEMPT_TRAILER = "Orch-Attempt"
RESTORE_TRAILER = "Orch-Restore"
FALLBACK_IDENTITY = ("-c", "user.name=orch-tui", "-c", "user.email=orch-tui@localhost")
"""Used only when the repository has no committer identity of its own."""


SAFE_CONFIG = (
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "core.sshCommand=false",
    "-c", "protocol.allow=never",
)  # fmt: skip
"""Options before every git command: no hook, no fsmonitor program, no remote of any kind."""

GIT_ENV_ALLOW = frozenset(
    {
        "PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "USER",
        "LOGNAME", "TMPDIR", "XDG_CONFIG_HOME", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM",
    }
)  # fmt: skip
"""The variables git gets from ours: locale, identity and where its config is; no API key,
no ``AWS_*`` or ``GITHUB_TOKEN``, no ``GIT_DIR`` or ``GIT_EXEC_PATH`` pointing elsewhere."""


def git_env() -> dict[str, str]:
    """The environment orch-tui's git commands run with (see :data:`GIT_ENV_ALLOW`)."""
    env = {name: value for name, value in os.environ.items() if name in GIT_ENV_ALLOW}
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


def git_command(*args: str) -> list[str]:
    """``git`` with :data:`SAFE_CONFIG`, then ``args``."""
    return ["git", *SAFE_CONFIG, *args]


class GitError(Exception):
    """A git command failed; the message says which and why."""


def run_branch_name(run_id: str) -> str:
    return f"orch/{run_id}"


def _git(folder: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            git_command(*args),
            cwd=folder,
            env=git_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        raise GitError("the git command is not installed") from None
    if check and done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise GitError(f"git {' '.join(args)} failed: {detail[-1] if detail else done.returncode}")
    return done


def is_work_tree(folder: Path) -> bool:
    """True when ``folder`` is inside a git work tree (and git is installed)."""
    try:
        done = _git(folder, "rev-parse", "--is-inside-work-tree", check=False)
    except GitError:
        return False
    return done.returncode == 0 and done.stdout.strip() == "true"


@record(frozen=True)
class Repo:
    """A git work tree; commands run in ``folder`` and pathspecs are relative to it."""

    folder: Path

    def current_branch(self) -> str | None:
        """The checked-out branch, ``None`` on a detached HEAD."""
        done = _git(self.folder, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        return done.stdout.strip() or None

    def head(self) -> str | None:
        """HEAD's commit id, ``None`` in a repository with no commit yet."""
        done = _git(self.folder, "rev-parse", "--verify", "--quiet", "HEAD", check=False)
        return done.stdout.strip() or None

    def tracked_changes(self) -> list[str]:
        """Tracked files changed or staged but not committed (untracked files do not count)."""
        done = _git(self.folder, "status", "--porcelain", "--untracked-files=no")
        return [line[3:] for line in done.stdout.splitlines() if line.strip()]

    def untracked(self, paths: Iterable[str]) -> list[str]:
        """Those of ``paths`` (relative to the folder) git does not track: new, untracked or
        ignored files, whose contents no commit holds."""
        paths = sorted(paths)
        if not paths:
            return []
        tracked = set(_git(self.folder, "ls-files", "--", *paths).stdout.splitlines())
        return [path for path in paths if path not in tracked]

    def file_at(self, commit: str, path: str) -> str | None:
        """The text of ``path`` (relative to the folder) in ``commit``; None when it is absent."""
        done = subprocess.run(
            git_command("show", f"{commit}:./{path}"),
            cwd=self.folder,
            env=git_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
        return done.stdout.decode("utf-8", errors="replace") if done.returncode == 0 else None

    def start_branch(self, name: str) -> None:
        """Create ``name`` at HEAD and check it out (tracked changes, if allowed, come along)."""
        _git(self.folder, "checkout", "--quiet", "-b", name)

    def checkout(self, name: str) -> None:
        _git(self.folder, "checkout", "--quiet", name)

    def branch_head(self, name: str) -> str | None:
        """The commit branch ``name`` points to; None when there is no such branch."""
        ref = f"refs/heads/{name}^{{commit}}"
        done = _git(self.folder, "rev-parse", "--verify", "--quiet", ref, check=False)
        return done.stdout.strip() or None

    def contains(self, commit: str) -> bool:
        """True when ``commit`` is HEAD or one of its ancestors (merged into the checkout)."""
        done = _git(self.folder, "merge-base", "--is-ancestor", commit, "HEAD", check=False)
        return done.returncode == 0

    def add_worktree(self, path: Path, commit: str) -> None:
        """A new work tree at ``path`` with ``commit`` checked out, detached: the checkout in
        :attr:`folder` (its HEAD, branch, index and files) is left as it is."""
        _git(self.folder, "worktree", "add", "--quiet", "--detach", str(path), commit)

    def _identity(self) -> tuple[str, ...]:
        has_email = _git(self.folder, "config", "user.email", check=False).stdout.strip()
        return () if has_email else FALLBACK_IDENTITY

    def step_commit(self, run_id: str, step: tuple[str, int]) -> str | None:
        """HEAD's id when HEAD is the commit of ``step`` (trailer, number) of ``run_id``."""
        head = self.head()
        if head is None:
            return None
        message = _git(self.folder, "log", "-1", "--format=%B", head).stdout
        wanted = {f"{RUN_TRAILER}: {run_id}", f"{step[0]}: {step[1]}"}
        return head if wanted <= {line.strip() for line in message.splitlines()} else None

    def commit_attempt(
        self, run_id: str, attempt: int, files: Iterable[str], summary: str
    ) -> tuple[str, bool]:
        """Commit exactly ``files`` as ``attempt``'s commit; returns (commit id, made now)."""
        subject = f"orch-tui {run_id} attempt {attempt}: {summary}"
        return self.commit_step(run_id, (ATTEMPT_TRAILER, attempt), files, subject)

    def commit_step(
        self, run_id: str, step: tuple[str, int], files: Iterable[str], subject: str
    ) -> tuple[str, bool]:
        """Commit exactly ``files`` as one step of the run; returns (commit id, made now).

        Idempotent: when HEAD already is this step's commit (a crash came between the commit
        and the state save), nothing is committed again.
        """
        existing = self.step_commit(run_id, step)
        if existing is not None:
            return existing, False
        paths = self._committable(files)
        message = f"{subject}\n\n{RUN_TRAILER}: {run_id}\n{step[0]}: {step[1]}\n"
        if paths:
            _git(self.folder, "add", "--all", "--", *paths)
            _git(
                self.folder,
                *self._identity(),
                "commit",
                "--quiet",
                "--no-verify",
                "--allow-empty",
                "-m",
                message,
                "--",
                *paths,
            )
        else:  # an empty commit that leaves anything the person staged alone
            tree = _git(self.folder, "rev-parse", "HEAD^{tree}").stdout.strip()
            made = _git(
                self.folder, *self._identity(), "commit-tree", tree, "-p", "HEAD", "-m", message
            ).stdout.strip()
            _git(self.folder, "update-ref", "HEAD", made)
        return str(self.head()), True

    def _committable(self, files: Iterable[str]) -> list[str]:
        """The files git can commit: present or tracked, and not ignored."""
        paths = sorted(files)
        if not paths:
            return []
        tracked = set(_git(self.folder, "ls-files", "--", *paths).stdout.splitlines())
        present = [p for p in paths if p in tracked or (self.folder / p).exists()]
        if not present:
            return []
        ignored = _git(self.folder, "check-ignore", "--no-index", "--", *present, check=False)
        skipped = set(ignored.stdout.splitlines()) - tracked
        return [p for p in present if p not in skipped]
