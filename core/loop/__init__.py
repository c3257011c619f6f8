"""The run: the engine and its steps, opening, retry decisions, roles, plans, review, budget.

- ``budget``: The run's usage and its cost budget: every model turn counted, every request capped.
- ``change_run``: A change run: a spec edited after a run changes that run's project (DESIGN section 16).
- ``checks_step``: The checks step (TESTING): apply the decided change, run the checks, judge the result.
- ``evidence_step``: The checks step's evidence: coverage.json and evidence.json, tests rewritten to pass, the run's verdict.
- ``context``: The narrow view of a run that roles and the plan runner get: ``RunContext``.
- ``engine``: The loop: GENERATING → REVIEWING → TESTING → SUCCESS, or PATCHING and round again.
- ``escalation``: Which model answers an attempt: ``model.escalate_to`` takes over after failed attempts.
- ``exit_codes``: The exit codes of a run (DESIGN.md section 6): what ``orch-tui SPEC`` returns to the shell.
- ``finishing``: How a run stops: a terminal state with its reason, a question for a person, the last event.
- ``giving_up``: Giving up on a run: an action, not guidance; the run ends FAILED with no model request.
- ``model_step``: The model step (GENERATING / PATCHING): one attempt's conversation, its proposal kept.
- ``notify``: Telling the person when a run needs them or ends: an event subscriber (``[notify]``).
- ``final_checks``: The final checks (``checks.final``): run once the work is done; a failure gets one patch round.
- ``one_task``: ``--task ID``: one task of an approved plan, run alone.
- ``opening``: Opening a run: resume the saved one, or start a new one (``--fresh`` sets the old aside).
- ``options``: What the command line adds on top of the config for one run: ``RunOptions``.
- ``person_proposal``: A proposal the person prepared (the revert of blamed hunks), put up for review as the next attempt.
- ``plan_runner``: Plan mode in the engine: the planning step, and which task the loop is working on.
- ``prompts``: The prompt pieces a run's requests share: the system blocks and the patch prompt.
- ``reset``: ``orch-tui reset``: undo what the current run did to its workspace, keeping ``logs/``.
- ``restore``: ``orch-tui restore K``: the workspace back to attempt K's result, as a new step of the run.
- ``restore_guard``: What ``restore`` must not overwrite: the person's edits made after the run last wrote.
- ``retry``: Where the retry is decided: after a failed attempt, patch again, stop, or ask a person.
- ``review``: The one interface between the engine and whoever reviews a proposal.
- ``review_step``: The review step (REVIEWING): the proposal goes to the reviewer, the decided change is kept.
- ``roles``: Optional judge and verifier models (DESIGN.md section 11), each off unless its model id is set.
- ``run``: The run being driven: ``Run``, what the engine's steps share.
"""
