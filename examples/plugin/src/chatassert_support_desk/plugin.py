"""Every piece of the package, registered on import: for `--plugin chatassert_support_desk.plugin`
(`CHATASSERT_PLUGINS`, a native suite's `plugins:`), where the package is on `PYTHONPATH` but
not installed, so that its entry points are not there to name them.

An installed package needs none of this: its entry points name each piece.
"""

from __future__ import annotations

from chatassert.plugins import register_judge
from chatassert.reporting import register_reporter
from chatassert.transcripts import register_reader
from chatassert_support_desk import checks
from chatassert_support_desk.judges import house_rules
from chatassert_support_desk.readers import SUPPORT_DESK
from chatassert_support_desk.reports import MARKDOWN_TALLY

__all__ = ["checks"]

register_judge("house-rules", house_rules)
register_reader(SUPPORT_DESK)
register_reporter(MARKDOWN_TALLY)
