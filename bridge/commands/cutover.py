"""`bridge cutover sign` and `bridge cutover verify`: the certificate's co-signature and its offline check.

`sign` adds the holder's signature (the finance owner's sign-off) to a certificate, rewriting it and its
Markdown rendering beside it; `verify` recomputes every subject's SHA-256 from the files (by default in the
certificate's directory) and checks every signature against the public keys given: done, or MISMATCH naming
each subject or key that does not match. A key file that cannot be used is a ConfigError (exit 2).
"""

from __future__ import annotations

from pathlib import Path

import click

from bridge.commands import Ending
from bridge.cutover.certificate import CertificateError, cosign, dumps, load_public_key, load_signing_key, loads, verify
from bridge.cutover.render import render_markdown
from bridge.files import write_private
from bridge.terminal import plain


def markdown_path(certificate: Path) -> Path:
    """Where the certificate's Markdown rendering lives: beside it, ``.md`` for its ``.json``."""
    return certificate.with_suffix(".md")


@click.group("cutover")
def cutover_group() -> None:
    """The cutover certificate: co-sign it, verify it offline against its files and public keys."""


@cutover_group.command("sign")
@click.argument("certificate", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "--key", "key_file", required=True, type=click.Path(path_type=Path), help="Ed25519 private key (PEM, 0600)."
)
def sign_command(certificate: Path, key_file: Path) -> Ending:
    """Add a signature to a certificate (a co-signature: the payload is untouched)."""
    key = load_signing_key(key_file)
    envelope = cosign(loads(certificate.read_bytes(), certificate), key)
    write_private(certificate, dumps(envelope), option="CERT")
    write_private(markdown_path(certificate), render_markdown(envelope).encode(), option="CERT")
    click.echo(f"signed {plain(str(certificate))}: {len(envelope.signatures)} signature(s)")
    return Ending.DONE


@cutover_group.command("verify")
@click.argument("certificate", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "--pubkey",
    "pubkeys",
    required=True,
    multiple=True,
    type=click.Path(path_type=Path),
    help="PEM public key (repeat).",
)
@click.option(
    "--files",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Directory holding the subjects (default: the certificate's).",
)
def verify_command(certificate: Path, pubkeys: tuple[Path, ...], files: Path | None) -> Ending:
    """Check a certificate offline: every subject's digest from its file and every signature."""
    keys = [load_public_key(path) for path in pubkeys]
    try:
        envelope = loads(certificate.read_bytes(), certificate)
    except CertificateError as error:
        click.echo(f"does not verify: {plain(str(error))}")
        return Ending.MISMATCH
    verdict = verify(envelope, files or certificate.parent, keys)
    for problem in verdict.problems:
        click.echo(f"does not match: {plain(problem)}")
    if not verdict.holds:
        return Ending.MISMATCH
    click.echo(f"verified: {len(verdict.subjects)} subject(s), {len(verdict.signers)} signature(s)")
    return Ending.DONE
