"""The ``segviz`` command line: the engine, headless.

Every subcommand lives in a module of :mod:`segviz.commands` exposing ``register(subparsers)``.  Errors in the
user's input surface as :class:`segviz.errors.SegvizError` and are printed as one line (exit status 2), never as a
traceback.  ``segviz`` with no arguments opens the desktop app on the bundled sample corpus.
"""
from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys

from . import __version__
from .commands.arguments import ArgumentParser
from .errors import SegvizError

# Order = order in --help.  Each module registers its own subcommands.
COMMAND_MODULES = [
    "segviz.commands.scoring",
    "segviz.commands.evaluate",
    "segviz.commands.gui",
    "segviz.commands.compare",
    "segviz.commands.lm",
    "segviz.commands.train",
    "segviz.commands.segment",
    "segviz.commands.inspect",
    "segviz.commands.reproduce",
]


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="segviz",
        description=(
            "Segment text streams into stories with exponential models (Beeferman, Berger & Lafferty 1997) "
            "and see why.  Run without arguments to open the desktop app on the bundled sample."
        ),
    )
    parser.add_argument("--version", action="version", version=f"segviz {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that cleanups run (a save removes its temporary file) exactly as
    for Ctrl-C; a BaseException like KeyboardInterrupt, so no ``except Exception`` swallows it."""


def _raise_terminated(signum, frame):
    raise Terminated()


def _install_sigterm():
    """Install the SIGTERM handler; the previous one, for :func:`main` to put back (main may be called from
    Python, as the tests do)."""
    try:
        return signal.signal(signal.SIGTERM, _raise_terminated)
    except (ValueError, OSError, AttributeError):   # not the main thread (main() called from a thread): leave it
        return None


class _StdoutError(OSError):
    """A failure to write standard output (``segviz ... > /dev/full``), told apart from other OS errors."""


class _GuardedStdout:
    """Standard output whose write errors are :class:`_StdoutError` (a broken pipe stays itself: ``| head`` is
    not an error)."""

    def __init__(self, stream):
        self._stream = stream

    def _guard(self, method, *args):
        try:
            return method(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _StdoutError(exc.errno, exc.strerror) from None

    def write(self, text):
        return self._guard(self._stream.write, text)

    def writelines(self, lines):
        return self._guard(self._stream.writelines, lines)

    def flush(self):
        return self._guard(self._stream.flush)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of the unwritten rest cannot
    print a second message (or change the exit status) after ours."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: list[str] | None = None) -> int:
    """Run one command; every way it can end is one line on stderr at most: an error (exit status 2), Ctrl-C
    (``segviz: interrupted``, 130), SIGTERM (``segviz: terminated``, 143), standard output that cannot be
    written (2) or a reader that went away (``| head``: 0)."""
    stdout = sys.stdout
    sys.stdout = _GuardedStdout(stdout)
    try:
        status = _run(argv)
        sys.stdout.flush()   # the last buffered output is written here, where its failure is one line
        return status
    except SegvizError as exc:
        print(f"segviz: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("segviz: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("segviz: terminated", file=sys.stderr)
        return 143
    except BrokenPipeError:
        # "segviz ... | head": the reader went away; that is not an error of ours.
        _silence_stdout()
        return 0
    except _StdoutError as exc:
        _silence_stdout()
        print(f"segviz: error: cannot write to standard output ({exc.strerror or exc})", file=sys.stderr)
        return 2
    except MemoryError:
        print("segviz: error: out of memory; try a smaller corpus or vocabulary", file=sys.stderr)
        return 2
    finally:
        if isinstance(sys.stdout, _GuardedStdout):
            sys.stdout = stdout


def _run(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:
        if "gui" in parser._subparsers._group_actions[0].choices:  # the app is installed: open it
            argv = ["gui"]
        else:
            parser.print_help()
            return 0
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a bad argument: argparse has printed its one line
        if exc.code in (0, None):
            raise
        return int(exc.code) if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    previous = None if args.command == "gui" else _install_sigterm()   # the window has its own close path
    try:
        return int(args.func(args) or 0)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
