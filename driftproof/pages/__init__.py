"""Page models: pure functions from receipt models to frozen display values.

One module per thing a person reads; ``words`` holds the formats they share. Every number comes
from :mod:`driftproof.stats`; ``render/`` and ``site/`` print these models.
"""
