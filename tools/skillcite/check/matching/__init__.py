"""Stage 3, matching: one quote against one evidence file, an outcome with its departures out.

:func:`~skillcite.check.matching.locate.locate` takes the quote's text, the
loaded :class:`~skillcite.check.parsing.evidence.Evidence` and the cited
ranges; nothing in this stage reads the workspace or the file system.
"""
