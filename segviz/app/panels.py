"""Side panels: decision controls and metrics, segmenter toggles, the hover/click context, relevance profile."""
from __future__ import annotations

import html
import math
import os

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..general_lm import MODEL_LM_LABEL
from .block_view import CURVE_COLOR, HYP_COLOR, cache_axes, peer_color
from .qt_session import QtSession
from .state import MODEL_ROW

SLIDER_STEPS = 1000


def plural(n: int, word: str) -> str:
    """``"1 sentence"``, ``"2 sentences"``."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"

METRIC_COLUMNS = (   # header, score_row key, higher is better (None: not ranked)
    ("P_μ", "p_mu", True),
    ("P_k", "p_k", False),
    ("WD", "window_diff", False),
    ("P", "precision", True),
    ("R", "recall", True),
    ("F", "f1", True),
    ("segs", "hypothesis_segments", None),
)
#: the metrics table's column of segment counts
SEGMENTS_COLUMN = [c[1] for c in METRIC_COLUMNS].index("hypothesis_segments")


def segment_count_text(count: int) -> str:
    """A segment count as the metrics table shows it: whole up to 99,999, in thousands above ("236.4k") and in
    millions from a million ("1.00M"; the tool tip has every digit), so that the column stays narrow beside the
    scores."""
    if count < 100_000:
        return f"{count:,}"
    return f"{count / 1000:.1f}k" if count < 999_950 else f"{count / 1_000_000:.2f}M"


METRIC_TIPS = ("P_mu (Section 5): probability that two sentences a mean segment length apart are correctly "
               "classified as same/different segment; higher is better",
               "P_k (Beeferman et al. 1999): error rate with k = half the mean segment length; lower is better",
               "WindowDiff (Pevzner & Hearst 2002): lower is better",
               "precision of exact boundary matches", "recall of exact boundary matches", "F-measure",
               "number of hypothesised segments")


class RuleControls(QWidget):
    """The widgets of one kind of decision rule, built from its :meth:`segviz.rules.DecisionRule.controls`: a spin
    box per setting (with a slider beside it where the control asks for one: the threshold rule's α), its range
    the control's, which always holds the rule's value.  ``changed(name, value)`` is called with the user's moves;
    :meth:`show` pushes a rule's values in without echoing them."""

    def __init__(self, controls: list[dict], changed, parent=None):
        super().__init__(parent)
        self.signature = control_signature(controls)
        self.spins: dict[str, QDoubleSpinBox | QSpinBox] = {}
        self.sliders: dict[str, QSlider] = {}
        self._controls = {c["name"]: dict(c) for c in controls}
        self._changed = changed
        form = self.form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        for control in controls:
            name = control["name"]
            spin = QSpinBox() if control["integer"] else QDoubleSpinBox()
            spin.setObjectName(f"setting_{name}")
            if not control["integer"]:
                spin.setDecimals(int(control.get("decimals", 2)))
            spin.setSingleStep(control["step"])
            spin.setMinimumHeight(spin.sizeHint().height())   # a crowded dock must not squeeze them shut
            self.spins[name] = spin
            field = spin
            if control.get("slider"):
                slider = QSlider(Qt.Horizontal)
                slider.setObjectName(f"slider_{name}")
                slider.setRange(0, SLIDER_STEPS)
                self.sliders[name] = slider
                field = QWidget()
                row = QHBoxLayout(field)
                row.setContentsMargins(0, 0, 0, 0)
                row.addWidget(slider, 1)
                row.addWidget(spin)
                slider.valueChanged.connect(lambda v, n=name: self._changed(n, self._from_slider(n, v)))
            else:
                spin.setKeyboardTracking(False)   # typed values apply on Enter, not at every digit
            spin.valueChanged.connect(lambda v, n=name: self._spin_moved(n, v))
            form.addRow(control["label"], field)
        self.show_controls(controls)

    def widgets(self) -> list[QWidget]:
        return [*self.sliders.values(), *self.spins.values()]

    def _from_slider(self, name: str, position: int) -> float:
        control = self._controls[name]
        return control["low"] + (control["high"] - control["low"]) * position / SLIDER_STEPS

    def _to_slider(self, name: str, value: float) -> int:
        control = self._controls[name]
        span = control["high"] - control["low"]
        return round((value - control["low"]) / span * SLIDER_STEPS) if span > 0 else 0

    def _spin_moved(self, name: str, value) -> None:
        self._suffix(name, value)
        self._changed(name, value)

    def _suffix(self, name: str, value) -> None:
        # "1 sentence", "2 sentences": the unit follows the number
        unit = self._controls[name].get("unit")
        if unit:
            self.spins[name].setSuffix(f" {unit}" if value == 1 else f" {unit}s")

    def show_controls(self, controls: list[dict]) -> None:
        """A rule's labels, ranges and values (of this box's kind), pushed in without signals."""
        for control in controls:
            name = control["name"]
            self._controls[name] = dict(control)
            spin = self.spins[name]
            label = self.form.labelForField(spin.parentWidget() if name in self.sliders else spin)
            if label is not None and label.text() != control["label"]:
                label.setText(control["label"])
            spin.blockSignals(True)
            if (spin.minimum(), spin.maximum()) != (control["low"], control["high"]):
                spin.setRange(control["low"], control["high"])
            if spin.value() != control["value"]:
                spin.setValue(control["value"])
            spin.blockSignals(False)
            self._suffix(name, spin.value())
            slider = self.sliders.get(name)
            if slider is not None:
                step = max(1, self._to_slider(name, control["low"] + control["step"]))
                slider.blockSignals(True)
                slider.setSingleStep(step)         # arrow keys: one step of the setting (α: 0.01)
                slider.setPageStep(10 * step)      # PgUp/PgDn: ten
                if slider.value() != self._to_slider(name, control["value"]):
                    slider.setValue(self._to_slider(name, control["value"]))
                slider.blockSignals(False)


def control_signature(controls: list[dict]) -> tuple:
    """What decides the widgets of a rule's controls: their names, kinds and sliders (one box per signature)."""
    return tuple((c["name"], bool(c["integer"]), bool(c.get("slider")), c.get("unit")) for c in controls)


class DecisionPanel(QWidget):
    """The controls of the decision rule in use, "tune on held-out", and the side-by-side metrics table.

    The panel shows the rule of the shown segmenter (a router's expert can be picked in the list), its widgets
    built from the rule's own :meth:`segviz.rules.DecisionRule.controls` whatever its kind (:class:`RuleControls`:
    the threshold rule's α slider and spin box and ε spin box, Section 7; the length prior's expected segment
    length, shape and bias; a segment count), one box per kind of rule, kept while the panel lives.  Every change
    decides again, live, each document that segmenter answers for.  User input is written back through the session
    (``state.set_rule_setting``; a control with a slider, which a drag moves once per pixel, once per event-loop
    pass with the latest value); the panel blocks its own signals when the session pushes a value in, so nothing
    echoes (the napari pattern).
    """

    tuneRequested = Signal()

    def __init__(self, session: QtSession, parent=None):
        super().__init__(parent)
        self.session = session
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)

        box = QGroupBox("Decision rule")
        box.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Minimum)
        form = self._rule_form = QFormLayout(box)
        self.expert_combo = QComboBox()
        self.expert_combo.setObjectName("expertCombo")
        self.expert_combo.setToolTip("The segmenter whose decision rule the controls below show and change (a "
                                     "router's expert; each document is decided by the rule of the expert that "
                                     "answers for it)")
        self.expert_combo.activated.connect(self._expert_chosen)
        form.addRow("rule of", self.expert_combo)
        self.rule_label = QLabel("")
        self.rule_label.setObjectName("ruleLabel")
        self.rule_label.setWordWrap(True)
        form.addRow(self.rule_label)
        # the shown rule's settings, built from its own controls(): one box per kind of rule
        self.settings_box = QWidget()
        self._settings_layout = QVBoxLayout(self.settings_box)
        self._settings_layout.setContentsMargins(0, 0, 0, 0)
        self._boxes: dict[tuple, RuleControls] = {}
        self.controls: RuleControls | None = None
        self._key_filters: list[QObject] = []
        # moves of a control with a slider (a drag: a value per pixel), applied once per event-loop pass
        self._pending: dict[str, object] = {}
        self._pending_timer = QTimer(self)
        self._pending_timer.setSingleShot(True)
        self._pending_timer.setInterval(0)
        self._pending_timer.timeout.connect(self._apply_pending)
        form.addRow(self.settings_box)
        self.tune_button = QPushButton("Tune on held-out")
        self.tune_button.setObjectName("tuneButton")
        self.tune_button.setToolTip("Set the rule's settings to the values best on held-out data (Section 7): "
                                    "the held-out documents of a model trained here, or the model's own "
                                    "held-out values for a loaded model")
        self.tune_button.clicked.connect(self.tuneRequested)
        form.addRow(self.tune_button)
        outer.addWidget(box)

        self.peer_box = QGroupBox("Segmenters shown")
        self.peer_layout = QHBoxLayout(self.peer_box)
        self.peer_checks: dict[str, QCheckBox] = {}
        outer.addWidget(self.peer_box)

        mbox = QGroupBox("Metrics")
        mlay = QVBoxLayout(mbox)
        self.reference_label = QLabel("")
        self.reference_label.setWordWrap(True)
        mlay.addWidget(self.reference_label)
        self.table = QTableWidget(0, len(METRIC_COLUMNS))
        self.table.setObjectName("metricsTable")
        self.table.setHorizontalHeaderLabels([c[0] for c in METRIC_COLUMNS])
        for j, tip in enumerate(METRIC_TIPS):
            self.table.horizontalHeaderItem(j).setToolTip(tip)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        # the segment count as wide as its text: stretched like the scores, six digits were cut to "236…"
        self.table.horizontalHeader().setSectionResizeMode(SEGMENTS_COLUMN, QHeaderView.ResizeToContents)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.NoSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setToolTip("P_mu: probability that two sentences drawn a mean-segment-length apart are "
                              "correctly classified (Section 5; higher is better). P_k and WindowDiff are "
                              "error rates (lower is better). Exact-match precision/recall/F of boundaries.")
        mlay.addWidget(self.table)
        outer.addWidget(mbox, 1)

        session.hypothesisChanged.connect(self.refresh)
        session.metricsChanged.connect(self.refresh)
        session.corpusChanged.connect(self.refresh)
        session.peersChanged.connect(self.refresh)
        # (no probabilitiesChanged: new probabilities always recompute the hypothesis, which triggers refresh)
        self.refresh()

    def set_peer_names(self, names, on_toggle) -> None:
        for i, name in enumerate(names):
            if name in self.peer_checks:
                continue
            check = QCheckBox(name)
            check.setObjectName(f"peer_{name}")
            color = peer_color(name, i)
            check.setStyleSheet(f"QCheckBox {{ color: {color}; font-weight: bold; }}")
            check.setToolTip(f"Show {name}'s boundaries as a tick row and its metrics")
            check.toggled.connect(lambda on, n=name: on_toggle(n, on))
            self.peer_checks[name] = check
            self.peer_layout.addWidget(check)
        self.peer_box.setVisible(bool(self.peer_checks))

    def _expert_chosen(self, index: int) -> None:
        name = self.expert_combo.itemData(index)
        if name:
            self.session.state.show_expert(name)

    # -- the shown rule's controls --------------------------------------------------------------------------
    @property
    def setting_spins(self) -> dict[str, QDoubleSpinBox | QSpinBox]:
        """The spin box of each setting of the shown rule."""
        return self.controls.spins if self.controls is not None else {}

    @property
    def alpha_slider(self) -> QSlider | None:
        """The shown rule's α slider (None when it has no α)."""
        return self.controls.sliders.get("alpha") if self.controls is not None else None

    @property
    def alpha_spin(self) -> QDoubleSpinBox | None:
        return self.setting_spins.get("alpha")

    @property
    def epsilon_spin(self) -> QSpinBox | None:
        return self.setting_spins.get("epsilon")

    def install_key_filter(self, key_filter: QObject) -> None:
        """``key_filter`` on every control's widgets, those of rules shown later too."""
        self._key_filters.append(key_filter)
        for box in self._boxes.values():
            for widget in box.widgets():
                widget.installEventFilter(key_filter)

    def _show_controls(self, controls: list[dict]) -> None:
        """The box of the shown rule's kind (built on its first showing) with the rule's values."""
        signature = control_signature(controls)
        box = self._boxes.get(signature)
        if box is None:
            box = self._boxes[signature] = RuleControls(controls, self._control_moved)
            self._settings_layout.addWidget(box)
            for key_filter in self._key_filters:
                for widget in box.widgets():
                    widget.installEventFilter(key_filter)
        else:
            box.show_controls(controls)
        if box is not self.controls:
            if self.controls is not None:
                self.controls.setVisible(False)
            box.setVisible(True)
            self.controls = box
        self.settings_box.setVisible(bool(controls))

    def _control_moved(self, name: str, value) -> None:
        if self.controls is not None and name in self.controls.sliders:
            self._pending[name] = value
            self._pending_timer.start()
        else:
            self._setting_changed(name, value)

    def _apply_pending(self) -> None:
        pending, self._pending = self._pending, {}
        for name, value in pending.items():
            self._setting_changed(name, value)

    def _setting_changed(self, name: str, value) -> None:
        try:
            self.session.state.set_rule_setting(name, value)
        except Exception as exc:   # SegvizError: a value the rule refuses; the panel shows the rule's own again
            self.rule_label.setText(f"<span style='color:#c62828'>{html.escape(str(exc))}</span>")
            self.refresh()

    def refresh(self) -> None:
        state = self.session.state
        self._show_controls(state.shown_rule.controls())
        segmenters = list(state.opened_model.segmenters()) if state.opened_model is not None else []
        taken = state.documents_per_expert()
        items = [(f"{name} ({plural(taken[name], 'document')})" if name in taken else name, name)
                 for name in segmenters]
        if [self.expert_combo.itemData(i) for i in range(self.expert_combo.count())] != [n for _, n in items] or \
                [self.expert_combo.itemText(i) for i in range(self.expert_combo.count())] != [t for t, _ in items]:
            self.expert_combo.blockSignals(True)
            self.expert_combo.clear()
            for text, name in items:
                self.expert_combo.addItem(text, name)
            self.expert_combo.blockSignals(False)
        if state.shown_expert in segmenters:
            self.expert_combo.setCurrentIndex(segmenters.index(state.shown_expert))
        self.expert_combo.setVisible(len(segmenters) > 1)
        label = self._rule_form.labelForField(self.expert_combo)
        if label is not None:
            label.setVisible(len(segmenters) > 1)
        self.rule_label.setText(state.shown_rule.describe() if state.opened_model is not None
                                else "the paper's threshold rule (open or train a model)")
        has_model = state.probabilities is not None
        for widget in (self.tune_button, *(self.controls.widgets() if self.controls is not None else ())):
            widget.setEnabled(has_model)
        for name, check in self.peer_checks.items():
            check.blockSignals(True)
            check.setChecked(name in state.shown_peers)
            check.blockSignals(False)
        if state.corpus is not None:
            if state.has_reference:
                text = (f"reference: {plural(len(state.reference_masses), 'segment')}, "
                        f"{plural(state.n_sentences, 'sentence')}, "
                        f"1/μ = {state.n_sentences / max(len(state.reference_masses), 1):.1f}")
            else:
                text = (f"{plural(state.n_sentences, 'sentence')}, no reference segmentation: the metrics need "
                        "one, so only the model's curve and its boundaries are shown")
                if state.corpus.book_headings:
                    # a book read as plain prose: its headings are a reference the user can have for the asking
                    text += (f"<br><span style='color:#c62828'>it looks like a book with "
                             f"{plural(state.corpus.book_headings, 'chapter heading')}: open it as \u201cA book\u201d "
                             "(File \u25b8 Open corpus) to score against its chapters</span>")
            if state.model_note:
                text += f"<br><span style='color:#c62828'>{state.model_note}</span>"
            taken = state.documents_per_expert() if state.probabilities is not None else {}
            routed = state.route is not None and state.probabilities is not None
            if routed:
                text += f"<br><span style='color:#616161'>model: {html.escape(state.route.summary())}</span>"
            elif len(state.opened_model.segmenters() if state.opened_model is not None else ()) > 1 and taken:
                said = ", ".join(f"{name} {count}" for name, count in taken.items())
                text += f"<br><span style='color:#616161'>model: experts chosen per document: {said}</span>"
            # the whole reasoning (each expert's threshold) on hover: the line itself stays one line
            self.reference_label.setToolTip(state.route.describe() if routed else "\n".join(
                f"{u.route.describe()}" for u in state.units if u.route is not None)[:4000])
            if state.coverage is not None and state.probabilities is not None:
                color = "#c62828" if state.coverage.out_of_domain else "#616161"
                text += f"<br><span style='color:{color}'>{html.escape(state.coverage.message())}</span>"
            self.reference_label.setText(text)
        rows = state.visible_rows()
        self.table.setVisible(state.has_reference)   # unlabelled text: no metric to show (the label says why)
        self.table.setRowCount(len(rows))
        # every row visible without scrolling: the comparison is the point of the table
        height = self.table.horizontalHeader().height() + 2 * self.table.frameWidth()
        height += sum(self.table.verticalHeader().sectionSize(i) for i in range(len(rows)))
        self.table.setMinimumHeight(max(height, 60))
        self.table.setVerticalHeaderLabels(rows)
        best = {}
        for _, key, higher in METRIC_COLUMNS:
            values = [state.metrics[r][key] for r in rows if r in state.metrics]
            if values and higher is not None:
                best[key] = max(values) if higher else min(values)
        bold = QFont()
        bold.setBold(True)
        for i, name in enumerate(rows):
            metrics = state.metrics.get(name, {})
            header = self.table.verticalHeaderItem(i)
            if header is not None:
                if name == MODEL_ROW:
                    header.setForeground(QBrush(QColor(HYP_COLOR)))
                elif name in state.peer_masses:
                    header.setForeground(QBrush(QColor(peer_color(name, list(state.peer_masses).index(name)))))
                else:
                    header.setForeground(QBrush(QColor("#616161")))
            for j, (_, key, higher) in enumerate(METRIC_COLUMNS):
                value = metrics.get(key)
                if value is None:
                    text = "-"
                elif key == "hypothesis_segments":
                    text = segment_count_text(int(value))
                else:
                    text = "nan" if isinstance(value, float) and math.isnan(value) else f"{value:.3f}"
                item = self.table.item(i, j)
                if item is None:
                    item = QTableWidgetItem()
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                    self.table.setItem(i, j, item)
                item.setText(text)
                item.setToolTip(f"{int(value):,} segments" if key == "hypothesis_segments" and value is not None
                                else "")
                is_best = value is not None and key in best and value == best[key]
                item.setFont(bold if is_best else QFont())

    def metric_text(self, row: str, key: str) -> str:
        """The text shown in the metrics table (for tests)."""
        rows = self.session.state.visible_rows()
        col = [c[1] for c in METRIC_COLUMNS].index(key)
        return self.table.item(rows.index(row), col).text()


