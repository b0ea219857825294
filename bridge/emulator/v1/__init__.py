"""The v1 surface (``/v1``, bearer tokens): routes that parse a request, call the core and shape.

``surface`` (``mount_v1``, ``/me``, the error envelope), ``routing`` (routes, auth, bodies, paging), ``context``
(what it reads of the state holder), ``auth``, ``idempotency``, ``cursors``, ``webhooks``; the routes
(``project_routes``, ``budget_routes``, ``line_routes``, ``library_routes``, ``transaction_routes``,
``comment_routes``, ``rate_pack_routes`` with ``rate_packs``), ``shapes`` and ``expand``; the published contract
(``requests``, ``budget_requests``, ``comment_requests``, ``contract``, ``contract_shapes``, ``contract_library``,
``comment_contract``, ``rate_pack_contract``) and ``errors``. ``extras`` holds the routes the bridge never calls.
"""
