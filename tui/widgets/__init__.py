"""Widgets of the orch-tui app.

- ``diff/``: The diff view: a pure row model and highlighting beside the widget and its painting.
- ``file_list``: FileList: the files of a proposal, one line each, with their review progress.
- ``filter_input``: FilterInput: an Input whose typing redraws the input, not the screen.
- ``following_log``: A Log that keeps its last line in view when its size changes.
- ``key_footer``: Textual's Footer, rebuilt at most once per batch of binding changes.
- ``run_columns``: The runs list's columns and cells as plain text: what each shows, how wide.
- ``run_header``: The one-line header: run, state, attempt n/N, tokens, cost, elapsed, sandbox.
- ``runs_paint``: The painting half of the runs list: its header and rows as Strips, from plain cell texts.
- ``runs_table``: RunsTable: the runs list of the history browser, fast at thousands of runs.
- ``sized_by_layout``: SizedByLayout: a widget whose content's size never lays the screen out.
- ``timeline``: The attempt timeline: one line per attempt, updated from engine events.
"""
