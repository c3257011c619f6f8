"""logs/<run_id>/: the layout, the writer and the reader.

- ``active_time``: How long a run was at work, from its events (restores and idle time left out).
- ``conversation``: ``conversation.json``: one attempt's model conversation, each turn's content held once.
- ``layout``: ``logs/<run_id>/``: the names of everything about one run, the only truth history reads.
- ``opened_runs``: ``logs/.opened-runs``: the id of every run a writer opened, so history looks again only at those.
- ``reader``: Reads ``logs/<run_id>/`` back: the events as the typed events they were written as.
- ``verdict``: A finished run's verdict line, read back from its event log (the batch report shows it).
- ``writer``: Writes ``logs/<run_id>/``: the append-only event log and the files of each attempt.
"""
