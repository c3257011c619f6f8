"""Reading past runs: the list and its index, one run in detail, exports and costs.

- ``costs``: ``orch-tui history --costs``: tokens and dollars per day and per model across all runs.
- ``index``: One line per past run, and the index that lists ten thousand of them at once.
- ``plan_history``: A planned run in history: its tasks, their outcomes, and the attempts under each.
- ``runs``: Past runs, read from ``logs/``: the list, one run attempt by attempt, compares and exports.
"""
