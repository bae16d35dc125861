"""The segviz desktop app (PySide6 + pyqtgraph).  Only this package imports Qt; the engine stays Qt-free.

Layout: :mod:`.state` (the plain-Python session model), :mod:`.qt_session` (its Qt signals), :mod:`.worker`
(generators on a QThread), and the views :mod:`.block_view`, :mod:`.panels`, :mod:`.feature_panel`, assembled by
:mod:`.main_window`.  Every engine step runs in the window's engine process, :mod:`segviz.service`, which the
window reaches through :class:`~segviz.service.engine_process.EngineProcess` and its jobs.
"""
