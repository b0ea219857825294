"""The two service clients and the one HTTP seam under them.

- ``http``: ``make_endpoint``, ``HttpSession.send`` (retry policy + limiter), ``error_for_status``,
  ``RunControls`` (what every session of a run shares).
- ``retry`` / ``limiter``: full-jitter backoff honouring Retry-After, the per-run retry budget, AIMD limiter.
- ``legacy`` (+ ``legacy_budget``, ``legacy_actuals``): ``open_legacy`` -> ``LegacyClient``, reads only.
- ``v1`` (+ ``v1_base``, ``v1_budget``, ``models``, ``pages``): ``open_v1`` -> ``V1Client``; every write goes
  through ``send_write`` (an operationId and its path parameters, ``v1_requests``), conditional reads answer
  ``Cached[T]``.
"""
