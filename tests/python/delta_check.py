"""Reads a team dataset's tables as Delta Lake tables with the `deltalake` package (delta-rs's
Python reader, an engine esker did not write) for the team tests (tests/it/team/delta.rs).

Usage: delta_check.py URL COMMAND [ARGS...]
  counts TABLE...        {table: {machine: rows}} of each table's latest version
  event-ids              every event_id of `events`, sorted
  versions TABLE         [{"version", "files": {machine: [path]}, "txn": {machine: generation}}]
                         for every version of the table's log, oldest first (the generation
                         is the machine's `esker-<machine>` transaction version)
  schema TABLE           {"columns": {name: type}, "partitions": [name]}

For s3:// URLs the moto endpoint and keys come from AWS_ENDPOINT and the AWS_* variables.
"""

import json
import os
import sys

import pyarrow
from deltalake import DeltaTable


def storage_options(url):
    if not url.startswith("s3://"):
        return None
    return {
        "AWS_ENDPOINT_URL": os.environ["AWS_ENDPOINT"],
        "AWS_ACCESS_KEY_ID": os.environ["AWS_ACCESS_KEY_ID"],
        "AWS_SECRET_ACCESS_KEY": os.environ["AWS_SECRET_ACCESS_KEY"],
        "AWS_REGION": os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
        "AWS_ALLOW_HTTP": "true",
    }


def table(url, name, version=None):
    return DeltaTable(f"{url}/{name}", version=version, storage_options=storage_options(url))


def counts(url, tables):
    found = {}
    for name in tables:
        rows = table(url, name).to_pyarrow_table(columns=["machine"]).column("machine")
        per_machine = {}
        for machine in rows.to_pylist():
            per_machine[machine] = per_machine.get(machine, 0) + 1
        found[name] = per_machine
    return found


def event_ids(url):
    ids = table(url, "events").to_pyarrow_table(columns=["event_id"]).column("event_id")
    return sorted(ids.to_pylist())


def files_by_machine(delta):
    files = {}
    # deltalake 1.x hands back an arro3 table: pyarrow takes it through the Arrow C interface.
    for action in pyarrow.table(delta.get_add_actions(flatten=True)).to_pylist():
        machine = action["partition.machine"]
        files.setdefault(machine, []).append(action["path"])
    return {machine: sorted(paths) for machine, paths in files.items()}


def versions(url, name):
    latest = table(url, name).version()
    history = []
    for version in range(latest + 1):
        delta = table(url, name, version=version)
        files = files_by_machine(delta)
        txn = {
            machine: delta.transaction_version(f"esker-{machine}") for machine in files
        }
        history.append({"version": version, "files": files, "txn": txn})
    return history


def schema(url, name):
    delta = table(url, name)
    fields = json.loads(delta.schema().to_json())["fields"]
    return {
        "columns": {field["name"]: field["type"] for field in fields},
        "partitions": delta.metadata().partition_columns,
    }


def main():
    url, command, *args = sys.argv[1:]
    url = url.rstrip("/")
    if command == "counts":
        result = counts(url, args)
    elif command == "event-ids":
        result = event_ids(url)
    elif command == "versions":
        result = versions(url, args[0])
    elif command == "schema":
        result = schema(url, args[0])
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(result, sort_keys=True), flush=True)
    # pyarrow's S3 client threads can abort the interpreter's exit ("terminate called without
    # an active exception"): the answer is out, leave without the teardown.
    os._exit(0)


if __name__ == "__main__":
    main()
