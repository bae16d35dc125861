"""The ``segviz`` command line: the engine, headless.

Every subcommand lives in a module of :mod:`segviz.commands` exposing ``register(subparsers)``.  Errors in the
user's input surface as :class:`segviz.errors.SegvizError` and are printed as one line (exit status 2), never as a
traceback.  ``segviz`` with no arguments opens the desktop app on the bundled sample corpus.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .commands import interrupts
from .commands.arguments import ArgumentParser
from .commands.streams import StdoutError, guard_streams, silence_stdout
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


def main(argv: list[str] | None = None) -> int:
    """Run one command; every way it can end is one line on stderr at most: an error (exit status 2), Ctrl-C
    (``segviz: interrupted``, 130), SIGTERM (``segviz: terminated``, 143; also when it arrived where Python could
    not raise it, :mod:`.commands.interrupts`), standard output that cannot be written, closed included (2), or
    a reader that went away (``| head``: 0).  Messages on stderr show names escaped (:mod:`.commands.streams`)."""
    with guard_streams() as stdout:
        try:
            status = _run(argv)
            interrupts.check()   # a signal a finaliser swallowed still ends the command
            sys.stdout.flush()   # the last buffered output is written here, where its failure is one line
            if stdout.error is not None:   # a failure someone caught (argparse's --help and --version do)
                raise stdout.error
            return status
        except SegvizError as exc:
            print(f"segviz: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            interrupts.reported()
            print("segviz: interrupted", file=sys.stderr)
            return 130
        except interrupts.Terminated:
            interrupts.reported()
            print("segviz: terminated", file=sys.stderr)
            return 143
        except BrokenPipeError:
            # "segviz ... | head": the reader went away; that is not an error of ours.
            silence_stdout()
            return 0
        except StdoutError as exc:
            silence_stdout()
            print(f"segviz: error: cannot write to standard output ({exc.strerror or exc})", file=sys.stderr)
            return 2
        except MemoryError:
            print("segviz: error: out of memory; try a smaller corpus or vocabulary", file=sys.stderr)
            return 2


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
    except SystemExit as exc:  # --help, --version, or a bad argument (argparse has printed its one line)
        if exc.code in (0, None):
            return 0   # main() flushes what was printed: --help > /dev/full is an error, not a silent 0
        return int(exc.code) if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    if args.command == "gui":   # the window has its own close path
        return int(args.func(args) or 0)
    with interrupts.handle_signals():
        return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
