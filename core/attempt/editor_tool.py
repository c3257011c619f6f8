"""Claude's text editor tool (``text_editor_20250728``) over a :class:`Staging` overlay.

Every command works on the overlay, so nothing the model does reaches disk. Mistakes the model
can fix (no match, several matches, missing file, protected path, bad parameters) come back as
``is_error`` outcomes in the wording of Anthropic's docs; a path outside the workspace raises
:class:`SafetyViolation` and the engine stops the run.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Collection, Mapping

from orch_tui.core.attempt.edit_rules import EditRules
from orch_tui.core.domain.tools import EDITOR_TOOL_NAME as TOOL_NAME
from orch_tui.core.util.records import record
from orch_tui.core.workspace.boundary import VIRTUAL_ROOT, ProtectedPath
from orch_tui.core.workspace.staging import Staging

COMMANDS = ("view", "create", "str_replace", "insert", "delete")
"""Anthropic's commands, and ``delete``: not in Anthropic's tool, but a provider that edits files
by itself (Claude Code) hands its deletions to the attempt as this command."""

LOCKED_TEST = (
    "Error: {path} is a test that existed before this attempt: the tests are the contract and "
    "cannot be edited. If a test is wrong, ask the person with the ask_user tool instead."
)
NO_MATCH = "Error: No match found for replacement. Please check your text and try again."
SNIPPET_CONTEXT_LINES = 4
DEFAULT_MAX_FILE_BYTES = 2_000_000
MAX_NAME_BYTES = 200
"""Longest file or folder name: 255 (the usual file-system limit) less room for the temp-file
affixes of an atomic write (``.<name>.<hex>.orch-tmp``), so an accepted file always lands."""
MAX_PATH_BYTES = 1024
"""Longest path, well under Linux's 4096 so the trial copy and ``logs/<run>/workspace/`` fit."""


@record(frozen=True)
class ToolOutcome:
    """What one tool call did: the text for the ``tool_result`` and whether it is an error."""

    command: str
    path: str | None
    content: str
    is_error: bool


class _ToolError(Exception):
    """A mistake the model can fix; becomes an ``is_error`` outcome."""


