"""One attempt: the model conversation, the editor tool, prompts and templates.

- ``conversation``: One attempt: a bounded tool-use conversation whose edits land in a staging overlay.
- ``edit_rules``: What one attempt may not edit beyond the protected paths: the spec's data files, a task's other files.
- ``editor_tool``: Claude's text editor tool (``text_editor_20250728``) over a :class:`Staging` overlay.
- ``feedback``: What goes back to the model: the system prompt, the generation prompt and the patch prompt.
- ``project_map``: A map of the project for prompts: paths, sizes and top-level definitions, not whole files.
- ``prompt_templates``: The prompt templates shipped in ``core/prompts/`` (package data).
"""
