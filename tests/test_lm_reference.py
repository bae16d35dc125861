"""Trigger LM training against a recorded reference: the same pairs, weights and perplexities.

``tests/data/lm_reference.json`` holds what training computed on the bundled Reuters sample (paper Section 3.2:
pair selection, the trigger scan's IIS statistics, over-relaxed IIS with the held-out stopping rule) before the
training was made faster.  Faster code must select the same pairs in the same order (pairs
whose selection scores tie to 1e-9 may trade places) and reach the same weights
(to 1e-7: the scan's sums may be taken in another order) and perplexities (to 1e-6 relative).

Recorded by this module, run as a script, with the implementation it describes::

    python tests/test_lm_reference.py --record
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "data" / "lm_reference.json"
WEIGHT_ATOL = 1e-7
PPL_RTOL = 1e-6
TIE_RTOL = 1e-9  # selection scores this close are a tie; their order is the summation order's, not the model's

# name -> (trigger parameters, held out?)
RUNS = {
    "no_heldout": dict(n_triggers=1000, trigger_vocab=2000, max_iter=12),
    "heldout_gain": dict(n_triggers=1000, trigger_vocab=2000, max_iter=12, ranking="gain"),
}


def _sentences():
    from segviz.corpus import read_corpus

    return read_corpus(ROOT / "sample_corpora" / "reuters_sample.sgm").sentences()


def run(name: str) -> dict:
    from segviz.lm.triggers import TriggerLM
    from segviz.lm.trigram import TrigramLM

    s = _sentences()
    prior = TrigramLM(vocab_size=5000).fit(s[:1600])
    model = TriggerLM(**RUNS[name])
    if name == "no_heldout":
        model.fit(s[:1600], prior=prior)
    else:
        model.fit(s[:1600], prior=prior, heldout=s[1600:1750])
    return {
        "name": name, "params": RUNS[name],
        "sources": model.sources_.tolist(), "targets": model.targets_.tolist(),
        "weights": model.weights_.tolist(), "scores": model.scores_.tolist(),
        "train_perplexity": [h.train_perplexity for h in model.history_],
        "heldout_perplexity": [h.heldout_perplexity for h in model.history_],
        "steps": [h.step for h in model.history_],
        "test_perplexity": model.perplexity(s[1750:]),
    }


def record(path: Path = REFERENCE) -> None:
    runs = {name: run(name) for name in RUNS}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(runs) + "\n")
    print(f"wrote {path}: " + ", ".join(f"{k}: {len(v['weights'])} pairs, {len(v['steps']) - 1} iterations"
                                        for k, v in runs.items()))


@pytest.mark.parametrize("name", sorted(RUNS))
def test_trigger_training_reproduces_the_recorded_model(name):
    ref = json.loads(REFERENCE.read_text())[name]
    got = run(name)
    ref_pairs = list(zip(ref["sources"], ref["targets"]))
    got_pairs = list(zip(got["sources"], got["targets"]))
    assert sorted(got_pairs) == sorted(ref_pairs)
    # Same order, except that pairs whose selection scores tie (to TIE_RTOL) may trade places.
    scores = np.asarray(got["scores"])
    position = {pair: i for i, pair in enumerate(got_pairs)}
    for i, pair in enumerate(ref_pairs):
        if got_pairs[i] != pair:
            assert scores[position[pair]] == pytest.approx(scores[i], rel=TIE_RTOL), (i, pair, got_pairs[i])
    assert got["steps"] == ref["steps"]
    weights = dict(zip(got_pairs, got["weights"]))
    np.testing.assert_allclose([weights[p] for p in ref_pairs], ref["weights"], rtol=0, atol=WEIGHT_ATOL)
    np.testing.assert_allclose(got["train_perplexity"], ref["train_perplexity"], rtol=PPL_RTOL)
    if name != "no_heldout":
        np.testing.assert_allclose(got["heldout_perplexity"], ref["heldout_perplexity"], rtol=PPL_RTOL)
    assert got["test_perplexity"] == pytest.approx(ref["test_perplexity"], rel=PPL_RTOL)


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        raise SystemExit("usage: python tests/test_lm_reference.py --record")
    sys.path.insert(0, str(ROOT))
    record()
