"""Back matter: where a book's own text ends after its last chapter (:mod:`segviz.readers.books` asks).

After the last chapter heading, the first block that opens with one of these ends the book, and everything from
it on is left out:

* a line ``THE END`` or ``FINIS`` standing alone;
* the heading of the notes printed after the story, standing alone: ``FOOTNOTES:``, ``Footnotes.``, ``NOTE``,
  ``NOTES TO CHAPTER I.``, ``A NOTE ON THE TEXT``, ``EDITOR'S NOTES``, ``FOOTNOTES AND TWAIN'S NOTES`` (a
  footnote's own text, ``[1] ...``, is never a heading);
* a printer's imprint opening its block: ``PRINTED BY`` on a line of its own or ``Printed by SPOTTISWOODE,
  BALLENTYNE & CO. LTD.``, short, in capitals or with the printer's name in capitals;
* a transcriber's note (``Transcriber's Notes:``), or an old-style Project Gutenberg closing line without the
  ``*** END`` marker (``*Project Gutenberg Etext of Five Children and It, by E. Nesbit*``);

and ``APPENDIX`` sections after the last numbered chapter are back matter as well (:func:`is_appendix`): the
editors' (and the authors') appendices are no chapters of the story, whereas a ``Postscript``, an ``Epilogue``
or a ``Conclusion`` is the story's and stays.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

_TRANSCRIBER_NOTE_RE = re.compile(r"^(?:original\s+|etext\s+)?transcriber['’]?s?\s+notes?\b|\btranscriber:?$",
                                  re.IGNORECASE)
#: a transcriber's note or a Gutenberg closing line is at most this many characters
MAX_NOTE_LINE_CHARS = 80
# a printer's imprint: "PRINTED BY" alone, or "Printed by" and a name in capitals ("Printed by SPOTTISWOODE, ...")
_IMPRINT_RE = re.compile(r"^(?:PRINTED\s+BY\b.*|[Pp]rinted\s+by\s+[A-Z][A-Z&.,' ]+\b.*)$")
_THE_END_RE = re.compile(r"^[\[(_*\s]*(?:the\s+end|finis)[\s.!_*)\]]*$", re.IGNORECASE)
# an old-style Gutenberg closing line without the "*** END" marker (``*Project Gutenberg Etext of ...*``)
_GUTENBERG_LINE_RE = re.compile(r"\bproject\s+gutenberg\b", re.IGNORECASE)
# the heading of the notes printed after the story (a footnote's own text starts "[1]" or "Footnote 1:")
_NOTES_HEADING_RE = re.compile(r"^(?:foot-?notes?|end-?notes|notes?|notes?\s+to\s+(?:chapter|the)\b[\w .]{0,30}|"
                               r"footnotes\s+and\s+[\w'’ ]{1,30}|"
                               r"(?:a\s+)?notes?\s+on\s+the\s+text|editor['’]?s\s+notes?)[\s.:]*$", re.IGNORECASE)


def back_matter_start(lines: Sequence[str], after: int) -> int | None:
    """The first of ``lines`` (stripped, blank where left out) from ``after`` on that ends the book (module
    docstring), or ``None``."""
    for i in range(after, len(lines)):
        line = lines[i]
        if not line or (i > 0 and lines[i - 1]):
            continue   # each stands first in a block
        alone = i + 1 == len(lines) or not lines[i + 1]
        if (alone and (_THE_END_RE.match(line) or _NOTES_HEADING_RE.match(line))) or (
                len(line) <= MAX_NOTE_LINE_CHARS and (_TRANSCRIBER_NOTE_RE.search(line)
                                                      or _GUTENBERG_LINE_RE.search(line) or _IMPRINT_RE.match(line))):
            return i
    return None


def is_appendix(heading: str) -> bool:
    """Is this section heading an appendix (``APPENDIX``, ``Appendix B: The Mississippi River Commission``)?"""
    return heading.strip().lower().startswith("appendix")
