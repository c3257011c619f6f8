"""The review screen: a proposal's files and hunks under the person's keys.

- ``screen``: The review screen: spec, attempt timeline, proposal diff, model text and test output.
- ``decisions``: The person's decisions on the proposal under review: the keys, and what they change.
- ``coverage``: Coverage in the review: which tests run each hunk (the lines it replaces, then the trial run's new lines); ``u`` finds the next untested hunk.
- ``trial``: The trial run of the proposal under review, and the status line that reports on it.
"""