class ContextPanel(QTextBrowser):
    """Sentences around a position and the features active there with their e^λ (why the model thinks so).

    ``explainer(position, callback)`` answers which induced features fire at a position (``(feature, e^λ)``
    pairs), or None while it is still being evaluated in the background; ``callback`` then re-renders."""

    def __init__(self, session: QtSession, parent=None):
        super().__init__(parent)
        self.setObjectName("contextPanel")
        self.session = session
        self.position: int | None = None
        self.explainer = None
        self.setOpenLinks(False)
        self.setHtml("<p style='color:#757575'>Hover over or click a position in the block view.</p>")
        session.corpusChanged.connect(self._corpus_changed)
        session.probabilitiesChanged.connect(self._refresh)
        session.relevanceChanged.connect(self._refresh)
        session.modelChanged.connect(self._refresh)

    def _corpus_changed(self) -> None:
        self.position = None
        self.setHtml("<p style='color:#757575'>Hover over or click a position in the block view.</p>")

    def _refresh(self) -> None:
        # a new curve (every training round): re-render what is shown, but evaluate features only when asked
        if self.position is not None and self.position < self.session.state.n_sentences:
            self.show_position(self.position, explain=False)

    def show_position(self, position: int, before: int = 3, after: int = 3, *, explain: bool = True) -> None:
        state = self.session.state
        if state.corpus is None or not 0 <= position < state.n_sentences:
            return
        self.position = position
        texts = state.texts
        doc = state.document_of(position)
        prob = state.probability_at(position)
        title = state.document_title(doc)
        if title:
            # a book's chapter (a Wiki section) by its heading, as the text gives it, and the file it is in: the
            # document's own name ("book.txt#4") says neither
            where = (f"<b>{html.escape(title)}</b> <span style='color:#616161'>"
                     f"({html.escape(os.path.basename(state.source_name(position)))})</span>")
        else:
            where = f"<span style='color:#616161'>{html.escape(state.corpus.document_names[doc])}</span>"
        parts = [f"<b>position {position}</b> (before sentence {position}) &middot; document {doc + 1}: {where}<br>"]
        flags = []
        if prob is not None:
            flags.append(f"P(boundary) = <b>{prob:.3f}</b>")
        if state.has_reference:
            flags.append("<span style='color:#222'>reference boundary</span>" if state.is_document_start(position)
                         else "no reference boundary")
        if state.probabilities is not None:
            flags.append(f"<span style='color:{HYP_COLOR}'>hypothesised</span>"
                         if state.is_hypothesis_boundary(position) else "not hypothesised")
        parts.append(" &middot; ".join(flags))
        unit = state.unit_at(position) if state.probabilities is not None else None
        if unit is not None and len(state.opened_model.segmenters() if state.opened_model is not None else ()) > 1:
            # which expert decides this document, by which rule, and why the router chose it
            rule = state.rules.get(unit.expert)
            why = unit.route.describe() if unit.route is not None else f"the {unit.expert} expert"
            parts.append(f"<br><span style='color:#616161'>decided by {html.escape(why)}"
                         + (f"; {html.escape(rule.describe())}" if rule is not None else "") + "</span>")
        parts.append("<hr><table cellspacing='0' cellpadding='1'>")
        for i in range(max(0, position - before), min(len(texts), position + after)):
            if i == position:
                parts.append(f"<tr><td colspan='2' style='color:{CURVE_COLOR}'>"
                             "&#9473;&#9473;&#9473;&#9473; candidate boundary &#9473;&#9473;&#9473;&#9473;</td></tr>")
            mark = "&#9632;" if state.has_reference and state.is_document_start(i) else ""
            rel = ""
            if state.relevance is not None:
                rel = f"<span style='color:#5e35b1'>R={state.relevance[i]:+.2f}</span>"
            parts.append(f"<tr><td valign='top' style='color:#9e9e9e'>{i}{mark}<br>{rel}</td>"
                         f"<td>{html.escape(texts[i])}</td></tr>")
        parts.append("</table>")
        if state.segmenter is not None and position >= 1:
            active = None
            if self.explainer is not None and explain:
                active = self.explainer(position, lambda p=position: self._explained(p))
            if active is None:
                parts.append("<hr><span style='color:#757575'>active features: "
                             + ("evaluating the model's features…" if explain else "hover to see them")
                             + "</span>")
            elif active:
                parts.append("<hr><b>active features</b> (e<sup>λ</sup> factor):<table>")
                for feature, factor in active:
                    color = "#2e7d32" if factor > 1 else "#c62828"
                    parts.append(f"<tr><td>{html.escape(feature.description)}</td>"
                                 f"<td align='right' style='color:{color}'><b>{factor:.3g}</b></td></tr>")
                parts.append("</table>")
            else:
                parts.append("<hr><span style='color:#757575'>no feature fires here</span>")
        self.setHtml("".join(parts))

    def _explained(self, position: int) -> None:
        if self.position == position:
            self.show_position(position)


