"""The guesses made in reading the service's full published descriptions (issue 13: the contract, both ways).

Where a published description is silent, contradicts itself or types a field loosely, the guess is here; the
rest of the registry (``bridge.assumptions``) holds the guesses about the seed documents' "not shown" parts.
"""

from __future__ import annotations

from bridge.assumption import Assumption

PUBLISHED_CONTRACT: tuple[Assumption, ...] = (
    Assumption(
        "A42",
        "legacy actuals window instants",
        "The bridge reads actuals in windows of whole UTC days and sends the published date-times: `startDate` "
        "the first day's 00:00:00Z, `endDate` the last day's 23:59:59.999999Z (the published endDate example is "
        "the day's last second; the microseconds keep a stamp inside that second in, and the next window starts "
        "at the next day's first instant). Both bounds are inclusive instants; a bare date is refused (400).",
        "legacy seed: 'startDate, endDate (ISO 8601, inclusive)'; L-SPEC: format date-time, 'on or after' / "
        "'on or before', example 2024-01-31T23:59:59Z; the precision the service compares at is not shown.",
        ("clients.legacy", "emulator.legacy"),
    ),
    Assumption(
        "A43",
        "hidden phases",
        "GET /budget/phases declares no includeHiddenPhases, and 'all budget phases' does not say whether hidden "
        "ones are among them: the bridge reads a project's phases from GET /budget?includeHiddenPhases=true&"
        "excludeSubAccounts=true&expands[]=phases, the one declared way to ask for hidden phases. The emulator "
        "lists every phase, hidden ones too, on /budget/phases.",
        "L-SPEC: includeHiddenPhases is declared on GET /budget and GET /budget/line/{lineId} only.",
        ("clients.legacy", "emulator.legacy"),
    ),
    Assumption(
        "A44",
        "legacy phase-data formulas",
        "A phaseData cell written as text (an '='-formula over globals, or text a service holds where a number "
        "belongs) reads back with the text in `quantityFormula`/`rateFormula`/`multiplierFormula` and, in "
        "`quantity`/`rate`/`multiplier`, its value over the globals, null when it has none; a number reads back "
        "as a number with no *Formula field. The bridge takes the *Formula text when present, else the number, "
        "so the mappings see each cell as written.",
        "L-SPEC LinePhaseData: quantity/rate/multiplier are numbers and the *Formula fields are strings, without "
        "saying what the number holds for a formula cell; write shapes take 'value or formula string'.",
        ("clients.legacy", "emulator.legacy"),
    ),
    Assumption(
        "A45",
        "legacy markup phase data on reads",
        "A markup line's phaseData reads back under the names its write shape declares: `type` (percent|flat), "
        "`amount` and `excludeFringes`. Read tolerantly: an absent `excludeFringes` is unknown (None; the bridge "
        "invents no value for it); an absent or unknown `type` sets the line aside (markup type unknown); an absent "
        "`amount` is an empty cell, sent as no rate, as a null `amount` would be.",
        "L-SPEC declares type/amount/excludeFringes only on CreateMarkupPhaseData and UpdateMarkupPhaseData; the "
        "read shape LinePhaseData lists none of them.",
        ("clients.legacy", "emulator.legacy", "mappings.budget"),
    ),
    Assumption(
        "A46",
        "markup over every account",
        "A markup line whose legacy selection is every sibling account is created with no `markupAccountFilter` "
        "(the field is a string, never null, on BudgetLineCreate), and v1 reads an absent filter as every account.",
        "V-SPEC BudgetLineCreate: markupAccountFilter is a plain string; what an absent filter selects is not said.",
        ("mappings.lines",),
    ),
    Assumption(
        "A47",
        "v1 budget phases in one answer",
        "GET /projects/{projectId}/budget/phases declares no limit and no cursor, so one request answers every "
        "phase, hidden ones too; an answer that still names a nextCursor cannot be followed and stops the read "
        "(resumably) rather than leave phases out.",
        "V-SPEC budget_listPhases: projectId is its only parameter, yet its answer declares nextCursor.",
        ("clients.v1",),
    ),
    Assumption(
        "A48",
        "legacy account summary description",
        "The legacy account list (and a contact's accounts) require a `description` whose type the description "
        "never gives; the emulator serves it as a string and its response contract accepts any value there, "
        "while the bridge reads it as optional text, so a value of another type fails that record loudly.",
        "L-SPEC AccountSummary and ContactAccount: `description` is in `required` but not in `properties`.",
        ("emulator.legacy.contract_shapes", "clients.legacy"),
    ),
    Assumption(
        "A50",
        "v1 fieldErrors keys",
        "A v1 400 `validation` names each refused input in `fieldErrors` by its wire path: dotted names with array "
        "indexes in brackets (`lines[3].phaseData.<phaseId>.rate`), a header by its name (`Idempotency-Key`), and "
        "the body as a whole (not an object, or a partial update with no field) as `body`.",
        "V-SPEC Error.fieldErrors: 'Validation messages keyed by input field'; the key format is not given.",
        ("emulator.v1.requests",),
    ),
    Assumption(
        "A51",
        "v1 timestamp without a time",
        "A v1 write's `format: date-time` field (a transaction's `timestamp`) takes an RFC 3339 date-time or a bare "
        "date (read as midnight UTC); anything else is 400 `validation`. A `format: date` field takes YYYY-MM-DD only.",
        "V-SPEC TransactionManualCreate.timestamp is `format: date-time`, yet its description says a date without "
        "a time is recorded at midnight UTC.",
        ("emulator.v1.requests",),
    ),
    Assumption(
        "A52",
        "v1 refusals an operation does not list",
        "A v1 write naming a record its project does not hold is 404 `not_found` on operations whose published "
        "statuses have no 422 (PUT phase data, phase-data bulk, adding a project library copy) and 422 where 422 is "
        "listed (A33). A bulk over its published maxItems is 400 `validation`, not 413.",
        "V-SPEC lists statuses per operation but not which refusal each condition gets; bulk shapes carry maxItems.",
        ("emulator.v1.line_routes", "emulator.v1.library_routes", "emulator.v1.transaction_routes"),
    ),
    Assumption(
        "A53",
        "v1 fields the emulator does not model",
        "A field a published v1 write shape declares but the emulator does not model (emoji, subtotalIsBold, "
        "overtime, a phase's actual/committed filters, a transaction's fringeId or merchant, an item's qty or rate, "
        "...) is accepted and not kept. A published value its core cannot hold (a manual transaction without "
        "projectId; a project-copy field it cannot edit) is 422. A manual transaction takes every published "
        "status.",
        "V-SPEC write shapes are wider than what the emulator's core stores; it must not refuse what the service "
        "accepts, and it cannot keep what it does not model.",
        ("emulator.v1.requests", "emulator.v1.transaction_routes", "emulator.v1.library_routes"),
    ),
    Assumption(
        "A54",
        "v1 project tag colour",
        "A project's tag whose workspace tag has no colour (null, 'the default colour') reads in the project as "
        "color `gray`.",
        "V-SPEC: a Tag's color may be null for the default colour, but a ProjectTag's color is a required string; "
        "which colour is the default is not shown.",
        ("emulator.v1.shapes",),
    ),
    Assumption(
        "A55",
        "v1 read fields the emulator does not keep",
        "Required read fields the emulator's core does not keep read as neutral values: a contact's createdAt and "
        "updatedAt are both its last modification time and track1099 is false; a transaction item's lineNumber is "
        "null; phase data reads qtyAutoDerived false, customUnitId, unitLabel, currencyId and overtime null and "
        "fringeGroupIds empty; a queued webhook delivery counts its first attempt (attempts is at least 1).",
        "V-SPEC marks these fields required (attempts minimum 1, the test-delivery example is pending with 1 "
        "attempt) but the documents do not say what a record without them reads as.",
        ("emulator.v1.shapes", "emulator.v1.transaction_routes", "emulator.v1.webhooks"),
    ),
    Assumption(
        "A56",
        "v1 markup phase data as read",
        "A markup line's phase data reads with every published field: rate is its amount, unit percent|flat "
        "(A13), quantity and multiplier null, no fringes; excludeFringes, which the read shape has no place for, "
        "is not shown. A budget document lists only account, line, credit and fringe lines (subtotals and markups "
        "count in their parents' values).",
        "V-SPEC: BudgetDocumentLinePhaseData is closed with 13 required fields and ComputedLineType names the "
        "document's line types; how a markup's settings read back is not shown.",
        ("emulator.v1.shapes", "emulator.v1.budget_routes"),
    ),
    Assumption(
        "A57",
        "v1 error codes and identity",
        "Every v1 error code is a published ErrorCode: a well-formed write naming something absent is 422 "
        "`validation` (A33), a method no operation takes is 404 `not_found`, injected 502 and 504 gateway failures "
        "carry `temporarily_unavailable`. /me names roles by the published WorkspaceRole (editor -> edit, viewer -> "
        "view) and its email has a host-name domain.",
        "V-SPEC's ErrorCode enum has no reference_invalid, method_not_allowed, bad_gateway or gateway_timeout and "
        "lists no 405, 500 or 502 response; which code a gateway failure carries is not shown.",
        ("emulator.v1.errors", "emulator.v1"),
    ),
    Assumption(
        "A58",
        "v1 deleting a transaction from a feed",
        "DELETE /transactions/{id} of a transaction whose source is not `manual` is 409 with code "
        "`source_not_postable`; nothing is deleted.",
        "V-SPEC: transactions_delete says other sources return 409 but names no code; source_not_postable is the "
        "published ErrorCode about a transaction's source.",
        ("emulator.v1.transaction_routes", "emulator.v1.errors"),
    ),
    Assumption(
        "A59",
        "v1 transaction stats currency",
        "GET /transactions/stats counts and totals only the matching transactions in the requested `currency` "
        "(no conversion); the same filters as the list apply. A missing or malformed currency is 400 `validation`.",
        "V-SPEC: transactions_stats returns the total 'in one currency' with a required currency parameter but "
        "does not say whether other currencies are converted or left out; the emulator keeps no exchange rates.",
        ("emulator.v1.transaction_routes",),
    ),
    Assumption(
        "A60",
        "v1 relations the emulator does not keep",
        "Expansions of records the emulator does not keep read empty: a transaction's or contact's `documents` is "
        "[], a transaction's `purchaseOrder` and a project's `assumptions` are null; a contact's transactions show "
        "null merchant, logoUrl and category.",
        "V-SPEC documents these expansions (assumptions null when there is no pinned brief); the emulator models "
        "no documents, purchase orders, briefs or bank-feed metadata.",
        ("emulator.v1.transaction_routes", "emulator.v1.project_routes", "emulator.v1.expand"),
    ),
    Assumption(
        "A61",
        "v1 project fringe groups",
        "A project's fringe groups are copies of workspace fringe groups kept beside the core budget (which has no "
        "per-project groups): adding one again returns the existing copy with its edits (200), `reset=true` "
        "restores the workspace values, and a copy whose source was deleted expands `source` to a tombstone. A "
        "group without a colour leaves `color` out (TagColor is not nullable).",
        "V-SPEC: library_addProjectFringeGroup (adding again keeps project edits, reset restores), "
        "ProjectFringeGroup and SourceTombstone; how a copy relates to the project's fringes is not shown.",
        ("emulator.v1.extras.fringe_group_routes", "emulator.v1.extras.packs"),
    ),
    Assumption(
        "A62",
        "legacy workspace identity",
        "The legacy surface names no workspace and every workspace shares its base URL, but the system ids of "
        "spaces, projects and contacts are unique across the service. A state file keeps the ids it has seen in "
        "its source; once a run is recorded, a source listing none of them is another workspace and is refused "
        "(exit 2), and a source listing any of them is the same workspace (a rotated key included), whose current "
        "records are added.",
        "legacy seed: no workspace field or identity route, only that a key may be rotated; L-SPEC calls system "
        "ids 'UUID/nanoid' without saying they are unique across workspaces.",
        ("engine.preflight", "state.source"),
    ),
    Assumption(
        "A63",
        "budget depth the bridge migrates",
        "The bridge migrates 32 levels of a budget tree (mappings.budget.MAX_DEPTH): a node at level 32 is "
        "quarantined as tree.too_deep and its subtree waits under it (tree.ancestor_quarantined, counted as held "
        "back), so a tree the source nests thousands deep is neither walked recursively nor sent as thousands of "
        "rounds of bulk requests.",
        "Neither the seeds nor the published descriptions bound a budget's depth; each level costs one round of "
        "line bulks on v1 (parents before children).",
        ("mappings", "clients.legacy"),
    ),
    Assumption(
        "A64",
        "a usable legacy id",
        "A legacy id the bridge can key, journal and put in a path is text of 1 to 200 characters without "
        "control, zero-width, bidirectional or surrogate characters; any other is record.id_invalid, filed under "
        "its escaped form (or #row when there is none), and a project refused so gets no library reads.",
        "L-SPEC types ids as strings ('UUID/nanoid' with idMode=system) with no length or alphabet.",
        ("mappings", "clients.legacy"),
    ),
    Assumption(
        "A65",
        "strict legacy types",
        "A field the legacy description types, sent as another JSON type, refuses its record "
        "(record.field_type); numbers are judged by the money rules: JSON true, arrays and objects are "
        "number.not_numeric, never coerced to 1 or 0. Decimal text is still read as a number, since the "
        "published write shapes take a value or a formula string.",
        "L-SPEC types the fields; what a client should do with a value of another type is not said.",
        ("mappings", "clients.legacy"),
    ),
    Assumption(
        "A66",
        "an id repeated in a legacy answer",
        "An id listed twice inside one list answer (a line under two accounts, an actual twice in one window) is "
        "one record refused as record.duplicate_id, never silently deduplicated; across actuals windows the same "
        "id is the same record that moved between windows, and is read once.",
        "L-SPEC does not say whether list answers may repeat an id.",
        ("mappings", "clients.legacy"),
    ),
    Assumption(
        "A67",
        "legitimate odd text",
        "-0 migrates as 0; bidirectional overrides, byte-order marks and markup characters in names and "
        "descriptions are text and migrate unchanged; they are only escaped where the bridge shows them "
        "(terminal, Markdown, HTML, CSV).",
        "Neither the seeds nor the published descriptions restrict the characters of names and descriptions.",
        ("mappings",),
    ),
    Assumption(
        "A68",
        "an empty v1 page with a cursor",
        "A v1 list page with no data and a non-null nextCursor is a contract break: it moves paging nothing "
        "forward, so the bridge stops at once (exit 4) instead of following it; a list longer than max_list_pages "
        "pages stops resumably (exit 3), since an endless list cannot be told from a very long one.",
        "V-SPEC: lists carry `data` and an optional `nextCursor`; whether a page may be empty with a cursor is "
        "not said.",
        ("clients.pages",),
    ),
    Assumption(
        "A69",
        "whose requests a v1 rate limit counts",
        "A v1 rate limit counts the requests of one target workspace (its token), not of the whole service: each "
        "workspace of a fleet keeps its own adaptive limiter, so one tenant's 429s slow only that tenant, and a "
        "worker's --concurrency caps what all its workspaces send together. The emulator keeps one bucket per "
        "tenant to match.",
        "V-SPEC: 429 with Retry-After is published; whose requests a limit counts is not said.",
        ("clients.http", "fleet.workflow"),
    ),
)
