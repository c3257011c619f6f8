"""The history browser: one module per screen, and what they share.

- ``runs_list``: The runs list: every past run, newest first; sort, filter as you type, open, resume.
- ``run``: One run: its attempts as a timeline and its tests × attempts grid, blame under it; ``c`` compares two.
- ``revert``: History's ``X``: the hunks blamed for broken tests, reverted as a proposal put up for review.
- ``attempt``: One attempt: its proposal with the decisions, the test report, the model's text.
- ``compare``: Two attempts of a run compared: the workspace after one against after the other.
- ``files_and_diff``: The attempt and compare screens' shared half: a file list beside a diff.
- ``themed``: What every history screen shares: the stylesheet, theme colours, reading off the UI thread.
"""
