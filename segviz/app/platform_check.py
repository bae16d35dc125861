"""Whether Qt's platform can start here, asked of a child process before the window's process starts Qt.

A Qt platform plugin that cannot start (``QT_QPA_PLATFORM=xcb`` without an X server, a ``DISPLAY`` naming no
server, a missing ``libxcb-cursor0``) does not raise: Qt prints a few lines and aborts the process (exit status
134), which no Python code can catch.  So a child process creates a ``QGuiApplication`` first, while the window's
process loads the engine (the check costs no waiting when the platform works); when the child fails, the window
never starts Qt and the user reads one line saying what to do, as ``segviz`` without any display does.  A headless
run (``--screenshot``, ``--benchmark``, ``--export-segments``) that named no platform renders offscreen instead,
saying so.  The offscreen and minimal platforms always start and are not asked.
"""
from __future__ import annotations

import os
import subprocess
import sys

from ..errors import SegvizError

#: platforms that start anywhere (no display, no system libraries beyond Qt's own)
ALWAYS_START = ("offscreen", "minimal")
#: a hang guard: a display server that accepts a connection and never answers
PROBE_TIMEOUT_S = 60
_PROBE = "import sys\nfrom PySide6.QtGui import QGuiApplication\nQGuiApplication(sys.argv[:1])\n"
#: Qt's lines that say nothing about this platform
_GENERIC = ("This application failed to start", "Available platform plugins", "Reinstalling the application")


class PlatformCheck:
    """A running check (:func:`start_platform_check`); :meth:`finish` waits for it and decides."""

    def __init__(self, process: subprocess.Popen, platform: str, *, headless: bool):
        self._process = process
        self.platform = platform
        self.headless = headless

    def finish(self) -> None:
        """Return when the platform starts; a headless run that named no platform switches to offscreen (one
        note on stderr); else raise :class:`SegvizError` with what to do."""
        try:
            _, err = self._process.communicate(timeout=PROBE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.communicate()
            reason = f"it did not start within {PROBE_TIMEOUT_S} s"
        else:
            if self._process.returncode == 0:
                return
            reason = _reason(err.decode("utf-8", "replace"), self._process.returncode)
        name = f"the platform {self.platform}" if self.platform else "its default platform"
        if self.headless and not os.environ.get("QT_QPA_PLATFORM"):
            print(f"segviz: note: Qt cannot start {name} here ({reason}): rendering offscreen", file=sys.stderr)
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
            return
        display = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        where = f" (DISPLAY={display})" if display else ""
        raise SegvizError(
            f"Qt cannot start {name}{where} ({reason}). Run it on a desktop (check DISPLAY, or run it "
            "under Xvfb), render it headless with `QT_QPA_PLATFORM=offscreen segviz gui --screenshot out.png`, or "
            "use the CLI (e.g. `segviz segment CORPUS`)")

    def cancel(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.communicate()


def _reason(err: str, status: int) -> str:
    """Qt's own words about the failure (its ``qt.qpa`` lines, without their category), else the exit status."""
    said = []
    for line in err.splitlines():
        line = line.strip()
        if not line or line.startswith(_GENERIC):
            continue
        if line.startswith("qt.") and ": " in line:
            line = line.split(": ", 1)[1]
        line = line.rstrip(".")
        if line not in said:
            said.append(line)
    if said:
        return "; ".join(said)[:400]
    return f"killed by signal {-status}" if status < 0 else f"exit status {status}"


def start_platform_check(*, headless: bool) -> PlatformCheck | None:
    """Start the check (None when there is nothing to ask: an always-starting platform, or not Linux/BSD, where
    Qt's platform is the system's own)."""
    platform = os.environ.get("QT_QPA_PLATFORM", "").strip()
    if platform.split(":")[0].lower() in ALWAYS_START or sys.platform in ("darwin", "win32"):
        return None
    try:
        process = subprocess.Popen([sys.executable, "-c", _PROBE], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except OSError:   # cannot start a process at all: Qt will say what it says
        return None
    return PlatformCheck(process, platform, headless=headless)
