"""SIGINT and SIGTERM in the command line: raised where the program is, and never lost.

A signal's handler raises an exception in the main thread wherever it is (``KeyboardInterrupt`` for SIGINT,
:class:`Terminated` for SIGTERM), so that cleanups run (a save removes its temporary file).  Python cannot raise
out of a finaliser: a signal that arrives while a ``__del__`` (of ``regex``, of a file, of anything) runs is
printed as "Exception ignored in ..." and dropped, and the command would finish and exit 0.  So the handler
also remembers the signal: :func:`check` raises it again at the command's safe points (each progress event, the
end of the command) until the command line has reported it, and the "Exception ignored" report of a signal
remembered here is not printed.
"""
from __future__ import annotations

import signal
import sys


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that cleanups run exactly as for Ctrl-C; a BaseException like
    KeyboardInterrupt, so no ``except Exception`` swallows it."""


#: the signal received and not yet reported by the command line (None: none)
_pending: int | None = None


def _exception(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def _raise(signum, frame):
    global _pending
    _pending = signum
    raise _exception(signum)


def check() -> None:
    """Raise the signal received and not yet reported (one a finaliser swallowed), if any."""
    if _pending is not None:
        raise _exception(_pending)


def reported() -> None:
    """The command line has said ``interrupted`` or ``terminated``: the signal is not pending any more."""
    global _pending
    _pending = None


def _quiet_unraisable(previous):
    def hook(unraisable):
        if _pending is not None and isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
            return   # remembered: check() raises it where it can be handled
        previous(unraisable)

    return hook


class handle_signals:
    """``with handle_signals():``: SIGINT and SIGTERM raised as exceptions and remembered for the block (the
    previous handlers put back after it; :func:`segviz.cli.main` may be called from Python, as the tests do).
    Outside the main thread, nothing is installed."""

    def __init__(self, signals=(signal.SIGINT, signal.SIGTERM)):
        self._signals = signals
        self._previous: dict[int, object] = {}

    def __enter__(self):
        reported()
        for signum in self._signals:
            try:
                self._previous[signum] = signal.signal(signum, _raise)
            except (ValueError, OSError, AttributeError):   # not the main thread: leave the handlers alone
                break
        self._hook = sys.unraisablehook
        sys.unraisablehook = _quiet_unraisable(self._hook)
        return self

    def __exit__(self, *exc) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        sys.unraisablehook = self._hook