class RelevanceProfileView(pg.PlotWidget):
    """Corpus-wide mean relevance by position relative to segment start (the paper's relevance figure)."""

    def __init__(self, session: QtSession, parent=None):
        super().__init__(parent)
        self.setObjectName("relevanceProfile")
        self.session = session
        self.setLabel("bottom", "sentences from segment start")
        self.setLabel("left", "mean relevance R")
        self.getAxis("left").enableAutoSIPrefix(False)
        self.showGrid(x=True, y=True, alpha=0.2)
        self.addItem(pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen("#222222", style=Qt.DashLine)))
        self.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888")))
        self.curve = pg.PlotDataItem(pen=pg.mkPen("#5e35b1", width=2), symbol="o", symbolSize=4,
                                     symbolBrush="#5e35b1")
        self.addItem(self.curve)
        self.message = pg.TextItem("relevance needs the language models", color="#9e9e9e", anchor=(0.5, 0.5))
        self.addItem(self.message)
        self.setTitle("Relevance around boundaries", size="9pt")
        cache_axes(self.getPlotItem())
        session.probabilitiesChanged.connect(self.refresh)
        session.relevanceChanged.connect(self.refresh)
        session.corpusChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        state = self.session.state
        profile = state.relevance_profile
        # which language models the profile comes from: the model's own, or the bundled general-English ones
        title = "Relevance around boundaries" + (f" ({state.relevance_source or MODEL_LM_LABEL})" if profile else "")
        if title != getattr(self, "_title", None):   # a new title lays the plot out again: only when it changes
            self._title = title
            self.setTitle(title, size="9pt")
        if not profile:
            self.curve.setData([], [])
            self.curve.setVisible(True)
            self.message.setText("relevance needs the language models (open or train a model)"
                                 if self.session.state.has_reference or self.session.state.corpus is None
                                 else "no reference boundaries: no profile around them")
            self.message.setPos(10.0, 0.05)
            self.message.setVisible(True)
            self.setXRange(-10, 30, padding=0.02)
            self.setYRange(-0.1, 0.1, padding=0)
            return
        offsets = np.asarray(profile["offsets"], dtype=np.float64)
        mean = np.asarray(profile["mean"], dtype=np.float64)
        ok = np.isfinite(mean)
        self.curve.setData(offsets[ok], mean[ok])
        flat = not ok.any() or float(np.abs(mean[ok]).max()) < 1e-9
        self.message.setText("relevance is 0 everywhere (the trigger model learned no weights)" if flat else "")
        self.message.setPos(float(offsets.mean()) if offsets.size else 0.0, 0.0)
        self.message.setVisible(flat)
        self.curve.setVisible(not flat)
        if flat:
            self.setYRange(-0.05, 0.05, padding=0)
        else:
            self.enableAutoRange(axis="y")
