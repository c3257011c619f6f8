"""The test check's runner under coverage: a script the project's interpreter runs, never imported
by orch-tui (``coverage_map.under_coverage`` copies it beside the coverage settings).

``python coverage_runner.py RCFILE PYTEST_ARGS...`` runs pytest under coverage.py and gives each
test its own context, its pytest node id, switched by a small plugin as the test starts
(``Coverage.switch_context``; the lines run between tests are pytest's own, not measured).
That is what ``[run] dynamic_context = test_function`` gave, for less: that setting makes the
tracer ask on every function call whether a test function starts. Every switch hands the
lines measured so far to the data, so the data is kept in memory and written to the settings'
``data_file`` once, at the end: written to its SQLite file at each switch, it cost more than
the tracing (docs/benchmarks.md, coverage overhead).
"""

import os
import sys


def main() -> int:
    import coverage

    rcfile, args = sys.argv[1], sys.argv[2:]
    sys.path[0] = os.getcwd()  # as `python -m pytest` has it: the script's folder is not code
    cov = coverage.Coverage(config_file=rcfile, data_file=None)  # None: in memory
    cov.start()
    try:
        import pytest

        class TestContexts:
            """Each test's lines under its node id (its setup and teardown included)."""

            @pytest.hookimpl(tryfirst=True)
            def pytest_runtest_protocol(self, item: pytest.Item) -> None:
                cov.switch_context(item.nodeid)

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
