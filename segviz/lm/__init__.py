"""Language models of Sections 3.1-3.2: the Katz trigram (short range) and the trigger exponential model (long range).

See ``docs/language_models.md`` for conventions, measurements and choices.
"""
from .iis import IISIteration
from .models import FORMAT, VERSION, LanguageModels
from .pairs import average_mutual_information
from .triggers import TriggerLM
from .trigram import BOS, EOS, UNK, TokenStream, TrigramLM

__all__ = [
    "BOS", "EOS", "UNK", "FORMAT", "VERSION", "IISIteration", "LanguageModels", "TokenStream", "TriggerLM",
    "TrigramLM", "average_mutual_information",
]
