"""A real check in the real sandbox tries every escape of issue 22 (items 1, 2, 4, 5 and 7);
each is refused. As root (how CI runs) and, where it differs, as an unprivileged user.

The probe is one Python script run as a check; it reports each attempt as JSON. Where an
attempt is refused because something is absent rather than locked, the host side is checked
too: the file it aimed at is unchanged, the secret it aimed at is nowhere in its output.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import uuid
from pathlib import Path

import pytest

from orch_tui.core.checks.runner import CheckResult, CheckSpec, run_check
from orch_tui.core.checks.sandbox import Limits, resolve_sandbox
from orch_tui.core.checks.trial import kept_read_only

BWRAP = resolve_sandbox("auto")
pytestmark = pytest.mark.skipif(not BWRAP.confined, reason=f"no bubblewrap: {BWRAP.why}")

MIB = 1024 * 1024
LIMITS = Limits(tmp_bytes=16 * MIB, max_processes=48, max_memory_bytes=512 * MIB)
SECRET = f"sk-ant-probe-{uuid.uuid4().hex}"

PROBE = r"""
import ctypes, json, os, socket, sys
targets = json.loads(sys.argv[1])
found = {}

def attempt(name, action):
    try:
        found[name] = ["done", repr(action())[:200]]
    except BaseException as exc:
        found[name] = ["refused", f"{type(exc).__name__}: {exc}"[:200]]

libc = ctypes.CDLL(None, use_errno=True)
def syscall(result):
    if result != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result
MS_REMOUNT, MS_BIND, MNT_DETACH = 32, 4096, 2
attempt("remount / read-write", lambda: syscall(libc.mount(None, b"/", None, MS_REMOUNT, None)))
attempt("unmount /proc", lambda: syscall(libc.umount2(b"/proc", MNT_DETACH)))
attempt("write /usr", lambda: open("/usr/orch-probe", "w").write("x"))
attempt("write outside the workspace", lambda: open(targets["outside"], "w").write("x"))
attempt("read /etc/shadow", lambda: open("/etc/shadow").read())
attempt("list the home folder", lambda: os.listdir(targets["home"]))
attempt("read a file in the home folder", lambda: open(targets["home_file"]).read())
for name in ("env", "state", "config", "log"):
    attempt(f"read the project's {name}", lambda name=name: open(targets[name]).read())
attempt("write the run's log folder", lambda: open(targets["log"], "w").write("{}"))
attempt("write .git/hooks", lambda: open(targets["hook"], "w").write("#!/bin/sh\n"))
attempt("write .venv", lambda: open(targets["venv_file"], "w").write("x"))
def connect(path):
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(path)
        return client.recv(64)
for key in ("socket", "run_socket"):
    if targets.get(key):
        attempt(f"connect {key}", lambda key=key: connect(targets[key]))
def environs():
    seen = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                seen.append(open(f"/proc/{entry}/environ", "rb").read().decode(errors="replace"))
            except OSError:
                pass
    if targets["secret"] in "".join(seen):
        return "the secret"
    raise PermissionError("no process of orch-tui's is visible")
attempt("read orch-tui's environment", environs)
def fill_tmp():
    written = 0
    with open("/tmp/fill", "wb") as out:
        while written < 64 * 1024 * 1024:
            out.write(b"x" * 1048576)
            out.flush()
            written += 1048576
    return written
attempt("fill /tmp past its bound", fill_tmp)
def fork_bomb():
    import time
    children = []
    try:
        for _ in range(400):
            pid = os.fork()
            if pid == 0:
                time.sleep(5)
                os._exit(0)
            children.append(pid)
        return len(children)
    finally:
        for pid in children:
            os.kill(pid, 9)
