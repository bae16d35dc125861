"""Render the relevance profile of ``bench_lm.py --out RESULT.json`` as a PNG (the paper's relevance figure).

    QT_QPA_PLATFORM=offscreen python research/plot_relevance.py RESULT.json docs/relevance_profile.png

Uses pyqtgraph's ImageExporter (matplotlib is not a dependency).
"""
from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(src: str, dst: str) -> int:
    import numpy as np
    import pyqtgraph as pg
    import pyqtgraph.exporters
    from PySide6.QtWidgets import QApplication

    prof = json.loads(open(src).read())["relevance_profile"]
    x = np.array(prof["offsets"], dtype=float)
    y = np.array([np.nan if v is None else v for v in prof["mean"]], dtype=float)
    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    plot = pg.PlotWidget()
    plot.resize(720, 420)
    plot.setTitle("Mean sentence relevance log(p_exp / p_tri) around story boundaries (Reuters test stream)")
    plot.setLabel("bottom", "sentence offset from the start of a story (0 = first sentence)")
    plot.setLabel("left", "mean relevance R (nats per token)")
    plot.getAxis("left").enableAutoSIPrefix(False)
    plot.addLine(x=-0.5, pen=pg.mkPen("r", style=pg.QtCore.Qt.PenStyle.DashLine))
    plot.addLine(y=0.0, pen=pg.mkPen((150, 150, 150)))
    plot.plot(x, y, pen=pg.mkPen("b", width=2), symbol="o", symbolSize=6, symbolBrush="b")
    plot.show()
    app.processEvents()
    exporter = pg.exporters.ImageExporter(plot.plotItem)
    exporter.parameters()["width"] = 900
    exporter.export(dst)
    plot.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
