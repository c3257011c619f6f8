"""The nouns of a run: state, events, proposals and hunks, plans, questions, costs, tools, outcomes.

- ``attempt_kind``: What each attempt is: generate, patch, and after a question + answer.
- ``asking``: Asking a person: the question a run stops on, and the answer that restarts it.
- ``budget``: The cost budget, checked before every model request so a run cannot overshoot it.
- ``cost``: Token usage, and what it costs by the config's price table.
- ``describe``: Every event in words, one line each, for the printer, the TUI timeline, history and exports.
- ``evidence``: The verdict's evidence: per attempt (its event, ``evidence.json``) and the run's last line.
- ``event_reading``: Events read back from the JSON they were logged as, each field checked against its type.
- ``events``: What the engine tells the world, as typed events.
- ``json_fields``: Reading a field of a saved JSON object, with a message that names it when it is wrong.
- ``outcome``: How an attempt ended, as history tells it.
- ``plan``: A plan: the ordered tasks a spec is built in (plan mode, DESIGN.md section 10).
- ``proposal``: Proposals: the file changes of one attempt, their hunks, and the person's decisions on them.
- ``roles``: The second models a run may consult (judge, verifier) and what they decided.
- ``spec``: Reading the spec a run is built from.
- ``state``: ``state.json``: where the current run stands, written before every next step.
- ``state_records``: The records ``state.json`` keeps beside its counters, typed both ways.
- ``test_files``: Which files are tests, and the locked tests an attempt may not change unasked.
- ``test_syntax``: Reading tests from Python source with ``ast``: which tests a file defines and their parts.
- ``test_weakening``: Weakened tests, found by comparing the syntax trees of a test file before and after a change.
- ``tools``: Every tool the model is offered, as plain data in one place.
- ``unified_diff``: Line diffs: fast opcodes for hunks, and git-style unified diffs that `git apply` accepts.
"""
