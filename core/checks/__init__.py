"""Running the checks: runner, sandbox, JUnit reports, the project's venv, trial runs.

- ``attempt_evidence``: An attempt's evidence: the scratch runs (old tests on new code, added tests on old code), then the verdicts.
- ``change_evidence``: Do the tests test the change? Two verdicts from scratch runs (DESIGN section 15), kept pure.
- ``coverage_env``: coverage.py in the project's ``.venv``, put there the way pytest is (``core.checks.venv``).
- ``coverage_runner``: The test check's runner under coverage: a script the project's interpreter runs, never imported by orch-tui.
- ``coverage_map``: Coverage per test and per hunk: which tests run each changed line (DESIGN section 15).
- ``declarations``: What a project declares it depends on; what a check wrote of it is put back.
- ``installer``: Installing the declared dependencies into ``.venv``: wheels only, a scrubbed environment.
- ``junit``: Read a JUnit XML report into per-test results with stable, workspace-relative ids.
- ``leftovers``: What a killed orch-tui leaves behind, and clearing it on the next start (under the lock).
- ``mutation``: ``verify --mutation``: mutmut on the lines the run changed, in the throwaway copy, sandboxed.
- ``mutation_marks``: Keeping mutmut to the lines a run changed: ``# pragma: no mutate`` on every other line.
- ``mutation_results``: What mutmut found, read back from its ``mutants/`` folder in the throwaway copy.
- ``process_guard``: Linux process hardening through ``prctl``, used with or without the sandbox.
- ``processes``: Running one untrusted command to its end: its process group, its output, its deadline.
- ``pytest_config``: Pin a pytest check's configuration to the workspace: nothing of its parent folders counts.
- ``report``: The results of the checks: one command, how it went and all of them together, to and from JSON.
- ``runner``: Run the checks (the tests, then ruff or whatever else the config names) on the workspace.
- ``sandbox``: The sandbox every check runs in: bubblewrap when it is there (DESIGN section 13).
- ``seeded_tools``: Tools orch-tui puts into the project's ``.venv`` the way it puts pytest there: coverage, mutmut.
- ``trial``: Running the configured checks: for real in the workspace, or on trial in a scratch copy.
- ``venv``: The project's own Python environment: ``.venv`` in the workspace (DESIGN section 12).
- ``venv_path``: Where the project's ``.venv`` and its interpreter are, apart from making it (``venv``).
- ``verdict``: Whether a check passed: its exit code, and its JUnit report read defensively.
- ``verify_run``: ``orch-tui verify [--mutation]``: the checks again on the finished workspace, in a fresh copy.
"""
