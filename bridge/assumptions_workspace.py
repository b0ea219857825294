"""The guesses made in reading the published descriptions for the rest of a workspace (issue 30): budget notes,
rates, purchase orders, documents, comments, split-part details and contacts' private fields.

The other contract guesses are in ``bridge.assumptions_contract``; the seed documents' in ``bridge.assumptions``.
"""

from __future__ import annotations

from bridge.assumption import Assumption

WHOLE_WORKSPACE: tuple[Assumption, ...] = (
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
        "an upload whose answer was lost and whose key expired is found there by its name (the file's), size "
        "and content hash (A103), so a replay books it instead of uploading it again. Two unlinked documents of "
        "one name and the same bytes (one file carried for two records, both lost) are told apart by nothing "
        "published: the first that no other record's crosswalk entry names is taken.",
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
    Assumption(
        "A108",
        "a v1 record matching by its natural fields is the source record's",
        "Where v1 may hold records the state does not know (preflight found unknown v1 spaces, projects or "
        "contacts, or the project was mapped before the run), a create first lists its kind there and adopts a "
        "record no crosswalk entry names whose natural fields equal the create's (the fields the stale lookup "
        "uses: a space's name and slug, a line's parent, description, account and type, a transaction's date, "
        "amount, description, number and reference...). A record made by hand on v1 with the same fields is "
        "therefore taken for the source's and brought to its values; two equal entries take two records, in "
        "order. A document linked to its record is found by name among those linked there (`linkedTo`), a "
        "transaction's link to its purchase order by reading the order back.",
        "Neither description gives a record a foreign key or an external id the bridge could write and search "
        "by (v1 creates take no client reference), and the target forgets Idempotency-Keys after its retention "
        "(A20): natural fields are all that recognise a record written by a run the state no longer remembers.",
        ("engine.adopt",),
    ),
    Assumption(
        "A105",
        "an edited purchase order's items, matched by place",
        "v1 lists an order's items in the order they were made, so the legacy order's n-th item is v1's n-th: "
        "one that differs is PATCHed whole (purchase-orders_updateItem; null clears what the legacy item no "
        "longer holds), v1's items past the legacy count are deleted from the end, the missing ones added at "
        "the end (purchase-orders_createItem). An item inserted in the middle on legacy therefore rewrites the "
        "items after it instead of moving them; the order's sum and count are right either way.",
        "V-SPEC: listItems' order is not stated; a v1 item takes no client reference a legacy item id could go "
        "in; PurchaseOrderItemWrite.sort is a string with no rule.",
        ("engine.order_updates",),
    ),
    Assumption(
        "A106",
        "keys of a purchase order's update",
        "purchase-orders_update, _updateItem and _deleteItem go without an Idempotency-Key (none is published); "
        "each is decided against v1 as it is when the order's turn comes, so a run stopped between two of them "
        "sends only what v1 does not hold yet. An added item's key derives from the order's new state and the "
        "item's place: a resumed run on the same legacy order sends the same key, a later edit a new one.",
        "V-SPEC: the Idempotency-Key header is published on createItem only of these four routes; a PATCH "
        "setting fields to values is idempotent, a DELETE of an item already gone is 404.",
        ("engine.order_updates",),
    ),
    Assumption(
        "A107",
        "an order v1 holds past draft",
        "An order approved, pending, actualizing, paid or void on v1 since a run carried it takes no edit, so "
        "the run sends it none: its legacy edit stays off v1 for a person to make in the app, its status-table "
        "line says 'left as <status> on v1' with v1's amount beside the legacy one (terminal, plan.json, the "
        "approvals CSV), and verify explains its items' difference by it (not_carried, never a mismatch). A "
        "409 po_invalid_status answered all the same (moved between the list and the write) counts alike.",
        "V-SPEC: the PATCH and item writes say 'Other statuses return 409 po_invalid_status'; no published write "
        "brings an approved order back to draft (cancel-submission withdraws a pending one from its approvers).",
        ("engine.order_updates", "verify.order_edits", "mappings.purchase_orders"),
    ),
)
