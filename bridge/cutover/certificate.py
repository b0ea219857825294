"""The cutover certificate: an in-toto Statement v1 in a DSSE envelope, signed offline with Ed25519 keys.

The Statement binds files by SHA-256 (the reconciliation report, the plan, both snapshot roots, the last sync-log
line) to a predicate the caller composes (verdict, money, ledger, open items, freeze, stable reads). Its payload
is RFC 8785 canonical JSON with every integer a string (``bridge/canonical.py``): minor units can pass 2^53,
and in-toto's own library would turn them into doubles (research: bridge-mode.md, "Keep every integer a
string"). DSSE signs the payload's raw bytes, so the envelope can carry several signatures: the run's and the
finance owner's co-signature (``cosign``), each over the same, untouched payload.

Keys are read from files, PEM as openssl writes them: a private key (PKCS#8, ``openssl genpkey -algorithm
ed25519``) only from a file nobody but its owner can read; public keys as ``openssl pkey -pubout`` writes them.
The key id is securesystemslib's default: the SHA-256 of the public key's canonical form.
"""

from __future__ import annotations

import hashlib
import json
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_pem_private_key, load_pem_public_key
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import UnverifiedSignatureError, VerificationError
from securesystemslib.signer import CryptoSigner, Signature, SSlibKey

from bridge.canonical import Json, canonical
from bridge.config import read_key_file
from bridge.errors import BridgeError, ConfigError

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
PREDICATE_TYPE = "https://workspace-bridge.dev/cutover/v1"
"""The project's own predicate type (A110): a URL under the project's name, versioned."""

PUBLISHED_SPECS: Mapping[str, str] = {
    # A111: the project does not ship the published descriptions; these are the SHA-256 of the two files the
    # bridge was built and checked against (/work/specs/*.yaml), pinned here and changed with them.
    "legacy": "62e3376693c75f827b3941d912e03452d9e3f484520abf3b21110562a3533641",
    "v1": "e8c3cc0ac298591c6dfe5fdd0852ad53b14d9a227a74915d155d338f73af3686",
}


_Finder: TypeAlias = Callable[[str], Path | None]
"""A subject's file by the subject's name, None when the name cannot be a file there."""


class CertificateError(BridgeError):
    """A certificate that does not verify, or cannot be read: it names each subject or key that fails."""


def spec_digests() -> dict[str, Json]:
    """The predicate's ``specs`` entry: the SHA-256 of each published description the bridge was built against."""
    return {surface: {"sha256": digest} for surface, digest in PUBLISHED_SPECS.items()}


@dataclass(frozen=True, slots=True)
class SigningKey:
    """An Ed25519 private key read from its file, with the file's name for messages."""

    signer: CryptoSigner
    path: Path


@dataclass(frozen=True, slots=True)
class PublicKey:
    """An Ed25519 public key read from its file, with the file's name for messages."""

    key: SSlibKey
    path: Path


