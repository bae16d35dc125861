"""Thin QObject wrapper turning :class:`SessionState` notifications into Qt signals."""
from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QTimer, Signal

from ..metrics import score_row
from . import state as st

#: how long after a rule's last move its metrics row is scored on the longest streams (after the repaint)
METRICS_DELAY_MS = 15


class QtSession(QObject):
    """Qt face of a :class:`~segviz.app.state.SessionState`; views connect to these signals."""

    corpusChanged = Signal()
    probabilitiesChanged = Signal()
    hypothesisChanged = Signal()
    peersChanged = Signal()
    featuresChanged = Signal()
    modelChanged = Signal()
    metricsChanged = Signal()
    relevanceChanged = Signal()
    _scored = Signal(object, object)   # (hypothesis masses, their metrics row), from the scoring thread

    def __init__(self, state: st.SessionState, parent=None):
        super().__init__(parent)
        self.state = state
        self._signals = {
            st.CORPUS: self.corpusChanged,
            st.PROBABILITIES: self.probabilitiesChanged,
            st.HYPOTHESIS: self.hypothesisChanged,
            st.PEERS: self.peersChanged,
            st.FEATURES: self.featuresChanged,
            st.MODEL: self.modelChanged,
            st.METRICS: self.metricsChanged,
            st.RELEVANCE: self.relevanceChanged,
        }
        state.subscribe(self._relay)
        # Drags (α line, slider) deliver a value per pixel; decoding and scoring once per event-loop pass
        # with the latest value keeps a drag fluid however long the stream is.
        self._pending_alpha: float | None = None
        self._alpha_timer = QTimer(self)
        self._alpha_timer.setSingleShot(True)
        self._alpha_timer.setInterval(0)
        self._alpha_timer.timeout.connect(self._apply_alpha)
        # On the longest streams a moved rule's metrics row is scored after the hypothesis has been drawn
        # (state.DEFER_METRICS_FROM): a short single-shot timer, restarted by every move, so a zero-timer's repaint
        # comes first and a drag is scored once it rests
        self._metrics_callback = None
        self._metrics_timer = QTimer(self)
        self._metrics_timer.setSingleShot(True)
        self._metrics_timer.setInterval(METRICS_DELAY_MS)
        self._metrics_timer.timeout.connect(self._score_metrics)
        self._scored.connect(self._take_scored)   # queued: delivered on the GUI thread
        state.metrics_scheduler = self._schedule_metrics

    def _schedule_metrics(self, callback) -> None:
        self._metrics_callback = callback
        self._metrics_timer.start()

    def _score_metrics(self) -> None:
        """Score the due metrics row on a thread of its own (``score_row`` on 10^6 sentences is 20-30 ms of numpy,
        and under load it stretched to 100 ms on the GUI thread), the row taken on the GUI thread if the hypothesis
        has not moved on meanwhile (a later move schedules its own)."""
        self._metrics_callback = None
        due = self.state.due_metrics()
        if due is None:
            return
        reference, masses = due

        def score() -> None:
            try:
                row = score_row(reference, masses)
            except Exception:   # noqa: BLE001 - a row not scored stays due: the GUI thread scores it, as before
                row = None
            self._scored.emit(masses, row)

        threading.Thread(target=score, name="metrics-row", daemon=True).start()

    def _take_scored(self, masses, row) -> None:
        if row is None and masses is self.state.hypothesis_masses and self.state.due_metrics() is not None:
            row = score_row(self.state.reference_masses, masses)   # its error, if any, where it is seen
        if row is not None:
            self.state.set_due_metrics(masses, row)

    def request_alpha(self, alpha: float) -> None:
        """Coalescing ``state.set_alpha``: applied on the next event-loop pass with the latest value."""
        self._pending_alpha = float(alpha)
        self._alpha_timer.start()

    def _apply_alpha(self) -> None:
        if self._pending_alpha is not None:
            alpha, self._pending_alpha = self._pending_alpha, None
            self.state.set_alpha(alpha)

    def _relay(self, topic: str) -> None:
        self._signals[topic].emit()
