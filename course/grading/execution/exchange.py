"""nbgrader's exchange ``collect``, taking regular files only.

Everyone can write to the exchange's inbound folder, so a "submission" there may hold a
symbolic link to a file only the instructor may read, or a link cycle. nbgrader's own
``collect`` copies with :func:`shutil.copytree`, which follows links, as whoever runs it.
:class:`SafeCollect` first copies the submission's regular files alone into a private
staging folder (:func:`.files.copy_submission`; links, pipes and devices are skipped and
logged), then lets nbgrader copy from there with its own ignore and size rules.
``nbgrader_config.py`` installs it with ``c.ExchangeFactory.collect``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect

from .files import copy_submission, skipped_note


class SafeCollect(ExchangeCollect):
    """``nbgrader collect`` that never follows a link out of a submission."""

    def do_copy(self, src, dest, log=None):  # noqa: ANN001 - nbgrader's signature
        with tempfile.TemporaryDirectory(prefix="collect-") as staging:
            clean = Path(staging) / "submission"
            skipped = copy_submission(Path(src), clean)
            if skipped:
                self.log.warning("%s: %s", src, skipped_note(skipped))
            super().do_copy(str(clean), dest, log)