def load_signing_key(path: Path) -> SigningKey:
    """The private key in ``path``: a regular file of PEM PKCS#8 Ed25519 that only its owner may read.

    A group- or world-readable file is refused (ConfigError, exit 2) before its key is parsed.
    """
    raw, mode = read_key_file(path, "signing key")
    if stat.S_IMODE(mode) & 0o077:
        raise ConfigError(
            f"the signing key file {path} is readable by others (mode {stat.S_IMODE(mode):o}): "
            f"run `chmod 600 {path}` and sign again"
        )
    try:
        private = load_pem_private_key(raw, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise ConfigError(f"the signing key file {path} is not an unencrypted PEM PKCS#8 private key") from exc
    if not isinstance(private, Ed25519PrivateKey):
        raise ConfigError(
            f"the signing key in {path} is not Ed25519: make one with `openssl genpkey -algorithm ed25519`"
        )
    return SigningKey(CryptoSigner(private), path)


def load_public_key(path: Path) -> PublicKey:
    """The public key in ``path``: PEM SubjectPublicKeyInfo of Ed25519, as ``openssl pkey -pubout`` writes it."""
    raw, _ = read_key_file(path, "public key")
    try:
        public = load_pem_public_key(raw)
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise ConfigError(f"the public key file {path} is not a PEM public key") from exc
    if not isinstance(public, Ed25519PublicKey):
        raise ConfigError(f"the public key in {path} is not Ed25519")
    return PublicKey(SSlibKey.from_crypto(public), path)


def file_digest(path: Path) -> str:
    """The SHA-256 (hex) of a file's bytes."""
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def statement(subjects: Iterable[Path], predicate: Mapping[str, Json]) -> dict[str, Json]:
    """The in-toto Statement over ``subjects`` (each named by its file name) and the caller's predicate."""
    files = list(subjects)
    names = [path.name for path in files]
    if len(set(names)) != len(names):
        raise ConfigError(f"two subjects share a file name ({', '.join(sorted(names))}): rename one")
    entries: list[Json] = [{"name": path.name, "digest": {"sha256": file_digest(path)}} for path in files]
    return {
        "_type": STATEMENT_TYPE,
        "subject": entries,
        "predicateType": PREDICATE_TYPE,
        "predicate": dict(predicate),
    }


def issue(subjects: Iterable[Path], predicate: Mapping[str, Json], key: SigningKey) -> Envelope:
    """A DSSE envelope of the Statement over ``subjects`` and ``predicate``, signed with ``key``."""
    envelope = Envelope(canonical(statement(subjects, predicate)), PAYLOAD_TYPE, {})
    envelope.sign(key.signer)
    return envelope


def cosign(envelope: Envelope, key: SigningKey) -> Envelope:
    """The envelope with one more signature, by ``key``, over the same payload (the payload is untouched)."""
    signed = Envelope(envelope.payload, envelope.payload_type, dict(envelope.signatures))
    signed.sign(key.signer)
    return signed


def dumps(envelope: Envelope) -> bytes:
    """The envelope as written to its file: JSON, keys sorted, one trailing newline."""
    return json.dumps(envelope.to_dict(), indent=2, sort_keys=True).encode() + b"\n"


def loads(data: bytes, where: Path) -> Envelope:
    """The envelope a certificate file holds, or CertificateError naming the file."""
    try:
        parsed = json.loads(data)
        envelope = Envelope.from_dict(parsed)
    except (ValueError, KeyError, TypeError) as exc:
        raise CertificateError(f"{where} is not a DSSE envelope: {exc}") from exc
    if envelope.payload_type != PAYLOAD_TYPE:
        raise CertificateError(f"{where} carries {envelope.payload_type!r}, not an in-toto Statement")
    return envelope


@dataclass(frozen=True, slots=True)
class Verdict:
    """What ``verify`` found: every mismatch, each naming a subject, a key or the payload; empty when it holds."""

    subjects: tuple[str, ...]
    signers: tuple[str, ...]
    problems: tuple[str, ...]

    @property
    def holds(self) -> bool:
        return not self.problems


def payload_statement(envelope: Envelope) -> dict[str, Json] | None:
    """The Statement the payload holds, or None when the payload is not one."""
    try:
        parsed = json.loads(envelope.payload)
    except ValueError:
        return None
    ok = isinstance(parsed, dict) and parsed.get("_type") == STATEMENT_TYPE
    return parsed if ok and isinstance(parsed.get("subject"), list) else None


def verify(envelope: Envelope, files: Path | Iterable[Path], pubkeys: Iterable[PublicKey]) -> Verdict:
    """Check every signature against ``pubkeys`` and every subject's digest against its file, offline.

    ``files`` is a directory holding the subjects by name, or the subjects' paths. Each given key must have
    signed (a co-signed certificate checked with one key names the other signer's key id as unknown); each
    signature must be by a given key and verify over the payload; each subject's file must exist and match.
    """
    keys = list(pubkeys)
    problems = _signature_problems(envelope, keys)
    found = payload_statement(envelope)
    if found is None:
        return Verdict((), (), (*problems, "the payload is not an in-toto Statement v1"))
    by_name = _files_by_name(files)
    names: list[str] = []
    for entry in found["subject"] if isinstance(found["subject"], list) else []:
        name, digest = _subject(entry)
        names.append(name)
        path = by_name(name)
        if path is None or not path.is_file():
            problems.append(f"subject {name}: no such file")
        elif file_digest(path) != digest:
            problems.append(f"subject {name}: the file's SHA-256 differs from the certificate's")
    return Verdict(tuple(names), tuple(str(key.path) for key in keys), tuple(problems))


def _signature_problems(envelope: Envelope, keys: list[PublicKey]) -> list[str]:
    problems: list[str] = []
    pae = envelope.pae()
    by_id = {key.key.keyid: key for key in keys}
    for keyid, signature in envelope.signatures.items():
        key = by_id.get(keyid)
        if key is None:
            problems.append(f"signature by key {keyid}: no public key given for it (--pubkey)")
        elif not _signed(key, signature, pae):
            problems.append(f"signature by key {keyid} ({key.path}): does not verify over the payload")
    problems.extend(
        f"key {key.path} ({keyid}): has not signed this certificate"
        for keyid, key in by_id.items()
        if keyid not in envelope.signatures
    )
    return problems


def _signed(key: PublicKey, signature: Signature, pae: bytes) -> bool:
    try:
        key.key.verify_signature(signature, pae)
    except (UnverifiedSignatureError, VerificationError):
        return False
    return True


def _subject(entry: Json) -> tuple[str, str]:
    name = entry.get("name") if isinstance(entry, dict) else None
    digest = entry.get("digest") if isinstance(entry, dict) else None
    sha = digest.get("sha256") if isinstance(digest, dict) else None
    return (name if isinstance(name, str) else repr(name), sha if isinstance(sha, str) else "")


def _files_by_name(files: Path | Iterable[Path]) -> _Finder:
    if isinstance(files, Path):
        directory = files
        return lambda name: directory / name if "/" not in name and name not in {"", ".", ".."} else None
    named = {path.name: path for path in files}
    return named.get
