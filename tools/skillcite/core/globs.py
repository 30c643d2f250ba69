"""Glob matching of ``/``-separated relative paths, as the configuration's globs are read.

Its own module, importing only :mod:`fnmatch`, so that the result cache's
warm path can match exclusions without loading the configuration.
"""

from __future__ import annotations

from fnmatch import fnmatch


def glob_match(rel: str, pattern: str) -> bool:
    """Glob match where ``**/`` may also match nothing (``**/*.md`` ~ ``a.md``)."""
    if fnmatch(rel, pattern):
        return True
    while pattern.startswith("**/"):
        pattern = pattern[3:]
        if fnmatch(rel, pattern):
            return True
    return False
