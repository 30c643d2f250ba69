"""Stage 1, parsing: skill documents and evidence files into models, with the parse cache.

:class:`~skillcite.check.parsing.workspace.Workspace` finds the package's
files and loads each document (:mod:`.document`, built by :mod:`.builder`)
and evidence file (:mod:`.evidence`) once; :mod:`.cache` keeps parses and
normalizations of unchanged files on disk. Nothing here judges a quote.
"""
