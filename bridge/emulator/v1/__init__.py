"""The v1 surface (``/v1``, bearer tokens): routes that parse a request, call the core and shape.

``surface`` (``mount_v1``, ``/me``, the error envelope), ``routing`` (routes, auth, bodies, paging), ``context``
(what it reads of the state holder), ``auth``, ``idempotency``, ``cursors``, ``webhooks``; the routes
(``project_routes``, ``budget_routes``, ``line_routes``, ``library_routes``, ``transaction_routes``), ``shapes``
and ``expand``; the published contract (``requests``, ``budget_requests``, ``contract``, ``contract_shapes``,
``contract_library``) and ``errors``. ``extras`` holds the routes the bridge never calls.
"""
