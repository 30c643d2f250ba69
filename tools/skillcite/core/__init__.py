"""Shared foundations: text I/O, configuration, diagnostics. Imports nothing else of skillcite."""
