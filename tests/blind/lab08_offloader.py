"""Blind samples for lab08_offloader: written from the release notebook alone.

The lab has one answer cell. The bugs start from one plain, correct ``Offloader``
(:data:`OFFLOADER_CELL`) and change one stated behaviour with :func:`_patch`.

Written before the notebook settled three rules (past the end the header reads
[lines a-a of n]; '/' and '\\' in a tool name become '_' in the file name; the header line
always ends with a newline): the base and the correct variants were then brought to them,
nothing else.
"""

from course.grading.proofs.blind import Blind

OFFLOADER_CELL = r'''import hashlib
import json
import os

HEAD, TAIL = 8, 4
MAX_LIMIT = 500


class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        self.root = root
        self.threshold = threshold
        self.saved_chars = 0
        os.makedirs(root, exist_ok=True)

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        if isinstance(payload, str):
            text = payload
        else:
            text = json.dumps(payload, indent=2, default=str)
        if len(text) <= self.threshold:
            return text
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        safe = tool_name.replace("/", "_").replace("\\", "_")
        path = os.path.join(self.root, f"{safe}-{digest}.txt")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        self.saved_chars += len(text)
        lines = text.splitlines()
        parts = [f"[{tool_name} result offloaded: {len(lines)} lines, {len(text)} chars]",
                 f"saved to: {path}",
                 f"first {min(HEAD, len(lines))} lines:"]
        parts.extend(lines[:HEAD])
        if len(lines) > HEAD + TAIL:
            parts.append(f"... last {TAIL} lines:")
            parts.extend(lines[-TAIL:])
        parts.append(f"to see more, call read_artifact with path {path} "
                     f"(offset = first line from 0, limit = 1 to {MAX_LIMIT} lines)")
        return "\n".join(parts)

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        try:
            root = os.path.realpath(self.root)
            target = os.path.realpath(path)
            return os.path.commonpath([root, target]) == root
        except (TypeError, ValueError, OSError):
            return False

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        if not self._contained(path):
            return f"Error: {path!r} is outside the artifact folder {self.root}; refused."
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            return f"Error: offset must be a whole number >= 0, got {offset!r}."
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            return f"Error: limit must be a whole number from 1 to {MAX_LIMIT}, got {limit!r}."
        try:
            with open(os.path.realpath(path), encoding="utf-8", newline="") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read {path!r} ({type(exc).__name__}); ask for a pointer's path."
        total = len(lines)
        end = max(offset, min(offset + limit, total))
        return f"[lines {offset}-{end} of {total}]\n" + "\n".join(lines[offset:end])
'''


