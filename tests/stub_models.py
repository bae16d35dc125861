"""A stand-in for the model protocol in tests: one segmenter named "model", deciding by the paper's threshold rule
at alpha 0.5, epsilon 1; a subclass supplies only ``apply`` (its gap probabilities)."""
from __future__ import annotations

from segviz.model_protocol import SegmentationModel
from segviz.rules import ThresholdRule


class OneRuleModel(SegmentationModel):
    def apply(self, document, *, n_jobs=1):
        raise NotImplementedError

    def expert_for(self, document=None):
        return "model"

    def rules(self):
        return {"model": ThresholdRule(alpha=0.5, epsilon=1)}

    def segmenters(self):
        return {"model": self}

    def language_models(self):
        return {"model": None}

    def features(self):
        raise NotImplementedError

    def training_lengths(self):
        raise NotImplementedError

    def provenance(self):
        return {"model": {}}

    def to_dict(self):
        raise NotImplementedError

    def with_rule(self, rule, *, expert=None):
        raise NotImplementedError

    def save(self, path, *, parents=False):
        raise NotImplementedError
