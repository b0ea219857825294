"""Signing keys as operators make them, for the cutover certificate's tests."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat


@dataclass(frozen=True)
class KeyPair:
    private: Path
    public: Path


def keypair(directory: Path, name: str) -> KeyPair:
    """A key pair as operators make it: ``openssl genpkey`` and ``openssl pkey -pubout`` (``cryptography`` when
    openssl is not on the machine), the private file 0600."""
    private, public = directory / f"{name}.pem", directory / f"{name}.pub.pem"
    if shutil.which("openssl"):
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(private)], check=True)
        subprocess.run(["openssl", "pkey", "-in", str(private), "-pubout", "-out", str(public)], check=True)
    else:
        key = Ed25519PrivateKey.generate()
        private.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
        public.write_bytes(key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
    private.chmod(0o600)
    return KeyPair(private, public)
