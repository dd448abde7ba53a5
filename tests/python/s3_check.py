"""S3 side of the team tests (tests/it/team.rs), against the moto server the test started.

Usage: s3_check.py ENDPOINT COMMAND [ARGS...]
  create-bucket NAME          create a bucket
  objects BUCKET              {key: [last_modified, etag]} of every object, as JSON
  all-objects                 every object of every bucket, as a JSON list of "bucket/key"
  manifest-files BUCKET KEY   the number of files an esker manifest names
  manifest BUCKET KEY         an esker manifest, as JSON
  pyarrow-counts PREFIX T...  {table: {machine: rows}} read with pyarrow's S3 filesystem and
                              hive partitioning (an engine esker did not write)
"""

import json
import os
import sys


def client(endpoint):
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "testing"),
        aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "testing"),
        region_name="us-east-1",
    )


def objects(s3, bucket):
    found = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            found[item["Key"]] = [item["LastModified"].isoformat(), item["ETag"]]
    return found


def pyarrow_counts(endpoint, prefix, tables):
    import pyarrow.dataset as ds
    from pyarrow import fs

    scheme, _, host = endpoint.partition("://")
    s3 = fs.S3FileSystem(
        access_key=os.environ.get("AWS_ACCESS_KEY_ID", "testing"),
        secret_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "testing"),
        endpoint_override=host,
        scheme=scheme,
        region="us-east-1",
    )
    counts = {}
    for table in tables:
        dataset = ds.dataset(
            f"{prefix}/{table}", filesystem=s3, format="parquet", partitioning="hive"
        )
        machines = dataset.to_table(columns=["machine"]).column("machine").to_pylist()
        per_machine = {}
        for machine in machines:
            per_machine[machine] = per_machine.get(machine, 0) + 1
        counts[table] = per_machine
    return counts


def main():
    endpoint, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    s3 = client(endpoint)
    if command == "create-bucket":
        s3.create_bucket(Bucket=args[0])
        result = "ok"
    elif command == "objects":
        result = objects(s3, args[0])
    elif command == "all-objects":
        result = [
            f"{bucket['Name']}/{key}"
            for bucket in s3.list_buckets().get("Buckets", [])
            for key in objects(s3, bucket["Name"])
        ]
    elif command == "manifest-files":
        body = s3.get_object(Bucket=args[0], Key=args[1])["Body"].read()
        result = len(json.loads(body)["files"])
    elif command == "manifest":
        result = json.loads(s3.get_object(Bucket=args[0], Key=args[1])["Body"].read())
    elif command == "pyarrow-counts":
        result = pyarrow_counts(endpoint, args[0], args[1:])
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
