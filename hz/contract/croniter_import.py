"""croniter, imported without the subprocess its import starts.

On import croniter asks `platform.architecture()` whether Python is 32-bit, and that runs `file -b` on
the interpreter: a fork and an exec in every process that checks a schedule, such as each
`hz workflow validate` a pre-commit hook starts (10 ms of CPU, more of wall time on a busy machine).
The pointer size answers the same question without a process, so the import sees that answer instead.
"""

from __future__ import annotations

import platform
import struct
from typing import Any


def _pointer_bits(*_args: Any, **_kwargs: Any) -> tuple[str, str]:
    return f"{struct.calcsize('P') * 8}bit", ""


_architecture = platform.architecture
platform.architecture = _pointer_bits  # only while croniter is imported
try:
    from croniter import CroniterBadDateError, croniter
finally:
    platform.architecture = _architecture

__all__ = ["CroniterBadDateError", "croniter"]
