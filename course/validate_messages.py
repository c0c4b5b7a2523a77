"""Validate prints every message whole.

``nbgrader validate`` cuts each line of a failing cell's source and error at
``Validator.width`` (90 columns) and adds ``...``, so the end of a long message, where the
values and the hint are, never reaches the student: "nearest rank ceil(0.95*20)=19, the
19th value (19), got 6..." when the value was 60. :func:`install` makes it wrap those lines
at the same width instead, keeping every character; both the course's and the student
copy's ``nbgrader_config.py`` call it. (JupyterLab's Validate button reads the errors
through ``Validator.validate``, which never cut them.)
"""

from __future__ import annotations

import textwrap


def _wrapped(self, val: str) -> str:  # noqa: ANN001 - nbgrader's Validator
    from nbconvert.filters import strip_ansi

    lines = []
    for line in val.split("\n"):
        text = self.indent + strip_ansi(line)
        if len(text) <= self.width:
            lines.append(text)
            continue
        lines += textwrap.wrap(text, width=self.width, subsequent_indent=self.indent + "  ",
                               break_long_words=True, break_on_hyphens=False,
                               drop_whitespace=False, replace_whitespace=False)
    return "\n".join(lines)


def install() -> None:
    """Have nbgrader's Validator wrap long lines rather than cut them."""
    from nbgrader.validator import Validator

    Validator._indent = _wrapped
