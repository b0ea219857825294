"""The cutover certificate: issued, co-signed and verified offline; every tampered byte is named."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bridge.canonical import Json
from bridge.cli import cli
from bridge.cutover.certificate import (
    PAYLOAD_TYPE,
    PREDICATE_TYPE,
    dumps,
    issue,
    load_public_key,
    load_signing_key,
    loads,
    spec_digests,
    verify,
)
from bridge.cutover.render import render_markdown
from tests.support.keys import KeyPair, keypair

SUBJECTS = {
    "reconciliation.json": b'{"reconciled": true}\n',
    "plan.json": b'{"requests": 0}\n',
    "legacy-snapshot.root": b"ab" * 32 + b"\n",
    "v1-snapshot.root": b"cd" * 32 + b"\n",
    "sync-last-line.json": b'{"seq":"7"}\n',
}
BIG = 2**53 + 1


@pytest.fixture
def made(tmp_path: Path) -> tuple[Path, KeyPair, KeyPair]:
    """A certificate signed by the run's key over five subject files, and the approver's unused key pair."""
    keys = tmp_path / "keys"
    keys.mkdir()
    run, owner = keypair(keys, "run"), keypair(keys, "owner")
    out = tmp_path / "cert"
    out.mkdir()
    for name, data in SUBJECTS.items():
        (out / name).write_bytes(data)
    predicate: dict[str, Json] = {
        "verdict": {"reconciled": True, "money": [{"currency": "USD", "legacyMinor": BIG, "v1Minor": BIG}]},
        "freezeEnforced": False,
        "tool": {"version": "0.0.0", "specs": spec_digests()},
    }
    envelope = issue([out / name for name in SUBJECTS], predicate, load_signing_key(run.private))
    certificate = out / "cutover-p1.intoto.json"
    certificate.write_bytes(dumps(envelope))
    return certificate, run, owner


def _verify(certificate: Path, *keys: KeyPair) -> Result:
    pubkeys = [arg for key in keys for arg in ("--pubkey", str(key.public))]
    return CliRunner().invoke(cli, ["cutover", "verify", str(certificate), *pubkeys])


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


def test_an_issued_certificate_verifies(made: tuple[Path, KeyPair, KeyPair]) -> None:
    """Signed by the run's key, the certificate verifies offline with its public key: exit 0."""
    certificate, run, _ = made
    result = _verify(certificate, run)
    assert (result.exit_code, result.output) == (0, "verified: 5 subject(s), 1 signature(s)\n")


def test_verify_json_gives_the_verdict_for_a_machine(made: tuple[Path, KeyPair, KeyPair]) -> None:
    """`--json`: the verdict, the subjects and signers, and each problem, exit 0 or 1 as in text."""
    certificate, run, _ = made
    pubkey = ["--pubkey", str(run.public)]
    result = CliRunner().invoke(cli, ["cutover", "verify", str(certificate), *pubkey, "--json"])
    found = json.loads(result.output)
    assert (result.exit_code, found["verified"], found["problems"]) == (0, True, [])
    assert found["subjects"] == list(SUBJECTS)
    assert len(found["signers"]) == 1
    (certificate.parent / "plan.json").write_bytes(b'{"requests": 1}\n')
    result = CliRunner().invoke(cli, ["cutover", "verify", str(certificate), *pubkey, "--json"])
    found = json.loads(result.output)
    assert (result.exit_code, found["verified"]) == (1, False)
    assert found["problems"] == ["subject plan.json: the file's SHA-256 differs from the certificate's"]


def test_the_payload_is_an_in_toto_statement_with_integers_as_strings(made: tuple[Path, KeyPair, KeyPair]) -> None:
    """The DSSE payload is an in-toto Statement v1 whose integers past 2^53 survive as exact strings."""
    certificate, _, _ = made
    document = json.loads(certificate.read_bytes())
    assert document["payloadType"] == PAYLOAD_TYPE
    statement = json.loads(base64.b64decode(document["payload"]))
    assert (statement["_type"], statement["predicateType"]) == ("https://in-toto.io/Statement/v1", PREDICATE_TYPE)
    assert statement["predicate"]["verdict"]["money"][0]["legacyMinor"] == str(BIG)
    assert statement["predicate"]["freezeEnforced"] is False
    assert [subject["name"] for subject in statement["subject"]] == list(SUBJECTS)


@pytest.mark.parametrize("name", list(SUBJECTS))
def test_one_byte_changed_in_a_subject_names_it(made: tuple[Path, KeyPair, KeyPair], name: str) -> None:
    """Changing one byte of a subject file makes verify exit 1 naming that subject, and only it."""
    certificate, run, _ = made
    subject = certificate.parent / name
    subject.write_bytes(_flip(subject.read_bytes(), 0))
    result = _verify(certificate, run)
    assert result.exit_code == 1
    assert result.output == f"does not match: subject {name}: the file's SHA-256 differs from the certificate's\n"


