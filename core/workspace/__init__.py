"""The folder a run works in: path safety, the staging overlay, applying, git, the lock.

- ``apply``: Applying an accepted change as one all-or-nothing transaction; reading and copying the tree.
- ``boundary``: The workspace boundary: path safety.
- ``data_copies``: The spec's data files in the workspace: copied to ``data/<name>`` when a run opens.
- ``branch_commit``: Files committed onto a branch that is not checked out, without touching any work tree.
- ``git``: The git side of a run in an existing repository (DESIGN section 12), hooks and fsmonitor off.
- ``lock``: One run per project folder: an OS file lock on ``orch.lock`` (DESIGN section 13).
- ``merge_text``: Three-way merge of one file's text with ``git merge-file`` (the person's copy, start, result).
- ``placement``: Where a workspace may be: never the project folder, nor a folder that holds it.
- ``run_workspace``: What a run owes the folder it works in (DESIGN section 12).
- ``staging``: The staging overlay: the model's edits in memory on top of the workspace, never on disk.
- ``test_guard``: Tests the person already had: protected from the model, and weakening edits marked.
"""
