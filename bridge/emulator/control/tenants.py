"""Tenants: the (legacy source, v1 target) workspace pairs one emulator serves, each with its own credentials.

One emulator serves ``--workspaces N`` tenants behind the same URLs, as the real service serves every customer
behind one host: a request's credential decides whose data it reaches. A legacy key opens only its tenant's
source and a bearer token is bound to its tenant's target (both through the store's own key and token checks),
so tenant i's credentials never read or write tenant j's records. What is kept per tenant besides the data
(the fault plan's rate-limit bucket, the client timeline of ``/_emulator/stats``) is found from the request's
credential by ``credential_workspace``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from starlette.types import Scope

from bridge.emulator.core.ids import new_api_key
from bridge.emulator.core.store import Service
from bridge.emulator.v1.auth import TokenRegistry

SOURCE = "source"
TARGET = "target"


@dataclass(frozen=True, slots=True)
class Credentials:
    """What a client needs: the legacy key (opens the tenant's source) and the v1 token (bound to its target)."""

    legacy_key: str
    token: str


@dataclass(frozen=True, slots=True)
class Tenant:
    """One tenant: its name in a fleet manifest (``ws-01``), its two workspaces' names, the seed of its source,
    its credentials."""

    name: str
    source: str
    target: str
    seed: int
    credentials: Credentials


def new_token() -> str:
    """A fresh v1 bearer token for a tenant's target."""
    return "tok_" + secrets.token_urlsafe(24)


def fleet(count: int, seed: int, first: Credentials | None = None) -> tuple[Tenant, ...]:
    """``count`` tenants named ``ws-01``, ``ws-02``... with sources seeded ``seed``, ``seed + 1``..., the first
    holding ``first`` if given, every other credential generated. A single tenant keeps the workspace names
    ``source`` and ``target`` an emulator has always had; in a fleet they are ``source_01``/``target_01``...
    (letters, digits and underscores, like every workspace name)."""
    if count < 1:
        raise ValueError(f"an emulator serves at least one workspace, not {count}")
    width = max(2, len(str(count)))
    return tuple(
        Tenant(
            name=f"ws-{number:0{width}d}",
            source=SOURCE if count == 1 else f"{SOURCE}_{number:0{width}d}",
            target=TARGET if count == 1 else f"{TARGET}_{number:0{width}d}",
            seed=seed + number - 1,
            credentials=(first if number == 1 else None) or Credentials(new_api_key(), new_token()),
        )
        for number in range(1, count + 1)
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


def credential_workspace(scope: Scope, service: Service, tokens: TokenRegistry) -> str | None:
    """The id of the workspace a request's credential belongs to (a bearer token's, else a legacy key's), or
    None when it carries neither a known token nor a known key. Revoked and restricted credentials still name
    their workspace: their refusals are that tenant's traffic."""
    authorization = _header(scope, b"authorization")
    if authorization is not None:
        scheme, _, token = authorization.strip().partition(" ")
        grant = tokens.grants.get(token.strip()) if scheme.lower() == "bearer" else None
        if grant is not None:
            return grant.workspace
    key = _header(scope, b"x-api-key")
    api_key = service.api_keys.get(key) if key else None
    return None if api_key is None else api_key.workspace_id
