"""The diff view: a pure row model beside the widget that paints it.

- ``rows``: The row model of a diff view: which old and new line each screen row shows.
- ``view``: DiffView: a read-only, VS Code-style diff of one file change.
"""
