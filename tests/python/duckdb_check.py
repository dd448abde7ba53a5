"""Reads an esker data dir with DuckDB, as an offline user would: the Hive-partitioned events
table and the summary tables. Usage: duckdb_check.py DATA_DIR. Exits non-zero on failure."""

import sys

import duckdb


def main() -> int:
    current = f"{sys.argv[1]}/current"
    con = duckdb.connect()
    events = f"read_parquet('{current}/events/**/*.parquet', hive_partitioning = true)"
    by_source = dict(con.execute(f"SELECT source, count(*) FROM {events} GROUP BY source").fetchall())
    print("events by source:", by_source)
    missing = {"codex", "claude", "gemini"} - set(by_source)
    if missing:
        print("missing sources:", missing, file=sys.stderr)
        return 1
    timestamp_type = con.execute(f"SELECT typeof(timestamp) FROM {events} LIMIT 1").fetchone()[0]
    print("timestamp type:", timestamp_type)
    if "WITH TIME ZONE" not in timestamp_type.upper() and "TZ" not in timestamp_type.upper():
        print("timestamps must be UTC-adjusted, got", timestamp_type, file=sys.stderr)
        return 1
    months = con.execute(f"SELECT count(DISTINCT month) FROM {events}").fetchone()[0]
    sessions = con.execute(f"SELECT count(*) FROM read_parquet('{current}/sessions/*.parquet')").fetchone()[0]
    orphans = con.execute(
        f"SELECT count(*) FROM {events} e ANTI JOIN read_parquet('{current}/turns/*.parquet') t USING (turn_id)"
    ).fetchone()[0]
    print(f"months: {months}, sessions: {sessions}, events without a turn: {orphans}")
    if months < 1 or sessions < 1 or orphans != 0:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
