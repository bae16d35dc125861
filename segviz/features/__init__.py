"""Candidate features for the boundary model (paper Sections 3.3-3.4), one module per family of questions.

Every feature is a binary question about the neighbourhood of a candidate boundary: a
:class:`~segviz.features.questions.WordQuestion` (Section 3.4's vocabulary questions) or an
:class:`~segviz.features.questions.IntervalQuestion` about a signal (Section 3.3's relevance and the families
that ask the same kind of question about other quantities).

Layout (dependencies point down this list; family modules import only the shared core):

* core -- :mod:`~segviz.features.questions` (question types, signals, the English),
  :mod:`~segviz.features.stream` (token windows), :mod:`~segviz.features.stacking` (joining answer blocks), :mod:`~segviz.features.context` (a stream and its precomputed,
  cached signals), :mod:`~segviz.features.family` (the family interface, answering interval questions);
* families -- the paper's :mod:`~segviz.features.vocabulary` and :mod:`~segviz.features.relevance` (with its
  longer horizons), and beyond the paper :mod:`~segviz.features.cohesion`, :mod:`~segviz.features.peer`,
  :mod:`~segviz.features.tfidf` (multi-scale cohesion), :mod:`~segviz.features.names`,
  :mod:`~segviz.features.dialogue`, :mod:`~segviz.features.transitions`, :mod:`~segviz.features.paragraphs`,
  :mod:`~segviz.features.shape`,
  :mod:`~segviz.features.position` (docs/features.md);
* :mod:`~segviz.features.registry` -- every family by name; :mod:`~segviz.features.candidates` -- the candidate
  matrix of the chosen families and the induced features' matrix on new text.
"""
from segviz.features.candidates import boundary_labels, build_candidates, evaluate_features
from segviz.features.context import FeatureContext
from segviz.features.family import CandidateSettings, Family, IntervalFamily
from segviz.features.questions import (
    FeatureSpec,
    IntervalQuestion,
    Signal,
    Window,
    WordQuestion,
    interval_grid,
)
from segviz.features.registry import DEFAULT_FAMILIES, FAMILIES, resolve_families
from segviz.features.relevance import RELEVANCE_EDGES, relevance_intervals
from segviz.features.vocabulary import EXTENDED_TEMPLATES, VOCABULARY_TEMPLATES, Template, select_vocabulary

__all__ = [
    "FeatureContext",
    "FeatureSpec",
    "WordQuestion",
    "IntervalQuestion",
    "Signal",
    "Window",
    "Template",
    "Family",
    "IntervalFamily",
    "CandidateSettings",
    "FAMILIES",
    "DEFAULT_FAMILIES",
    "VOCABULARY_TEMPLATES",
    "EXTENDED_TEMPLATES",
    "RELEVANCE_EDGES",
    "resolve_families",
    "relevance_intervals",
    "interval_grid",
    "boundary_labels",
    "select_vocabulary",
    "build_candidates",
    "evaluate_features",
]
