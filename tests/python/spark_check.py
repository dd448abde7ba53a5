"""Runs the team's SQL on Spark (pyspark, local mode) over a team dataset published to a
directory and compares every result row for row with `esker query --format json` over the same
dataset (docs/TEAM.md, "Spark").

Usage: spark_check.py ESKER_BIN DATASET_DIR QUERIES_DIR TEAM_MD STORE_FORMAT[,STORE_FORMAT...]
(with ESKER_CHECK_URL set, `esker query` reads that URL, the bucket DATASET_DIR mounts)

The tables are registered by the pyspark statements docs/TEAM.md (TEAM_MD) shows, run as
written: each table from the files of its Delta table's latest version (read with `deltalake`),
never from a listing of the directories, so a file no version holds (an old generation's, one
of a publish in progress) is not read. Those files must be exactly the files the machines'
manifests (`DATASET_DIR/_manifests/<machine>.json`, src/team/manifest.rs) name; a machine
whose manifest records another store format than the given ones (one that never wrote a Delta
log) is left out, as esker's readers leave it out (with a warning).

Prints one line per statement, then a JSON summary line ({"statements": n, "rows": total}).
Exits 1 at the first statement whose rows differ, printing both sides.
"""

import contextlib
import json
import math
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

# pyspark hands timestamps back as naive datetimes in the process's local time zone.
os.environ["TZ"] = "UTC"
time.tzset()
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql.types import DoubleType, FloatType, TimestampType  # noqa: E402

MANIFEST_FORMAT = 2


# --- Loading the dataset: the statements docs/TEAM.md shows -------------------------------


def manifest_files(root, store_formats):
    """{table: [absolute file path]} of the manifests whose store format is readable: the
    files the Delta tables' latest versions must hold (each publish commits its files to the
    Delta logs and names them in its manifest)."""
    tables = {}
    for manifest_path in sorted((Path(root) / "_manifests").glob("*.json")):
        manifest = json.loads(manifest_path.read_text())
        if manifest["store_format"] not in store_formats:
            print(
                f"left out: machine {manifest['machine']} published store format "
                f"{manifest['store_format']}",
                file=sys.stderr,
            )
            continue
        if manifest["manifest_format"] != MANIFEST_FORMAT:
            raise SystemExit(f"{manifest_path}: manifest format {manifest['manifest_format']}")
        for file in manifest["files"]:
            table = file["path"].split("/", 1)[0]
            tables.setdefault(table, []).append(f"{root}/{file['path']}")
    return tables


def register_tables_as_documented(spark, docs, root, store_formats):
    """Runs the ```python block of docs/TEAM.md's "### Spark" section as written, with its
    ROOT and STORE_FORMATS set to this dataset: its temporary views are the tables the
    statements read. Returns its {table: [file]}, which must be this check's own reading of
    the manifests."""
    section = docs.read_text().split("\n### Spark\n", 1)[1]
    block = section.split("```python\n", 1)[1].split("\n```", 1)[0]
    lines = []
    for line in block.splitlines():
        if line.startswith("ROOT = "):
            line = f"ROOT = {root!r}"
        elif line.startswith("STORE_FORMATS = "):
            line = f"STORE_FORMATS = {store_formats!r}"
        lines.append(line)
    namespace = {}
    # The block's own query prints a table: keep stdout for this check's lines.
    with contextlib.redirect_stdout(sys.stderr):
        exec(compile("\n".join(lines), f"{docs} (### Spark)", "exec"), namespace)
    if namespace.get("spark") is not spark:
        raise SystemExit("the documented statements did not use the running SparkSession")
    expected = manifest_files(root, store_formats)
    read = {table: sorted(map(local_path, paths)) for table, paths in namespace["files"].items()}
    if read != {table: sorted(paths) for table, paths in expected.items()}:
        raise SystemExit(f"docs/TEAM.md's statements read {read}, not {expected}")
    return expected


def local_path(uri):
    """A file URI or path of deltalake's `file_uris()` as a plain absolute path."""
    return os.path.normpath(uri.removeprefix("file://"))


def spark_session():
    return (
        SparkSession.builder.master("local[2]")
        .appName("esker-spark-check")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        # The SQL settings are those of docs/TEAM.md's block, which gets this session.
        .getOrCreate()
    )


# --- The statements -------------------------------------------------------------------------

# Named queries (queries/*.sql) take DataFusion placeholders ($1, $2, ...); both engines get
# the same literal values in their place. SPARK_DIALECT lists every rewrite the Spark text gets
# (DataFusion function -> Spark SQL function); docs/TEAM.md repeats it.
SPARK_DIALECT = [
    # to_char with strftime patterns -> date_format with Java patterns.
    ("to_char(e.timestamp, '%Y-%m-%d')", "date_format(e.timestamp, 'yyyy-MM-dd')"),
    (
        "to_char(date_trunc('week', e.timestamp), '%Y-%m-%d')",
        "date_format(date_trunc('week', e.timestamp), 'yyyy-MM-dd')",
    ),
    ("to_char(e.timestamp, '%Y-%m')", "date_format(e.timestamp, 'yyyy-MM')"),
    ("to_char(started_at, '%Y-%m')", "date_format(started_at, 'yyyy-MM')"),
    # strpos(string, substring) -> instr(string, substring) (both 1-based, 0 when absent).
    ("strpos(", "instr("),
    # encode(sha256(x), 'hex') -> sha2(x, 256) (lowercase hex in both).
    (
        "encode(sha256(coalesce(cwd, source_path)), 'hex')",
        "sha2(coalesce(cwd, source_path), 256)",
    ),
    # A scoped server's session set (src/query/session_set.rs); no set ('') admits every row.
    ("in_session_set(session_id, '')", "true"),
]


