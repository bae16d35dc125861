"""The registry of candidate families, in their canonical order (the order of the candidate matrix's blocks).

Selecting families by name is all a caller does; :func:`segviz.features.candidates.build_candidates` loops over
the selected ones.
"""
from __future__ import annotations

from collections.abc import Iterable

from segviz.errors import SegvizError
from segviz.features import (
    cohesion,
    dialogue,
    names,
    novelty,
    paragraph_score,
    paragraphs,
    peer,
    position,
    relevance,
    shape,
    tfidf,
    transitions,
)
from segviz.features.family import Family
from segviz.features.vocabulary import VocabularyFamily

__all__ = ["FAMILIES", "DEFAULT_FAMILIES", "resolve_families"]

#: Every family by name, in canonical order.
FAMILIES: dict[str, Family] = {f.name: f for f in (
    VocabularyFamily(),
    relevance.FAMILY,
    cohesion.FAMILY,
    peer.FAMILY,
    relevance.HORIZONS_FAMILY,
    tfidf.FAMILY,
    names.FAMILY,
    novelty.FAMILY,
    dialogue.FAMILY,
    transitions.FAMILY,
    paragraphs.FAMILY,
    paragraph_score.FAMILY,
    shape.FAMILY,
    position.FAMILY,
)}

#: The families a :class:`~segviz.segmenter.Segmenter` asks about by default: the paper's two and cohesion.
DEFAULT_FAMILIES: tuple[str, ...] = ("vocabulary", "relevance", "cohesion")


def resolve_families(names: Iterable[str] | str) -> tuple[str, ...]:
    """Validate family names and put them in canonical order (duplicates dropped)."""
    if isinstance(names, str):
        names = [names]
    chosen = set()
    for name in names:
        if name not in FAMILIES:
            raise SegvizError(f"unknown feature family {name!r} (choose from {', '.join(FAMILIES)})")
        chosen.add(name)
    return tuple(name for name in FAMILIES if name in chosen)
