"""The vocabulary family: Section 3.4's questions about single words, one per template and candidate word.

* does the word appear in the next 1, 2, 3, 5 sentences?  the previous 1, 2, 3, 5?
* in the previous 5 sentences but not the next 5?  the next 5 but not the previous 5?
* in the next 1 / 5 words?  the previous 1 / 5 words?
* does the word begin the preceding sentence?

Each template is instantiated for every word of a candidate vocabulary (the most frequent words of the training
stream by default), so this family supplies nearly all the candidates.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from segviz.features.family import CandidateSettings, Family
from segviz.features.questions import Window, WordQuestion
from segviz.features.stream import TokenStream

__all__ = [
    "Template",
    "VOCABULARY_TEMPLATES",
    "EXTENDED_TEMPLATES",
    "select_vocabulary",
    "VocabularyFamily",
]


@dataclass(frozen=True)
class Template:
    """A vocabulary question without its word (instantiated once per vocabulary word)."""

    kind: str
    window: Window
    not_window: Window | None = None

    def spec(self, word: str) -> WordQuestion:
        return WordQuestion(self.kind, word, self.window, self.not_window)


def _sentences(a: int, b: int) -> Window:
    return Window("sentence", a, b)


def _words(a: int, b: int) -> Window:
    return Window("word", a, b)


#: The 15 vocabulary questions of Section 3.4, in the paper's order.
VOCABULARY_TEMPLATES: tuple[Template, ...] = (
    *(Template("sentences", _sentences(0, k)) for k in (1, 2, 3, 5)),
    *(Template("sentences", _sentences(-k, 0)) for k in (1, 2, 3, 5)),
    Template("sentences_not", _sentences(-5, 0), _sentences(0, 5)),
    Template("sentences_not", _sentences(0, 5), _sentences(-5, 0)),
    *(Template("words", _words(0, m)) for m in (1, 5)),
    *(Template("words", _words(-m, 0)) for m in (1, 5)),
    Template("begins_previous", _sentences(-1, -1)),
)

#: The paper's 15 questions plus wider/narrower windows (next/previous 10 sentences, 2 and 3 words):
#: a larger candidate pool for the speed benchmark (>= 300,000 candidates on the Reuters training portion).
EXTENDED_TEMPLATES: tuple[Template, ...] = VOCABULARY_TEMPLATES + (
    Template("sentences", _sentences(0, 10)), Template("sentences", _sentences(-10, 0)),
    *(Template("words", _words(0, m)) for m in (2, 3)),
    *(Template("words", _words(-m, 0)) for m in (2, 3)),
)


def select_vocabulary(sentences: Iterable[Sequence[str]], size: int, *, min_count: int = 1) -> list[str]:
    """The ``size`` most frequent tokens (ties broken alphabetically, for determinism)."""
    counts = Counter(t for s in sentences for t in s)
    items = sorted((c, w) for w, c in counts.items() if c >= min_count)
    items.sort(key=lambda cw: (-cw[0], cw[1]))
    return [w for _, w in items[:size]]


class VocabularyFamily(Family):
    """Every template of ``settings.templates`` for every word of ``settings.vocabulary`` (Section 3.4)."""

    name = "vocabulary"
    summary = "does a word occur in a window of sentences/words around the gap (Section 3.4)"

    def candidates(self, context, settings: CandidateSettings):
        vocabulary = settings.vocabulary
        vocab = (select_vocabulary(context.sentences, int(vocabulary))
                 if isinstance(vocabulary, (int, np.integer)) else list(dict.fromkeys(vocabulary)))
        stream = TokenStream(context.sentences, vocab)
        for tpl in settings.templates:
            yield stream.question_block(tpl.kind, tpl.window, tpl.not_window), [tpl.spec(w) for w in vocab]
