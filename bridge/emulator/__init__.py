"""The emulated service: one store, two product surfaces and a control API, split the way moto splits a fake
backend (``app.create_app`` assembles them). It shares no code with the bridge: it is the oracle.

- ``core``: the store (typed records and their rules), totals, formulas, money, seeds; no HTTP, no wire names;
- ``legacy`` (``/api/v1``, ``X-API-Key``) and ``v1`` (``/v1``, bearer tokens): each parses a request, calls the
  core and shapes its answer, with its published contract and its errors; ``v1.extras`` holds the v1 routes the
  bridge never calls;
- ``wire``: what both surfaces write alike (JSON bodies, moments, RFC 3339 dates);
- ``control``: ``/_emulator``, the fault layer, counters, capture, tenants and ``bridge emulate``, over one state
  holder (``control.state``).
"""
