"""The one exception type users see.

Bad input (unreadable corpora, corrupt models, absurd parameters) raises :class:`SegvizError` with a single
clear sentence; the CLI prints it without a traceback and the app shows it in a dialog.
"""


class SegvizError(ValueError):
    """A user-facing error: the message is shown as is, so it must say what went wrong and with which file."""
