"""Stage 2, quotes: each quotation with the footnote it cites, that footnote's cache links and the lines they cite, as plain records.

The only stage that resolves a citation in the workspace; matching and
judging read the records it returns.
"""
