"""Many runs at once: the specs, the batch record, the engines (local pool, Ray) and the report.

- ``inbox``: ``orch-tui inbox``: the batch runs that finished and wait for a person, newest first.
- ``inbox_review``: One inbox run under review: its session for the review screen, and how the review ends.
- ``landing``: Accepted hunks into the person's project: each file's reviewed text, merged with theirs.
- ``reviewed``: What the inbox remembers: ``review.json`` in a run's folder, written once handled.
- ``run_change``: A finished batch run's whole change against its start, and the evidence beside it.
- ``send_back``: Rejected hunks back to the model: a new attempt of the batch run, with the reason.
- ``driver``: A batch's runs handed out to workers, its budget shared out, and its record kept.
- ``local``: The local engine: ``--jobs`` workers on this machine, each running one spec at a time.
- ``opening``: Opening a batch: its folder under ``batches/``, its record, and one project folder a spec.
- ``ray_engine``: The Ray engine: each run a Ray task with one CPU, on a local Ray or an existing cluster.
- ``record``: ``batch.json``: the batch's options and where each of its runs stands.
- ``rework``: A run sent back from the inbox, kept in its batch's record: ``batch.json`` and the report.
- ``report``: ``report.md`` and ``report.json``: how each spec of a batch went, and the batch in totals.
- ``run_one``: One spec's run in its own project folder: ``orch-tui spec.md --auto --json`` as a process.
- ``worktrees``: ``batch --workspace REPO``: each run in its own git worktree of the person's repository.
- ``space``: A batch folder out of space: how the batch notices it, and what it tells the person.
- ``specs``: The specs a batch runs: files and folders from the command line, each given a unique name.
"""
