"""Bearer tokens of the v1 surface: each bound to one workspace, carrying a user and a role.

A token is checked on every call, so revoking it or downgrading its role takes effect on its next call, as the
v1 document's Authentication section says. Roles and what they may do are a guess (A34): ``admin`` and
``editor`` may read and write, ``viewer`` may only read.
"""

from __future__ import annotations

import secrets
import string
import time
from dataclasses import dataclass, field

from bridge.emulator.v1.errors import (
    InvalidTokenError,
    MissingAuthorizationError,
    PermissionRevokedError,
    TokenRevokedError,
    UnauthenticatedError,
)

ROLES = ("admin", "editor", "viewer")
WRITE_ROLES = frozenset({"admin", "editor"})
TOKEN_PREFIX = "sat_"  # noqa: S105 - a public prefix, not a secret
MIN_TOKEN_LENGTH = 16
# RFC 6750 token68 characters: anything else cannot be a token the service issued.
TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "-._~+/=")


@dataclass(slots=True)
class Grant:
    """What a token stands for: one workspace, one user, a role that can change while the token lives."""

    token: str
    workspace: str
    user_id: str
    email: str
    name: str
    role: str
    revoked: bool = False
    expires_at: float | None = None


@dataclass(slots=True)
class TokenRegistry:
    """Issued tokens by secret; the emulator's stand-in for the web application's Settings > API page."""

    grants: dict[str, Grant] = field(default_factory=dict)

    def issue(
        self, workspace: str, role: str = "admin", *, token: str | None = None, expires_at: float | None = None
    ) -> Grant:
        """Issue a token for ``workspace``; ``token`` fixes the secret (the `--token` option of `emulate`)."""
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        secret = token or TOKEN_PREFIX + secrets.token_urlsafe(24)
        serial = len(self.grants) + 1
        grant = Grant(
            token=secret,
            workspace=workspace,
            user_id=f"usr_{workspace}_{serial}",
            email=f"user{serial}@{workspace}.example",
            name=f"Emulated user {serial}",
            role=role,
            expires_at=expires_at,
        )
        self.grants[secret] = grant
        return grant

    def revoke(self, token: str) -> bool:
        """Revoke a token; its next call fails with token_revoked. False when the token is unknown."""
        grant = self.grants.get(token)
        if grant is None:
            return False
        grant.revoked = True
        return True

    def set_role(self, token: str, role: str) -> bool:
        """Change the role behind a token mid-run (a downgrade makes writes fail with permission_revoked)."""
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        grant = self.grants.get(token)
        if grant is None:
            return False
        grant.role = role
        return True

    def authenticate(self, authorization: str | None) -> Grant:
        """The grant behind an ``Authorization`` header, or the documented 401 for why there is none."""
        if authorization is None:
            raise MissingAuthorizationError(
                "The request has no Authorization header; send 'Authorization: Bearer <token>'."
            )
        scheme, _, credentials = authorization.strip().partition(" ")
        credentials = credentials.strip()
        if scheme.lower() != "bearer" or not credentials:
            raise UnauthenticatedError(
                "No credentials could be resolved from the Authorization header; send 'Bearer <token>'."
            )
        if len(credentials) < MIN_TOKEN_LENGTH or not TOKEN_CHARS.issuperset(credentials):
            raise InvalidTokenError(
                "The bearer token is malformed; copy the whole token from Settings > Developers > API."
            )
        grant = self.grants.get(credentials)
        if grant is None:
            raise InvalidTokenError("The bearer token is not recognised; create a new token for this workspace.")
        if grant.revoked:
            raise TokenRevokedError("This token was revoked; create a new token in the workspace and retry.")
        if grant.expires_at is not None and time.time() >= grant.expires_at:
            raise InvalidTokenError("The bearer token has expired; create a new token for this workspace.")
        return grant


def require(grant: Grant, action: str, resource_type: str) -> None:
    """Refuse a write by a role that may only read, naming the ability it lacks (``<action>:<ResourceType>``)."""
    if action != "read" and grant.role not in WRITE_ROLES:
        ability = f"{action}:{resource_type}"
        raise PermissionRevokedError(
            f"The token's role '{grant.role}' no longer permits {ability}; ask a workspace admin to restore access.",
            required_ability=ability,
        )
