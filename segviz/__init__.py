"""segviz: text segmentation with exponential models.

A faithful reimplementation of Beeferman, Berger & Lafferty, "Text Segmentation Using Exponential Models"
(1997), with a Qt application (:mod:`segviz.app`) to watch it work.  The engine modules never import Qt:

corpus -> lm (trigram, triggers) -> relevance -> features -> induction -> decode/rules -> models -> metrics/evaluation
-> protocols

The public face::

    from segviz import load_model, read_corpus          # the bundled default model, any text
    model = load_model()                                  # or load_model("my.segviz"): a segmenter or a router
    model.predict(read_corpus("book.txt"))                # segment lengths, one list per document

    from segviz import Segmenter, ExpertRouter, LanguageModels, SegmentationModel
    from segviz import ThresholdRule, LengthPriorRule, SegmentCountRule   # decision rules
    from segviz import p_mu, p_k, window_diff, boundary_prf, TextTiling, C99

(imported on first use, so ``segviz --help`` does not pay for numpy and scipy).
"""

__version__ = "0.1.0"

# before any module imports numba: a cache directory numba can write, or it refuses to compile
from .numba_cache import ensure_writable_cache  # noqa: E402

ensure_writable_cache()

#: public name -> the module that defines it
_EXPORTS = {
    "Segmenter": "segmenter", "ExpertRouter": "routing", "load_model": "models",
    "SegmentationModel": "model_protocol", "LanguageModels": "lm.models",
    "FeatureAdded": "induction", "InductionFinished": "induction",
    "Corpus": "corpus", "read_corpus": "corpus",
    "ThresholdRule": "rules", "LengthPriorRule": "rules", "SegmentCountRule": "rules", "DecisionRule": "rules",
    "p_mu": "metrics", "p_k": "metrics", "window_diff": "metrics", "boundary_prf": "metrics",
    "TextTiling": "peers", "C99": "peers",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'segviz' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"segviz.{module}"), name)
