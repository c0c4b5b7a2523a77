"""``python -m course``: the instructor's command line, :mod:`course.grading.cli`."""

import sys

try:
    from .grading.cli import main
except ImportError:  # a student copy ships without course/grading/
    sys.exit("python -m course is the instructor's tool; this student copy does not include it")

sys.exit(main())
