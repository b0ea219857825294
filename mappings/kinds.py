"""The kinds of record a migration carries: one vocabulary for the mappings, the engine, verify and the state.

A leaf module (it imports nothing of the project), so every layer can name a kind without importing the
engine. ``Kind`` members are ``str``: a member equals its value (``Kind.LINE == "line"``), so the crosswalk's
and the journal's kind columns, which store the value, compare equal to the member.
"""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    """A kind of migrated object; the value is the crosswalk kind and the journal's kind."""

    SPACE = "space"
    CONTACT = "contact"
    PROJECT = "project"
    CURRENCY = "currency"
    FRINGE = "fringe"
    GLOBAL = "global"
    TAG = "tag"
    PROJECT_CURRENCY = "project_currency"
    PROJECT_FRINGE = "project_fringe"
    PROJECT_GLOBAL = "project_global"
    PHASE = "phase"
    LINE = "line"
    ACTUAL = "actual"
    SPLIT = "split"
    COMMENT = "comment"
    RATE_PACK = "rate_pack"
    RATE = "rate"
    PURCHASE_ORDER = "purchase_order"
    PO_LINK = "purchase_order_link"
    RECEIPT = "receipt"
    CONTACT_FILE = "contact_file"
    TAX_DOCUMENT = "tax_document"
    PURCHASE_ORDER_FILE = "purchase_order_file"
    BANK_FILE = "bank_file"