def _patch(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` edit applied; each ``old`` must occur exactly once."""
    for old, new in edits:
        found = source.count(old)
        if found != 1:
            raise ValueError(f"a blind edit expects {old!r} once in its template, found {found}")
        source = source.replace(old, new)
    return source


def _bug(*edits: tuple[str, str]) -> dict[str, str]:
    """The answer cell: the correct template with ``edits`` applied."""
    return {"offloader": _patch(OFFLOADER_CELL, *edits)}


PATHLIB_CELL = r'''import hashlib
import json
import os
from pathlib import Path

HEAD, TAIL = 8, 4
MAX_LIMIT = 500


def _whole(value):
    """A real int, not a bool (bool is a subclass of int)."""
    return type(value) is int


class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        self.root = str(root)
        self.threshold = threshold
        self.saved_chars = 0
        Path(self.root).mkdir(parents=True, exist_ok=True)

    def _pointer(self, tool_name, path, text):
        lines = text.splitlines()
        shown = lines[:HEAD]
        tail = lines[-TAIL:] if len(lines) > HEAD + TAIL else []
        out = (f"{tool_name} returned {len(text):,} characters in {len(lines)} lines, "
               f"stored at {path}\n")
        out += "--- head ---\n" + "\n".join(shown) + "\n"
        if tail:
            out += "--- tail ---\n" + "\n".join(tail) + "\n"
        out += f'more: read_artifact(path="{path}", offset=0, limit=200)'
        return out

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        text = payload if isinstance(payload, str) else json.dumps(payload, indent=2,
                                                                    default=str)
        if not len(text) > self.threshold:
            return text
        flat = tool_name.replace("/", "_").replace("\\", "_")
        name = f"{flat}-{hashlib.blake2s(text.encode(), digest_size=4).hexdigest()}.txt"
        path = os.path.join(self.root, name)
        Path(path).write_text(text, encoding="utf-8", newline="")
        self.saved_chars = self.saved_chars + len(text)
        return self._pointer(tool_name, path, text)

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        try:
            base = str(Path(self.root).resolve())
            where = str(Path(os.fspath(path)).resolve())
            return os.path.commonpath((base, where)) == base
        except Exception:
            return False

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        problem = None
        if not self._contained(path):
            problem = "that path is not inside the artifact folder"
        elif not _whole(offset) or offset < 0:
            problem = f"offset must be an int >= 0, not {offset!r}"
        elif not _whole(limit) or limit < 1 or limit > MAX_LIMIT:
            problem = f"limit must be an int in 1..{MAX_LIMIT}, not {limit!r}"
        if problem:
            return "Error: " + problem
        real = Path(os.path.realpath(path))
        if not real.is_file():
            return f"Error: no artifact file at {path}"
        try:
            rows = real.read_text(encoding="utf-8").splitlines()
        except Exception as exc:
            return f"Error: could not read {path}: {exc}"
        stop = max(offset, min(offset + limit, len(rows)))
        header = "[lines %d-%d of %d]" % (offset, stop, len(rows))
        return header + "\n" + "\n".join(rows[offset:stop])
'''

BLIND = [
    Blind(
        name="threshold_itself_offloaded",
        bug="a result of exactly threshold characters is offloaded: the pass-through test "
            "is len(text) < threshold, but the notebook passes len(text) <= threshold "
            "through unchanged",
        cells=_bug(("if len(text) <= self.threshold:", "if len(text) < self.threshold:")),
    ),
    Blind(
        name="compact_json",
        bug="a payload that is not a str is rendered with json.dumps(payload, default=str), "
            "without indent=2, so its text, length and lines differ from the stated render",
        cells=_bug(("json.dumps(payload, indent=2, default=str)",
                    "json.dumps(payload, default=str)")),
    ),
    Blind(
        name="tail_from_twelve_lines",
        bug="the last 4 lines are shown when there are 12 or more lines; the notebook shows "
            "a tail only when there are MORE than 12",
        cells=_bug(("if len(lines) > HEAD + TAIL:", "if len(lines) >= HEAD + TAIL:")),
    ),
    Blind(
        name="small_results_counted",
        bug="saved_chars grows before the threshold test, so small results that pass "
            "through unchanged also move it; the notebook: saved_chars does not move",
        cells=_bug(
            ("            text = json.dumps(payload, indent=2, default=str)\n",
             "            text = json.dumps(payload, indent=2, default=str)\n"
             "        self.saved_chars += len(text)\n"),
            ("            f.write(text)\n        self.saved_chars += len(text)\n",
             "            f.write(text)\n")),
    ),
    Blind(
        name="saved_bytes_not_chars",
        bug="saved_chars adds the UTF-8 byte length of the text, not its number of "
            "characters (they differ for any non-ASCII payload)",
        cells=_bug(("self.saved_chars += len(text)",
                    "self.saved_chars += len(text.encode(\"utf-8\"))")),
    ),
    Blind(
        name="lines_counted_by_newlines",
        bug="the pointer's line count is text.count('\\n') + 1 instead of "
            "len(text.splitlines()): one too many when the text ends with a newline",
        cells=_bug(("offloaded: {len(lines)} lines,",
                    "offloaded: {text.count(chr(10)) + 1} lines,")),
    ),
    Blind(
        name="string_prefix_after_realpath",
        bug="_contained resolves both paths with realpath but then compares strings "
            "(startswith), so a sibling folder '<root>-evil' is admitted; the notebook "
            "compares path components (commonpath)",
        cells=_bug(("return os.path.commonpath([root, target]) == root",
                    "return target.startswith(root)")),
    ),
    Blind(
        name="abspath_keeps_symlinks",
        bug="_contained uses os.path.abspath, which collapses '..' but never follows a "
            "symbolic link, so a link planted inside root to a file outside is admitted",
        cells=_bug(("            root = os.path.realpath(self.root)\n"
                    "            target = os.path.realpath(path)\n",
                    "            root = os.path.abspath(self.root)\n"
                    "            target = os.path.abspath(path)\n")),
    ),
    Blind(
        name="root_not_resolved",
        bug="only the asked path goes through realpath; root is only made absolute, so "
            "when root itself sits behind a symbolic link every legitimate read is refused "
            "(the notebook resolves links in both root and path)",
        cells=_bug(("root = os.path.realpath(self.root)", "root = os.path.abspath(self.root)")),
    ),
    Blind(
        name="bool_offset_accepted",
        bug="offset is checked with isinstance(offset, int) alone, so True is accepted as "
            "offset 1; the notebook says a bool is not accepted as an int",
        cells=_bug(("if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:",
                    "if not isinstance(offset, int) or offset < 0:")),
    ),
    Blind(
        name="limit_500_refused",
        bug="limit must be below 500 (1 <= limit < 500), so the stated maximum 500 itself "
            "gets an error; the notebook allows 1...500",
        cells=_bug(("not 1 <= limit <= MAX_LIMIT:", "not 1 <= limit < MAX_LIMIT:")),
    ),
    Blind(
        name="offset_past_end_is_error",
        bug="an offset at or past the last line returns 'Error: ...'; the notebook says it "
            "gives an empty window, not an error",
        cells=_bug(("        total = len(lines)\n",
                    "        total = len(lines)\n"
                    "        if offset >= total:\n"
                    "            return f\"Error: offset {offset} is past the end ({total} "
                    "lines).\"\n")),
    ),
    Blind(
        name="window_end_not_clamped",
        bug="the header's end is offset + limit even past the end of the file, instead of "
            "min(offset + limit, total)",
        cells=_bug(("end = max(offset, min(offset + limit, total))", "end = offset + limit")),
    ),
    Blind(
        name="only_missing_file_caught",
        bug="reading catches FileNotFoundError only, so a path inside root that is a "
            "folder (root itself, say) raises IsADirectoryError; read must never raise",
        cells=_bug(("except (OSError, UnicodeDecodeError) as exc:",
                    "except FileNotFoundError as exc:")),
    ),
    Blind(
        name="root_parents_not_created",
        bug="the constructor creates root with os.mkdir when it is missing, so a root whose "
            "parent folders do not exist raises FileNotFoundError; the notebook creates "
            "root and its parents",
        cells=_bug(("        os.makedirs(root, exist_ok=True)\n",
                    "        if not os.path.isdir(root):\n"
                    "            os.mkdir(root)\n")),
    ),
    Blind(
        name="os_path_offloader",
        bug="the plain solution: os.path throughout, isinstance checks that exclude bool, "
            "a pointer assembled from a list of lines",
        cells={"offloader": OFFLOADER_CELL},
        correct=True,
    ),
    Blind(
        name="pathlib_offloader",
        bug="pathlib for making the root, writing and reading, Path.resolve for the "
            "containment check (still compared with commonpath), type(x) is int to refuse "
            "bools, blake2s for the 8 name characters, and one error variable in read",
        cells={"offloader": PATHLIB_CELL},
        correct=True,
    ),
]


# Round three: written from the release notebook of 2026-12-06 alone, told to write the
# mistakes a student would make, not edits of an answer.
_R3_HEAD = r"""import hashlib
import json
import os

HEAD, TAIL = 8, 4
MAX_LIMIT = 500

"""

BLIND += [
    Blind(
        "r3_realpath_then_startswith",
        (
            'resolves links with realpath but then compares the resolved paths with '
            'str.startswith instead of path components, so a sibling folder <root>-evil is '
            'admitted.'
        ),
        {
            "offloader": _R3_HEAD
            + r'''
class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        self.root = root
        self.threshold = threshold
        self.saved_chars = 0
        os.makedirs(root, exist_ok=True)

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        text = payload if isinstance(payload, str) else json.dumps(payload, indent=2, default=str)
        if len(text) <= self.threshold:
            return text
        safe = tool_name.replace("/", "_").replace("\\", "_")
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        path = os.path.join(self.root, f"{safe}-{digest}.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.saved_chars += len(text)
        lines = text.splitlines()
        out = [f"[{tool_name}: {len(lines)} lines, {len(text)} chars, saved to {path}]",
               "--- first lines ---", *lines[:HEAD]]
        if len(lines) > HEAD + TAIL:
            out += ["--- last lines ---", *lines[-TAIL:]]
        out.append(f"Use read_artifact(path='{path}', offset, limit) to read the rest.")
        return "\n".join(out)

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        try:
            root = os.path.realpath(self.root)
            target = os.path.realpath(path)
            return target == root or target.startswith(root)
        except Exception:
            return False

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        if not self._contained(path):
            return "Error: path is outside the artifact folder."
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            return "Error: offset must be a whole number >= 0."
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            return f"Error: limit must be a whole number from 1 to {MAX_LIMIT}."
        real = os.path.realpath(path)
        if not os.path.isfile(real):
            return "Error: no such artifact."
        try:
            with open(real, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return f"Error: cannot read artifact ({exc})."
        total = len(lines)
        end = max(offset, min(offset + limit, total))
        return f"[lines {offset}-{end} of {total}]\n" + "\n".join(lines[offset:end])
'''
        },
    ),
    Blind(
        "r3_tail_whenever_past_head",
        (
            'adds the 4-line tail whenever the text has more lines than the 8-line head, so a 9- '
            'to 12-line result shows some lines twice (the tail only belongs when there are more '
            'than 12 lines).'
        ),
        {
            "offloader": _R3_HEAD
            + r'''
class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        os.makedirs(root, exist_ok=True)
        self.root = root
        self.threshold = threshold
        self.saved_chars = 0

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        if not isinstance(payload, str):
            payload = json.dumps(payload, indent=2, default=str)
        text = payload
        if len(text) <= self.threshold:
            return text
        name = tool_name.replace("/", "_").replace("\\", "_")
        name += "-" + hashlib.sha256(text.encode()).hexdigest()[:8] + ".txt"
        path = os.path.join(self.root, name)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        self.saved_chars += len(text)
        lines = text.splitlines()
        parts = [f"Result of {tool_name} was too large ({len(lines)} lines, {len(text)} chars).",
                 f"Saved to: {path}",
                 "First lines:"]
        parts.extend(lines[:HEAD])
        if len(lines) > HEAD:
            parts.append("Last lines:")
            parts.extend(lines[-TAIL:])
        parts.append(f"Call read_artifact with path {path} and an offset/limit to see more.")
        return "\n".join(parts)

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        try:
            root = os.path.realpath(self.root)
            real = os.path.realpath(path)
            return os.path.commonpath([root, real]) == root
        except (TypeError, ValueError, OSError):
            return False

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        if not self._contained(path):
            return "Error: access outside the artifact directory is not allowed."
        if type(offset) is not int or offset < 0:
            return "Error: bad offset."
        if type(limit) is not int or limit < 1 or limit > MAX_LIMIT:
            return "Error: bad limit."
        real = os.path.realpath(path)
        if not os.path.isfile(real):
            return f"Error: {path} is not a file."
        try:
            with open(real, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except Exception as exc:
            return f"Error: {exc}"
        total = len(lines)
        end = max(offset, min(offset + limit, total))
        return f"[lines {offset}-{end} of {total}]\n" + "\n".join(lines[offset:end])
'''
        },
    ),
    Blind(
        "r3_isinstance_int_admits_bool",
        (
            'validates offset and limit with isinstance(x, int) only, so bools (False as offset, '
            'True as limit) are accepted as numbers although the text says a bool is not an int.'
        ),
        {
            "offloader": _R3_HEAD
            + r'''
class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        self.root = root
        self.threshold = threshold
        self.saved_chars = 0
        os.makedirs(self.root, exist_ok=True)

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        text = payload if isinstance(payload, str) else json.dumps(payload, indent=2, default=str)
        if len(text) <= self.threshold:
            return text
        fname = "{}-{}.txt".format(tool_name.replace("/", "_").replace("\\", "_"),
                                   hashlib.sha256(text.encode("utf-8")).hexdigest()[:8])
        path = os.path.join(self.root, fname)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.saved_chars += len(text)
        lines = text.splitlines()
        head = "\n".join(lines[:HEAD])
        tail = "\n".join(lines[-TAIL:]) if len(lines) > HEAD + TAIL else ""
        pointer = (f"{tool_name} returned {len(lines)} lines / {len(text)} characters, "
                   f"stored at {path}\n"
                   f"head:\n{head}\n")
        if tail:
            pointer += f"tail:\n{tail}\n"
        pointer += f"read_artifact(path=\"{path}\", offset=..., limit=...) reads the rest"
        return pointer

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        try:
            root = os.path.realpath(self.root)
            target = os.path.realpath(path)
            return os.path.commonpath([root, target]) == root
        except Exception:
            return False

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        if not self._contained(path):
            return "Error: path not inside the artifact root"
        if not isinstance(offset, int) or offset < 0:
            return "Error: offset must be an int >= 0"
        if not isinstance(limit, int) or not (1 <= limit <= MAX_LIMIT):
            return "Error: limit must be an int between 1 and 500"
        target = os.path.realpath(path)
        if not os.path.isfile(target):
            return "Error: no such file"
        try:
            with open(target, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except Exception as exc:
            return f"Error: {exc}"
        total = len(lines)
        end = max(offset, min(offset + limit, total))
        window = lines[offset:end]
        return f"[lines {offset}-{end} of {total}]\n" + "\n".join(window)
'''
        },
    ),
    Blind(
        "r3_end_without_max",
        (
            'computes end = min(offset + limit, total) without the max(offset, ...), so an offset'
            ' past the end gives a header like [lines 500-400 of 400] instead of an empty window '
            '[lines 500-500 of 400].'
        ),
        {
            "offloader": _R3_HEAD
            + r'''
class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        os.makedirs(root, exist_ok=True)
        self.root = root
        self.threshold = threshold
        self.saved_chars = 0

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        text = payload if isinstance(payload, str) else json.dumps(payload, indent=2, default=str)
        if len(text) <= self.threshold:
            return text
        safe = tool_name.replace("/", "_").replace("\\", "_")
        digest = hashlib.sha256(text.encode()).hexdigest()[:8]
        path = os.path.join(self.root, f"{safe}-{digest}.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.saved_chars += len(text)
        lines = text.splitlines()
        shown = lines[:HEAD]
        if len(lines) > HEAD + TAIL:
            shown = shown + ["..."] + lines[-TAIL:]
        return "\n".join([f"[offloaded {tool_name}: {len(lines)} lines, {len(text)} chars]",
                          f"file: {path}", *shown,
                          f"(use read_artifact with path {path} to read more)"])

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        try:
            root = os.path.realpath(self.root)
            real = os.path.realpath(path)
            return os.path.commonpath([root, real]) == root
        except Exception:
            return False

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        if not self._contained(path):
            return "Error: refused, path outside artifacts"
        if type(offset) is not int or offset < 0:
            return "Error: invalid offset"
        if type(limit) is not int or not 0 < limit <= MAX_LIMIT:
            return "Error: invalid limit"
        real = os.path.realpath(path)
        if not os.path.isfile(real):
            return "Error: file not found"
        try:
            with open(real, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except Exception as e:
            return f"Error: {e}"
        total = len(lines)
        end = min(offset + limit, total)
        return f"[lines {offset}-{end} of {total}]\n" + "\n".join(lines[offset:end])
'''
        },
    ),
    Blind(
        "r3_only_forward_slash_replaced",
        (
            "sanitises the file name by replacing only '/' with '_', so a tool name holding a "
            "backslash keeps it in the file name although every '/' and '\\' must become '_'."
        ),
        {
            "offloader": _R3_HEAD
            + r'''
class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        os.makedirs(root, exist_ok=True)
        self.root = root
        self.threshold = threshold
        self.saved_chars = 0

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        text = payload if isinstance(payload, str) else json.dumps(payload, indent=2, default=str)
        if len(text) <= self.threshold:
            return text
        # mcp/search -> mcp_search so the file stays directly inside root
        safe = tool_name.replace("/", "_")
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        path = os.path.join(self.root, f"{safe}-{digest}.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.saved_chars += len(text)
        lines = text.splitlines()
        msg = [f"{tool_name} output offloaded ({len(lines)} lines, {len(text)} chars) to {path}",
               "First 8 lines:"] + lines[:HEAD]
        if len(lines) > HEAD + TAIL:
            msg += ["Last 4 lines:"] + lines[-TAIL:]
        msg.append(f"To read the rest call read_artifact(path={path}, offset, limit).")
        return "\n".join(msg)

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        try:
            root = os.path.realpath(self.root)
            real = os.path.realpath(path)
            return os.path.commonpath([root, real]) == root
        except Exception:
            return False

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        if not self._contained(path):
            return "Error: path outside the artifact directory"
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            return "Error: offset must be an integer >= 0"
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            return "Error: limit must be an integer in 1..500"
        real = os.path.realpath(path)
        if not os.path.isfile(real):
            return "Error: no such file"
        try:
            with open(real, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except Exception as e:
            return f"Error: {e}"
        total = len(lines)
        end = max(offset, min(offset + limit, total))
        return f"[lines {offset}-{end} of {total}]\n" + "\n".join(lines[offset:end])
'''
        },
    ),
    Blind(
        "r3_folder_read_raises",
        (
            'checks only os.path.exists and catches only FileNotFoundError when opening, so '
            'reading a folder (root itself included) raises IsADirectoryError instead of '
            "returning 'Error: ...'."
        ),
        {
            "offloader": _R3_HEAD
            + r'''
class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        os.makedirs(root, exist_ok=True)
        self.root = root
        self.threshold = threshold
        self.saved_chars = 0

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        text = payload if isinstance(payload, str) else json.dumps(payload, indent=2, default=str)
        if len(text) <= self.threshold:
            return text
        safe = tool_name.replace("/", "_").replace("\\", "_")
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        path = os.path.join(self.root, f"{safe}-{digest}.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.saved_chars += len(text)
        lines = text.splitlines()
        body = [f"[{tool_name} result: {len(lines)} lines, {len(text)} characters]",
                f"saved at {path}", "head:", *lines[:HEAD]]
        if len(lines) > HEAD + TAIL:
            body += ["tail:", *lines[-TAIL:]]
        body.append(f"read_artifact({path}, offset, limit) returns any other window")
        return "\n".join(body)

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        try:
            root = os.path.realpath(self.root)
            real = os.path.realpath(path)
            return os.path.commonpath([root, real]) == root
        except Exception:
            return False

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        if not self._contained(path):
            return "Error: outside the artifact folder"
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            return "Error: offset must be an int >= 0"
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            return "Error: limit must be an int in 1..500"
        real = os.path.realpath(path)
        if not os.path.exists(real):
            return "Error: no such file"
        try:
            with open(real, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return "Error: no such file"
        total = len(lines)
        end = max(offset, min(offset + limit, total))
        return f"[lines {offset}-{end} of {total}]\n" + "\n".join(lines[offset:end])
'''
        },
    ),
    Blind(
        "r3_correct_pathlib_style",
        (
            'uses pathlib (realpath then Path.relative_to for the component-wise containment '
            'test), builds the pointer with a template, and reads the window with '
            'itertools.islice instead of slicing a list built by os.path helpers.'
        ),
        {
            "offloader": r'''import hashlib
import itertools
import json
import os
from pathlib import Path

HEAD, TAIL = 8, 4
MAX_LIMIT = 500

_POINTER = """\
<offloaded tool result>
tool: {tool}
size: {n_lines} lines, {n_chars} characters
saved to: {path}
{shown}
To read the rest call read_artifact with path="{path}" and an offset/limit (lines).
</offloaded tool result>"""


def _whole_number(x):
    return isinstance(x, int) and not isinstance(x, bool)


class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        Path(root).mkdir(parents=True, exist_ok=True)
        self.root = root
        self.threshold = threshold
        self.saved_chars = 0

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        text = payload if isinstance(payload, str) else json.dumps(payload, indent=2, default=str)
        if not len(text) > self.threshold:
            return text
        stem = str(tool_name).translate(str.maketrans({"/": "_", "\\": "_"}))
        tag = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        path = os.path.join(self.root, f"{stem}-{tag}.txt")
        Path(path).write_text(text, encoding="utf-8", errors="surrogatepass", newline="")
        self.saved_chars += len(text)
        lines = text.splitlines()
        shown = ["first lines:"] + lines[:HEAD]
        if len(lines) > HEAD + TAIL:
            shown += ["[...]", "last lines:"] + lines[-TAIL:]
        return _POINTER.format(tool=tool_name, n_lines=len(lines), n_chars=len(text),
                               path=path, shown="\n".join(shown))

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        if not isinstance(path, (str, os.PathLike)):
            return False
        try:
            base = Path(os.path.realpath(self.root))
            target = Path(os.path.realpath(path))
            target.relative_to(base)  # component-wise; raises ValueError if outside
            return True
        except (ValueError, TypeError, OSError):
            return False

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        if not self._contained(path):
            return "Error: that path is outside the artifact folder and will not be read."
        if not _whole_number(offset) or offset < 0:
            return f"Error: offset must be a whole number >= 0, got {offset!r}."
        if not _whole_number(limit) or limit not in range(1, MAX_LIMIT + 1):
            return f"Error: limit must be a whole number from 1 to {MAX_LIMIT}, got {limit!r}."
        target = Path(os.path.realpath(path))
        try:
            if not target.is_file():
                return "Error: no such artifact file."
            lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            return f"Error: could not read the artifact ({exc.strerror or exc})."
        total = len(lines)
        end = max(offset, min(offset + limit, total))
        window = list(itertools.islice(lines, offset, end))
        return f"[lines {offset}-{end} of {total}]\n" + "\n".join(window)
'''
        },
        correct=True,
    ),
]