def named(*names):
    """The text of queries/<name>.sql, concatenated, without its comment lines (they name the
    placeholders)."""
    lines = []
    for name in names:
        text = (QUERIES / f"{name}.sql").read_text()
        lines.extend(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    return "\n".join(lines)


def bind(sql, parameters):
    """Replaces $1..$n with SQL literals (highest first: $10 before $1)."""
    for index in sorted(parameters, reverse=True):
        sql = sql.replace(f"${index}", parameters[index])
    assert "$" not in sql.replace("'$", ""), sql
    return sql


def for_spark(sql):
    for datafusion, spark in SPARK_DIALECT:
        sql = sql.replace(datafusion, spark)
    return sql


NEVER = "CAST('2000-01-01T00:00:00Z' AS TIMESTAMP)"


def statements(tables):
    """(name, esker SQL, Spark SQL) of every comparison. Each orders its rows totally."""
    plain = [
        (
            "events per machine and source",
            "SELECT machine, source, count(*) AS n FROM events "
            "GROUP BY machine, source ORDER BY machine, source",
        ),
        (
            "events per machine, source and month",
            "SELECT machine, source, month, count(*) AS n, count(DISTINCT session_id) AS sessions "
            "FROM events GROUP BY machine, source, month ORDER BY machine, source, month",
        ),
        (
            "rows per machine of turns, sessions and file_touches",
            "SELECT 'turns' AS tab, machine, count(*) AS n FROM turns GROUP BY machine "
            "UNION ALL SELECT 'sessions', machine, count(*) FROM sessions GROUP BY machine "
            "UNION ALL SELECT 'file_touches', machine, count(*) FROM file_touches GROUP BY machine "
            "ORDER BY tab, machine",
        ),
        (
            "sessions per project",
            "SELECT machine, coalesce(project, '(none)') AS project, count(*) AS sessions, "
            "sum(turn_count) AS turns, max(updated_at) AS last_active "
            "FROM sessions GROUP BY machine, coalesce(project, '(none)') ORDER BY machine, project",
        ),
        (
            # A sort key that can be null: both engines told where nulls go (their defaults
            # differ, docs/TEAM.md).
            "sessions per model",
            "SELECT machine, model, count(*) AS sessions, sum(total_tokens) AS total_tokens "
            "FROM sessions GROUP BY machine, model ORDER BY machine, model NULLS FIRST",
        ),
        (
            "token sums per machine and source (events)",
            "SELECT machine, source, sum(input_tokens) AS input_tokens, "
            "sum(cached_input_tokens) AS cached_input_tokens, sum(output_tokens) AS output_tokens, "
            "sum(reasoning_tokens) AS reasoning_tokens, sum(total_tokens) AS total_tokens, "
            "count(total_tokens) AS calls FROM events GROUP BY machine, source "
            "ORDER BY machine, source",
        ),
        (
            "token sums per machine and month (sessions joined to turns)",
            "SELECT s.machine, date_trunc('month', s.started_at) AS month, "
            "sum(t.total_tokens) AS turn_tokens, count(*) AS turns "
            "FROM sessions AS s JOIN turns AS t "
            "ON t.session_id = s.session_id AND t.machine = s.machine "
            "GROUP BY s.machine, date_trunc('month', s.started_at) ORDER BY 1, 2",
        ),
        ("every session, every column", "SELECT * FROM sessions ORDER BY session_id, machine"),
        (
            "every turn",
            "SELECT machine, turn_id, session_id, source, ordinal, completed, event_count, "
            "started_at, updated_at, total_tokens, user_input_text, tools_called "
            "FROM turns ORDER BY turn_id, machine",
        ),
        (
            "every event",
            "SELECT machine, source, month, event_id, session_id, seq, type, timestamp, "
            "timestamp_inferred, model, tool_name, exit_code, length(text) AS text_length, "
            "total_tokens FROM events ORDER BY event_id, machine",
        ),
    ]
    if "memories" in tables:
        plain.append(("every memory entry", "SELECT * FROM memories ORDER BY id, machine"))
    yield from ((name, sql, sql) for name, sql in plain)

    # queries/usage_by_key.sql, as `esker usage --by week` and `--by project --since 2000-01-01`.
    for key, since in (("'week'", "false"), ("'project'", "true")):
        sql = bind(
            named("usage_by_key"),
            {1: key, 2: since, 3: NEVER, 4: "false", 5: NEVER},
        )
        yield f"usage_by_key ({key})", sql, for_spark(sql)

    # queries/files_top.sql, 100 rows.
    sql = bind(named("files_top"), {1: "100"})
    yield "files_top", sql, for_spark(sql)

    # queries/relay_list_sessions.sql: cwd (or project) containing '/', unscoped.
    sql = bind(
        named("relay_list_sessions"),
        {1: "'/'", 2: "false", 3: NEVER, 4: "false", 5: NEVER, 6: "1000", 7: "false", 8: "''"},
    )
    yield "relay_list_sessions", sql, for_spark(sql)

    # queries/agtrace_sessions.sql + agtrace_projects.sql (get_project_info), unscoped.
    sql = bind(named("agtrace_sessions", "agtrace_projects"), {1: "false", 2: "''"})
    yield "agtrace_projects", sql, for_spark(sql)

    # queries/agtrace_sessions.sql + agtrace_list_sessions.sql, the first 50 of any source.
    sql = bind(
        named("agtrace_sessions", "agtrace_list_sessions"),
        {
            1: "false",
            2: "''",
            3: "''",
            4: "''",
            5: "false",
            6: NEVER,
            7: "false",
            8: NEVER,
            9: "false",
            10: NEVER,
            11: "''",
            12: "50",
        },
    )
    yield "agtrace_list_sessions", sql, for_spark(sql)


# --- Comparing ------------------------------------------------------------------------------


def esker_rows(sql):
    output = subprocess.run(
        [ESKER, "query", "--data-dir", DATASET_URL, "--format", "json", "--", sql],
        capture_output=True,
        text=True,
    )
    if output.returncode != 0:
        raise SystemExit(f"esker query failed ({output.returncode}): {output.stderr}\n{sql}")
    text = output.stdout.strip()
    return json.loads(text) if text else []


def epoch_micros(value):
    """A timestamp as microseconds since the epoch: esker's JSON gives RFC 3339 text, pyspark a
    naive datetime in UTC (TZ=UTC above)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    delta = value - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def same(kind, spark_value, esker_value):
    if isinstance(kind, TimestampType):
        return epoch_micros(spark_value) == epoch_micros(esker_value)
    if isinstance(kind, (DoubleType, FloatType)) and None not in (spark_value, esker_value):
        return math.isclose(spark_value, esker_value, rel_tol=1e-9)
    return spark_value == esker_value


def compare(name, esker_sql, spark_sql, spark):
    frame = spark.sql(spark_sql)
    fields = frame.schema.fields
    spark_rows = frame.collect()
    expected = esker_rows(esker_sql)
    problems = []
    if len(spark_rows) != len(expected):
        problems.append(f"{len(spark_rows)} rows on Spark, {len(expected)} from esker query")
    if not expected:
        problems.append("no rows: the comparison would prove nothing")
    names = {field.name for field in fields}
    for index, (spark_row, esker_row) in enumerate(zip(spark_rows, expected)):
        # esker's JSON leaves out null values; every key it has must be a Spark column.
        extra = set(esker_row) - names
        if extra:
            problems.append(f"row {index}: columns {sorted(extra)} not in Spark's result")
        for field in fields:
            spark_value = spark_row[field.name]
            esker_value = esker_row.get(field.name)
            if not same(field.dataType, spark_value, esker_value):
                problems.append(
                    f"row {index} column {field.name}: Spark {spark_value!r}, "
                    f"esker {esker_value!r}"
                )
        if len(problems) > 5:
            break
    if problems:
        print(f"DIFFERENT: {name}", file=sys.stderr)
        print(f"esker SQL:\n{esker_sql}\nSpark SQL:\n{spark_sql}", file=sys.stderr)
        for problem in problems[:6]:
            print(f"  {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"same rows ({len(expected)}): {name}")
    return len(expected)


def main():
    global ESKER, DATASET_URL, QUERIES
    esker, root, queries, docs, formats = sys.argv[1:6]
    ESKER = esker
    root = str(Path(root).resolve())
    # ESKER_CHECK_URL: where `esker query` reads the same dataset (the S3 bucket that
    # DATASET_DIR mounts), else the directory itself.
    DATASET_URL = os.environ.get("ESKER_CHECK_URL") or f"file://{root}"
    QUERIES = Path(queries)
    store_formats = {int(value) for value in formats.split(",")}

    started = time.monotonic()
    spark = spark_session()
    spark.sparkContext.setLogLevel("ERROR")
    tables = register_tables_as_documented(spark, Path(docs), root, store_formats)
    for table in ("events", "turns", "sessions", "file_touches"):
        if table not in tables:
            raise SystemExit(f"the manifests name no {table} files")
    total = 0
    count = 0
    for name, esker_sql, spark_sql in statements(tables):
        total += compare(name, esker_sql, spark_sql, spark)
        count += 1
    spark.stop()
    print(
        json.dumps(
            {
                "statements": count,
                "rows": total,
                "tables": {table: len(files) for table, files in sorted(tables.items())},
                "seconds": round(time.monotonic() - started, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