attempt("fork 400 processes", fork_bomb)
attempt("allocate 2 GiB", lambda: len(bytearray(2 * 1024 * 1024 * 1024)))
attempt("uid", lambda: (os.getuid(), open("/proc/self/status").read().split("CapEff:")[1].split()[0]))
print("PROBE" + json.dumps(found))
"""


def project_layout(root: Path) -> dict[str, str]:
    """A project folder with its secrets, a run log and a git workspace with a .venv."""
    project = root / "project"
    workspace = project / "workspace"
    (workspace / ".venv" / "lib").mkdir(parents=True)
    subprocess.run(["git", "init", "--quiet", str(workspace)], check=True)
    (project / ".env").write_text(f"ANTHROPIC_API_KEY={SECRET}\n")
    (project / "state.json").write_text('{"state": "TESTING"}')
    (project / "orchestrator.toml").write_text('[checks]\nsandbox = "bwrap"\n')
    log = project / "logs" / "run-1" / "attempt-1" / "proposal.json"
    log.parent.mkdir(parents=True)
    log.write_text('{"changes": []}')
    return {
        "workspace": str(workspace),
        # not under /tmp: a folder there may hold a venv bound into the sandbox, made on its
        # private /tmp, where a write lands nowhere on the host
        "outside": str(Path.home() / f"orch-probe-{uuid.uuid4().hex}"),
        "env": str(project / ".env"),
        "state": str(project / "state.json"),
        "config": str(project / "orchestrator.toml"),
        "log": str(log),
        "hook": str(workspace / ".git" / "hooks" / "post-commit"),
        "venv_file": str(workspace / ".venv" / "lib" / "evil.pth"),
        "secret": SECRET,
    }


def probe(targets: dict[str, str], env_secret: pytest.MonkeyPatch) -> tuple[dict, CheckResult]:
    env_secret.setenv("ANTHROPIC_API_KEY", SECRET)
    workspace = Path(targets["workspace"])
    result = run_check(
        CheckSpec("probe", [sys.executable, "-c", PROBE, json.dumps(targets)]),
        workspace,
        workspace.parent.parent / "reports",
        timeout_s=120,
        max_output_bytes=200_000,
        sandbox=BWRAP.with_limits(LIMITS),
        read_only=kept_read_only(workspace),
    )
    line = next((x for x in result.output.splitlines() if x.startswith("PROBE")), None)
    assert line is not None, result.output
    return json.loads(line.removeprefix("PROBE")), result


@pytest.fixture
def host_sockets(tmp_path: Path):
    """A Unix socket beside the workspace and, when the host lets us, one under /run."""
    paths = [tmp_path / "host.sock"]
    if os.access("/run", os.W_OK):
        paths.append(Path("/run") / f"orch-probe-{uuid.uuid4().hex[:8]}.sock")
    servers = []
    for path in paths:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.listen(1)
        servers.append(server)
    yield [str(path) for path in paths]
    for server, path in zip(servers, paths, strict=True):
        server.close()
        path.unlink(missing_ok=True)


@pytest.fixture
def home_file():
    path = Path.home() / f".orch-probe-{uuid.uuid4().hex}"
    path.write_text("a private key\n")
    yield path
    path.unlink(missing_ok=True)


ALWAYS_REFUSED = [
    "remount / read-write",
    "unmount /proc",
    "write /usr",
    "write outside the workspace",
    "read /etc/shadow",
    "read a file in the home folder",
    "read the project's env",
    "read the project's state",
    "read the project's config",
    "read the project's log",
    "write the run's log folder",
    "write .git/hooks",
    "write .venv",
    "connect socket",
    "read orch-tui's environment",
    "fill /tmp past its bound",
    "allocate 2 GiB",
]


def test_every_escape_from_a_sandboxed_check_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host_sockets: list[str], home_file: Path
) -> None:
    targets = project_layout(tmp_path)
    targets["home"] = str(Path.home())
    targets["home_file"] = str(home_file)
    targets["socket"] = host_sockets[0]
    if len(host_sockets) > 1:
        targets["run_socket"] = host_sockets[1]
    before = {name: Path(targets[name]).read_text() for name in ("env", "state", "config", "log")}

    try:
        found, result = probe(targets, monkeypatch)
    finally:
        Path(targets["outside"]).unlink(missing_ok=True)

    refused = {name: outcome for name, (outcome, _) in found.items() if name in ALWAYS_REFUSED}
    assert refused == dict.fromkeys(ALWAYS_REFUSED, "refused"), found
    # The home folder is not bound: at most the folders leading to a bound interpreter show.
    assert home_file.name not in found["list the home folder"][1]
    if "run_socket" in targets:
        assert found["connect run_socket"][0] == "refused", found
    assert found["fill /tmp past its bound"][1].startswith("OSError: [Errno 28]")  # ENOSPC
    assert found["allocate 2 GiB"][1].startswith("MemoryError")
    uid, capabilities = eval(found["uid"][1])  # noqa: S307 - our own repr of a tuple
    assert uid == 65534 and int(capabilities, 16) == 0
    # Nothing changed on the host, and no secret reached the output.
    assert {n: Path(targets[n]).read_text() for n in before} == before
    assert not Path(targets["outside"]).exists() and not Path(targets["hook"]).exists()
    assert SECRET not in result.output
    if os.geteuid() != 0:  # the kernel exempts root's user from RLIMIT_NPROC: see docs/sandbox.md
        assert found["fork 400 processes"][0] == "refused", found


@pytest.fixture
def unprivileged_workspace():
    """A workspace uid 65534 owns, in a folder it can reach (pytest's tmp_path is root's only)."""
    folder = Path(tempfile.mkdtemp(prefix="orch-probe-"))
    folder.chmod(0o755)
    workspace = folder / "ws"
    workspace.mkdir()
    os.chown(workspace, 65534, 65534)
    yield workspace
    shutil.rmtree(folder, ignore_errors=True)


def runnable_by_nobody() -> str:
    """An interpreter of this Python version uid 65534 can run (ours may sit in root's home)."""
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for candidate in (f"/usr/bin/python{version}", sys.executable):
        probe = "import os, sys; sys.exit(not os.access(sys.argv[1], os.X_OK))"
        check = [*UNPRIVILEGED, candidate, "-c", probe, candidate]
        if subprocess.run(check, capture_output=True, env=NOBODY_ENV, cwd="/").returncode == 0:
            return candidate
    pytest.skip("no interpreter of this Python version that uid 65534 can run")


NOBODY_ENV = {"PATH": os.environ["PATH"], "HOME": "/nonexistent"}
UNPRIVILEGED = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root")
def test_as_an_unprivileged_user_a_fork_bomb_stops_at_the_process_limit(
    unprivileged_workspace: Path,
) -> None:
    """Run the same check from a process of an unprivileged user (uid 65534)."""
    workspace = unprivileged_workspace
    python = runnable_by_nobody()
    site_packages = sysconfig.get_paths()["purelib"]
    driver = f"""
import json, site, sys
site.addsitedir({site_packages!r})
from pathlib import Path
from orch_tui.core.checks.runner import CheckSpec, run_check
from orch_tui.core.checks.sandbox import Limits, resolve_sandbox
probe = {PROBE!r}
result = run_check(
    CheckSpec("probe", [{python!r}, "-c", probe, json.dumps({{"secret": "x"}})]),
    Path({str(workspace)!r}), Path({str(workspace / "reports")!r}),
    timeout_s=120, max_output_bytes=200_000,
    sandbox=resolve_sandbox("bwrap").with_limits(Limits(16 << 20, 48, 512 << 20)),
)
print(result.output or result)
"""
    done = subprocess.run(
        [*UNPRIVILEGED, python, "-c", driver],
        capture_output=True,
        text=True,
        timeout=180,
        cwd="/",
        env=NOBODY_ENV,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("PROBE")), None)
    assert line is not None, f"exit {done.returncode}: {done.stdout}{done.stderr}"
    found = json.loads(line.removeprefix("PROBE"))
    assert found["fork 400 processes"][0] == "refused", found
    assert "Resource temporarily unavailable" in found["fork 400 processes"][1]
    assert found["remount / read-write"][0] == "refused"
