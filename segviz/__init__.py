"""segviz: text segmentation with exponential models.

A faithful reimplementation of Beeferman, Berger & Lafferty, "Text Segmentation Using Exponential Models"
(1997), with a Qt application (:mod:`segviz.app`) to watch it work.  The engine modules never import Qt:

corpus -> lm (trigram, triggers) -> relevance -> features -> induction -> decode -> metrics/evaluation -> protocols

The public face::

    from segviz import Segmenter, read_corpus, LanguageModels
    from segviz import ExpertRouter, load_model   # experts and gauges; open either kind of model file

(imported on first use, so ``segviz --help`` does not pay for numpy and scipy).
"""

__version__ = "0.1.0"

__all__ = ["Segmenter", "ExpertRouter", "load_model", "LanguageModels", "Corpus", "read_corpus", "FeatureAdded",
           "InductionFinished", "__version__"]


def __getattr__(name: str):
    if name == "Segmenter":
        from .segmenter import Segmenter

        return Segmenter
    if name == "ExpertRouter":
        from .routing import ExpertRouter

        return ExpertRouter
    if name == "load_model":
        from .models import load_model

        return load_model
    if name == "LanguageModels":
        from .lm.models import LanguageModels

        return LanguageModels
    if name in ("FeatureAdded", "InductionFinished"):
        from . import induction

        return getattr(induction, name)
    if name in ("Corpus", "read_corpus"):
        from . import corpus

        return getattr(corpus, name)
    raise AttributeError(f"module 'segviz' has no attribute {name!r}")
