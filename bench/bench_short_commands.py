"""The short commands against Codex CLI's `--version`, interleaved in one run (run by hand).

    python bench/bench_short_commands.py [--rounds 8] [--codex PATH] [--build NAME=EXECUTABLE]

Codex comes from its published npm package, installed in a throwaway prefix, never into the
project: `npm install --prefix /tmp/peers @openai/codex`, then `--codex
/tmp/peers/node_modules/.bin/codex` (the default). Each round runs, in turn, `codex --version`,
`orch-tui --version`, `--help`, `status` and `doctor` in a project whose config names the scripted
provider (so doctor makes its local checks only: commands, pytest, sandbox, folder) and whose
state is a finished run of the bundled demo. Prints each command's median wall time, its spread
(lowest to highest), and its ratio to Codex's median, with the machine's load average.
``--build before=/path/to/orch-tui`` (repeatable) runs another build's same four commands in the
same rounds, in turn with the others (e.g. ``main`` before a change, installed in a venv of its
own with ``pip install .``), and prints each of its medians beside this build's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO_SPEC = ROOT / "core" / "demo" / "spec.md"
DEFAULT_CODEX = "/tmp/peers/node_modules/.bin/codex"


def installed(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        sys.exit(f"{name} is not on the PATH: install it first")
    return found


def project(orch_tui: str) -> Path:
    """A folder holding a finished demo run, with the scripted provider in its config."""
    folder = Path(tempfile.mkdtemp(prefix="orch-bench-short-"))
    (folder / "orchestrator.toml").write_text('[model]\nprovider = "scripted"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    subprocess.run(
        [orch_tui, str(DEMO_SPEC), "--auto"], cwd=folder, env=env, capture_output=True, check=True
    )
    return folder


def wall_time(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--codex", default=DEFAULT_CODEX)
    parser.add_argument("--build", action="append", default=[], metavar="NAME=EXECUTABLE")
    args = parser.parse_args()
    orch_tui = installed("orch-tui")
    if not Path(args.codex).exists():
        sys.exit(f"{args.codex}: not found (npm install --prefix /tmp/peers @openai/codex)")
    folder = project(orch_tui)
    builds = {"orch-tui": orch_tui} | dict(build.split("=", 1) for build in args.build)
    commands = {"codex --version": [args.codex, "--version"]}
    for name, executable in builds.items():
        commands |= {
            f"{name} --version": [executable, "--version"],
            f"{name} --help": [executable, "--help"],
            f"{name} status": [executable, "status"],
            f"{name} doctor (local)": [executable, "doctor"],
        }
    times: dict[str, list[float]] = {name: [] for name in commands}
    load_before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, command in commands.items():
            times[name].append(wall_time(command, folder))
    baseline = statistics.median(times["codex --version"])
    print(f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    for name, measured in times.items():
        median = statistics.median(measured)
        print(
            f"{name:<30} median {median * 1000:6.0f} ms "
            f"({min(measured) * 1000:.0f}-{max(measured) * 1000:.0f})  "
            f"{median / baseline:.2f}x codex --version"
        )
    for build in list(builds)[1:]:
        for command in ("--version", "--help", "status", "doctor (local)"):
            ours = statistics.median(times[f"orch-tui {command}"])
            theirs = statistics.median(times[f"{build} {command}"])
            print(f"{command:<16} this build / {build}: {ours / theirs:.2f}x")
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
