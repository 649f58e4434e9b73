"""``driftproof regrade``: grade kept answers again, with no new answer drawn.

:mod:`.rubric` is the regrade and what it seals; :mod:`.identity` the grader's identity and every
refusal: of the grader, and of inputs that cannot be held to the original.
"""
