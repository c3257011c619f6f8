"""Batch throughput: runs per hour with --jobs 1, 2 and 4 and the Ray engine, interleaved.

    python bench/bench_batch_throughput.py [--specs 6] [--rounds 3] [--no-ray]

Every configuration runs the same batch with the installed ``orch-tui``: ``--specs`` specs on
the scripted provider (one attempt each: two files written, pytest run once by this
interpreter), in a fresh copy of one project folder, so each batch starts from nothing. Each
round runs every configuration once, the order rotated round by round; ``ray`` is ``--engine
ray --jobs 2`` against a Ray head node this script starts on loopback (2 CPUs) before the
first round and stops by its process group at the end, so Ray's start-up is not counted, only
what its tasks add (shipping each run's folder both ways, scheduling). Prints each
configuration's median runs per hour, its spread, and its ratio to ``--jobs 1``, with the
machine's load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
CONFIG = f"""\
[checks]
timeout_seconds = 120
env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
python = {json.dumps(sys.executable)}
"""


def turn(text: str, edits: list[tuple[str, str]]) -> dict[str, object]:
    content: list[dict[str, object]] = [{"type": "text", "text": text}]
    for number, (path, body) in enumerate(edits):
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{number:04d}",
                "name": "str_replace_based_edit_tool",
                "input": {"command": "create", "path": path, "file_text": body},
            }
        )
    return {
        "content": content,
        "stop_reason": "tool_use" if edits else "end_turn",
        "usage": {"input_tokens": 100, "output_tokens": 50},
    }


def template(specs: int) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="orch-bench-batch-")) / "template"
    (folder / "specs").mkdir(parents=True)
    (folder / "orchestrator.toml").write_text(CONFIG)
    for number in range(specs):
        (folder / "specs" / f"spec{number:02d}.md").write_text(
            f"# spec {number}\n\n`calc.py` with `add(a, b)`, and a test.\n"
        )
    code = "def add(a, b):\n    return a + b\n"
    test = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    script = {
        "attempts": [
            [
                turn("Writing it.", [("calc.py", code), ("tests/test_calc.py", test)]),
                turn("Done.", []),
            ]
        ]
    }
    (folder / "script.json").write_text(json.dumps(script))
    return folder


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_ray(env: dict[str, str], scratch: Path) -> tuple[subprocess.Popen[bytes], str]:
    ray = str(Path(sys.executable).parent / "ray")
    port = free_port()
    address = f"127.0.0.1:{port}"
    head = subprocess.Popen(
        [ray, "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1",
         "--num-cpus=2", "--include-dashboard=false", f"--temp-dir={scratch}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if head.poll() is not None:
            sys.exit("the Ray head exited while starting")
        status = subprocess.run([ray, "status", "--address", address], env=env, capture_output=True)
        if status.returncode == 0:
            return head, address
        time.sleep(1)
    stop(head)
    sys.exit("the Ray head did not come up within 180 s")


def stop(head: subprocess.Popen[bytes]) -> None:
    os.killpg(head.pid, signal.SIGTERM)
    try:
        head.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(head.pid, signal.SIGKILL)
        head.wait()


def one_batch(orch_tui: str, source: Path, options: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one whole batch in a fresh copy of ``source``."""
    folder = source.parent / f"run-{time.monotonic_ns()}"
    shutil.copytree(source, folder)
    command = [orch_tui, "batch", "specs", "--provider", "scripted", "--script", "script.json"]
    started = time.perf_counter()
    done = subprocess.run([*command, *options], cwd=folder, env=env, capture_output=True)
    took = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"batch {options} failed:\n{done.stdout.decode()}\n{done.stderr.decode()}")
    shutil.rmtree(folder)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-ray", action="store_true", help="local engine only")
    args = parser.parse_args()
    orch_tui = shutil.which("orch-tui") or sys.exit("orch-tui is not on the PATH: install it")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(LOOPBACK, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    source = template(args.specs)
    configs: dict[str, list[str]] = {
        "jobs 1": ["--jobs", "1"],
        "jobs 2": ["--jobs", "2"],
        "jobs 4": ["--jobs", "4"],
    }
    head = None
    scratch = Path("/tmp") / f"ray-bench-{os.getpid()}"  # Ray's socket paths must be short
    print(f"load average before: {os.getloadavg()}")
    try:
        if not args.no_ray:
            scratch.mkdir()
            head, address = start_ray({**env, "TMPDIR": str(scratch)}, scratch)
            configs["ray"] = ["--engine", "ray", "--address", address, "--jobs", "2"]
        names = list(configs)
        times: dict[str, list[float]] = {name: [] for name in names}
        for round_ in range(args.rounds):
            order = names[round_ % len(names) :] + names[: round_ % len(names)]
            for name in order:
                times[name].append(one_batch(orch_tui, source, configs[name], env))
            print(f"round {round_ + 1}: " + ", ".join(f"{n} {times[n][-1]:.1f}s" for n in names))
    finally:
        if head is not None:
            stop(head)
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(source.parent, ignore_errors=True)
    print(f"load average after: {os.getloadavg()}")
    per_hour = {n: [args.specs * 3600 / t for t in times[n]] for n in names}
    base = statistics.median(per_hour["jobs 1"])
    print(f"\n{args.specs} specs a batch, {args.rounds} rounds, {os.cpu_count()} cores")
    print(f"{'config':<8} {'runs/hour (median)':>20} {'spread':>18} {'vs jobs 1':>10}")
    for name in names:
        median = statistics.median(per_hour[name])
        spread = f"{min(per_hour[name]):.0f}–{max(per_hour[name]):.0f}"
        print(f"{name:<8} {median:>20.0f} {spread:>18} {median / base:>9.2f}×")


if __name__ == "__main__":
    main()
