"""The window's first paint in passes: the chrome first, then one plot per event-loop pass.

A plot's first paint lays out and renders its axes' text for the first time: all five plots at once with the
window took 80 ms on an idle machine and 200 ms on two busy cores, the longest the window ever stood still
(docs/benchmarks.md, *App*).  So at the first show every plot is held back -- fully transparent: Qt skips it and
the layout is unchanged, the window shows the plots' white background -- and each is revealed once the previous
paint has happened, one per pass.  Work that would compete with these paints (reading a corpus in a thread)
waits for the last one (:meth:`StagedFirstPaint.after`).
"""
from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, QTimer

#: a stage whose paint has not been seen after this long (a hidden or minimised window) moves on regardless
FALLBACK_MS = 250


class StagedFirstPaint(QObject):
    """Reveal ``items`` (pyqtgraph items) one per pass after ``window``'s first paint; then run the callbacks."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.held: list | None = None      # None until the first show
        self.done = False
        self._callbacks: list[Callable[[], None]] = []
        self._awaited = None               # (widget whose paint ends the stage, stage number)
        self._stage = 0

    def start(self, items) -> None:
        """At the first show (before its paint): hold ``items`` back and wait for the chrome's paint."""
        if self.held is not None:
            return
        self.held = list(items)
        for item in self.held:
            item.setOpacity(0.0)
        self.window.installEventFilter(self)
        self._await(self.window)

    def _await(self, widget) -> None:
        self._stage += 1
        stage = self._stage
        self._awaited = (widget, stage)
        # bound to this object: a timer of a window already gone never fires
        QTimer.singleShot(FALLBACK_MS, self, lambda: self._painted(stage))

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        if event.type() == QEvent.Paint and self._awaited is not None and watched is self._awaited[0]:
            stage = self._awaited[1]
            # the next stage in the next pass: after this paint and whatever was posted with it
            QTimer.singleShot(0, self, lambda: self._painted(stage))
        return False

    def _painted(self, stage: int) -> None:
        if self._awaited is None or self._awaited[1] != stage:
            return
        widget = self._awaited[0]
        self._awaited = None
        if widget is not self.window and shiboken6.isValid(widget):
            widget.removeEventFilter(self)
        if not self.held:
            self.finish()
            return
        item = self.held.pop(0)
        item.setOpacity(1.0)
        views = item.scene().views() if item.scene() is not None else []
        if views:
            viewport = views[0].viewport()
            viewport.installEventFilter(self)
            self._await(viewport)
        else:
            self._await(self.window)

    def finish(self) -> None:
        """Show every held plot now (an export or a screenshot must not wait for the passes); run the callbacks."""
        for item in self.held or ():
            item.setOpacity(1.0)
        self.held = []
        self._awaited = None
        self.window.removeEventFilter(self)
        if not self.done:
            self.done = True
            callbacks, self._callbacks = self._callbacks, []
            for callback in callbacks:
                callback()

    def after(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the window and all its plots have been painted (at once if they have)."""
        if self.done:
            callback()
        else:
            self._callbacks.append(callback)
