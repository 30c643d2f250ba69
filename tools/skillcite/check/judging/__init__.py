"""Stage 4, judging: the verdict on each quote and the policy around findings.

Verdicts (:mod:`.verdicts`) pick the best cache link and the worst footnote
and set the review state from the review file (:mod:`.reviews`, with the
context a review binds, :mod:`.reviews_context`); baselines, inline
suppressions and ``--select``/``--ignore`` say which findings are shown.
"""
