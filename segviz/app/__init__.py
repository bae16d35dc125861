"""The segviz desktop app (PySide6 + pyqtgraph).  Only this package imports Qt; the engine stays Qt-free.

Layout: :mod:`.state` (the plain-Python session model), :mod:`.qt_session` (its Qt signals), :mod:`.engine` (the
one door into the engine), :mod:`.worker` (generators on a QThread), and the views :mod:`.block_view`,
:mod:`.panels`, :mod:`.feature_panel`, assembled by :mod:`.main_window`.
"""
