from __future__ import annotations

import pytest

from segviz.baselines import BASELINES, baseline_masses, even_masses, random_masses
from segviz.errors import SegvizError
from segviz.metrics import p_mu


def test_baselines_shapes():
    ref = (5, 7, 3, 9, 6)
    n = sum(ref)
    for name in BASELINES:
        hyp = baseline_masses(name, ref)
        assert sum(hyp) == n
    assert baseline_masses("all", ref) == (1,) * n
    assert baseline_masses("none", ref) == (n,)
    assert len(random_masses(ref, seed=1)) == len(ref)
    assert random_masses(ref, seed=1) == random_masses(ref, seed=1)
    assert even_masses(ref) == (6, 6, 6, 6, 6)  # 1/mu = 30/5 = 6


def test_even_respects_mu_and_rejects_bad_mu():
    assert even_masses((10,), mu=1 / 3) == (3, 3, 3, 1)
    with pytest.raises(SegvizError, match="mu"):
        even_masses((10,), mu=0)
    with pytest.raises(SegvizError, match="unknown baseline"):
        baseline_masses("oracle", (3,))


def test_paper_ordering_on_regular_reference():
    """On a stream of equal-length documents, 'even' is near perfect in phase and the trivial rows are poor."""
    ref = (18,) * 50
    scores = {name: p_mu(ref, baseline_masses(name, ref)) for name in BASELINES}
    assert scores["even"] == pytest.approx(1.0)
    assert scores["random"] > scores["none"]
    assert scores["all"] < 0.75 and scores["none"] < 0.75
