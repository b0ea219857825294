"""Pure legacy -> v1 transforms: typed legacy records in, typed v1 request bodies out, plus notes and errors.

Nothing here does I/O, reads a clock or draws randomness, and nothing imports ``bridge`` (assumption ids
from bridge/assumptions.py are cited in comments only). The engine, the dry run and the verifier all call
the same functions, so a plan and a run cannot disagree.

Modules (one per family):

- ``records``  typed legacy records as the legacy client reads them (system idMode), strict but for numbers.
- ``shapes``   ``parse_row``: a raw row as its record, or a *refused* record carrying the error that names
               record, field and value (wrong JSON type, unusable id, invalid Unicode); ``check_refusal`` is
               what every mapper does first, so a refused row is quarantined like any other bad record.
- ``printable`` ``escaped``: text with every unprintable character as a backslash escape.
- ``refs``     ``RecordRef`` (kind, legacy id, scope) and ``Lookup``, the crosswalk passed in as
               ``(kind, scope, legacy_id) -> v1_id | None``; the kind constants the crosswalk stores.
- ``errors``   the bad-input catalogue: ``ErrorCode`` (stable codes) and ``MappingError`` naming record,
               field and value (<= 200 chars) with what to do. Batch mappers collect them as quarantine.
- ``notes``    ``Note``: rounding introduced, lossy enum mappings (old -> new), library conflicts,
               unassigned references, assumptions used.
- ``money``    ``to_money`` (Decimal(str(x)), ISO-4217 exponent from babel, ROUND_HALF_EVEN, returns the
               rounding it introduced; ``exact=True`` refuses values the currency cannot hold), ``total``.
- ``keys``     ``request_key`` (namespace, kind, scope, sorted legacy ids, body digest), ``child_key``
               for split bulks, ``source_hash`` for change detection on re-runs.
- ``text``     name/description checks (length, control characters, NFC).
- ``enums``    explicit tables between the surfaces; nearest v1 TagColor for legacy hex colours.
- ``budget``   the tree: ``build_tree`` validates (duplicates, cycles, self/missing parent, parent not an
               account), quarantines bad nodes with their subtrees, orders parents first and gives each
               node its depth level; ``chunks`` cuts a list into bulks.
- ``lines``    ``plan_budget``/``plan_lines`` check each node and build the tree; ``line_body`` maps one line
               with phase data keyed by v1 phase id, markups/subtotals (A13), tags not carried (A14).
- ``phases``   phases incl. hidden, rollups -> rollupFormula, first estimate phase -> the project's
               default estimate phase (update), phase currencies -> project currency copies.
- ``library``  fringes, globals, currencies: workspace items reused by name, conflicts reported,
               project copies patched to the legacy values.
- ``tags``     workspace tags deduplicated across projects (winner rule A15), labels, nearest colours.
- ``formulas`` syntax and symbols of '='-formulas over globals (A24), cycles.
- ``spaces``   spaces and projects; ``contacts`` workspace-wide contacts; ``actuals`` one actual with its
               splits -> a transaction with items.

Single-record mappers return ``Mapped`` (``mappings.results``): the record reference, the request body
(a TypedDict that is exactly the wire JSON of bridge/assumptions.py A05-A19), its notes and a stable
``source_hash``; they raise ``MappingError``. Batch planners (``plan_*``, ``build_tree``) never raise for a
bad record: they return the good ones and a ``quarantined`` tuple of errors.
"""
