"""The command line and the Textual app: two clients of ``core``.

Nothing imported here at module level may pull in Textual: ``--auto`` must
start without it.

- ``cli/``: The command line: argument parsing, the commands and the headless printer (no Textual).
- ``themed_app``: The base of both Textual apps: orch-tui's themes, and the diff colours a theme lacks.
- ``app``: The Textual app: one client of the engine, the review screen its main view.
- ``launch``: ``orch-tui SPEC`` on a terminal: the review screen's frame first, the run opened behind it.
- ``bridge``: The engine on a thread, talking to the app only through posted messages.
- ``messages``: Messages between the engine thread, the review screen and the app.
- ``keymap``: ``[ui] keymap``: remapped keys by binding id, checked against the ids the app has.
- ``inbox_app``: ``orch-tui inbox``'s Textual app: the list of waiting batch runs and the review of one.
- ``full_collections``: Full garbage collections held off while a screen keeps many long-lived objects.
- ``batch_progress``: The batch's live table on a terminal: a row per run and a bar for the batch.
- ``screens/``: The review screen, the history browser, the plan screen and the dialogs.
- ``widgets/``: The diff view, the runs table, the file list, the header, the timeline.
"""
