"""The engine process behind each app window (Qt-free).

One long-lived process per window owns the parsed corpus and the open model and answers the window's requests --
read, apply, columns, peers, relevance, train -- as JSON lines, streaming progress and honouring cancel
(docs/app.md, *Design*).  :class:`~segviz.service.engine_process.EngineProcess` is the window's side of it,
:mod:`segviz.service.engine_child` the engine's.  Nothing here imports Qt or the window (:mod:`segviz.app`).
"""
