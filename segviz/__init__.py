"""segviz: text segmentation with exponential models.

A faithful reimplementation of Beeferman, Berger & Lafferty, "Text Segmentation Using Exponential Models"
(1997), with a Qt application (:mod:`segviz.app`) to watch it work.  The engine modules never import Qt:

corpus -> lm (trigram, triggers) -> relevance -> features -> induction -> decode -> metrics
"""

__version__ = "0.1.0"
