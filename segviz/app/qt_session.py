"""Thin QObject wrapper turning :class:`SessionState` notifications into Qt signals."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from . import state as st


class QtSession(QObject):
    """Qt face of a :class:`~segviz.app.state.SessionState`; views connect to these signals."""

    corpusChanged = Signal()
    probabilitiesChanged = Signal()
    hypothesisChanged = Signal()
    peersChanged = Signal()
    featuresChanged = Signal()
    modelChanged = Signal()

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
        }
        state.subscribe(self._relay)

    def _relay(self, topic: str) -> None:
        self._signals[topic].emit()
