"""The decision panel's widgets come from the shown rule's own controls (segviz.rules.DecisionRule.controls),
whose ranges are the rule's declared constraints widened to its value: a model whose threshold rule has ε = 300
shows 300 (the panel used to stop at 200), a length prior expecting 8,000 sentences shows 8,000 (the control used to
stop at 5,000), and a step from there moves on from the value, not from a clamped one."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from segviz import LengthPriorRule, Segmenter, ThresholdRule  # noqa: E402
from tests.app_fixtures import app_settings, no_leaked_workers, window  # noqa: E402,F401

ROOT = Path(__file__).resolve().parents[1]
CHOI = ROOT / "sample_corpora" / "choi" / "3-11_0.ref"


def open_corpus(win, qtbot):
    win.default_model = None   # no bundled model applied on open: these tests open their own
    with qtbot.waitSignal(win.corpusLoaded, timeout=300000):
        assert win.open_corpus(str(CHOI))
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)


def open_model(win, qtbot, path):
    with qtbot.waitSignal(win.modelApplied, timeout=300000):
        assert win.open_model(str(path))
    qtbot.waitUntil(lambda: not win.busy, timeout=300000)


def saved(tmp_path, name, rule) -> Path:
    """A model of one featureless segmenter deciding with ``rule``, saved as a file to open."""
    model = Segmenter.from_weights([], [], prior=0.2, mu=0.1, rule=rule)
    return model.save(tmp_path / f"{name}.segviz")


@pytest.mark.slow
def test_a_separation_of_300_is_shown_as_300_and_moves_on_from_there(window, qtbot, tmp_path):  # noqa: F811
    open_corpus(window, qtbot)
    open_model(window, qtbot, saved(tmp_path, "eps300", ThresholdRule(alpha=0.3, epsilon=300)))
    state, panel = window.state, window.decision
    assert state.epsilon == 300 and state.shown_rule.epsilon == 300
    spin = panel.epsilon_spin
    assert set(panel.setting_spins) == {"alpha", "epsilon"} and spin is panel.setting_spins["epsilon"]
    assert spin.value() == 300 and spin.maximum() >= 300 and spin.text() == "300 sentences"
    assert panel.alpha_spin.value() == pytest.approx(0.3) and "ε = 300" in panel.rule_label.text()
    # the range is the rule's declared one, the same the rule checks and the command line accepts
    assert (spin.minimum(), spin.maximum()) == ThresholdRule.PARAM_CONSTRAINTS["epsilon"].bounds()
    with qtbot.waitSignal(window.session.hypothesisChanged, timeout=300000):
        spin.stepUp()
    assert state.epsilon == 301 and spin.value() == 301


@pytest.mark.slow
def test_a_length_prior_expecting_8000_sentences_is_shown_unclamped(window, qtbot, tmp_path):  # noqa: F811
    open_corpus(window, qtbot)
    open_model(window, qtbot, saved(tmp_path, "long", LengthPriorRule(mean_length=8000.0, shape=2.0, bias=0.0)))
    panel = window.decision
    assert panel.alpha_spin is None and set(panel.setting_spins) == {"mean_length", "shape", "bias"}
    spin = panel.setting_spins["mean_length"]
    assert spin.value() == 8000.0 and spin.maximum() >= 8000.0
    with qtbot.waitSignal(window.session.hypothesisChanged, timeout=300000):
        spin.stepUp()
    assert window.state.shown_rule.mean_length == 8001.0