class EditorTool:
    """Runs the model's text editor commands against a staging overlay."""

    def __init__(
        self,
        staging: Staging,
        max_view_chars: int = 100_000,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        locked: Collection[str] = (),
        rules: EditRules | None = None,
    ) -> None:
        self.staging = staging
        self.locked = frozenset(locked)
        """Test files that are the contract (``--auto``): an edit goes back as an error."""
        self.rules = rules or EditRules()
        self.max_view_chars = max_view_chars
        self.max_file_bytes = max_file_bytes
        self._handlers: dict[str, Callable[[Mapping[str, object], str], str]] = {
            "view": self._view,
            "create": self._create,
            "str_replace": self._str_replace,
            "insert": self._insert,
            "delete": self._delete,
        }

    def run(self, tool_input: Mapping[str, object]) -> ToolOutcome:
        """Run one tool call. Raises :class:`SafetyViolation` only; all else is an outcome."""
        if not isinstance(tool_input, Mapping):
            return ToolOutcome("", None, "Error: The tool input must be a JSON object.", True)
        self.staging.forget_located()  # what the disk said for an earlier call is not reused
        raw_command, raw_path = tool_input.get("command"), tool_input.get("path")
        command = raw_command if isinstance(raw_command, str) else ""
        path = raw_path if isinstance(raw_path, str) else None
        try:
            command = _required_str(tool_input, "command", "any command")
            handler = self._handlers.get(command)
            if handler is None:
                raise _ToolError(_unknown_command(command))
            path = _required_str(tool_input, "path", command)
            _check_length(path)
            return ToolOutcome(command, path, handler(tool_input, path), is_error=False)
        except _ToolError as error:
            return ToolOutcome(command, path, str(error), is_error=True)

    # --- commands -------------------------------------------------------------------------

    def _view(self, tool_input: Mapping[str, object], path: str) -> str:
        view_range = tool_input.get("view_range")
        if self.staging.is_dir(path):
            if view_range is not None:
                raise _ToolError(
                    "Error: The `view_range` parameter is not allowed when `path` points to "
                    "a directory."
                )
            entries = self.staging.listing(path, depth=2)
            listing = "\n".join(entries) if entries else "(empty directory)"
            return (
                f"Here are the files and directories up to 2 levels deep in {path}, "
                f"excluding .git and caches:\n{listing}\n"
            )
        lines = self._read_lines(path)
        first, last = 1, len(lines)
        if view_range is not None:
            first, last = _parse_view_range(view_range, len(lines))
        shown = _number_lines(lines[first - 1 : last], first)
        if len(shown) > self.max_view_chars:
            shown = (
                shown[: self.max_view_chars]
                + "\n<response clipped><NOTE>The file is too long to show at once; use "
                "`view_range` to see the rest.</NOTE>"
            )
        return f"Here's the result of running `cat -n` on {path}:\n{shown}\n"

    def _create(self, tool_input: Mapping[str, object], path: str) -> str:
        file_text = _required_str(tool_input, "file_text", "create")
        self._refuse_protected(path)
        if self.staging.is_dir(path):
            raise _ToolError(f"Error: {path} is a directory; `create` needs a file path.")
        existed = self.staging.exists(path)
        self._stage(path, file_text)
        verb = "overwritten" if existed else "created"
        return f"File {verb} successfully at: {path}"

    def _str_replace(self, tool_input: Mapping[str, object], path: str) -> str:
        old_str = _required_str(tool_input, "old_str", "str_replace")
        new_str = _optional_str(tool_input, "new_str") or ""
        self._refuse_protected(path)
        text = self._read_text(path)
        if not old_str:
            raise _ToolError("Error: Parameter `old_str` must not be empty.")
        count = _count_occurrences(text, old_str)
        if count == 0 and "\r\n" in text and "\r" not in old_str:
            # The model rarely reproduces "\r"; match the file's CRLF endings for it.
            old_str = old_str.replace("\n", "\r\n")
            new_str = new_str.replace("\r\n", "\n").replace("\n", "\r\n")
            count = _count_occurrences(text, old_str)
        if count == 0:
            raise _ToolError(NO_MATCH)
        if count > 1:
            raise _ToolError(
                f"Error: Found {count} matches for replacement text. Please provide more "
                "context to make a unique match."
            )
        start = text.index(old_str)
        new_text = text[:start] + new_str + text[start + len(old_str) :]
        self._stage(path, new_text)
        first_line = text.count("\n", 0, start) + 1
        line_start = text.rfind("\n", 0, start) + 1
        snippet = _snippet(new_text, line_start, first_line, new_str.count("\n") + 1)
        return (
            "Successfully replaced text at exactly one location.\n"
            f"Here's the result of running `cat -n` on a snippet of {path}:\n{snippet}\n"
        )

    def _insert(self, tool_input: Mapping[str, object], path: str) -> str:
        insert_line = tool_input.get("insert_line")
        if insert_line is None:
            raise _ToolError("Error: Parameter `insert_line` is required for command: insert")
        if isinstance(insert_line, bool) or not isinstance(insert_line, int):
            raise _ToolError(
                "Error: Parameter `insert_line` must be an integer, got "
                f"{type(insert_line).__name__}."
            )
        inserted = _optional_str(tool_input, "insert_text")
        if inserted is None:
            inserted = _optional_str(tool_input, "new_str")
        if inserted is None:
            raise _ToolError("Error: Parameter `insert_text` is required for command: insert")
        self._refuse_protected(path)
        text = self._read_text(path)
        lines = text.splitlines(keepends=True)
        if not 0 <= insert_line <= len(lines):
            raise _ToolError(
                f"Error: Invalid `insert_line` parameter: {insert_line}. It should be within "
                f"the range of lines of the file: [0, {len(lines)}]"
            )
        newline = "\r\n" if "\r\n" in text else "\n"
        if inserted and not inserted.endswith(("\n", "\r")):
            inserted += newline
        before = "".join(lines[:insert_line])
        if before and not before.endswith(("\n", "\r")):
            before += newline
        new_text = before + inserted + "".join(lines[insert_line:])
        self._stage(path, new_text)
        snippet = _snippet(new_text, len(before), insert_line + 1, max(1, inserted.count("\n")))
        return (
            f"The file {path} has been edited. Here's the result of running `cat -n` on a "
            f"snippet of the edited file:\n{snippet}\n"
        )

    def _delete(self, _tool_input: Mapping[str, object], path: str) -> str:
        self._refuse_protected(path)
        try:
            self.staging.delete(path)
        except ProtectedPath as error:
            raise _ToolError(f"Error: {path} is protected and cannot be edited") from error
        except IsADirectoryError as error:
            raise _ToolError(f"Error: {path} is a directory; `delete` removes one file.") from error
        except FileNotFoundError as error:
            raise _ToolError(f"Error: File not found: {path}") from error
        return f"File deleted successfully at: {path}"

    # --- helpers --------------------------------------------------------------------------

    def _read_text(self, path: str) -> str:
        if self.staging.is_dir(path):
            raise _ToolError(f"Error: {path} is a directory, not a file.")
        try:
            text = self.staging.read(path)
        except UnicodeDecodeError as error:
            raise _ToolError(f"Error: {path} is not a UTF-8 text file.") from error
        except OSError as error:
            raise _ToolError(f"Error: Permission denied. Cannot read file: {error}") from error
        if text is None:
            raise _ToolError(f"Error: File not found: {path}")
        return text

    def _read_lines(self, path: str) -> list[str]:
        """The file's lines without their ``\\n`` (a final newline adds no empty line)."""
        text = self._read_text(path)
        return text.removesuffix("\n").split("\n") if text else []

    def _refuse_protected(self, path: str) -> None:
        if self.staging.is_protected(path):
            raise _ToolError(f"Error: {path} is protected and cannot be edited")
        if _relative(path) in self.locked:
            raise _ToolError(LOCKED_TEST.format(path=path))
        refusal = self.rules.refusal(_relative(path))
        if refusal:
            raise _ToolError(refusal)

    def _stage(self, path: str, text: str) -> None:
        size = len(text.encode("utf-8"))
        if size > self.max_file_bytes:
            raise _ToolError(
                f"Error: The new content of {path} is {size} bytes, over the "
                f"{self.max_file_bytes}-byte limit for one file."
            )
        try:
            self.staging.write(path, text)
        except ProtectedPath as error:
            raise _ToolError(f"Error: {path} is protected and cannot be edited") from error
        except OSError as error:
            raise _ToolError(f"Error: {error}") from error


