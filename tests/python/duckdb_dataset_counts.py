"""Reads a team dataset published to a directory with DuckDB, as docs/TEAM.md shows (a view
over read_parquet with hive partitioning). Usage: duckdb_dataset_counts.py DATASET_DIR TABLE...
Prints {table: {machine: rows}} as JSON."""

import json
import sys

import duckdb

# Directory levels below each table: events is machine/source/month, the others machine.
GLOBS = {"events": "*/*/*/*.parquet"}


def main() -> None:
    root, tables = sys.argv[1], sys.argv[2:]
    con = duckdb.connect()
    counts = {}
    for table in tables:
        files = f"{root}/{table}/{GLOBS.get(table, '*/*.parquet')}"
        rows = con.execute(
            f"SELECT machine, count(*) FROM read_parquet('{files}', hive_partitioning = true) "
            "GROUP BY machine"
        ).fetchall()
        counts[table] = {machine: count for machine, count in rows}
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
