"""The orch-tui loop library: spec in, reviewed and tested project out.

Nothing in this package imports Textual or ``tui``: the TUI and the headless
mode are two clients of the same engine.

- ``util/``: Small helpers every layer may use: atomic writes, safe text, wording.
- ``config/``: orchestrator.toml's typed models, `init`, .env, the UI state and where files live.
- ``datafiles/``: Data files given with the spec (--data): checked, fingerprinted, described for the prompt.
- ``domain/``: The nouns of a run: state, events, proposals and hunks, plans, questions, costs, tools.
- ``runlog/``: logs/<run_id>/: the layout, the writer and the reader.
- ``workspace/``: The folder a run works in: path safety, the staging overlay, applying, git, the lock.
- ``providers/``: Model providers: one request in, one streamed assistant turn out.
- ``checks/``: Running the checks: runner, sandbox, JUnit reports, the project's venv, trial runs.
- ``attempt/``: One attempt: the model conversation, the editor tool, prompts and templates.
- ``loop/``: The run: the engine and its steps, opening, retry decisions, roles, plans, review, budget.
- ``history/``: Reading past runs: scan, index, search, one run in detail, the test grid, exports.
- ``batch/``: Many runs at once: the specs, the batch record, the engines (local pool, Ray), the report.
- ``doctor``: ``orch-tui doctor``: what this machine and project have, and what is missing.
"""
