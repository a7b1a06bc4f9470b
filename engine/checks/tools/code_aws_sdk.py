"""AWS calls made through an SDK in code, written as the CLI command that does the same, so
the shell rules judge them as they judge the command: boto3's ``client('ec2')
.terminate_instances(InstanceIds=[…])`` is ``aws ec2 terminate-instances --instance-ids …``,
and the JavaScript SDK's ``new DeleteBucketCommand({Bucket: 'prod'})`` sent by an
``S3Client`` is ``aws s3api delete-bucket --bucket prod``. The CLI names are the SDK's own
(an operation in snake or Pascal case is the CLI's kebab case; keyword arguments are its
options), so every operation the CLI rules know is known here too. Only operations that
change something are written (reads are everyday). Pure, bounded, never raises."""

from __future__ import annotations

import re
import shlex

__all__ = ["aws_sdk_commands"]

_MAX = 8
_MAX_ARGS = 2_000
_GATE = re.compile(r"boto3|@aws-sdk/|aws-sdk|Client\(")
_BOTO_CLIENT = re.compile(
    r"(?:(\w{1,64})\s*=\s*)?(?:boto3|session|\w{1,64}_session)\.client\(\s*[\"'](\w[\w-]{0,40})[\"']"
)
_CALL = re.compile(r"\b(\w{1,64})\s*\.\s*([a-z][a-z0-9_]{2,80})\s*\(")
_INLINE = re.compile(
    r"\.client\(\s*[\"'](\w[\w-]{0,40})[\"'][^()]{0,200}\)\s*\.\s*([a-z][a-z0-9_]{2,80})\s*\("
)
_JS_SERVICE = re.compile(r"@aws-sdk/client-([a-z0-9-]{1,40})|\bnew\s+(\w{1,40})Client\s*\(")
_JS_COMMAND = re.compile(r"\bnew\s+([A-Z]\w{2,80})Command\s*\(")
_CHANGES = re.compile(
    r"^(?:delete|terminate|remove|destroy|purge|stop|disable|deregister|detach|revoke|"
    r"attach|put|update|modify|create_access_key|create_login_profile|reset|restore|"
    r"empty|cancel|reboot|release|disassociate|schedule_key_deletion|deactivate)"
)
_KWARG = re.compile(
    r"\b([A-Z]\w{0,63})\s*[=:]\s*(\"[^\"]{0,512}\"|'[^']{0,512}'|True|true|[\w.-]{1,128})"
)
_CLI_SERVICE = {"s3": "s3api", "lambda": "lambda", "logs": "logs"}


def _kebab(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name)
    return spaced.replace("_", "-").lower()


def _options(region: str) -> list[str]:
    words: list[str] = []
    for key, value in _KWARG.findall(region[:_MAX_ARGS]):
        option = f"--{_kebab(key)}"
        if value in ("True", "true"):
            words.append(option)
        else:
            words += [option, value.strip("\"'")]
    return words


def _region(code: str, start: int) -> str:
    """The text of a call's arguments from ``start`` (just after its ``(``), bounded."""
    depth, end = 1, start
    for end in range(start, min(len(code), start + _MAX_ARGS)):
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        if depth == 0:
            break
    return code[start:end]


def _command(service: str, operation: str, region: str) -> str | None:
    if not _CHANGES.match(operation.replace("-", "_")):
        return None
    cli = _CLI_SERVICE.get(service, service)
    return shlex.join(["aws", cli, _kebab(operation), *_options(region)])


def aws_sdk_commands(code: str) -> list[str]:
    """The AWS operations that change something in ``code``, each as its CLI command."""
    if not _GATE.search(code):
        return []
    out: list[str] = []
    clients = {m.group(1): m.group(2).lower() for m in _BOTO_CLIENT.finditer(code) if m.group(1)}
    for m in _CALL.finditer(code):
        service = clients.get(m.group(1))
        if service is not None and len(out) < _MAX:
            command = _command(service, m.group(2), _region(code, m.end()))
            if command is not None:
                out.append(command)
    for m in _INLINE.finditer(code):
        if len(out) < _MAX:
            command = _command(m.group(1).lower(), m.group(2), _region(code, m.end()))
            if command is not None:
                out.append(command)
    js = next((g for m in _JS_SERVICE.finditer(code) for g in m.groups() if g), None)
    if js is not None:
        for m in _JS_COMMAND.finditer(code):
            if len(out) < _MAX:
                operation = _kebab(m.group(1))
                command = _command(js.lower(), operation, _region(code, m.end()))
                if command is not None:
                    out.append(command)
    return out
