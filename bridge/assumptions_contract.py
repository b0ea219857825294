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
    Assumption(
        "A70",
        "a project without a budget note",
        "GET /projects/{id}/budget/note for a listed project that has no root note answers either 404 or 200 "
        "with an empty NoteData (the emulator does the latter, A82): both count as no note; a note is counted "
        "when its text or HTML form holds anything.",
        "L-SPEC: getRootAccountNote publishes 404 without saying when; a project with no note is not shown.",
        ("clients.legacy", "engine.inventory"),
    ),
    Assumption(
        "A71",
        "reading workspace rates page by page",
        "GET /rates is read 1,000 at a time (its largest published limit) by offset until a short page; a rate "
        "added or removed during the read moves the offsets, so rows are kept once by id and the count is what "
        "the read saw.",
        "L-SPEC: limit 1-1000 and offset are published; the order of the list and its stability are not.",
        ("clients.legacy",),
    ),
    Assumption(
        "A72",
        "the currency of workspace rates",
        "A legacy rate's `rate` is in the workspace currency (USD, as contacts' rates, A09): its rate pack item "
        "carries it in that currency (A86).",
        "L-SPEC: Rate.rate is a number with no currency field.",
        ("mappings.remarks",),
    ),
    Assumption(
        "A73",
        "the currency of purchase orders",
        "A legacy purchase order's `amount` and its items' `totalPrice` are in the currency of the project's "
        "actuals (its first phase's currency, A31): the inventory sums them in it.",
        "L-SPEC: PurchaseOrder.amount is a float with no currency field; v1 sets a PO's currency itself.",
        ("engine.inventory",),
    ),
    Assumption(
        "A74",
        "how legacy attachments are read",
        "Attachments come with their records when asked by `expands[]`: `attachments` on actuals (the seed's "
        "value) and bank transactions, `attachments` and `taxDocuments` on contacts, `items` on purchase orders; "
        "each attachment is a File {id, name, type, size}, size in bytes.",
        "legacy seed: `attachments` is a value seen on actuals; L-SPEC: the actuals expands enum does not list "
        "it, Contact's expands do; whether a plain read carries them is not said.",
        ("clients.legacy",),
    ),
    Assumption(
        "A75",
        "budget line notes",
        "A line's note (read with `expands[]=lines.notes`) is carried as its plain-text form (`NoteData.text`) in "
        "the line's `notes` on create and update, with no extra request: HTML formatting and the TipTap structure "
        "are lost, and a note whose text is refused (a control character, invalid Unicode) is reported as not "
        "carried while its line is written.",
        "V-SPEC: BudgetLine.notes is 'a plain-text note on the line' with no length; L-SPEC: NoteData has text, "
        "html and json forms.",
        ("mappings.lines", "clients.legacy"),
    ),
    Assumption(
        "A76",
        "a document upload's idempotency fingerprint",
        "A v1 documents_upload is fingerprinted on its raw request bytes, multipart boundary included: a retry "
        "under the same Idempotency-Key must send the same bytes (a boundary derived from the key), or it "
        "answers 409 idempotency_conflict. The emulator fingerprints exactly that.",
        "V-SPEC: reuse 'with different content returns 409'; what is fingerprinted is not said, and httpx draws"
        " a random boundary per request.",
        ("emulator.v1", "clients.transfer"),
    ),
    Assumption(
        "A77",
        "document metadata and links",
        "DocumentCreateMetadata is closed with name, description and links; links is one target object (the "
        "published example) or a list, one per kind; a link to a target that does not exist is 404 "
        "document_target_not_found, another target of a kind already linked without replace is 409 "
        "already_linked; a document's projectId comes from its project, transaction, purchase-order or "
        "budget-line link; contentHash is SHA-256 in hex.",
        "V-SPEC: DocumentCreateMetadata is referenced but not defined; the link conflict is the official SDK's "
        "wording; contentHash names no algorithm.",
        ("emulator.v1",),
    ),
    Assumption(
        "A78",
        "legacy attachments and file sizes",
        "A legacy actual carries its attachments with or without expands[]=attachments; a contact's attachments"
        " and taxDocuments come only when expands names them; '10 MB' is 10 MiB (10,485,760 bytes); legacy "
        "uploads take PDF and images only; a file id may hold '/', sent percent-encoded.",
        "legacy seed: attachments is a plain Actual field, contact fields 'when expanded'; L-SPEC: 'PDF or "
        "image files up to 10 MB', File.id example files/2024/03/budget-report.pdf.",
        ("emulator.legacy", "clients.legacy", "clients.transfer"),
    ),
    Assumption(
        "A79",
        "purchase orders on v1",
        "A v1 purchase order's currency is its project's first-phase currency (the workspace's when "
        "unassigned); an item's rate is in minor units and amount defaults to qty x rate; a draft may be linked"
        " to transactions; a transaction linked to another order is 409 already_linked; mark-paid without a "
        "linked transaction is 409 po_invalid_status; approved, rejected and actualizing come only from the "
        "approval flow (the emulator's control hook).",
        "V-SPEC: currency is server-set and not described; the item examples send rate '25000' beside amount "
        "125000 for qty 5; the link rules per status are not listed.",
        ("emulator.v1",),
    ),
    Assumption(
        "A80",
        "legacy purchase orders",
        "A legacy purchase order's items come only with expands[]=items; the startDate/endDate window applies "
        "to the order's date, inclusive; accountId matches orders with an item coded to that line or below it; "
        "a created order without an amount takes its items' sum.",
        "L-SPEC: listPurchaseOrders names the filters without saying which date or what an account match is.",
        ("emulator.legacy", "clients.legacy"),
    ),
    Assumption(
        "A81",
        "comments",
        "Legacy lists comments on the project or on a budget line (accountId the account, or the nearest above "
        "a line); a v1 comment's author is the token's user and its time the server's; a comment on a target "
        "that does not exist is 422; only the author edits the content (403 forbidden).",
        "L-SPEC: Comment has accountId and lineId without saying how they combine; V-SPEC: 'Only the author can"
        " edit the body'.",
        ("emulator.legacy", "emulator.v1"),
    ),
    Assumption(
        "A82",
        "nulls the published shapes do not admit",
        "Where a published schema admits no null under OpenAPI 3.0.3 (nullable beside allOf with no type of its"
        " own; an enum that does not list null), the emulator omits the field instead: a budget line without a "
        "note has no note key, a project without a budget note answers an empty NoteData, a rate without a unit"
        " has no unit, a bank transaction without a sub-status has no subStatus. The bridge reads each as 'none'.",
        "OAS 3.0.3: nullable adds null only to a type given in the same schema object; L-SPEC marks "
        "BudgetLine.note, BudgetNoteResponse.note, Rate.unit and Transaction.subStatus nullable in those forms.",
        ("emulator.legacy", "clients.legacy"),
    ),
    Assumption(
        "A83",
        "legacy comment HTML as Markdown",
        "A legacy comment's content (HTML or plain text) becomes v1 Markdown through markdownify: headings as #, "
        "lists as - bullets (nested by indent), bold and italics kept; script and style bodies dropped, links kept "
        "only to http(s) and mailto addresses (any other keeps its text), images reduced to their alt text. The "
        "body opens with a quoted provenance line: `> Legacy comment by <name>, <YYYY-MM-DD HH:MM> UTC (legacy id "
        "<id>)`, the author's name (never the email) escaped for Markdown; a time without an offset is UTC.",
        "L-SPEC: Comment.content is 'HTML or plain text' (L:6278); V-SPEC: Comment.content is 'Markdown comment "
        "body' (V:11385) with no dialect named; v1 sets the author and time itself (V:11381).",
        ("mappings.remarks",),
    ),
    Assumption(
        "A84",
        "where a legacy comment goes",
        "A comment goes on the v1 budget line made from its `lineId`, else on the one made from its `accountId` "
        "(an account is a line on v1), else on the project. When that line or account has no v1 id (it is "
        "quarantined) the comment goes on the project, with a note naming the line; it is not held back.",
        "L-SPEC: Comment has accountId and lineId (L:6280, L:6285), how they combine is not said; V-SPEC: "
        "CommentTarget kinds project and budgetLine (V:11239).",
        ("mappings.remarks", "engine.remarks"),
    ),
    Assumption(
        "A85",
        "the root budget note's home",
        "v1 has no field for a project's root budget note (ProjectUpdate has none; the project brief is "
        "read-only), so it is posted as one project comment opening `> Legacy budget note (legacy id <id>)`, its "
        "HTML form converted as a comment's (A83), else its text; an empty note is no note (A70).",
        "L-SPEC: getRootAccountNote (L:635) and NoteData (L:4380); V-SPEC: no write for it.",
        ("mappings.remarks", "engine.remarks"),
    ),
    Assumption(
        "A86",
        "workspace rates as one rate pack",
        "The legacy workspace rates become the items of ONE workspace rate pack named 'Workspace rates (migrated)' "
        "(category custom): title = identifier (else description), rate in the workspace currency (A72) exactly "
        "in minor units (a sub-cent rate is quarantined), unit as sent (a rate without one is quarantined, "
        "rate.unit_missing), quantity as sent; emoji, note and contact have no item field and are reported as not "
        "carried. A resume past key retention finds an item by title, rate and unit in the pack.",
        "V-SPEC: RatePackCreate (V:9166) and RatePackItemCreate (V:9261) require title, rate and unit; L-SPEC: "
        "Rate (L:6457) requires only id and has no currency.",
        ("mappings.remarks", "engine.remarks"),
    ),
    Assumption(
        "A87",
        "a workspace plan without rate packs",
        "v1's 402 feature_not_available on a rate pack create means the workspace plan lacks rate packs: the pack "
        "is refused (target_feature_not_available), the rates are not carried, and the run goes on; any other 402 "
        "or 403 still stops the run as a lost permission. Verify reads a 402 on the packs' list as no packs.",
        "V-SPEC: 402 'This feature is not available on the workspace plan' (V:7449) on the rate pack operations; "
        "which plans have it is not said.",
        ("clients.http", "engine.remarks", "verify.remarks"),
    ),
    Assumption(
        "A88",
        "purchase order item money",
        "A v1 purchase order item is sent with `amount` always (the legacy totalPrice in exact minor units of the "
        "order's currency; a sub-minor remainder quarantines the order, money.too_precise), `qty` the legacy "
        "quantity and `rate` the legacy unitPrice in minor units, both as plain decimal strings (no exponent, "
        "trailing zeros cut): v1's `qty x rate` default is never relied on.",
        "V-SPEC: rate is a string with no unit stated; the schema examples send qty '5', rate '25000' beside "
        "amount 125000 (minor units), the operation examples send numbers; amount 'Defaults to qty x rate'.",
        ("mappings.purchase_orders",),
    ),
    Assumption(
        "A89",
        "the currency of a purchase order on v1",
        "A purchase order's amounts are read in its project's actuals currency (A73, A31) and v1 is assumed to "
        "give the draft that currency; the run reads every draft back, and one v1 made in another currency is "
        "deleted again (a draft may be) and quarantined as purchase_order.currency_differs.",
        "V-SPEC: PurchaseOrder.currency is required and server-set, with no rule given; no create field sets it.",
        ("engine.purchase_orders", "mappings.purchase_orders"),
    ),
    Assumption(
        "A90",
        "purchase orders v1 cannot express",
        "A legacy order with no items becomes one synthetic item 'Total (legacy PO had no items)' carrying its "
        "amount (reported as synthesized); an order whose items do not add up to its amount is carried with its "
        "items as they are (v1's amount is their sum) and the difference is reported per order, in money.",
        "V-SPEC: PurchaseOrder.amount is 'Sum of item amounts'; the create has no amount field.",
        ("mappings.purchase_orders", "engine.purchase_orders"),
    ),
    Assumption(
        "A91",
        "purchase order statuses",
        "Every order is created as a draft, whatever its legacy status; approved, pending and paid (and any "
        "status the description does not list) need approving again in the app, listed in "
        "purchase-orders-to-approve.csv; a rejected one stays a draft to edit. Submitting the legacy pending "
        "ones (purchase-orders_submit) is the operator's opt-in only, as it notifies their approvers.",
        "V-SPEC: 'Creates a draft purchase order'; approved, rejected, actualizing and paid are set by the "
        "approval flow alone; submit starts that flow.",
        ("mappings.purchase_orders", "engine.purchase_orders"),
    ),
    Assumption(
        "A92",
        "purchase order links and resumption",
        "A transaction may be linked to a draft; linking it again to the same order changes nothing (so a link"
        " whose answer was lost is settled by reading the order with expand=transactions, then sent again if "
        "absent); an order past key retention is found by its number (exact match) in its project; the items "
        "past the hundredth are appended in order, so those v1 lists beyond 100 are the ones already sent.",
        "V-SPEC: linkTransaction is a PUT with no body and no key, its 409 not described; number 'Matching is "
        "exact'; item order is not stated.",
        ("engine.purchase_orders", "engine.stale", "engine.replay"),
    ),
    Assumption(
        "A93",
        "how a document is uploaded and linked",
        "The upload's `metadata` part is JSON text holding the file's name alone ({\"name\": ...}, the one "
        "field of the published example besides links); the link is made afterwards by documents_link (PUT, no "
        "Idempotency-Key, body {targetId}), and a tax document's description by documents_update. The `file` "
        "part's Content-Type is the legacy File.type, its filename the File.name; the parts go file first.",
        "V-SPEC: DocumentCreateMetadata is referenced but not defined; its example also sends links as one "
        "object, whose shape the bridge does not rely on (research A.9 point 4).",
        ("clients.transfer", "engine.documents"),
    ),
    Assumption(
        "A94",
        "finding an upload again past key retention",
        "A document uploaded without links is listed by documents_list with unassigned=true until it is linked; "
        "an upload whose answer was lost and whose key expired is found there by its name (the file's), so a "
        "replay books it instead of uploading it again. Two unlinked documents of one name (one file carried "
        "for two records, both lost) are told apart by nothing published: the first is taken.",
        "V-SPEC: unassigned 'finds documents with no link'; what a document's listing matches by name is not "
        "said, and contentHash names no algorithm.",
        ("engine.documents", "engine.stale"),
    ),
    Assumption(
        "A95",
        "the largest file the bridge carries",
        "max_file_bytes defaults to 11 MiB: legacy's published 10 MB read as 10 MiB (A78) plus 1 MiB, so no "
        "file legacy accepted is refused for rounding; a larger one (legacy's own limit broken) is quarantined "
        "file.too_large with its size, by its declared size before any download or as its bytes pass the cap.",
        "L-SPEC: 'up to 10 MB' without saying 10^6 or 2^20; V-SPEC publishes no upload limit.",
        ("clients.transfer", "engine.documents"),
    ),
    Assumption(
        "A96",
        "what a v1 document reports of its file",
        "A v1 Document's size is the byte count of the uploaded file part and its mimeType that part's "
        "Content-Type; documents_getContent serves the uploaded bytes unchanged. Verify compares the SHA-256 "
        "of those bytes, the size and the type with the legacy file's, and records contentHash without relying "
        "on it.",
        "V-SPEC: Document.size is int64 and mimeType a string, neither said to be the upload's; contentHash is "
        "'a hash of the file contents' with no algorithm.",
        ("verify.documents",),
    ),
    Assumption(
        "A97",
        "the size a legacy file declares",
        "A legacy File.size is the exact byte count its download serves: a download of another size is "
        "quarantined file.size_mismatch (the file changed or is damaged), never uploaded.",
        "L-SPEC: File.size is an integer 'size' without unit; the download is application/octet-stream.",
        ("clients.transfer",),
    ),
    Assumption(
        "A99",
        "split part quantity, unit and rate",
        "A split part's quantity and rate go to v1 as item `qty` and `rate`: the exact decimal the legacy "
        "number denotes, as plain text without exponent or trailing zeros (4, 700.5), never rounded; the rate in"
        " major units of the transaction's currency, as the legacy part holds it (v1 publishes `rate` as 'Rate "
        "or formula', a string, not Money). `unit` is carried as is (the legacy UnitType names, e.g. Day, are "
        "text v1 takes). Each is sent only when the source holds it; a changed part's PATCH clears (null) the "
        "ones the source no longer holds. A malformed quantity or rate refuses the actual like a bad amount.",
        "L-SPEC SubActual.quantity/rate: 'number, format float', no unit of money; V-SPEC TransactionItemCreate"
        " qty/rate: 'type string', 'Quantity or formula'; neither says how one maps to the other.",
        ("mappings.actuals", "engine.actuals", "verify.split_parts", "emulator.legacy", "emulator.v1"),
    ),
    Assumption(
        "A100",
        "split part lineId is its label, accountId its coding",
        "A legacy split part's `lineId` is the part's own line label (written as `number` on AddSubActualInput,"
        " e.g. A-10 or SA-001) and goes to the v1 item's `lineNumber`; the budget line it is coded to is its "
        "`accountId` (a line id in system idMode), which becomes `budgetLineId`. The bridge before this read "
        "`lineId or accountId` as the line; a label is never taken for a budget line.",
        "L-SPEC SubActual.lineId: 'Line identifier for ordering and referencing', example A-10; accountId: "
        "'Associated account ID'; AddSubActualInput.number: 'Line reference number'; the legacy seed lists "
        "`number` among the subActuals create fields. Which read field echoes `number` is not said.",
        ("mappings.actuals", "verify.project", "verify.split_parts", "emulator.legacy"),
    ),
    Assumption(
        "A101",
        "contacts' private fields",
        "The legacy contacts are always read with expands[]=secureInfo, so each private value is counted; "
        "phone and address go into the v1 contact's create and update bodies (ContactCreate/ContactUpdate "
        "`phone`, `address`, as text) only with the operator's opt-in (`--with contact-private`); without it "
        "each value is reported as not carried by field, never by value. taxIdLast4 has no v1 contact field: "
        "never carried, never shown. Verify compares carried values by SHA-256 and reports only present, "
        "absent or differs (a phone's hash is no secret). A non-text or over-long value is not carried, said by"
        " field and problem; the contact still migrates.",
        "L-SPEC Contact.secureInfo {address, phone, taxIdLast4} has no formats or bounds; V-SPEC ContactCreate "
        "phone/address are plain nullable strings; neither says secureInfo needs consent, but it is personal "
        "data.",
        ("mappings.contacts", "mappings.private", "clients.legacy", "verify.contacts_private", "emulator.legacy"),
    ),
)
