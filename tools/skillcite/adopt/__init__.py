"""Bringing an existing skill repository under skillcite: ``init`` and ``evidence adopt``."""
