"""nbgrader configuration for Owning the Agent Loop.

The course directory is the folder holding this file. Assignments are the folders
of ``source/``; ``python -m course`` drives nbgrader with this configuration.
"""

import os
import tempfile
from pathlib import Path

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor, TagRemovePreprocessor
from nbgrader.preprocessors import (
    CheckCellMetadata,
    ClearHiddenTests,
    ClearMarkScheme,
    ClearOutput,
    ClearSolutions,
    ComputeChecksums,
    IncludeHeaderFooter,
    InstantiateTests,
    LockCells,
    SaveCells,
)

from course.grading.results.feedback import (
    TEMPLATE_DIRS,
    TEMPLATE_PATHS,
    CourseGetGrades,
    FeedbackExporter,
    RedactTests,
)
from course.grading.runner import KERNEL_ARGS

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

HERE = Path(__file__).resolve().parent

c.CourseDirectory.course_id = "owning-the-agent-loop"
c.CourseDirectory.assignment_id = ""
# nbgrader's exchange (release_assignment, collect, release_feedback; students fetch and
# submit through it): a folder that exists and every student can write to. Uncomment on a
# shared machine or JupyterHub; `course export` writes the same folder into the student copy.
# c.Exchange.root = "/srv/nbgrader/exchange"
# Parallel autograding writes to one gradebook from several processes: wait for the lock.
c.CourseDirectory.db_url = f"sqlite:///{HERE / 'gradebook.db'}?timeout=120"

# Instructor-only cells (tag "instructor") never reach the student release.
c.TagRemovePreprocessor.remove_cell_tags = {"instructor"}
c.TagRemovePreprocessor.enabled = True
c.GenerateAssignment.preprocessors = [
    TagRemovePreprocessor,
    IncludeHeaderFooter,
    InstantiateTests,
    LockCells,
    ClearSolutions,
    ClearOutput,
    CheckCellMetadata,
    ComputeChecksums,
    SaveCells,
    ClearHiddenTests,
    ClearMarkScheme,
    ComputeChecksums,
    CheckCellMetadata,
]
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Per-cell limit while autograding (ExecutePreprocessor.timeout is ignored by nbgrader).
c.Execute.timeout = 30
c.Execute.interrupt_on_timeout = True
# `course grade` runs each kernel in its OS sandbox (course/grading/execution/sandbox.py) and uses
# these same arguments; they apply to plain `nbgrader autograde` too. Every grading kernel
# starts with the network guard on (grading never leaves this machine), and reports errors
# as one line: a traceback would quote hidden-test source.
c.Execute.extra_arguments = [*KERNEL_ARGS, "--InteractiveShell.xmode=Minimal"]

# `nbgrader validate` would cut each line of a message at 90 columns; it wraps them instead.
from course.validate_messages import install as _whole_messages  # noqa: E402

_whole_messages()

# Feedback shows each test cell as its result only (points, pass or fail, the first line of
# its error): no test source, no other output. `course feedback` then reads every page back
# and refuses one that shows a line of a hidden test or a solution.
# The page opens with a summary of every graded cell (its name, points and verdict, each
# linking to its panel), and a written answer says it waits for manual grading
# (course/grading/results/templates/course_feedback).
c.GenerateFeedback.preprocessors = [CourseGetGrades, RedactTests, ClearHiddenTests,
                                    CSSHTMLHeaderPreprocessor]
c.GenerateFeedback.exporter_class = FeedbackExporter
c.FeedbackExporter.template_name = "course_feedback"
c.FeedbackExporter.extra_template_basedirs = TEMPLATE_DIRS
c.FeedbackExporter.extra_template_paths = TEMPLATE_PATHS

# Kernels nbgrader starts itself (generate_assignment, plain `nbgrader autograde`) talk over
# local sockets (IPC), kept out of the course folder: no TCP port and no transport warning.
c.KernelManager.transport = "ipc"
c.KernelManager.ip = os.path.join(tempfile.gettempdir(), f"nbgrader-kernel-{os.getpid()}")

# `nbgrader collect` takes regular files only: anyone can write to the exchange's inbound
# folder, and nbgrader's own copy follows a planted link as whoever collects.
c.ExchangeFactory.collect = "course.grading.execution.exchange.SafeCollect"

# nbgrader's own autograde (the formgrader's Autograde button) would run a submission
# unsandboxed with its hidden tests in the kernel; it is refused
# (course/grading/execution/refuse.py).
from nbgrader.converters.autograde import Autograde as _Autograde  # noqa: E402

from course.grading.execution.refuse import RefusePlainAutograde  # noqa: E402

c.Autograde.sanitize_preprocessors = [RefusePlainAutograde,
                                      *_Autograde().sanitize_preprocessors]
