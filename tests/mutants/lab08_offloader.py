"""Seeded bugs for lab 8 (offloader), from seed 001 exercise 8 and its issue."""

from course.grading.proofs.mutation import Mutant

MUTANTS = [
    Mutant(
        name="startswith_containment",
        bug="seed 001 ex.8: abspath(path).startswith(abspath(root)) compares strings; it "
            "admits a sibling folder whose name extends the root and a symlink inside it",
        cell="offloader",
        old="return os.path.commonpath([root, target]) == root",
        new="return os.path.abspath(path).startswith(os.path.abspath(self.root))",
        loses={"sibling_prefix_refused", "symlink_refused"},
    ),
    Mutant(
        name="abspath_not_realpath",
        bug="seed 001 ex.8: abspath never asks the file system, so a symlink planted inside "
            "the root passes the component check and the read lands outside",
        cell="offloader",
        old="target = os.path.realpath(path)\n            return",
        new="target = os.path.abspath(path)\n            return",
        loses={"symlink_refused", "legitimate_read_works"},  # root is not resolved either
    ),
    Mutant(
        name="no_containment",
        bug="seed 001 ex.8: no check at all turns read_artifact into a general file read "
            "that a planted instruction can steer",
        cell="offloader",
        old="        root = os.path.realpath(self.root)\n",
        new="        return True\n",
        loses={"absolute_path_refused", "sibling_prefix_refused", "symlink_refused",
               "traversal_refused"},
    ),
    Mutant(
        name="refuse_everything",
        bug="seed 001 ex.8: a check that refuses every path passes every escape test; only a "
            "legitimate read shows it is not containment",
        cell="offloader",
        old="        root = os.path.realpath(self.root)\n",
        new="        return False\n",
        loses={"legitimate_read_works", "offset_limit_validated", "pointer_not_thin"},
    ),
    Mutant(
        name="thin_pointer",
        bug="seed 001 ex.8: a pointer that only says where the output went forces the model "
            "to read it all back, a second round trip for nothing",
        cell="offloader",
        old="        lines = text.splitlines()\n",
        new="        return f'[offloaded] {tool_name} output saved to {path}'\n",
        loses={"pointer_not_thin", "tail_only_when_more_than_12"},
    ),
    Mutant(
        name="offload_small_results",
        bug="seed 001 ex.8: without the early return every result is offloaded, a tax and a "
            "round trip on results the model needed inline",
        cell="offloader",
        old="if len(text) <= self.threshold:",
        new="if len(text) < 0:",
        loses={"small_results_unchanged"},
    ),
    Mutant(
        name="duplicated_tail",
        bug="seed 001 ex.8: a tail shown whenever there are more than HEAD lines repeats "
            "lines the head already shows",
        cell="offloader",
        old="if len(lines) > HEAD + TAIL:",
        new="if len(lines) > HEAD:",
        loses={"tail_only_when_more_than_12"},
    ),
    Mutant(
        name="header_end_taken_literally",
        bug="the header's end computed as min(offset + limit, total) even past the end, "
            "giving [lines 500-400 of 400] for an empty window",
        cell="offloader",
        old="[lines {offset}-{offset + len(window)} of",
        new="[lines {offset}-{min(offset + limit, len(lines))} of",
        loses={"legitimate_read_works"},
    ),
    Mutant(
        name="bool_offset_accepted",
        bug="isinstance(offset, int) accepts True and False as offsets 1 and 0",
        cell="offloader",
        old="if type(offset) is not int or offset < 0:",
        new="if not isinstance(offset, int) or offset < 0:",
        loses={"offset_limit_validated"},
    ),
    Mutant(
        name="limit_500_refused",
        bug="the upper bound written with < refuses limit=500, which the spec allows",
        cell="offloader",
        old="not 1 <= limit <= MAX_LIMIT",
        new="not 1 <= limit < MAX_LIMIT",
        loses={"offset_limit_validated"},
    ),
    Mutant(
        name="limit_501_accepted",
        bug="an off-by-one upper bound lets limit=501 through",
        cell="offloader",
        old="not 1 <= limit <= MAX_LIMIT",
        new="not 1 <= limit <= MAX_LIMIT + 1",
        loses={"offset_limit_validated"},
    ),
    Mutant(
        name="threshold_strict",
        bug="< instead of <= offloads a result of exactly threshold characters",
        cell="offloader",
        old="if len(text) <= self.threshold:",
        new="if len(text) < self.threshold:",
        loses={"small_results_unchanged"},
    ),
    Mutant(
        name="threshold_hard_coded",
        bug="the threshold argument is stored but 2000 is compared",
        cell="offloader",
        old="if len(text) <= self.threshold:",
        new="if len(text) <= 2000:",
        loses={"small_results_unchanged"},
    ),
    Mutant(
        name="json_without_default",
        bug="json.dumps without default=str raises on a date or any other non-JSON value",
        cell="offloader",
        old="default=str)\n",
        new=")\n",
        loses={"small_results_unchanged"},
    ),
    Mutant(
        name="saved_chars_not_counted",
        bug="saved_chars never moves, so the offloader reports nothing saved",
        cell="offloader",
        old="        self.saved_chars += len(text)\n",
        new="",
        loses={"small_results_unchanged"},
    ),
    Mutant(
        name="missing_file_raises",
        bug="no file check: open raises FileNotFoundError for a missing artifact and "
            "IsADirectoryError for root itself",
        cell="offloader",
        old="        if not os.path.isfile(target):\n",
        new="        if False:\n",
        loses={"legitimate_read_works"},
    ),
    Mutant(
        name="root_itself_not_contained",
        bug="a strict-descendant check says root itself is outside root",
        cell="offloader",
        old="return os.path.commonpath([root, target]) == root",
        new="return os.path.commonpath([root, target]) == root != target",
        loses={"legitimate_read_works"},
    ),
    Mutant(
        name="tool_name_used_raw",
        bug="a tool name with '/' becomes a subfolder that does not exist (or one outside "
            "root for '../'), so wrap raises or writes outside root",
        cell="offloader",
        old='safe = tool_name.replace("/", "_").replace("\\\\", "_")',
        new="safe = tool_name",
        loses={"pointer_not_thin"},
    ),
    Mutant(
        name="same_file_for_every_payload",
        bug="a file name from the tool name alone: a second payload overwrites the first",
        cell="offloader",
        old='f"{safe}-{digest}.txt"',
        new='f"{safe}-00000000.txt"',
        loses={"pointer_not_thin"},
    ),
    Mutant(
        name="tail_at_twelve_lines",
        bug=">= instead of > shows a tail for a 12-line result, repeating head lines",
        cell="offloader",
        old="if len(lines) > HEAD + TAIL:",
        new="if len(lines) >= HEAD + TAIL:",
        loses={"tail_only_when_more_than_12"},
    ),
    Mutant(
        name="inline_when_pointer_longer",
        bug="a text over the threshold is returned inline when its pointer would come out "
            "longer, though the choice depends on len(text) alone",
        cell="offloader",
        old='return "\\n".join(parts)',
        new='pointer = "\\n".join(parts)\n'
            '        return text if len(pointer) >= len(text) else pointer',
        loses={"small_results_unchanged", "tail_only_when_more_than_12"},
    ),
    Mutant(
        name="negative_offset_accepted",
        bug="only the offset's type is checked, so offset=-5 reads a window from the end "
            "instead of an Error: string",
        cell="offloader",
        old="if type(offset) is not int or offset < 0:",
        new="if type(offset) is not int:",
        loses={"offset_limit_validated"},
    ),
    Mutant(
        name="relative_path_from_root",
        bug="a relative path is taken from root, not from the current folder as open would",
        cell="offloader",
        old="target = os.path.realpath(path)\n            return",
        new="target = os.path.realpath(os.path.join(root, path))\n            return",
        loses={"legitimate_read_works"},
    ),
    Mutant(
        name="contained_raises",
        bug="_contained lets a TypeError or ValueError out (a path that is None, an int, or "
            "holds a NUL byte) instead of returning False",
        cell="offloader",
        old="except (TypeError, ValueError):\n            return False",
        new="except KeyError:\n            return False",
        loses={"absolute_path_refused"},
    ),
]
MUTANTS.append(Mutant(
    name="backslash_kept",
    bug="only '/' in tool_name becomes '_': a tool name with '\\' keeps it, so its file is "
        "not the one the text names and '..\\' parts are left as they are",
    cell="offloader",
    old='safe = tool_name.replace("/", "_").replace("\\\\", "_")',
    new='safe = tool_name.replace("/", "_")',
    loses={"pointer_not_thin"},
))
MUTANTS.append(Mutant(
    name="digest_full_length",
    bug="the whole sha256 hexdigest in the file name, 64 characters where the spec names 8",
    cell="offloader",
    old="hexdigest()[:8]",
    new="hexdigest()",
    loses={"pointer_not_thin"},
))
MUTANTS.append(Mutant(
    name="parents_not_created",
    bug="os.mkdir instead of os.makedirs: root is made only when its parent exists, so "
        "Offloader on a nested root that is missing raises FileNotFoundError",
    cell="offloader",
    old="os.makedirs(self.root, exist_ok=True)",
    new="if not os.path.isdir(self.root):\n            os.mkdir(self.root)",
    loses={"legitimate_read_works"},
))
MUTANTS.append(Mutant(
    name="threshold_default_2048",
    bug="the default threshold is 2048 (a power of two) instead of 2000, so a result of "
        "2,001 characters stays inline",
    cell="offloader",
    old="threshold=2000",
    new="threshold=2048",
    loses={"small_results_unchanged"},
))
MUTANTS.append(Mutant(
    name="read_default_limit_100",
    bug="read's default limit is 100 lines, not 200",
    cell="offloader",
    old="offset=0, limit=200)",
    new="offset=0, limit=100)",
    loses={"legitimate_read_works"},
))
MUTANTS.append(Mutant(
    name="read_default_offset_1",
    bug="read's default offset is 1, so read(path) skips the first line",
    cell="offloader",
    old="offset=0, limit=200)",
    new="offset=1, limit=200)",
    loses={"legitimate_read_works"},
))
MUTANTS.append(Mutant(
    name="contained_not_bool",
    bug="_contained returns the resolved path (truthy) instead of True for a path inside root",
    cell="offloader",
    old="return os.path.commonpath([root, target]) == root",
    new="return os.path.commonpath([root, target]) == root and target",
    loses={"legitimate_read_works"},
))
MUTANTS.append(Mutant(
    name="saved_chars_in_bytes",
    bug="saved_chars adds the UTF-8 bytes written, not the characters",
    cell="offloader",
    old="self.saved_chars += len(text)",
    new='self.saved_chars += len(text.encode("utf-8"))',
    loses={"small_results_unchanged"},
))
