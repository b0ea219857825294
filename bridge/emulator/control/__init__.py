"""The emulator's handle for tests and rehearsals, apart from both product surfaces.

``state`` (the one state holder, and ``reset``), ``api`` (``/_emulator``), ``faults`` (the fault layer),
``stats`` (request counters and ids), ``capture`` (exchanges for the conformance check), ``tenants`` (the
workspace pairs one emulator serves), ``manifest`` (the fleet manifest) and ``serving`` (``bridge emulate``,
and a background server for the over-the-wire tests).
"""