def test_one_byte_changed_in_the_payload_names_the_signature(made: tuple[Path, KeyPair, KeyPair]) -> None:
    """A payload changed by one byte (still a Statement) no longer carries the run key's signature: exit 1."""
    certificate, run, _ = made
    document = json.loads(certificate.read_bytes())
    payload = base64.b64decode(document["payload"])
    payload = _flip(payload, payload.index(str(BIG).encode()))  # 9007... becomes 8007...: still a Statement
    document["payload"] = base64.b64encode(payload).decode()
    certificate.write_text(json.dumps(document))
    result = _verify(certificate, run)
    keyid = load_public_key(run.public).key.keyid
    assert result.exit_code == 1
    assert f"signature by key {keyid} ({run.public}): does not verify over the payload" in result.output


def test_one_byte_changed_anywhere_in_the_certificate_fails(made: tuple[Path, KeyPair, KeyPair]) -> None:
    """Whichever byte of the certificate file changes (structure, payload, key id, signature), verify exits 1."""
    certificate, run, _ = made
    original = certificate.read_bytes()
    for at in range(0, len(original), max(1, len(original) // 60)):
        certificate.write_bytes(_flip(original, at))
        result = _verify(certificate, run)
        assert (at, result.exit_code) == (at, 1), result.output
        assert result.output.startswith(("does not match: ", "does not verify: "))


def test_one_byte_changed_in_a_signature_names_the_key(made: tuple[Path, KeyPair, KeyPair]) -> None:
    """A signature with one byte changed does not verify: exit 1 naming its key."""
    certificate, run, _ = made
    document = json.loads(certificate.read_bytes())
    signature = base64.b64decode(document["signatures"][0]["sig"])
    document["signatures"][0]["sig"] = base64.b64encode(_flip(signature, 10)).decode()
    certificate.write_text(json.dumps(document))
    result = _verify(certificate, run)
    assert result.exit_code == 1
    assert "does not verify over the payload" in result.output
    assert str(run.public) in result.output


def test_a_co_signed_certificate_needs_both_keys(made: tuple[Path, KeyPair, KeyPair]) -> None:
    """Co-signed by the owner, the certificate verifies with both keys; with one, the other signer is named."""
    certificate, run, owner = made
    before = loads(certificate.read_bytes(), certificate).payload
    signed = CliRunner().invoke(cli, ["cutover", "sign", str(certificate), "--key", str(owner.private)])
    assert (signed.exit_code, signed.output) == (0, f"signed {certificate}: 2 signature(s)\n")
    assert loads(certificate.read_bytes(), certificate).payload == before
    assert "Cutover certificate" in certificate.with_suffix(".md").read_text()
    assert _verify(certificate, run, owner).exit_code == 0
    only_run = _verify(certificate, run)
    owner_id = load_public_key(owner.public).key.keyid
    assert only_run.exit_code == 1
    assert only_run.output == f"does not match: signature by key {owner_id}: no public key given for it (--pubkey)\n"
    extra = _verify(certificate, run, owner, keypair(certificate.parent, "stranger"))
    assert (extra.exit_code, "has not signed this certificate" in extra.output) == (1, True)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_key_file_others_can_read_is_refused(made: tuple[Path, KeyPair, KeyPair], mode: int) -> None:
    """A signing key readable by the group or the world is refused before use: exit 2 naming the file."""
    certificate, _, owner = made
    os.chmod(owner.private, mode)
    before = certificate.read_bytes()
    result = CliRunner().invoke(cli, ["cutover", "sign", str(certificate), "--key", str(owner.private)])
    assert result.exit_code == 2
    assert str(owner.private) in result.output
    assert "chmod 600" in result.output
    assert certificate.read_bytes() == before


def test_a_public_key_that_is_not_a_key_exits_2(made: tuple[Path, KeyPair, KeyPair]) -> None:
    """A --pubkey that holds no PEM public key is a usage error naming the file."""
    certificate, run, _ = made
    result = CliRunner().invoke(cli, ["cutover", "verify", str(certificate), "--pubkey", str(run.private)])
    assert result.exit_code == 2
    assert str(run.private) in result.output


def test_verify_takes_the_subjects_by_path_and_the_markdown_escapes_source_text(tmp_path: Path) -> None:
    """``verify`` accepts the subjects' paths; the Markdown escapes what the predicate carries from the source."""
    keys = keypair(tmp_path, "run")
    report = tmp_path / "reconciliation.json"
    report.write_bytes(b"{}")
    envelope = issue([report], {"project": "<b>[x](http://evil)</b>|"}, load_signing_key(keys.private))
    verdict = verify(envelope, [report], [load_public_key(keys.public)])
    assert (verdict.holds, verdict.subjects) == (True, ("reconciliation.json",))
    text = render_markdown(envelope, verdict)
    assert "<b>" not in text
    assert "&lt;b&gt;\\[x\\](http://evil)&lt;/b&gt;\\|" in text
    missing = verify(envelope, [], [load_public_key(keys.public)])
    assert missing.problems == ("subject reconciliation.json: no such file",)
