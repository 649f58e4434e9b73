"""``driftproof run``: measure a skill for real and seal a receipt (issue 5).

Modules: :mod:`.suite` (the three suite formats, validated; with :mod:`.suite_fields`,
:mod:`.suite_lang` and :mod:`.foreign_suites`), :mod:`.checks` (deterministic
post-checks), :mod:`.judge` (the fixed judge's instructions and how replies become scores),
:mod:`.lost` (replies that cannot be graded), :mod:`.capture` (capture mode files),
:mod:`.providers` (provider × surface lanes), :mod:`.scheduler` (concurrency, retries,
stopping rule), :mod:`.journal` (resume), :mod:`.engine` (the run; with :mod:`.config`,
:mod:`.drawer` and :mod:`.sealing`, its settings, one draw and the receipt),
:mod:`.summary` (what the command prints).
"""
