"""Rebuild the small Reuters demo model, ``resources/sample_model.segviz`` (one file: the segmenter and its
language models).

Trained on Reuters-21578 ``reut2-001.sgm`` (first 80% of its stories for the language models and induction, the
rest held out for P_mu and alpha/epsilon), so the bundled sample corpus (``sample_corpora/reuters_sample.sgm``,
an excerpt of ``reut2-000.sgm``) is unseen test data for it.  Kept small (< 2 MB) with a reduced vocabulary.

    python resources/make_sample_model.py [../shared/corpora/reuters21578/reut2-001.sgm]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from segviz.corpus import read_corpus
from segviz.induction import FeatureAdded
from segviz.lm.models import LanguageModels
from segviz.segmenter import Segmenter

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "shared" / "corpora" / "reuters21578" / "reut2-001.sgm"


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else DEFAULT
    corpus = read_corpus(source)
    k = len(corpus) // 5
    train, heldout = corpus[:-k], corpus[-k:]
    t0 = time.perf_counter()
    lms = LanguageModels(vocab_size=6000, n_triggers=4000, trigger_vocab=3000).fit(train.sentences())
    segmenter = Segmenter(n_features=40, vocabulary=3000)
    for event in segmenter.fit_iter(train, heldout, lms):
        if isinstance(event, FeatureAdded):
            print(f"{event.round:3d} {event.feature.description:60s} e^λ={event.weights[-1]:8.3g} "
                  f"held-out P_mu={event.heldout_p_mu:.3f}")
    segmenter.info_.update(trained_on=f"{source.name}: {len(train)} stories, held out {len(heldout)}")
    out = HERE / "sample_model.segviz"
    segmenter.save(out)
    print(f"{segmenter} saved to {out} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
