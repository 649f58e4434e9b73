"""``driftproof regrade``: grade kept answers again, with no new answer drawn.

The refusals are core (method, "Receipts are an open format"): a rubric regrade refuses a
grader whose recorded setting differs from the original's, originals with no recorded judge
identity, anonymous judge replies, and any input it cannot hold to the original; a plain judge
regrade refuses anonymous replies and checks every returned sample's reported identity.
Refusals stop before any output. :mod:`.identity` holds the grader's identity and its
refusals, :mod:`.refusals` the inputs' refusals, :mod:`.rubric` the regrade itself.
"""
