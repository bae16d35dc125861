"""The command line's standard streams: output that cannot be lost unnoticed, messages a terminal cannot obey.

Standard output may be closed (``segviz ... >&-``), full (``> /dev/full``) or a pipe whose reader went away
(``| head``); standard error may be closed too.  :func:`guard_streams` wraps both for the length of one command:

* a write to standard output that fails (closed, full, any OS error but a broken pipe) raises
  :class:`StdoutError`, and the guard keeps the first failure, because argparse swallows the errors of its
  ``--help`` and ``--version`` output: the command ends with one line and exit status 2, whoever caught it;
* every message on standard error passes through :func:`segviz.printable.printable`, so a file name holding a
  newline, a carriage return or an ANSI escape is shown escaped, one line, whichever module printed it; a
  closed standard error loses the messages, never the command;
* a closed descriptor 0, 1 or 2 is held open on ``/dev/null`` for the command, so a file the command opens
  never takes its number (a child process or a stray write to "standard output" would land in that file).
"""
from __future__ import annotations

import errno
import os
import sys

from ..printable import printable


class StdoutError(OSError):
    """A failure to write standard output (``segviz ... > /dev/full``, ``>&-``), told apart from other OS
    errors."""


class _Closed:
    """What a closed standard stream is written to: every write fails as the closed descriptor would."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, text):
        raise OSError(errno.EBADF, "it is closed")

    def writelines(self, lines):
        raise OSError(errno.EBADF, "it is closed")

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        raise OSError(errno.EBADF, "it is closed")


class GuardedStdout:
    """Standard output whose write errors are :class:`StdoutError` and are remembered in :attr:`error` (a
    broken pipe stays itself: ``| head`` is not an error)."""

    def __init__(self, stream):
        self._stream = _Closed() if stream is None else stream
        self.error: StdoutError | None = None

    def _guard(self, method, *args):
        try:
            return method(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            error = StdoutError(exc.errno, exc.strerror)
            if self.error is None:
                self.error = error
            raise error from None

    def write(self, text):
        return self._guard(self._stream.write, text)

    def writelines(self, lines):
        return self._guard(self._stream.writelines, lines)

    def flush(self):
        return self._guard(self._stream.flush)

    def __getattr__(self, name):
        return getattr(self._stream, name)


class PrintableStderr:
    """Standard error whose messages are shown escaped (:func:`segviz.printable.printable`): the line breaks
    that end a write are kept, and a carriage return that opens one (a progress bar redrawn in place); every
    other control character is made visible.  A message that cannot be written is dropped."""

    def __init__(self, stream):
        self._stream = _Closed() if stream is None else stream

    def write(self, text):
        text = str(text)
        body = text.rstrip("\n")
        end = text[len(body):]
        start = "\r" if body.startswith("\r") else ""
        try:
            return self._stream.write(start + printable(body[len(start):]) + end)
        except (OSError, ValueError):   # closed, full or gone: the message is lost, the command goes on
            return len(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        try:
            self._stream.flush()
        except (OSError, ValueError):
            pass

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _hold_closed_descriptors() -> None:
    """Open ``/dev/null`` on each of the descriptors 0, 1, 2 that is closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, os.O_RDWR)
            except OSError:
                return
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


class guard_streams:
    """``with guard_streams() as stdout:``: standard output and error guarded (see the module) for the block;
    ``stdout.error`` is the first failure to write standard output, if any."""

    def __enter__(self) -> GuardedStdout:
        self._saved = sys.stdout, sys.stderr
        _hold_closed_descriptors()
        self.stdout = GuardedStdout(sys.stdout)
        sys.stdout = self.stdout
        sys.stderr = PrintableStderr(sys.stderr)
        return self.stdout

    def __exit__(self, *exc) -> None:
        sys.stdout, sys.stderr = self._saved


def silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of the unwritten rest cannot
    print a second message (or change the exit status) after ours."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
