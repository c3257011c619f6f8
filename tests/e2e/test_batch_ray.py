"""End to end: ``orch-tui batch --engine ray`` on a real Ray head node started by the test.

The head runs as a child (``ray start --head --block``) in a process group of its own, killed
by that group afterwards (SIGTERM, then SIGKILL after a few seconds). Every address stays on 127.0.0.1: Ray would put the machine's own
address in its place unless ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` is set for the head and
the driver, and it is set here for both.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from orch_tui.core.batch.run_one import read_run_state
from tests.e2e.test_batch import MODULES, BatchModel, make_batch_project, the_batch
from tests.e2e.test_batch_workspace import git, make_repo, snapshot
from tests.support.e2e_support import child_env, orch_tui
from tests.support.fake_anthropic import FakeAnthropic

pytest.importorskip("ray", reason="the Ray engine's tests need the [ray] extra")
pytestmark = pytest.mark.e2e

HEAD_GRACE_S = 3
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def ray_env(fake_url: str, tmp: Path) -> dict[str, str]:
    return {**child_env(fake_url), **LOOPBACK, "TMPDIR": str(tmp)}


def wait_for_head(address: str, env: dict[str, str], head: subprocess.Popen[bytes]) -> None:
    ray = str(Path(sys.executable).parent / "ray")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert head.poll() is None, "the Ray head exited while starting"
        status = subprocess.run(
            [ray, "status", "--address", address], env=env, capture_output=True, timeout=60
        )
        if status.returncode == 0:
            return
        time.sleep(1)
    pytest.fail("the Ray head did not come up within 120 s")


@pytest.fixture
def ray_head(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, FakeAnthropic, BatchModel]]:
    """A fake Messages API and a Ray head node whose workers send their requests to it."""
    model = BatchModel(hang="beta")
    tmp = Path("/tmp") / f"ray-{os.getpid()}-{time.monotonic_ns()}"  # Ray's socket paths are short
    tmp.mkdir()
    with FakeAnthropic(model) as fake:
        port = free_port()
        address = f"127.0.0.1:{port}"
        env = ray_env(fake.url, tmp)
        head = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "ray"),
                "start",
                "--head",
                "--block",
                f"--port={port}",
                "--node-ip-address=127.0.0.1",
                "--num-cpus=2",
                "--include-dashboard=false",
                f"--temp-dir={tmp}",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            wait_for_head(address, env, head)
            yield address, fake, model
        finally:
            stop_head(head)
            subprocess.run(["rm", "-rf", str(tmp)], check=False)


def session_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[3])


def stop_head(head: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the head's process group, SIGKILL after a short grace, then to any process
    of its session left (a Ray process that made a group of its own): the test needs no clean
    shutdown of a head it throws away, and a head busy with workers takes 30 s to give one."""
    os.killpg(head.pid, signal.SIGTERM)
    try:
        head.wait(timeout=HEAD_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(head.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    head.wait()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and session_of(int(entry.name)) == head.pid:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except ProcessLookupError:
                pass


def run_process_of(module: str) -> int | None:
    """The pid of the orch-tui run working on ``module`` in a Ray task's scratch folder."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if b"orch_tui.tui.cli" in cmdline and cwd.endswith(f"/{module}") and "orch-batch-" in cwd:
            return int(entry.name)
    return None


def parent_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))


def test_three_specs_on_a_ray_head_with_a_worker_killed_mid_run_then_one_in_a_worktree(
    tmp_path: Path, ray_head: tuple[str, FakeAnthropic, BatchModel]
) -> None:
    address, fake, model = ray_head
    root = make_batch_project(tmp_path / "project")
    command = [orch_tui(), "batch", "specs", "--engine", "ray", "--address", address, "--jobs", "2", "--json"]  # fmt: skip
    driver = subprocess.Popen(
        command,
        cwd=root,
        env=ray_env(fake.url, tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert model.hanging.wait(180), "the beta run never asked the model"
        run = run_process_of("beta")
        assert run is not None, "the beta run's process was not found"
        worker = parent_of(run)
        os.kill(worker, signal.SIGKILL)  # the Ray worker running beta's task dies mid-run
        out, err = driver.communicate(timeout=300)
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.wait()

    assert driver.returncode == 0, out + err
    folder = the_batch(root)  # before the second batch: the only one
    for module in MODULES:
        state = json.loads((folder / module / "state.json").read_text())
        assert state["state"] == "SUCCESS", module
        assert (folder / module / "workspace" / f"{module}.py").read_text() == "VALUE = 1\n"
    assert model.first_requests.count("beta") == 2  # asked again by the retried task
    assert run_process_of("beta") is None  # the killed worker's run died with it
    # --json: each run's own events came back from its Ray task, ahead of its finished record
    lines = [json.loads(line) for line in out.splitlines()]
    for module in MODULES:
        mine = [line for line in lines if line["run"] == module]
        kinds = [line["event"] for line in mine]
        assert {"run_started", "model_turn", "tests", "run_finished"} <= set(kinds), module
        assert kinds[-1] == "batch_run" and mine[-1]["status"] == "finished", module
        assert kinds.index("run_finished") < len(kinds) - 1, module
    beta = [line["event"] for line in lines if line["run"] == "beta"]
    assert beta.count("run_started") == 2  # the killed task's run, then the retried one

    # --workspace: each task works in place, in its run's own worktree of the person's repo
    repo = make_repo(tmp_path / "mine")
    before = snapshot(repo)
    in_repo = subprocess.run(
        [orch_tui(), "batch", "specs/alpha.md", "--engine", "ray", "--address", address,
         "--workspace", str(repo)],
        cwd=root, env=ray_env(fake.url, tmp_path), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert in_repo.returncode == 0, in_repo.stdout + in_repo.stderr
    assert snapshot(repo) == before
    (batch,) = (path.parent.parent for path in root.glob("batches/*/alpha/worktree"))
    state = read_run_state(batch / "alpha")
    assert state is not None and str(state.state) == "SUCCESS"
    assert state.workspace is not None and Path(state.workspace.path) == batch / "alpha/worktree"
    assert (batch / "alpha" / "worktree" / "alpha.py").read_text() == "VALUE = 1\n"
    assert git(repo, "show", f"orch/{state.run_id}:alpha.py") == "VALUE = 1"
