"""Every guess this project makes about a part the service's documents do not show.

The two seed documents are authoritative where they speak. Where they say "not shown", we follow the real
service's published descriptions (see ``shared/research/service-shapes.md``); where even those are silent
("NOT FOUND" there), we guess, and the guess is written down here, once, with an id.

Both the emulator and the bridge follow these entries: the emulator cites the id in a comment where it
implements the guess, the bridge lists the ids a run depends on (``bridge plan`` prints them, docs/assumptions.md
renders this table). Add an entry before relying on a new guess; never delete one that code still cites.
"""

from __future__ import annotations

from bridge.assumption import Assumption
from bridge.assumptions_contract import PUBLISHED_CONTRACT
from bridge.assumptions_cutover import CUTOVER_PROOF
from bridge.assumptions_documents import DOCUMENT_LINKS
from bridge.assumptions_exits import HOW_COMMANDS_END
from bridge.assumptions_operator import OPERATOR_FIGURES
from bridge.assumptions_rehearsal import REHEARSAL
from bridge.assumptions_workspace import WHOLE_WORKSPACE

__all__ = ["REGISTRY", "Assumption", "as_markdown", "by_id", "used_by"]


SEED_GAPS: tuple[Assumption, ...] = (
    Assumption(
        "A01",
        "legacy error body",
        "Legacy errors carry a JSON body {error, code?, details?}; clients read only the status and `code`.",
        "legacy seed: 'Error body shape and codes: not shown'; real service L-SPEC shape.",
        ("emulator.legacy", "clients.legacy"),
    ),
    Assumption(
        "A02",
        "legacy rate limit",
        "The legacy surface answers 429 with a Retry-After header in delta-seconds; no numeric limit is "
        "published, so the emulator's token bucket is configurable and off by default.",
        "legacy seed names 429 but no limits; L-SPEC has no 429 body.",
        ("emulator.control.faults", "clients.http"),
    ),
    Assumption(
        "A03",
        "legacy paging",
        "Legacy lists (spaces, projects, contacts, phases, fringes, globals, tags, accounts, budget) return "
        "everything in one response; only actuals are windowed, by the inclusive startDate/endDate filters.",
        "legacy seed: 'other paging rules ... not shown'.",
        ("emulator.legacy", "clients.legacy"),
    ),
    Assumption(
        "A04",
        "v1 ids",
        "v1 ids are opaque strings with a kind prefix (prj_, spc_, phs_, lin_, frg_, gbl_, cur_, tag_, unt_, "
        "con_, txn_, whk_); the bridge never parses them.",
        "v1 seed: 'Identifiers are opaque strings'; V-SPEC examples use these prefixes.",
        ("emulator.core.store", "clients.v1"),
    ),
    Assumption(
        "A05",
        "v1 spaces",
        "POST /spaces {name, slug?, image?, parentId?} (Idempotency-Key) -> 201 Space {id, slug, name, image, "
        "parentId, archived, createdAt, updatedAt}; `archived` only through PATCH /spaces/{id}; GET /spaces "
        "is a cursor-paged list; there is no GET /spaces/{id}.",
        "v1 seed: spaces paths 'not shown'; V-SPEC Space/SpaceCreate/SpaceUpdate.",
        ("emulator.v1", "clients.v1", "mappings.spaces"),
    ),
    Assumption(
        "A06",
        "v1 projects",
        "POST /projects {name, slug?, emoji?, image?, summary?, spaceId?, projectType?, tagIds?} -> 201 "
        "Project plus defaultBudget {budgetId, estimatePhaseId}; the new project has one visible estimate "
        "phase named 'Estimate'; status (active|archived) only through PATCH. Legacy labels travel as "
        "project tags (tagIds).",
        "v1 seed: bodies 'not shown'; V-SPEC ProjectCreate/ProjectCreated.",
        ("emulator.v1", "clients.v1", "mappings.spaces", "engine.run"),
    ),
    Assumption(
        "A07",
        "v1 contacts",
        "POST /contacts {name, displayName?, company?, title?, email?, type: contractor|employee|company|"
        "vendor, rate?: Money} -> 201 Contact; legacy types Contractor|Employee|Company map to lower case.",
        "v1 seed: contact fields 'not shown'; V-SPEC Contact.",
        ("emulator.v1", "mappings.contacts"),
    ),
    Assumption(
        "A08",
        "v1 phases",
        "POST /projects/{p}/budget/phases {name, type: estimate|actual|committed|rollup, alias?, color?, "
        "isHidden?, baseCurrencyId?, rollupFormula?} (Idempotency-Key) -> 201 BudgetPhase; GET lists "
        "visible and hidden phases; rollupFormula is arithmetic over @phaseId references.",
        "v1 seed: 'create body: phase fields'; V-SPEC BudgetPhase.",
        ("emulator.v1", "mappings.phases"),
    ),
    Assumption(
        "A09",
        "phase currency and exchange rate",
        "A legacy phase currency {code, symbol, exchangeRate} means one unit of the phase currency is worth "
        "exchangeRate units of the workspace currency (USD). In v1 it becomes a project currency copy with "
        "rateToUSD = exchangeRate, referenced by the phase's baseCurrencyId. v1 totals are in the workspace "
        "currency: phase total x rate, rounded half-even to the workspace currency's minor unit.",
        "v1 seed: totals in minor units; V-SPEC: totals 'in the workspace currency'; rounding NOT FOUND.",
        ("emulator.core.totals", "mappings.phases", "mappings.money", "verify.totals"),
    ),
    Assumption(
        "A10",
        "phase data numbers",
        "v1 phase-data rate, quantity and multiplier are decimal numbers in major units (or '='-formula "
        "strings), exactly as legacy sends them; only totals and Money fields are integer minor units.",
        "V-SPEC: 'units of v1 phase-data rate (major vs minor): NOT FOUND'; its examples look major.",
        ("emulator.core.totals", "mappings.budget"),
    ),
    Assumption(
        "A11",
        "line amount",
        "A line's base per phase = quantity x multiplier x rate (missing quantity or multiplier = 1, missing "
        "rate = 0), formulas over globals evaluated first; amount = base + fringe. Each line's base and fringe "
        "are rounded half-even to the phase currency's minor unit (so a zero-decimal currency never shows a "
        "fraction); accounts and phases sum the rounded line amounts.",
        "service-shapes 'How totals are computed'; overtime formula NOT FOUND (not emulated).",
        ("emulator.core.totals",),
    ),
    Assumption(
        "A12",
        "fringe units",
        "Fringe units: percent = rate% of min(line base, cutoff); flat = rate x line quantity; total = rate "
        "once per line. A null cutoff means no cap. Cutoffs apply per line.",
        "service-shapes: 'Semantics of total units and cutoff scope NOT FOUND'.",
        ("emulator.core.totals", "mappings.library"),
    ),
    Assumption(
        "A13",
        "subtotals and markups",
        "A subtotal shows the sum of the siblings above it and adds nothing to its parent. A markup adds to its "
        "parent: percent -> amount% of the included siblings' amount (base only when excludeFringes), flat -> "
        "amount. In v1 a markup's value is phase data {rate: amount, unit: 'percent'|'flat', "
        "excludeFringes?: bool} and its account selection is markupAccountFilter, a comma-separated list of "
        "account codes (null = every sibling account).",
        "service-shapes: 'how a markup's percent/flat value is written in [V] is NOT FOUND'.",
        ("emulator.core.totals", "emulator.v1", "mappings.budget"),
    ),
    Assumption(
        "A14",
        "tag assignment on v1 lines",
        "v1 budget lines accept `tagIds` on create, bulk create and PATCH, and return them on read. The bridge "
        "checks every assignment by reading the line back and reports each one the target did not keep.",
        "V-SPEC: lines expose tagIds but create/update bodies do not show it.",
        ("emulator.v1", "engine.run", "mappings.library"),
    ),
    Assumption(
        "A15",
        "tag colours",
        "Legacy #RRGGBB tag colours map to the nearest v1 TagColor name (Tailwind 500 shades) by RGB distance; "
        "across projects the first project (by legacy id order) that defines a tag wins, and every differing "
        "colour or description is reported.",
        "V-SPEC TagColor is a named enum; no conversion rule is published.",
        ("mappings.library",),
    ),
    Assumption(
        "A16",
        "actuals as transactions",
        "A legacy actual becomes a manual v1 transaction: POST /transactions/bulk {transactions: [...]} "
        "(<= 500, all-or-nothing, Idempotency-Key) with {type, amount: Money, timestamp, status, description, "
        "projectId, contactId?, budgetLineId?, number?, ref?, notes?, actualized: true}; a split actual's parts "
        "become items through POST /transactions/{id}/items {description?, budgetLineId?, amount: Money, tagIds?} "
        "(Idempotency-Key), each carrying the actual's tags (v1 takes tags on items only; an unsplit actual's tags "
        "are reported, not carried). The actual phase of a project totals its actualized transactions by budget "
        "line.",
        "v1 seed: transaction bodies 'not shown'; V-SPEC TransactionManualCreate and items.",
        ("emulator.v1", "emulator.core.totals", "mappings.actuals", "engine.run"),
    ),
    Assumption(
        "A17",
        "actual statuses and types",
        "Legacy status Paid -> posted, Unpaid/Pending/NeedsReview -> posted (lossy, reported), Refund -> posted "
        "with a negative amount kept as is; legacy type SaturationACH/SaturationWire/SaturationPCard -> ACH/"
        "Wire/CreditCard (lossy, reported), other types unchanged.",
        "V-SPEC: manual transactions reach only posted|void|projected.",
        ("mappings.actuals",),
    ),
    Assumption(
        "A18",
        "library items",
        "Workspace library writes: POST /library/currencies {code, name?, symbol?, rateToUSD?}, /library/"
        "fringes {name, description?, calculationType, rate, cutoff?}, /library/globals {symbol, description?, "
        "formula, unit?}, /library/tags {name, color?, description?}, /library/units {label, pluralLabel?, "
        "category?}; each with Idempotency-Key -> 201. A project copy is POST /projects/{p}/library/<kind> "
        "{sourceId} -> 201 (or 200 when already added, keeping project edits) and is edited by PATCH.",
        "V-SPEC library flow; project adds need no key.",
        ("emulator.v1", "clients.v1", "mappings.library", "engine.run"),
    ),
    Assumption(
        "A19",
        "v1 budget-line writes",
        "POST /budget/lines/bulk {lines: [BudgetLineCreate]} -> 201 {data: [BudgetLine]} in request order; "
        "BudgetLineCreate {description (<= 255), type, accountId?, parentId?, contactId?, lineColor?, "
        "markupAccountFilter?, subtotalSumAllAbove?, tagIds?, phaseData?: {phaseId: {rate, quantity, "
        "multiplier, unit, fringeIds, ...}}}; a missing parentId places the line at the root. Phase-data bulk "
        "is {items: [{lineId, phaseId, phaseData}]} -> 200 {data: [...]}. fringeIds name project fringe copies.",
        "v1 seed shapes; V-SPEC BudgetLineCreate; 'fringeIds project-copy or workspace ids' NOT FOUND.",
        ("emulator.v1", "clients.v1", "mappings.budget"),
    ),
    Assumption(
        "A20",
        "idempotency retention",
        "The target keeps idempotency keys for 24 hours (Stripe's published floor). A journalled intent older "
        "than that is looked up on the target before it is replayed.",
        "V-SPEC: 'Retention window of idempotency keys: NOT FOUND'.",
        ("emulator.v1.idempotency", "engine.run"),
    ),
    Assumption(
        "A21",
        "v1 rate limit",
        "429 carries code rate_limited, a Retry-After header (delta-seconds; HTTP-date also honoured) and body "
        "retryAfter; no numeric limit is published, so the bridge adapts its concurrency (AIMD).",
        "V-SPEC 429; numeric limits NOT FOUND.",
        ("emulator.control.faults", "clients.http"),
    ),
    Assumption(
        "A22",
        "v1 cursors",
        "Cursors are opaque, bound to the filters and sort of the request that produced them; a cursor reused "
        "with other filters gets 400 cursor_invalid.",
        "v1 seed pagination rules.",
        ("emulator.v1", "clients.pages"),
    ),
    Assumption(
        "A23",
        "webhook retry schedule",
        "Deliveries are retried up to five attempts in all, waiting 30 s x 2^(attempt-1) between them; the time "
        "scale is configurable for tests. A 2xx is success; after five failures the outcome is failed; an "
        "unsafe URL is blocked; an inactive subscription's deliveries are dropped.",
        "v1 seed 'up to five attempts, exponential backoff starting at 30 seconds'.",
        ("emulator.v1.webhooks",),
    ),
    Assumption(
        "A24",
        "globals",
        "A global's formula is a number or an arithmetic expression over other globals' symbols (with or "
        "without a leading '='); cycles are an error. Phase-data cells starting with '=' are formulas over "
        "globals.",
        "HELP globals article; neither API exposes evaluated values.",
        ("emulator.core.formula", "mappings.library"),
    ),
    Assumption(
        "A25",
        "committed phases",
        "A committed-type phase's values come from its phase data like an estimate phase's, on both surfaces of "
        "the emulator: purchase orders never move them there. Purchase orders are carried as v1 drafts, and the "
        "published v1 rule counts an order in a committed phase only in the statuses committedPoStatuses lists "
        "(approved, paymentRequested, paymentRejected, paymentProcessing), which no write reaches: on the real "
        "service a committed phase lacks the migrated orders until they are approved in the app, and verify "
        "explains such a gap by the orders awaiting approval, never as a mismatch.",
        "V-SPEC: committedPoStatuses (V:8049, V:732) selects orders by status; how phase data and orders "
        "combine in a committed phase is not said; the legacy surface publishes no committed-phase rule.",
        ("emulator.core.totals", "mappings.phases"),
    ),
    Assumption(
        "A26",
        "subtotal scope",
        "A subtotal with subtotalSumAllAbove sums every sibling above it; without it, the siblings since the "
        "previous subtotal. Either way it adds nothing to its parent (A13).",
        "service-shapes: 'subtotal default scope NOT FOUND'.",
        ("emulator.core.totals", "verify.quarantine"),
    ),
    Assumption(
        "A27",
        "unreadable cells",
        "A stored number the service cannot read (malformed text, NaN, Infinity, a formula that fails) counts "
        "as empty in every total: missing quantity/multiplier = 1, rate = 0, actual amount = 0. The legacy "
        "surface still returns the raw value, so the bridge can quarantine the record.",
        "neither document says how the service totals bad stored values.",
        ("emulator.core.totals", "mappings.money", "verify.quarantine"),
    ),
    Assumption(
        "A28",
        "legacy user-mode ids",
        "idMode=user: projects and spaces by alias, phases by alias (name also accepted on input), accounts by "
        "code, fringes by code, globals by symbol, tags by name; budget lines, actuals and contacts keep their "
        "system id (they have no human-readable one). An actual's accountId is the coded line's account code "
        "in user mode and the line's id in system mode. Totals and phaseData keys follow the phase rule.",
        "legacy seed rule 1 names user-mode ids only for line/account/phase/project/space.",
        ("emulator.legacy", "clients.legacy"),
    ),
    Assumption(
        "A29",
        "legacy budget tree shape",
        "GET /budget returns `account` (the requested account, or a synthetic root {id: 'root', path: '/'}) "
        "whose `lines` are its direct children in order (child accounts appear as type 'account' entries), and "
        "`subAccounts` mapping every account beneath it (by id; by path in user mode) to an Account {id, "
        "accountId, description, path, parentId, lines, totals}; accounts whose parent is missing or sits in a "
        "cycle are listed too, so a client can rebuild the tree and quarantine what does not fit.",
        "legacy seed: subAccounts is a map; L-SPEC Account shape; how orphans appear is not shown.",
        ("emulator.legacy", "clients.legacy"),
    ),
    Assumption(
        "A30",
        "request ids and replays on success",
        "Every v1 response, success or error, carries its request id in an `X-Request-Id` header (errors also in "
        "the body's requestId); a replayed write carries `Idempotency-Replayed: true`. Legacy responses may carry "
        "the same header; the bridge quotes whichever it has.",
        "v1 seed: requestId only in the error body; V-SPEC: Idempotency-Replayed const 'true'.",
        ("emulator.v1.errors", "clients.http"),
    ),
    Assumption(
        "A31",
        "actual defaults and unmapped actual fields",
        "A legacy actual without a type is sent as Invoice and without a status as posted (v1 requires both); "
        "the first is reported as lossy. Legacy payId and actual-level tags have no field on a manual v1 "
        "transaction: each is reported as not carried. A legacy actual's amounts are in the currency of the "
        "project's first phase.",
        "V-SPEC TransactionManualCreate has no payId or tags; HELP currency: actuals use the first phase's.",
        ("mappings.actuals",),
    ),
    Assumption(
        "A32",
        "names the bridge never rewrites",
        "Tag names, fringe codes, global symbols and unit labels are matched exactly; two names equal but for "
        "letter case or Unicode normalisation are refused (catalogue), never merged. A budget line without a "
        "description is sent with an empty description; a contact without a name takes its company or email.",
        "V-SPEC: names unique per workspace, case rule not stated; description required but min length NOT FOUND.",
        ("mappings.tags", "mappings.lines", "mappings.contacts"),
    ),
    Assumption(
        "A33",
        "v1 status codes the seed leaves open",
        "422 `validation` when a well-formed write names a parent, phase, fringe, tag, contact or line that "
        "does not exist in the project; 413 `bulk_too_large` over a bulk's limit and `budget_too_large` when a "
        "budget read selects more than 25,000 lines (settable through the control API); 5xx codes are "
        "internal_error (500), temporarily_unavailable (502, 503 and 504 at the gateway, A57) and "
        "budget_compute_timeout (504 on budget and totals reads). An unknown `phase` selector is 400 validation.",
        "v1 seed: 413/422/504 'codes and retry guidance: not shown'; V-SPEC ErrorCode enum.",
        ("emulator.v1.errors", "emulator.control.faults", "clients.http"),
    ),
    Assumption(
        "A34",
        "v1 roles and abilities",
        "Token roles are admin, editor and viewer; admin and editor may write, viewer only read. A refused write "
        "is 403 permission_revoked with requiredAbility `<create|update|delete>:<ResourceType>` (Project, Space, "
        "Contact, BudgetPhase, BudgetLine, Transaction, Webhook, library kinds). A token is any token68 string of "
        "16+ characters the service issued; unknown or malformed -> invalid_token.",
        "v1 seed: 'other role values: not shown'; token format not shown.",
        ("emulator.v1.auth", "clients.http"),
    ),
    Assumption(
        "A35",
        "webhook URLs in tests",
        "Registration refuses non-HTTPS URLs and localhost, loopback, private, link-local and unspecified hosts "
        "(no DNS lookup), unless the URL's origin is on the emulator's `webhookTargets` allow-list (`bridge emulate "
        "--webhook-target`, or the control API's settings; empty by default). A delivery goes out only to an "
        "allow-listed origin; any other ends `blocked` without a request. Test deliveries use event `ping`.",
        "v1 seed: 'unsafe URLs are rejected'; which are unsafe: not shown.",
        ("emulator.v1.webhooks",),
    ),
    Assumption(
        "A36",
        "what an Idempotency-Key keeps",
        "Only a successful (2xx) response is stored under a key; a refused request (4xx, or a 5xx before the "
        "handler ran) leaves the key free. Keys are scoped to the token's workspace; concurrent requests with "
        "one key are serialised, the later one replaying the earlier's result. The fingerprint is method, path "
        "and the JSON body's content.",
        "Stripe semantics (reliability-anchors); V-SPEC silent on failed requests.",
        ("emulator.v1.idempotency", "engine.run"),
    ),
    Assumption(
        "A37",
        "v1-only library parts and transactions",
        "Project library adds for currencies, fringes and globals only (fringe groups stay workspace items); "
        "incentive packs are a fixed read-only catalogue; rate packs and their items are kept per workspace and "
        "enabling/disabling one fires pack.installed/pack.uninstalled. A transaction needs projectId; a missing "
        "description takes the type; the first item moves the coding from the transaction to its items.",
        "v1 seed: library bodies and rate-pack project install 'not shown'; V-SPEC transaction items.",
        ("emulator.v1.extras.packs", "emulator.v1.transaction_routes"),
    ),
    Assumption(
        "A38",
        "legacy phase-data formulas and tag totals",
        "How a legacy phaseData formula reads back: see A44. Tag totals count each tagged node once (a tagged "
        "account's tagged children are not added again); `actualTotal` is the actual-type phases' amounts of the "
        "tagged lines.",
        "tag total scope not shown.",
        ("emulator.legacy", "emulator.core.totals", "clients.legacy"),
    ),
    Assumption(
        "A39",
        "what a quarantined record adds to legacy totals",
        "The legacy surface reads a stored amount as a decimal number: plain or exponent notation counts at its "
        "value; text it cannot read (thousands separators, empty), NaN and infinities count as 0 (A27). The "
        "verifier explains a total's shortfall on v1 by what the quarantined records add under this reading, "
        "with the float spacing of amounts beyond 2^53 as extra tolerance.",
        "neither document says how the service totals bad stored values; A27 leaves exponent notation open.",
        ("verify.quarantine",),
    ),
    Assumption(
        "A40",
        "re-run updates in place",
        "A re-run patches what changed: a manual transaction by PATCH /transactions/{id} with the fields of its "
        "create (manual transactions are editable); a project's library copy by PATCH with the project's own "
        "values but without its name field (code, symbol or name, which the copy takes from its workspace item); "
        "a budget line by PATCH with its create body. Of the published workspace roles (owner, admin, accountant, "
        "edit, comment, view), all but owner, admin and edit are warned about in preflight as possibly read-only.",
        "V-SPEC: 'financial fields editable only on manual' without the route; copy PATCH fields and role "
        "values not shown; the WorkspaceRole enum is published, what each role may write is not.",
        ("engine.run", "emulator.v1"),
    ),
    Assumption(
        "A41",
        "legacy budget read one account at a time",
        "GET /budget?accountId={id}&excludeSubAccounts=true returns that account (its own fields, parentId "
        "included) with `lines` = its direct children in order, child accounts as entries without their lines, "
        "and no subAccounts; without accountId the root's direct children. GET /budget/accounts lists every "
        "account with its parentId, the ones the root does not reach too. So a tree read account by account "
        "equals one whole read (A29).",
        "legacy seed: accountId and excludeSubAccounts are named query parameters, their effect is not shown.",
        ("clients.legacy", "emulator.legacy", "engine.project"),
    ),
)
# Ordered by id: the seed-document guesses, then those made reading the published descriptions.
REGISTRY: tuple[Assumption, ...] = (
    SEED_GAPS + PUBLISHED_CONTRACT + WHOLE_WORKSPACE + CUTOVER_PROOF + DOCUMENT_LINKS + HOW_COMMANDS_END
)
REGISTRY += OPERATOR_FIGURES + REHEARSAL


def by_id(assumption_id: str) -> Assumption:
    """The registry entry with this id; a KeyError names the unknown id."""
    for entry in REGISTRY:
        if entry.id == assumption_id:
            return entry
    raise KeyError(f"no assumption {assumption_id!r} in bridge.assumptions.REGISTRY")


def used_by(component_prefix: str) -> tuple[Assumption, ...]:
    """The entries a component (for example 'mappings' or 'engine.run') depends on."""
    return tuple(
        entry
        for entry in REGISTRY
        if any(user == component_prefix or user.startswith(component_prefix + ".") for user in entry.used_by)
    )


def as_markdown() -> str:
    """The registry as docs/assumptions.md's table: generated, so the page cannot drift from the code."""
    rows = ["| id | topic | what we assume | why it is a guess |", "|---|---|---|---|"]
    rows += [f"| {e.id} | {e.topic} | {e.text} | {e.basis} |" for e in REGISTRY]
    return "\n".join(rows) + "\n"
