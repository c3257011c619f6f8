"""The run: the engine, roles, plans, review, restore and notifications.

- ``engine``: The loop: GENERATING → REVIEWING → TESTING → SUCCESS, or PATCHING and round again.
- ``notify``: Telling the person when a run needs them or ends: an event subscriber (``[notify]``).
- ``plan_runner``: Plan mode in the engine: the planning step, and which task the loop is working on.
- ``restore``: ``orch-tui restore K``: the workspace back to attempt K's result, as a new step of the run.
- ``restore_guard``: What ``restore`` must not overwrite: the person's edits made after the run last wrote.
- ``review``: The one interface between the engine and whoever reviews a proposal.
- ``roles``: Optional judge and verifier models (DESIGN.md section 11), each off unless its model id is set.
"""
