"""The legacy surface (``/api/v1``, ``X-API-Key``): routes that parse a request, call the core and shape.

``routing`` (the key check, the optional rate limit, query parsing, the A01 error body), ``crud`` (the routes of
a record kind from one declaration), ``workspace_routes`` (spaces, projects, contacts; ``mount_legacy``),
``library_routes`` (phases, fringes, globals, tags), ``budget_routes``, ``actuals_routes``, ``comment_routes``,
``note_routes`` and ``note_shapes`` (budget notes), ``rate_routes`` (workspace rates), ``shapes`` (how records are
written, per id mode), ``contract``, ``contract_shapes`` and ``remark_contract`` (the published parameters and
answers), ``errors`` (its own refusals and every refusal's status).
"""
