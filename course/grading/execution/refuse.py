"""nbgrader's own ``autograde`` (the formgrader's *Autograde* button, ``nbgrader autograde``)
refused: it would run a submission unsandboxed, with every hidden test inside the student's
kernel and nbgrader's in-kernel grade rule deciding the points.

``nbgrader_config.py`` puts :class:`RefusePlainAutograde` first among the autograde
preprocessors. Grade with ``./dev course grade`` instead. A benchmark that measures plain
nbgrader on trusted notebooks sets ``COURSE_PLAIN_AUTOGRADE=1``.
"""

from __future__ import annotations

import os

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

ALLOW = "COURSE_PLAIN_AUTOGRADE"


class PlainAutogradeRefused(RuntimeError):
    """nbgrader's own autograde was asked to grade a submission."""


class RefusePlainAutograde(Preprocessor):
    """Stops nbgrader's autograde before any cell of the submission runs."""

    enabled = Bool(True).tag(config=True)  # nbconvert preprocessors are off by default

    def preprocess(self, nb, resources):  # noqa: ANN001 - nbconvert's signature
        if os.environ.get(ALLOW) == "1":
            return nb, resources
        raise PlainAutogradeRefused(
            "nbgrader's own autograde is off for this course: it runs submissions unsandboxed "
            "with the hidden tests in the student's kernel; grade with `./dev course grade`")
