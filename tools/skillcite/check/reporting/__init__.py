"""Stage 6, reporting: the report, its output formats and summary lines.

(Stage 5 is :mod:`skillcite.check.rules`: each rule turns the parsed
workspace and the verdicts into findings.)
"""
