"""Seeded bugs for lab 8 (offloader), from seed 001 exercise 8 and its issue."""

from course.grading.mutation import Mutant

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
        loses={"symlink_refused"},
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
        loses={"legitimate_read_works", "offset_limit_validated"},
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
]
