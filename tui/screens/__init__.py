"""Screens of the orch-tui app.

- ``loading``: The review screen's frame while the run opens: its header, panes and footer.
- ``review/``: The review screen: a proposal's files and hunks under the person's keys.
- ``inbox/``: The review inbox: finished batch runs waiting for a person, and the review of one.
- ``history/``: The history browser: one module per screen, and what they share.
- ``plan``: The plan screen: the tasks the run will build, approved (or edited) before any code.
- ``needs_help``: The needs-help dialog: the run's question, its options, a box for free guidance.
- ``dialogs``: Modal dialogs of the review screen: edit a file, reject with a reason, help, a stopped run.
"""
