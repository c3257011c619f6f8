"""The folder a run works in: path safety, the staging overlay, applying, git, the lock.

- ``boundary``: The workspace boundary: path safety, the staging overlay, and transactional apply.
- ``git``: The git side of a run in an existing repository (DESIGN section 12), through the ``git`` CLI.
- ``lock``: One run per project folder: an OS file lock on ``orch.lock`` (DESIGN section 13).
- ``placement``: Where a workspace may be: never the project folder, nor a folder that holds it.
- ``run_workspace``: What a run owes the folder it works in (DESIGN section 12).
- ``test_guard``: Tests the person already had: protected from the model, and weakening edits marked.
"""
