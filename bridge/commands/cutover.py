"""`bridge cutover`: a project's readiness (`check`), its declared freeze (`freeze`), the finalize that signs the
certificate (`finalize`), the certificate's co-signature (`sign`) and its offline check (`verify`).

`check` and `finalize` end DIFFERENCES (exit 1) naming what holds the cutover back; nothing is signed then.

`sign` adds the holder's signature (the finance owner's sign-off) to a certificate, rewriting it and its
Markdown rendering beside it; `verify` recomputes every subject's SHA-256 from the files (by default in the
certificate's directory) and checks every signature against the public keys given: done, or MISMATCH naming
each subject or key that does not match. A key file that cannot be used is a ConfigError (exit 2).
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import click
import uvloop

from bridge.commands import Ending
from bridge.commands.options import connection_options, settings_from
from bridge.commands.sync import duration
from bridge.config import Settings
from bridge.cutover.certificate import (
    CertificateError,
    Verdict,
    cosign,
    dumps,
    load_public_key,
    load_signing_key,
    loads,
    verify,
)
from bridge.cutover.finalize import CutoverRefused, Seams, finalize, freeze, readiness
from bridge.cutover.render import render_markdown
from bridge.errors import UsageError
from bridge.files import write_private
from bridge.sync.cycle import default_log
from bridge.sync.log import SyncLog
from bridge.terminal import plain


def markdown_path(certificate: Path) -> Path:
    """Where the certificate's Markdown rendering lives: beside it, ``.md`` for its ``.json``."""
    return certificate.with_suffix(".md")


@click.group("cutover")
def cutover_group() -> None:
    """Cut a project over: check readiness, declare the freeze, finalize with a signed certificate, verify it."""


def _project(options: dict[str, object]) -> tuple[Settings, str]:
    """The settings, and the one legacy project (``--project``) a cutover command is about."""
    settings = settings_from(options)
    if len(settings.projects) != 1:
        raise UsageError("name the one project to cut over with --project (a cutover is per project)")
    return settings, settings.projects[0]


@cutover_group.command("check")
@connection_options
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON, and nothing else.")
def check_command(as_json: bool, **options: object) -> Ending:
    """Readiness: no open conflict, quarantine empty, a plan of 0 requests, reconciled at zero tolerance."""
    settings, project = _project(options)
    checks, _ = uvloop.run(readiness(settings, project, Seams()))
    ready = all(check.holds for check in checks)
    if as_json:
        listed = [{"check": check.name, "holds": check.holds, "found": check.found} for check in checks]
        click.echo(json.dumps({"project": project, "ready": ready, "checks": listed}, indent=2))
        return Ending.DONE if ready else Ending.DIFFERENCES
    for check in checks:
        click.echo(plain(f"{'ok  ' if check.holds else 'NOT '} {check.name}: {check.found}"))
    if ready:
        click.echo(
            f"{plain(project)} is ready: declare the freeze with bridge cutover freeze --project {plain(project)}"
        )
        return Ending.DONE
    click.echo(f"{plain(project)} is not ready: {sum(not c.holds for c in checks)} of {len(checks)} checks fail")
    return Ending.DIFFERENCES


@cutover_group.command("freeze")
@connection_options
def freeze_command(**options: object) -> Ending:
    """Declare the project frozen on legacy now (declared and detected, not enforced: legacy has no lock)."""
    settings, project = _project(options)
    at = freeze(settings, project)
    click.echo(
        plain(
            f"{project} frozen at {at.isoformat()}: every legacy write after it is reported, and finalize refuses "
            "while there is one. The legacy surface cannot be locked: tell the people who write there."
        )
    )
    return Ending.DONE


@cutover_group.command("finalize")
@click.option("--quiet-period", default="10m", show_default=True, callback=duration, help="Time between the two reads.")
@click.option(
    "--key", "key_file", required=True, type=click.Path(path_type=Path), help="Ed25519 private key (PEM, 0600)."
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The certificate (default cutover-<project>.intoto.json).",
)
@click.option("--log", "log_path", type=click.Path(path_type=Path, dir_okay=False), help="The sync log.")
@connection_options
def finalize_command(
    quiet_period: timedelta, key_file: Path, out: Path | None, log_path: Path | None, **options: object
) -> Ending:
    """A last cycle, a second quiet read, verify at zero tolerance, then the signed certificate."""
    settings, project = _project(options)
    key = load_signing_key(key_file)
    target = out or Path(f"cutover-{project}.intoto.json")
    try:
        with SyncLog.open(log_path or default_log(settings)) as log:
            done = uvloop.run(
                finalize(settings, project, quiet=quiet_period, key=key, out=target, log=log, seams=Seams())
            )
    except CutoverRefused as refused:
        click.echo(f"not cut over: {plain(str(refused))}")
        return Ending.DIFFERENCES
    click.echo(
        plain(
            f"{project} cut over: certificate {done.certificate} over {len(done.subjects)} files; check it with "
            f"bridge cutover verify {done.certificate} --pubkey <public key>"
        )
    )
    return Ending.DONE


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
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON, and nothing else.")
def verify_command(certificate: Path, pubkeys: tuple[Path, ...], files: Path | None, as_json: bool) -> Ending:
    """Check a certificate offline: every subject's digest from its file and every signature."""
    keys = [load_public_key(path) for path in pubkeys]
    try:
        envelope = loads(certificate.read_bytes(), certificate)
    except CertificateError as error:
        verdict, said = Verdict((), (), (str(error),)), "does not verify"
    else:
        verdict, said = verify(envelope, files or certificate.parent, keys), "does not match"
    if as_json:
        found = {"verified": verdict.holds, "subjects": verdict.subjects, "signers": verdict.signers}
        click.echo(json.dumps(found | {"problems": verdict.problems}, indent=2))
        return Ending.DONE if verdict.holds else Ending.MISMATCH
    for problem in verdict.problems:
        click.echo(f"{said}: {plain(problem)}")
    if not verdict.holds:
        return Ending.MISMATCH
    click.echo(f"verified: {len(verdict.subjects)} subject(s), {len(verdict.signers)} signature(s)")
    return Ending.DONE