def _snippet(text: str, offset: int, first_line: int, line_count: int) -> str:
    """Lines ``first_line`` to ``first_line + line_count - 1`` of ``text`` and
    ``SNIPPET_CONTEXT_LINES`` either side, numbered; ``offset`` is where ``first_line`` starts.

    Only the lines shown are looked at (a final newline adds no empty line), so an edit near
    any line of a big file costs what the snippet does, not what splitting the file would.
    """
    end_of_text = len(text) - 1 if text.endswith("\n") else len(text)
    begin, number = offset, first_line
    while number > 1 and first_line - number < SNIPPET_CONTEXT_LINES:
        begin = text.rfind("\n", 0, begin - 1) + 1
        number -= 1
    end = offset
    for _ in range(line_count + SNIPPET_CONTEXT_LINES):
        newline = text.find("\n", end, end_of_text)
        if newline == -1:
            end = end_of_text
            break
        end = newline + 1
    else:
        end -= 1  # the last line shown, without its newline
    return _number_lines(text[begin:end].split("\n"), number)


def _number_lines(lines: list[str], first: int) -> str:
    """``cat -n`` style, like Anthropic's reference implementation: 6-wide number, tab, line."""
    return "\n".join(f"{number:6}\t{line}" for number, line in enumerate(lines, start=first))


def _parse_view_range(view_range: object, line_count: int) -> tuple[int, int]:
    """Validate ``[start, end]`` (1-based, ``end`` -1 = to the end); an ``end`` past the last
    line is clamped."""
    if (
        not isinstance(view_range, list | tuple)
        or len(view_range) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in view_range)
    ):
        raise _ToolError("Error: Invalid `view_range`. It should be a list of two integers.")
    start, end = view_range
    if not 1 <= start <= max(line_count, 1):
        raise _ToolError(
            f"Error: Invalid `view_range`: {list(view_range)}. Its first element `{start}` "
            f"should be within the range of lines of the file: [1, {line_count}]"
        )
    if end == -1:
        return start, line_count
    if end < start:
        raise _ToolError(
            f"Error: Invalid `view_range`: {list(view_range)}. Its second element `{end}` "
            f"should be larger or equal than its first `{start}`"
        )
    return start, min(end, line_count)


def _count_occurrences(text: str, needle: str) -> int:
    """Occurrences of ``needle`` in ``text``, overlapping ones included."""
    count, start = 0, text.find(needle)
    while start != -1:
        count += 1
        start = text.find(needle, start + 1)
    return count


def _required_str(tool_input: Mapping[str, object], name: str, command: str) -> str:
    value = tool_input.get(name)
    if value is None:
        raise _ToolError(f"Error: Parameter `{name}` is required for command: {command}")
    if not isinstance(value, str):
        raise _ToolError(f"Error: Parameter `{name}` must be a string, got {type(value).__name__}.")
    return value


def _check_length(path: str) -> None:
    """Refuse names and paths too long for the file system before anything touches the disk."""
    size = len(path.encode("utf-8", "surrogatepass"))
    if size > MAX_PATH_BYTES:
        raise _ToolError(
            f"Error: The path is {size:,} bytes long; the limit is {MAX_PATH_BYTES:,} bytes."
        )
    for name in path.split("/"):
        size = len(name.encode("utf-8", "surrogatepass"))
        if size > MAX_NAME_BYTES:
            raise _ToolError(
                f"Error: A name in the path is {size:,} bytes long; the limit is "
                f"{MAX_NAME_BYTES} bytes per file or folder name."
            )


def _optional_str(tool_input: Mapping[str, object], name: str) -> str | None:
    value = tool_input.get(name)
    if value is not None and not isinstance(value, str):
        raise _ToolError(f"Error: Parameter `{name}` must be a string, got {type(value).__name__}.")
    return value


def _unknown_command(command: str) -> str:
    allowed = ", ".join(COMMANDS)
    if command == "undo_edit":
        return (
            "Error: The `undo_edit` command is not supported by text_editor_20250728. "
            f"Allowed commands: {allowed}. To revert an edit, use `str_replace` or `create`."
        )
    return (
        f"Error: Unrecognized command {command}. The allowed commands for the {TOOL_NAME} "
        f"tool are: {allowed}"
    )


def _relative(path: str) -> str:
    """``/workspace/tests/a.py`` or ``./tests//a.py`` as the workspace-relative ``tests/a.py``."""
    if path == VIRTUAL_ROOT or path.startswith(f"{VIRTUAL_ROOT}/"):
        path = path[len(VIRTUAL_ROOT) :]
    return posixpath.normpath(path.lstrip("/"))
