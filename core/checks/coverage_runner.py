"""The test check's runner under coverage: a script the project's interpreter runs, never imported
by orch-tui (``coverage_map.under_coverage`` copies it beside the coverage settings).

``python coverage_runner.py RCFILE PYTEST_ARGS...`` runs pytest under coverage.py and gives each
test its own context, its pytest node id, switched by a small plugin as the test starts
(``Coverage.switch_context``; the lines run between tests are pytest's own, not measured).
That is what ``[run] dynamic_context = test_function`` gave, for less: that setting makes the
tracer ask on every function call whether a test function starts. Every switch hands the
lines measured so far to the data, so the data is kept in memory and written to the settings'
``data_file`` once, at the end: written to its SQLite file at each switch, it cost more than
the tracing (docs/benchmarks.md, coverage overhead). What coverage itself allocates on import
is frozen (``gc.freeze``): pytest collects garbage five times as the session ends, and walking
coverage's objects each time cost more than the demo's tests.

The tracer: on Python 3.12 and later, coverage's ``sysmon`` core (``sys.monitoring``), which
reports each line once and then turns its event off, so a loop costs nothing after its first
pass; its cost over the plain test run is a fraction of the C tracer's. coverage.py does not
offer it with dynamic contexts because a line turned off in one test would not be reported for
the next: the plugin turns every event back on as each test starts
(``sys.monitoring.restart_events``), so each test reports the lines it runs again. coverage
before 7.12 dropped what sysmon reported after a switch, so with those (and on Python 3.11)
the C tracer measures, as it always did.
"""

import gc
import os
import sys

SYSMON_COVERAGE = (7, 12)
"""The first coverage.py whose sysmon core keeps measuring into the data after a context switch."""


def sysmon_usable(python: tuple[int, int], coverage_version: tuple[int, int]) -> bool:
    """Whether the sysmon core measures per-test contexts right for these (major, minor)."""
    return python >= (3, 12) and coverage_version >= SYSMON_COVERAGE


def main() -> int:
    import coverage

    rcfile, args = sys.argv[1], sys.argv[2:]
    sys.path[0] = os.getcwd()  # as `python -m pytest` has it: the script's folder is not code
    cov = coverage.Coverage(config_file=rcfile, data_file=None)  # None: in memory
    python = (sys.version_info[0], sys.version_info[1])
    sysmon = sysmon_usable(python, (coverage.version_info[0], coverage.version_info[1]))
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12 and later
    if sysmon:
        cov.set_option("run:core", "sysmon")
        cov.set_option("run:disable_warnings", ["no-sysmon-context"])  # restarted per test below
    elif monitoring is not None and coverage.version_info >= (7, 9):
        cov.set_option("run:core", "ctrace")  # not the sysmon that 3.14 picks by default
    cov.start()
    gc.freeze()  # coverage's own objects: pytest's collections at the end need not walk them
    try:
        import pytest

        class TestContexts:
            """Each test's lines under its node id (its setup and teardown included)."""

            @pytest.hookimpl(tryfirst=True)
            def pytest_runtest_protocol(self, item: pytest.Item) -> None:
                cov.switch_context(item.nodeid)
                if sysmon and monitoring is not None:
                    monitoring.restart_events()

            def pytest_sessionfinish(self) -> None:
                cov.switch_context("")

        code = pytest.main(args, plugins=[TestContexts()])
    finally:
        cov.stop()
        written = coverage.CoverageData(basename=cov.config.data_file)
        written.update(cov.get_data())
        written.write()
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
