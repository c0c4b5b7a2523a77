"""Support package for the course *Owning the Agent Loop*.

Notebooks, tests and the instructor command line (``python -m course``) import it.
It holds the offline Anthropic API (``course.fakes``), cassettes, fake time, the
token counter, the notebook authoring format and the nbgrader pipeline. It holds
no solution and no hidden test.
"""

__version__ = "0.1.0"

from . import lazyiri as _lazyiri

_lazyiri.defer()  # before anything imports jsonschema: see course/lazyiri.py
