"""``python -m course``: the instructor's command line, :mod:`course.grading.cli`."""

import sys

if sys.argv[1:2] in (["grade"], ["verify"], ["demo"]):
    try:  # the graders' pool: its fork server imports while this process does
        from .grading.execution.forkserver import warm
    except ImportError:  # a student copy: the command stops below
        pass
    else:
        warm()

try:
    from .grading.cli import exit_now, main
except ImportError:  # a student copy ships without course/grading/
    sys.exit("python -m course is the instructor's tool; this student copy does not include it")

exit_now(main())
