"""AWS operations run through an SDK in code are judged as the CLI command that does the same:
the same verdict as ``aws … <operation>`` in a shell, reads left alone."""

from __future__ import annotations

import pytest

from humangr.contracts import ActionContext, Outcome, ToolCall
from humangr.engine.checks.registry import run_checks
from humangr.engine.checks.tools.code_aws_sdk import aws_sdk_commands
from humangr.engine.review import local_outcome


def _outcome(name: str, code: str) -> Outcome:
    call = ToolCall(name=name, arguments={"code": code}, workspace="/home/agent/src")
    action = ActionContext(
        agent_id="t", action_type="tool_call", action_description="", tool_call=call
    )
    return local_outcome(run_checks(action, local_only=True))[0]


_PY = "import boto3\n"
_JS = "import { S3Client, DeleteBucketCommand } from '@aws-sdk/client-s3';\n"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        (
            "run_python",
            _PY + "ec2 = boto3.client('ec2')\nec2.terminate_instances(InstanceIds=ids)\n",
        ),
        (
            "run_python",
            _PY + "boto3.client('rds').delete_db_instance(\n"
            "    DBInstanceIdentifier='orders', SkipFinalSnapshot=True)\n",
        ),
        (
            "run_python",
            _PY + "ddb = boto3.client('dynamodb', region_name='eu-west-1')\n"
            "ddb.delete_table(TableName='customers')\n",
        ),
        (
            "run_python",
            _PY + "trail = boto3.client('cloudtrail')\ntrail.stop_logging(Name='org')\n",
        ),
        (
            "run_javascript",
            _JS + "const s3 = new S3Client({});\n"
            "await s3.send(new DeleteBucketCommand({ Bucket: 'invoices' }));\n",
        ),
    ],
)
def test_destructive_sdk_calls_are_judged_as_their_cli_command(name: str, code: str) -> None:
    assert _outcome(name, code) is Outcome.REJECTED


@pytest.mark.parametrize(
    "code",
    [
        _PY + "s3 = boto3.client('s3')\nfor b in s3.list_buckets()['Buckets']:\n    print(b)\n",
        _PY + "ec2 = boto3.client('ec2')\nprint(ec2.describe_instances(MaxResults=5))\n",
        _PY + "s3 = boto3.client('s3')\ns3.put_object(Bucket='team', Key='q3.csv', Body=data)\n",
    ],
)
def test_reads_and_ordinary_writes_run(code: str) -> None:
    assert _outcome("run_python", code) is Outcome.APPROVED


def test_the_cli_names_are_the_sdks_own() -> None:
    code = (
        "import boto3\nrds = boto3.client('rds')\n"
        "rds.delete_db_instance(DBInstanceIdentifier='prod', SkipFinalSnapshot=True)\n"
    )
    assert aws_sdk_commands(code) == [
        "aws rds delete-db-instance --db-instance-identifier prod --skip-final-snapshot"
    ]
    assert aws_sdk_commands("print('no sdk here')") == []
