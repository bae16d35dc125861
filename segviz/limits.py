"""The limits of the parameters a user can set, in one place.

The command line's argument types (:mod:`segviz.commands`), the estimators' own checks (``Segmenter.check_params``,
the decision rules) and the schema of a saved model (:mod:`segviz.model_schema`) read them from here, so a value the
command line accepts is one the estimator trains with and the saved model loads with, and a value one refuses the
others refuse too.  Each limit is far beyond any useful setting and keeps the cost of a run bounded (an ε of 10^9
or a trigger window of 10^9 words used to cost gigabytes before anything was refused).
"""
from __future__ import annotations

#: induced features of one segmenter (training asks for 100 by default, as the paper)
MAX_FEATURES = 100_000
#: every integer inside a saved feature description (window offsets and sizes, thresholds): applying a model
#: costs at most that many passes over the text
MAX_FEATURE_INTEGER = 10_000
#: |lambda| of a feature weight (training caps them at ``lambda_max``, 10 by default; exp(lambda) stays finite)
MAX_ABS_LAMBDA = 100.0
#: the Gaussian prior's precision on the feature weights
MAX_L2 = 1e6
#: the minimum separation ε of the threshold rule, in sentences
MAX_EPSILON = 100_000
#: an expected segment length, in sentences
MAX_MEAN_LENGTH = 1_000_000.0
#: segments asked of one document (--segments, the segment-count rule)
MAX_SEGMENTS = 1_000_000
#: the length prior's shape k: a gamma of shape 1000 is already a spike at its mean
MAX_SHAPE = 1000.0
#: |bias| per boundary of the length-prior rule, in log-odds (e^1000 is far past any probability)
MAX_ABS_BIAS = 1000.0
#: the length-prior rule's scale on the segment length the model itself expects in a document
MAX_SCALE = 1000.0
#: a corpus's mean number of words per sentence (what a rule measuring segments in words multiplies by)
MAX_WORDS_PER_SENTENCE = 10_000.0
#: values in one tuning grid of a decision rule (every value is one decoding per held-out unit)
MAX_GRID = 10_000
#: the trigger model's history, in words (the saved language models are refused beyond it)
MAX_TRIGGER_WINDOW = 1_000_000
#: any other count a user sets (vocabulary sizes, minimum supports, `--seed`-like counts): a count beyond this is a
#: typo, and would only exhaust memory
MAX_COUNT = 10 ** 9
#: the edges of the relevance interval grid: every pair of edges is a candidate question, so 100 edges already
#: give 4,950 intervals per window (the paper's grid has 15)
MAX_RELEVANCE_EDGES = 100
#: the trigram vocabulary, the three markers <unk> <s> </s> included: word ids have 21 bits in a trigram key
MAX_LM_VOCABULARY = 2 ** 21

__all__ = ["MAX_FEATURES", "MAX_FEATURE_INTEGER", "MAX_ABS_LAMBDA", "MAX_L2", "MAX_EPSILON", "MAX_MEAN_LENGTH",
           "MAX_SEGMENTS", "MAX_SHAPE", "MAX_ABS_BIAS", "MAX_SCALE", "MAX_WORDS_PER_SENTENCE", "MAX_GRID",
           "MAX_TRIGGER_WINDOW", "MAX_LM_VOCABULARY", "MAX_COUNT", "MAX_RELEVANCE_EDGES"]
