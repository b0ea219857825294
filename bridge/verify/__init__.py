"""The verifier: proof that the money is the same on both sides, and where it is not.

``reconcile.verify`` reads both surfaces (``totals.py``) for every selected project (the legacy side alone for
a project that never reached v1), converts legacy figures with the mappings' money rules and the phase rate
(``convert.py``), classifies each difference
(``compare.py``), drills mismatches down the account tree (``drill.py``), compares actuals and transactions a
window at a time (``actuals.py``, the v1 side held compactly in ``index.py``), compares the settings totals
come from and the workspace library items (``library.py``), closes the ledger per kind over the whole source
(``ledger.py``, the target's natural keys in ``targets.py``), shows what quarantine holds back in records and
money (``heldback.py``, ``quarantine.py``); every comparison returns its findings and ``findings.fold``
builds the report (``schema.py``), rendered as JSON, Markdown and HTML (``report.py``, ``html.py``) and
published as one set (``publish.py``). ``bridge verify`` is in ``bridge/commands/verify.py``.
"""
