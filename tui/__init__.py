"""The command line and the Textual app: two clients of ``core``.

Nothing imported here at module level may pull in Textual: ``--auto`` must
start without it.
"""
