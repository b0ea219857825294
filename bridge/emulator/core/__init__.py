"""The emulated service's core: its records and the rules that guard them, with no HTTP and no wire names.

``model`` (the records), ``store`` (``Service``: spaces, projects, contacts; assembled from ``workspaces``,
``budget``, ``project_library``, ``workspace_library`` and ``actuals``), ``ledger`` (a project's actuals in
date order), ``ids`` (ids, aliases, keys, the clock), ``totals`` (every total either surface shows),
``formula``, ``money``, ``validate`` (the field checks), ``errors`` (the store's refusals), ``seed`` and
``seed_dirty`` (the generated workspaces).
"""
