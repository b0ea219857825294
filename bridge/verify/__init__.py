"""The verifier: proof that the money is the same on both sides, and where it is not.

``reconcile.verify`` reads both surfaces (``totals.py``) for every migrated project, converts legacy
figures with the mappings' money rules and the phase rate (``convert.py``), classifies each difference
(``compare.py``), drills mismatches down the account tree (``drill.py``), compares the settings totals come
from (``library.py``), closes the ledger per kind (``ledger.py``) and builds the report (``schema.py``),
written as JSON, Markdown and HTML (``report.py``, ``html.py``). ``bridge verify`` is in
``bridge/commands/verify.py``.
"""
