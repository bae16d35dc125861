"""Is this text in the model's domain?  The share of the text's words the model's vocabulary covers.

A segmenter's relevance questions (Section 3.3) and its vocabulary questions only know the words of the corpus
it was trained on; applied to text whose words it mostly does not know, its probabilities say little (the
bundled Reuters demo model on fiction, say).  :func:`vocabulary_coverage` counts the text's *word* tokens
(tokens with a letter or digit; punctuation is known to every model and would flatter the figure) that are in
the vocabulary of the model's language models, and :func:`model_coverage` applies it to a trained segmenter.

Threshold: :data:`OUT_OF_DOMAIN_COVERAGE`.  Measured with the bundled demo model (6,003-word vocabulary from
one Reuters-21578 file) -- in domain: Reuters files it was not trained on; out of domain: Choi (Brown) text,
Brown fiction, Wikipedia (wiki300) -- the in-domain figures lie above it and the out-of-domain ones below
(``docs/formats.md`` lists the figures and the command that measured them).
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

#: below this share of covered words, ``segviz segment`` warns that the text looks out of the model's domain
OUT_OF_DOMAIN_COVERAGE = 0.80


@dataclass(frozen=True)
class Coverage:
    """``covered`` of the text's ``words`` (word tokens, repeats counted) are in a vocabulary of ``vocabulary``."""

    covered: int
    words: int
    vocabulary: int

    @property
    def fraction(self) -> float:
        return self.covered / self.words if self.words else 1.0

    @property
    def out_of_domain(self) -> bool:
        return self.words > 0 and self.fraction < OUT_OF_DOMAIN_COVERAGE

    def message(self) -> str:
        """``model covers 41% of this text's words: out of domain?`` (or ``... in domain``)."""
        verdict = ("out of domain? its boundary probabilities may mean little here" if self.out_of_domain
                   else "in its domain")
        return f"model covers {self.fraction:.0%} of this text's words ({self.vocabulary:,}-word vocabulary): {verdict}"


def _is_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def vocabulary_coverage(vocabulary: Collection[str], corpus) -> Coverage:
    """How many of ``corpus``'s word tokens are in ``vocabulary`` (tokens as :func:`segviz.corpus.tokenize`
    makes them, so lowercased)."""
    known = vocabulary if isinstance(vocabulary, (set, frozenset)) else frozenset(vocabulary)
    words = covered = 0
    for token in corpus.tokens():
        if _is_word(token):
            words += 1
            covered += token in known
    return Coverage(covered=covered, words=words, vocabulary=len(known))


def model_vocabulary(model) -> frozenset[str] | None:
    """The words a trained segmenter knows: its language models' vocabulary (``None`` if it has no LMs)."""
    lms = getattr(model, "lms_", None)
    vocab = getattr(lms, "vocab_", None) if lms is not None else None
    if not vocab:
        return None
    return frozenset(w for w in vocab if not (w.startswith("<") and w.endswith(">")))


def model_coverage(model, corpus) -> Coverage | None:
    """:func:`vocabulary_coverage` of ``corpus`` by ``model``'s vocabulary; ``None`` when the model has none."""
    vocabulary = model_vocabulary(model)
    return None if vocabulary is None else vocabulary_coverage(vocabulary, corpus)
