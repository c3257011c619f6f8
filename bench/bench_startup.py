"""`orch-tui --auto` on the bundled demo against its checks' own time (run by hand).

    python bench/bench_startup.py [--runs 9]

Each repetition runs the installed `orch-tui core/demo/spec.md --auto` (scripted provider:
a generation with a bug, a patch, success) in a fresh folder. Prints the median ratio of
the whole command's wall time to its checks' own wall time (the two pytest runs, as each
check's report times it from its start to its exit, sandbox included), the same ratio to
the same two pytest commands run alone in the finished workspace right after (no sandbox,
no orch-tui), and the time from the last event the engine logged to the process's exit.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "core" / "demo"


def orch_tui() -> str:
    found = shutil.which("orch-tui")
    if found is None:
        sys.exit("install the project first: pip install -e .")
    return found


def env() -> dict[str, str]:
    child = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    child["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return child


def alone(command: list[str], workspace: Path) -> float:
    """Wall time of a check's command run again by itself (its JUnit report thrown away)."""
    with tempfile.TemporaryDirectory() as scratch:
        junit = f"--junitxml={scratch}/junit.xml"
        argv = [junit if arg.startswith("--junitxml=") else arg for arg in command]
        started = time.time()
        subprocess.run(argv, cwd=workspace, env=env(), capture_output=True)
        return time.time() - started


def one_run() -> tuple[float, float, float, float]:
    """(orch-tui wall time, its checks' own time, last event to exit, the same pytest runs
    alone), in seconds."""
    folder = Path(tempfile.mkdtemp(prefix="orch-bench-startup-"))
    try:
        started = time.time()
        subprocess.run(
            [orch_tui(), str(DEMO / "spec.md"), "--auto"],
            cwd=folder,
            env=env(),
            check=True,
            capture_output=True,
        )
        ended = time.time()
        (run_dir,) = (p for p in (folder / "logs").iterdir() if p.is_dir())  # not .opened-runs
        events = (run_dir / "events.jsonl").read_text().splitlines()
        last = datetime.fromisoformat(json.loads(events[-1])["at"].replace("Z", "+00:00"))
        ran = [
            check
            for report in sorted(run_dir.glob("attempt-*/report.json"))
            for check in json.loads(report.read_text())["checks"]
        ]
        checks = sum(check["duration_s"] for check in ran)
        by_itself = sum(alone(check["command"], folder / "workspace") for check in ran)
        return ended - started, checks, ended - last.timestamp(), by_itself
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    one_run()  # warm-up: page cache, .pyc files
    runs = [one_run() for _ in range(args.runs)]
    wall = statistics.median(r[0] for r in runs)
    checks = statistics.median(r[1] for r in runs)
    ratio = statistics.median(r[0] / r[1] for r in runs)
    tail = statistics.median(r[2] for r in runs)
    by_itself = statistics.median(r[3] for r in runs)
    ratio_alone = statistics.median(r[0] / r[3] for r in runs)
    print(
        f"demo --auto: median {wall * 1000:.0f} ms; its two pytest runs: "
        f"{checks * 1000:.0f} ms; ratio median {ratio:.2f}x (target <= 1.3x); "
        f"the same pytest runs alone: {by_itself * 1000:.0f} ms, ratio median "
        f"{ratio_alone:.2f}x; last event to exit: median {tail * 1000:.0f} ms "
        f"(target < 100 ms), {len(runs)} runs"
    )


if __name__ == "__main__":
    main()
