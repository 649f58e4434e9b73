"""``driftproof run``: measure a skill and seal a receipt.

The package imports nothing on its own, so that ``--help`` does not load the run machinery.
"""
