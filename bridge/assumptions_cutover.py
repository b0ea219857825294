"""The guesses of bridge mode (issue 32): the cutover certificate, the sync log, drift and conflicts (A110-A118)."""

from __future__ import annotations

from bridge.assumption import Assumption

CUTOVER_PROOF: tuple[Assumption, ...] = (
    Assumption(
        "A110",
        "the certificate's predicate type",
        "The cutover certificate's in-toto predicateType is https://workspace-bridge.dev/cutover/v1: a URL under "
        "the project's name, versioned, that identifies the predicate's shape (nothing is served there). A "
        "change to the predicate's meaning takes a new version.",
        "in-toto Statement v1 asks for a URI the producer owns; the project has none published.",
        ("cutover.certificate",),
    ),
    Assumption(
        "A111",
        "which published descriptions the certificate names",
        "The repository does not ship the two published descriptions, so the certificate's `specs` carries the "
        "SHA-256 of legacy.yaml and v1.yaml as they were when the bridge was built and checked against them "
        "(pinned in bridge/cutover/certificate.py, changed with them), not of files read at signing time.",
        "the issue asks for the SHA-256 of the descriptions the bridge was built against; none is in the tree.",
        ("cutover.certificate",),
    ),
    Assumption(
        "A112",
        "signing keys and their ids",
        "A signing key is Ed25519 in PEM PKCS#8 (openssl genpkey), unencrypted, in a regular file no one but its "
        "owner can read (no group or other permission bits); a public key is PEM SubjectPublicKeyInfo (openssl "
        "pkey -pubout). A signature's keyid is securesystemslib's default: SHA-256 of the key's canonical "
        "public form. A certificate verifies only when every signature is by a given key and every given key "
        "signed.",
        "the issue names the formats, not the key id, passphrases, or what an unrequested signature means.",
        ("cutover.certificate", "commands.cutover"),
    ),
    Assumption(
        "A113",
        "the sync log's line",
        "A sync-log line is RFC 8785 canonical JSON of seq, prev (SHA-256 of the previous line's bytes, 64 "
        "zeros for the first), the caller's record and digest (SHA-256 of the canonical seq, prev and record), "
        "every integer as a string; the line's own digest names an edited line (prev alone names the next one "
        "and misses the last). A last line without its newline is torn and is cut away on open.",
        "the issue fixes seq, prev and the record; the digest field and the genesis value are ours.",
        ("sync.log",),
    ),
    Assumption(
        "A114",
        "what a v1 edit is",
        "A record drifted when its v1 row, as the kind's published list shows it, differs from the row the bridge "
        "read back after its own last write of it, leaving out the fields v1 computes from other records "
        "(phaseTotals, expanded relations such as contact, documents, items, transactions, links, and counters "
        "such as replyCount) and those that follow a record's neighbours (sort, path, depth, updatedAt: v1 re-sorts "
        "siblings when one is patched and stamps a project on any write inside it): a write to a child line or a "
        "receipt moves those, not the record's own fields. A reorder made on v1 is therefore not seen as an edit.",
        "the descriptions publish updatedAt on most kinds but not on budget lines or phases, and no change "
        "history; which fields are derived is read from their descriptions, not published as a list.",
        ("engine.guard",),
    ),
    Assumption(
        "A115",
        "records with no mark yet, and kinds bridge mode cannot read back",
        "A record written by `bridge run` before the first sync has no mark: its row is taken as drifted when its "
        "updatedAt is more than 2 s after the bridge's last write of it, and as unchanged when the kind has no "
        "updatedAt (budget lines, phases, split items: an edit made on v1 between that run and the first sync is "
        "not seen). Split items are read in their transaction's row (items expanded); documents and order links "
        "are not checked (v1 lists them by document and by order, not by project).",
        "the bridge keeps no v1 row from `run` (reading every row back would double a migration's reads).",
        ("engine.guard",),
    ),
    Assumption(
        "A116",
        "a written record's legacy write time, for its lag",
        "A record a cycle wrote is matched to its legacy write time (lastModified; a project's updatedAt) by its "
        "legacy id within its project, read again after the cycle. Its source lag counts from that time to the "
        "moment the cycle decided the write (the journal's intent), which comes right after the record's read: "
        "the lag said is at most the true one plus the mapping of one bulk.",
        "legacy publishes no change feed and no read time; ids are unique per kind, and no two kinds of one "
        "project were seen sharing one.",
        ("sync.lag",),
    ),
    Assumption(
        "A117",
        "what makes a project quiet",
        "A watch does not map again a project whose every read answers the bytes it answered when a cycle last "
        "wrote nothing in it, with the same day, workspace library plan, project library and record, and the "
        "same crosswalk of the workspace and of the project (each scope's stamp in the state, written anew by "
        "every change of its entries, by any process). Anything else a project's records were drawn from would "
        "be missed; the engine draws them from nothing else.",
        "the legacy surface has no modified-since filter or ETag; its bodies are deterministic for unchanged "
        "records (seen: byte-identical reads minutes apart).",
        ("engine.quiet",),
    ),
    Assumption(
        "A118",
        "a document proved once in a watch",
        "A verify of a `bridge sync --watch` does not download again a document an earlier verify of the same "
        "watch proved (bytes, size, type, link) while v1 lists it with the same row (every field, its size and "
        "links among them): v1 publishes no way to replace a document's bytes in place, so a row unchanged is a "
        "document unchanged. `bridge verify` and every new watch download each document.",
        "v1 publishes document metadata updates and deletes, but no content replacement.",
        ("verify.documents",),
    ),
    Assumption(
        "A130",
        "the documents of a record a sync deletes",
        "When a sync deletes a record on v1 (an actual deleted at the source), it deletes the documents the bridge "
        "made of its files too (receipts, bank files; documents_delete), as legacy deletes a record's files with "
        "it; a document renamed on v1 meanwhile goes with them. A file gone from a record that stays is left on "
        "the target and counted as removed.",
        "v1's transaction delete does not say what becomes of the documents linked to it, and the guard cannot "
        "read documents back by project (A115).",
        ("engine.apply", "engine.kinds"),
    ),
)
