"""``driftproof regrade``: grade kept answers again, with no new answer drawn.

:mod:`.rubric` is the regrade and what it seals; :mod:`.identity` the grader's identity and the
refusals it draws; :mod:`.refusals` the refusals of inputs that cannot be held to the original.
"""
