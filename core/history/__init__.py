"""Reading past runs: scan, index, search, one run in detail, the test grid, exports and costs.

- ``blame``: Blame: for each test that went from passing to failing, the attempt and the hunks that broke it.
- ``chain``: A run's chain: the run it follows (a change run), and the runs that follow it.
- ``chain_export``: ``orch-tui history --export RUN_ID --chain``: a run and the runs it changed, as one report.
- ``coverage``: An attempt's coverage record read back, and the last one before an attempt.
- ``costs``: ``orch-tui history --costs``: tokens and dollars per day and per model across all runs.
- ``detail``: One past run attempt by attempt, read from its logs; and its workspace between attempts.
- ``export``: ``orch-tui history --export``: one run as a Markdown report.
- ``grid``: Tests × attempts: each test's result in every attempt that ran the checks.
- ``index``: The runs list: every run's summary, cached in ``logs/.index-9.sqlite`` so 100,000 list at once.
- ``index_db``: ``logs/.index-9.sqlite``: the runs list's cache as an SQLite database, its rows read and written.
- ``index_lock``: The index connection's lock: work that may be cut short gives way to the UI thread.
- ``index_open``: Opening ``logs/.index-9.sqlite``: an existing file checked, or a new one made under a temporary name.
- ``logs_stamp``: ``logs/.index-9.stamp``: ``logs/``'s mtime when its folders last matched the index, so a launch need not list them.
- ``plan_history``: A planned run in history: its tasks, their outcomes, and the attempts under each.
- ``resume``: Whether a past run can be resumed: only the run ``state.json`` holds, with its spec unchanged.
- ``run_filter``: The runs a filter's words match, found in the index once per query and kept as a table.
- ``run_query``: Runs sorted by a column and filtered as a person types, asked of the index a window at a time.
- ``scan``: One run folder summarised from its files: a line of the runs list.
"""
