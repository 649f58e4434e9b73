"""Page models: pure functions from receipt models to frozen display values.

One module per thing a person reads (sheet, comparison, results, badge, stale, plan);
``render/`` and ``site/`` print them.
"""
