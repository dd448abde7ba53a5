#!/usr/bin/env python3
"""Writes the planted-fact corpus of the recall-quality bench (issue #52).

The committed files are what the bench reads; this script is how they were made, so that a
fact or a prompt is added by editing the tables below and running it again:

    python3 benches/recall_quality/make_corpus.py

It writes, next to itself:

- ``home/``: past sessions of four projects in the harnesses' own on-disk formats, laid out as
  they are under a home directory: Claude Code transcripts
  (``.claude/projects/<slug>/<uuid>.jsonl``), Codex rollouts
  (``.codex/sessions/YYYY/MM/DD/rollout-...jsonl``) and Gemini CLI chats
  (``.gemini/tmp/<sha256 of the project root>/chats/session-...json`` and ``.jsonl``). The
  record shapes are those of ``tests/fixtures/{claude,codex,gemini}``.
- ``prompts.toml``: the facts (each found by a marker string that occurs in its session and
  nowhere else) and the prompts (each with the working directory it is asked from and the fact
  it needs, or none).

Everything is deterministic (ids are UUID5 of the session key), so a re-run rewrites the same
bytes. The script checks that every marker occurs in exactly one session, that no prompt holds
its fact's marker, and that every fact has a prompt.
"""

import hashlib
import json
import shutil
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOME = HERE / "home"
NAMESPACE = uuid.UUID("6f1c2b0e-52aa-4c1e-9d0b-0e5c4a7d2f52")

ROOT = "/home/mara/src"
PROJECTS = {
    "ledger": f"{ROOT}/ledger-api",
    "tidepool": f"{ROOT}/tidepool",
    "atlas": f"{ROOT}/atlas-web",
    "infra": f"{ROOT}/infra-live",
}
# A project with no past sessions at all (for prompts that can find nothing of their own).
EMPTY_PROJECT = f"{ROOT}/harbor-notes"


def say(text):
    return ("say", text)


def run(lead, command, output, exit_code=0):
    return ("run", lead, command, output, exit_code)


# Each session: key, harness, project, start (UTC), turns [(prompt, [steps])].
# Facts are written into the sessions' text; FACTS below names each by its marker.
SESSIONS = [
    # ---------------------------------------------------------------- ledger-api
    ("L01", "claude", "ledger", "2026-01-08T09:12:00", [
        ("The ledger-api staging deploy can't reach the database: `psycopg.OperationalError: connection refused` on 5432. Can you check the staging settings?", [
            run("Let me look at the staging database URL first.",
                "grep -n DATABASE_URL deploy/staging.env",
                "3:DATABASE_URL=postgresql://ledger@pg-stg.internal:5432/ledger"),
            run("The URL uses 5432. I'll check which ports are open on the staging host.",
                "nc -zv pg-stg.internal 5432; nc -zv pg-stg.internal 6543",
                "nc: connect to pg-stg.internal (10.20.4.11) 5432 (tcp) failed: Connection refused\nConnection to pg-stg.internal (10.20.4.11) 6543 (tcp) succeeded!"),
            say("Found it: the staging Postgres for ledger-api listens on port 6543, because PgBouncer sits in front of it; 5432 is closed on pg-stg.internal. I changed DATABASE_URL in deploy/staging.env to the PgBouncer port and the health check passes."),
        ]),
        ("Thanks. Put that in the README so nobody trips over it again.", [
            say("Added a \"Staging database\" section to README.md: connect through PgBouncer on pg-stg.internal, never directly to the Postgres port."),
        ]),
    ]),
    ("L02", "claude", "ledger", "2026-01-15T14:03:00", [
        ("Dependabot wants to bump celery to 5.4.0 again. Didn't we have a problem with that? Check the history of requirements/base.txt.", [
            run("I'll look for the commits that changed the celery line.",
                "git log -S'celery==' --oneline -- requirements/base.txt",
                "a41c9e2 Pin celery: 5.4.0 breaks long ETA tasks\n7be0d13 Bump celery from 5.3.6 to 5.4.0"),
            say("Yes. We pinned celery to 5.3.6 because 5.4.0 broke the Redis visibility_timeout handling for tasks with a long ETA: the scheduled payout reminders were redelivered every hour and ran twice. I closed the Dependabot PR and added an ignore rule for celery >= 5.4 to .github/dependabot.yml."),
        ]),
    ]),
    ("L03", "codex", "ledger", "2026-01-20T10:41:00", [
        ("How should I ship the new `ledger_entries.reversal_of` column to production? Write the alembic migration and tell me the rollout steps.", [
            run("I'll generate the revision file first.",
                "alembic revision -m \"add reversal_of to ledger_entries\"",
                "Generating /home/mara/src/ledger-api/migrations/versions/5c2f1a9e7b3d_add_reversal_of_to_ledger_entries.py ...  done"),
            say("Migration written: it adds `reversal_of` as a nullable foreign key to `ledger_entries.id` with an index created concurrently. For production we never run alembic against the database directly: run `alembic upgrade head --sql > out.sql` (offline mode) and attach the SQL to an ops ticket; the DBA applies it by hand in the Tuesday window. That process was agreed in OPS-2291."),
        ]),
    ]),
    ("L04", "claude", "ledger", "2026-01-27T16:20:00", [
        ("test_reconcile_batches fails about one run in ten on CI with a mismatched batch total. Please find out why.", [
            run("I'll run it repeatedly to reproduce.",
                "pytest tests/test_reconcile.py::test_reconcile_batches --count 20 -q",
                "....F.......F.......\nFAILED tests/test_reconcile.py::test_reconcile_batches - AssertionError: batch totals ['EUR', 'USD'] != ['USD', 'EUR']\n2 failed, 18 passed in 4.81s", 1),
            say("The batches are built by iterating the currency map, which is filled from a set, so their order changes between runs. I made `build_batches` iterate the currencies sorting by ISO code (`sorted(currency_map, key=lambda c: c.iso_code)`); 50 runs in a row pass now."),
        ]),
    ]),
    ("L05", "claude", "ledger", "2026-02-03T08:55:00", [
        ("We got a burst of 429s from our own nginx on the Stripe webhook endpoint last night. What limit is configured there?", [
            run("I'll look at the nginx config for the webhook location.",
                "grep -n -A3 'stripe' deploy/nginx/ledger.conf",
                "12:limit_req_zone $binary_remote_addr zone=stripe_hooks:10m rate=40r/s;\n48:location /webhooks/stripe {\n49:    limit_req zone=stripe_hooks burst=80 nodelay;\n50:    proxy_pass http://ledger_app;"),
            say("The Stripe webhook endpoint is limited to 40 requests per second per IP (zone `stripe_hooks`, burst 80). Last night Stripe retried a backlog of events and went above the burst. I kept the rate and raised the burst to 200 so retries queue instead of failing."),
        ]),
    ]),
    ("L06", "codex", "ledger", "2026-02-05T11:07:00", [
        ("Finance reports that a 0.125 EUR fee was shown as 0.13 in the statement but booked as 0.12. Which one is right?", [
            run("I'll check how amounts are quantized.",
                "rg -n \"quantize\" ledger/money.py",
                "31:    return amount.quantize(CENT, rounding=ROUND_HALF_EVEN)\n58:    return amount.quantize(CENT, rounding=ROUND_HALF_UP)"),
            say("The booking is right. Ledger amounts are rounded with ROUND_HALF_EVEN (banker's rounding), as finance (Ines) asked when the ledger launched; `format_statement_amount` at ledger/money.py:58 used half-up, so statements disagreed with the books. I switched it to the same mode and added a test for 0.125 -> 0.12."),
        ]),
    ]),
    ("L07", "claude", "ledger", "2026-02-10T13:30:00", [
        ("Turn on the new FX rate provider for the tenant initech as well. FYI the payouts module is owned by Priya, so ask her before touching anything under ledger/payouts.", [
            run("I'll find where the provider is switched on.",
                "grep -rn -A2 \"fx_provider\" config/flags.yaml",
                "4:fx_provider_v2:\n5:  enabled_tenants: [acme, globex]"),
            say("The new FX rate provider is behind the flag `fx_provider_v2`, enabled for tenants acme and globex so far. I added initech to `enabled_tenants` in config/flags.yaml. Nothing under ledger/payouts changed, so this needs no payouts review."),
        ]),
    ]),
    ("L08", "claude", "ledger", "2026-02-14T07:48:00", [
        ("The reconciliation report for yesterday is empty. Did the nightly job run before the bank file arrived?", [
            run("Let me see when the job is scheduled.",
                "grep -n -B1 -A3 \"reconcile_nightly\" ledger/celery_beat.py",
                "18:    \"reconcile-nightly\": {\n19:        \"task\": \"ledger.tasks.reconcile_nightly\",\n20:        \"schedule\": crontab(hour=2, minute=15),\n21:    },"),
            say("Yes. The nightly reconciliation job runs at 02:15 UTC from celery beat, 45 minutes after the bank's SFTP drop at 01:30. Yesterday the bank file landed at 02:40, so the job found nothing. I added a retry every 15 minutes until 05:00 when the file is missing."),
        ]),
    ]),
    ("L09", "codex", "ledger", "2026-02-18T15:02:00", [
        ("Integration tests fail locally with `extension \"citext\" is not available`. What image are the tests supposed to use?", [
            run("I'll look at the test container setup.",
                "rg -n \"PostgresContainer\" tests/conftest.py",
                "14:    with PostgresContainer(\"postgres:16.2\") as pg:"),
            say("Someone bumped the test container to 16.2. Integration tests use testcontainers with postgres:15.6-alpine: version 16 broke the citext extension install in our init script. I put the image back and added a comment next to it in tests/conftest.py."),
        ]),
    ]),
    ("L10", "claude", "ledger", "2026-02-24T10:16:00", [
        ("I need to run scripts/import_statements.py locally against my dev database, but it keeps calling the audit service. Can I turn that off?", [
            run("I'll check how the script decides to call the audit service.",
                "rg -n \"environ\" scripts/import_statements.py",
                "22:    if os.environ.get(\"LEDGER_SKIP_AUDIT_HOOK\") == \"1\":\n23:        if settings.ENV == \"prod\":\n24:            raise RuntimeError(\"audit hook cannot be skipped in prod\")"),
            say("Yes: set LEDGER_SKIP_AUDIT_HOOK=1 to run the import without the audit hook. The script refuses it when ENV is prod, so it is safe for local runs, e.g. `LEDGER_SKIP_AUDIT_HOOK=1 python scripts/import_statements.py --file sample.csv`."),
        ]),
    ]),
    ("L11", "claude", "ledger", "2026-03-02T09:05:00", [
        ("How do I deploy my branch of ledger-api to staging?", [
            run("I'll look at the Makefile targets.",
                "grep -n -A2 \"deploy\" Makefile",
                "41:deploy-staging:\n42:\thelm upgrade --install ledger charts/ledger -f charts/ledger/values-staging.yaml --set image.tag=$(GIT_SHA)"),
            say("Run `make deploy-staging` from your branch: it upgrades the `ledger` Helm release on staging with your commit's image tag, so CI must have pushed the image for that commit first."),
        ]),
        ("And I need debug logs on staging while I test.", [
            say("Set LEDGER_LOG_LEVEL=debug in the env section of charts/ledger/values-staging.yaml and deploy again; the app reads LEDGER_LOG_LEVEL, not LOG_LEVEL. Remove it when you are done, debug logs include request bodies."),
        ]),
    ]),
    # ledger-api distractors: the same words, not the facts.
    ("L12", "claude", "ledger", "2026-03-05T11:40:00", [
        ("I need to look at a slow query on the production Postgres read replica. How do I connect from my laptop?", [
            run("I'll forward the replica service to a local port.",
                "kubectl -n ledger port-forward svc/pg-replica 5433:5432",
                "Forwarding from 127.0.0.1:5433 -> 5432\nForwarding from [::1]:5433 -> 5432"),
            say("The read replica is forwarded to localhost:5433. Connect with `psql -h localhost -p 5433 -U readonly ledger`; the readonly role can run EXPLAIN ANALYZE but not write."),
        ]),
    ]),
    ("L13", "codex", "ledger", "2026-03-07T16:12:00", [
        ("The celery workers get OOM-killed every few hours. Can you tune them?", [
            run("I'll check the worker command line.",
                "rg -n \"celery.*worker\" deploy/worker.Procfile",
                "1:worker: celery -A ledger worker --concurrency 8 -l info"),
            say("Each worker process keeps the parsed bank statements in memory. I set `--concurrency 4 --max-tasks-per-child 200` so processes are recycled, and moved the Redis result backend expiry to one hour. Memory is flat over the afternoon now."),
        ]),
    ]),
    ("L14", "claude", "ledger", "2026-03-09T10:22:00", [
        ("alembic autogenerate keeps producing migrations that change server defaults on every column. Can you stop that?", [
            run("I'll look at the alembic env configuration.",
                "grep -n \"compare_\" migrations/env.py",
                "37:        compare_type=True,\n38:        compare_server_default=True,"),
            say("`compare_server_default=True` compares the rendered defaults textually, and Postgres renders `now()` as `CURRENT_TIMESTAMP`. I replaced it with a small comparator that normalizes both sides; autogenerate produces an empty migration on main now."),
        ]),
    ]),
    ("L15", "claude", "ledger", "2026-03-11T14:50:00", [
        ("test_payout_schedule is flaky on CI, it fails around midnight. Fix it please.", [
            run("I'll run it with the clock set near midnight.",
                "pytest tests/test_payouts.py::test_payout_schedule -q",
                "F\nFAILED tests/test_payouts.py::test_payout_schedule - AssertionError: expected next payout 2026-03-12, got 2026-03-13\n1 failed in 0.91s", 1),
            say("The test computed the expected date from the wall clock while the schedule used UTC. I froze time with freezegun in the test and made the schedule take an explicit `now`; it passes at any hour."),
        ]),
    ]),
    # ---------------------------------------------------------------- tidepool
    ("T01", "codex", "tidepool", "2026-01-09T10:00:00", [
        ("cargo update wants tokio 1.39 and the graceful drain test hangs with it. Investigate.", [
            run("I'll run the drain test with the update applied.",
                "cargo test --test drain -- --nocapture",
                "running 1 test\ntest drain_waits_for_inflight has been running for over 60 seconds"),
            say("Tokio 1.39 changed the shutdown ordering of `spawn_blocking` tasks: the runtime now waits for them before our drain hook runs, so the drain test hangs. We pinned tokio to 1.38 in Cargo.toml (`tokio = \"~1.38\"`) until the drain logic stops relying on the old order; I left a TODO with the upstream issue."),
        ]),
    ]),
    ("T02", "codex", "tidepool", "2026-01-16T13:25:00", [
        ("The tidepool staging migration job times out connecting to Postgres. Check the connection settings.", [
            run("I'll look at the staging config.",
                "rg -n \"database_url\" deploy/staging/config.toml",
                "7:database_url = \"postgres://tidepool@tidepool-stg.cluster-ro.example.internal:5432/tidepool\""),
            say("tidepool's staging Postgres runs on port 5439, behind the shared RDS proxy; 5432 is only open inside the database subnet. I changed database_url in deploy/staging/config.toml to the proxy port and the migration job connects now."),
        ]),
    ]),
    ("T03", "codex", "tidepool", "2026-01-23T09:30:00", [
        ("SnapshotService.Fetch fails with `message length too large: found 9437184 bytes, the limit is: 4194304 bytes`. Fix it.", [
            run("I'll find where the snapshot client and server are built.",
                "rg -n \"SnapshotServiceServer::new|SnapshotServiceClient::connect\" src/",
                "src/server.rs:58:    let snapshots = SnapshotServiceServer::new(snapshot_service);\nsrc/client/mod.rs:31:    let client = SnapshotServiceClient::connect(endpoint).await?;"),
            say("I raised the tonic max decoding message size to 16 MiB for the snapshot RPC (`.max_decoding_message_size(16 * 1024 * 1024)` on both the server and the client); the 4 MiB default was too small for the snapshots of large tenants."),
        ]),
    ]),
    ("T04", "claude", "tidepool", "2026-01-30T15:45:00", [
        ("clippy warns about large_enum_variant on `Frame` in src/wire.rs. Should we box the Data variant?", [
            run("I boxed `Frame::Data`; let me measure it with the wire bench.",
                "cargo bench --bench wire -- frame_roundtrip",
                "frame_roundtrip         time:   [412.3 ns 415.8 ns 419.9 ns]\n                        change: [+8.7% +9.1% +9.6%] (p = 0.00 < 0.05)\n                        Performance has regressed."),
            say("Boxing `Frame::Data` cost 9% throughput in the frame round-trip bench, so I reverted it and allowed the lint instead: `#[allow(clippy::large_enum_variant)]` on `Frame`, with a comment pointing at the bench."),
        ]),
    ]),
    ("T05", "codex", "tidepool", "2026-02-02T11:10:00", [
        ("The ingest bench numbers jump by 15% between runs. How should I run it?", [
            run("I'll try longer warm-up and measurement times.",
                "cargo bench --bench ingest -- --warm-up-time 5 --measurement-time 30",
                "ingest/10k_events       time:   [18.201 ms 18.244 ms 18.290 ms]"),
            say("Run it as `cargo bench --bench ingest -- --warm-up-time 5 --measurement-time 30`: with criterion's defaults (3 s warm-up, 5 s measurement) the runs are noise on a laptop, with these the spread is under 1%. I wrote the command into BENCHMARKS.md."),
        ]),
    ]),
    ("T06", "codex", "tidepool", "2026-02-06T14:33:00", [
        ("A contributor's PR fails on the minimum-version CI job. What's our supported Rust version, and why that one?", [
            run("I'll read the manifest.",
                "grep -n rust-version Cargo.toml",
                "6:rust-version = \"1.80\""),
            say("Our MSRV is 1.80 because we use `std::sync::LazyLock` (stable since 1.80) for the codec registry. The PR fails because it uses `core::error::Error`, stable only in 1.81; I suggested `std::error::Error` instead."),
        ]),
    ]),
    ("T07", "codex", "tidepool", "2026-02-12T08:20:00", [
        ("tidepool's RSS grows by about 200 MB a day in production until the pod is OOM-killed. Find the leak.", [
            run("I'll look for unbounded caches.",
                "rg -n \"Cache::builder\" src/",
                "src/resolve.rs:27:        let cache = Cache::builder().time_to_idle(Duration::from_secs(3600)).build();"),
            say("Not a leak: the `moka` tenant resolution cache in src/resolve.rs had no max_capacity, only a time-to-idle, so every tenant id seen within an hour stayed cached. I capped it at 50_000 entries (`.max_capacity(50_000)`), which holds all active tenants."),
        ]),
    ]),
    ("T08", "claude", "tidepool", "2026-02-16T10:05:00", [
        ("The musl release build fails to link with `undefined reference to __memalign_hook`. What's going on?", [
            run("I'll check which allocator the release build enables.",
                "grep -n -A3 \"\\[features\\]\" Cargo.toml",
                "31:[features]\n32:default = [\"jemalloc\", \"tls\"]\n33:jemalloc = [\"dep:tikv-jemallocator\"]\n34:tls = [\"dep:rustls\"]"),
            say("jemalloc does not link statically against musl here. jemalloc is behind the `jemalloc` cargo feature, on by default but now off on musl builds: the release workflow builds x86_64-unknown-linux-musl with `--no-default-features --features tls`, so that target uses the system allocator."),
        ]),
    ]),
    ("T09", "codex", "tidepool", "2026-02-20T16:40:00", [
        ("Prometheus can't scrape tidepool. Which port does the metrics endpoint listen on inside the pod?", [
            run("I'll list the listening sockets in the pod.",
                "kubectl -n tidepool exec deploy/tidepool -- ss -ltnp",
                "State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nLISTEN 0      1024        0.0.0.0:8080      0.0.0.0:*     users:((\"tidepool\",pid=1,fd=9))\nLISTEN 0      1024        0.0.0.0:9464      0.0.0.0:*     users:((\"tidepool\",pid=1,fd=11))"),
            say("The pod listens on 8080 (gRPC) and on the OpenTelemetry Prometheus exporter's default port for metrics. The ServiceMonitor pointed at 9090; I fixed the port in deploy/servicemonitor.yaml and the target is up."),
        ]),
    ]),
    ("T10", "codex", "tidepool", "2026-02-26T12:15:00", [
        ("When the upstream restarts, all tidepool clients reconnect at the same moment. What backoff do we use?", [
            run("I'll read the reconnect loop.",
                "rg -n \"backoff\" src/client/reconnect.rs",
                "18:    let backoff = ExponentialBuilder::default()\n19:        .with_min_delay(Duration::from_millis(200))\n20:        .with_max_delay(Duration::from_secs(30));"),
            say("Reconnect backoff is exponential from 200 ms, capped at 30 s, but without jitter, so the clients stay in lockstep after a restart. I added full jitter (`.with_jitter()`), which spreads the reconnects over the window."),
        ]),
    ]),
    ("T11", "codex", "tidepool", "2026-03-03T09:50:00", [
        ("CI fails in build.rs with `Could not find protoc`. How did this work before?", [
            run("I'll see how build.rs finds protoc.",
                "rg -n \"protoc\" build.rs crates/proto-gen/build.rs",
                "build.rs:4:    std::env::set_var(\"PROTOC\", protoc_bin_vendored::protoc_bin_path().unwrap());\ncrates/proto-gen/build.rs:3:    prost_build::compile_protos(&[\"proto/snapshot.proto\"], &[\"proto\"])?;"),
            say("The main build.rs takes protoc from protoc-bin-vendored (protoc 25.3 as a build dependency), so CI needs no system protoc; the new `proto-gen` crate called prost_build without setting PROTOC. I set it there the same way."),
        ]),
        ("Also, how do I get debug logs from the service locally without all the tower noise?", [
            say("Run it with `RUST_LOG=tidepool=debug,tower=warn cargo run`: the service uses tracing-subscriber's EnvFilter, so you get tidepool's debug events and only warnings from tower."),
        ]),
    ]),
    # tidepool distractors
    ("T12", "codex", "tidepool", "2026-03-06T10:30:00", [
        ("Upgrade tonic to 0.12 and prost to 0.13. The build breaks in the generated code.", [
            run("I'll build to see the errors.",
                "cargo build 2>&1 | head -5",
                "error[E0432]: unresolved import `tonic::transport::Server`\n  --> src/server.rs:4:5", 101),
            say("tonic 0.12 moved the transport behind the `transport` feature. I enabled it, regenerated the protobuf code with tonic-build 0.12, and the gRPC message types compile again; all tests pass."),
        ]),
    ]),
    ("T13", "codex", "tidepool", "2026-03-08T15:05:00", [
        ("I want to see what the tokio tasks are doing when the service stalls. Can we add tokio-console?", [
            say("Added `console-subscriber` behind a `console` cargo feature. Build with `RUSTFLAGS=\"--cfg tokio_unstable\" cargo run --features console` and run `tokio-console` in another terminal; release builds are unchanged."),
        ]),
    ]),
    ("T14", "claude", "tidepool", "2026-03-10T11:55:00", [
        ("The staging Postgres for tidepool says `too many connections` during load tests. What's the pool size?", [
            run("I'll look at the pool settings.",
                "rg -n \"max_connections\" src/db.rs deploy/staging/config.toml",
                "src/db.rs:12:        .max_connections(cfg.pool_size)\ndeploy/staging/config.toml:9:pool_size = 50"),
            say("Each of the 6 staging pods opens up to 50 connections, 300 in all, above the server's limit. I lowered pool_size to 20 on staging; the load test runs without connection errors."),
        ]),
    ]),
    # ---------------------------------------------------------------- atlas-web
    ("A01", "gemini", "atlas", "2026-02-20T09:15:00", [
        ("`pnpm build` fails in the image step with `sharp: Installation error: prebuilt binaries for linux-x64 node 22` on my machine. What Node version do we need?", [
            run("I'll check the version file.",
                "cat .nvmrc",
                "20.11.1"),
            say("atlas-web needs Node 20.11 (`.nvmrc` says 20.11.1): Node 22 breaks the sharp prebuilt binaries used by the image pipeline. Run `nvm use` in the repo and build again; I also added an `engines` range to package.json so pnpm warns next time."),
        ]),
    ]),
    ("A02", "claude", "atlas", "2026-01-19T14:10:00", [
        ("The checkout e2e test is flaky on CI: it times out typing the card number about once in 8 runs.", [
            run("I'll repeat it locally.",
                "npx playwright test e2e/checkout.spec.ts --repeat-each 10",
                "  1) [chromium] > e2e/checkout.spec.ts:21:5 > pays with a card\n    Error: locator.fill: Timeout 5000ms exceeded.\n  1 failed\n  9 passed (41.2s)", 1),
            say("The Stripe card iframe loads late, after our page is ready, so the test typed into nothing. The test now waits for `frameLocator('#card-element')` and its card number input to be visible before typing; 50 repeats pass."),
        ]),
    ]),
    ("A03", "gemini", "atlas", "2026-01-26T10:20:00", [
        ("Staging shows grey squares instead of the map. Which tile URL is staging configured with?", [
            run("I'll compare the env files.",
                "grep -rn NEXT_PUBLIC_MAP_TILE_URL .env.staging .env.production",
                ".env.staging:3:NEXT_PUBLIC_MAP_TILE_URL=https://tiles.atlas.example.net/{z}/{x}/{y}.png\n.env.production:3:NEXT_PUBLIC_MAP_TILE_URL=https://tiles.atlas.example.net/{z}/{x}/{y}.png"),
            say("Staging used the production tile CDN, which rejects the staging origin. Staging has a CDN of its own: I set NEXT_PUBLIC_MAP_TILE_URL to https://tiles-stg.atlas.example.net/{z}/{x}/{y}.png in .env.staging, and the map renders after a redeploy."),
        ]),
    ]),
    ("A04", "claude", "atlas", "2026-02-12T11:00:00", [
        ("Let's move atlas-web from yarn to pnpm. Do the migration and update CI.", [
            run("I'll import the yarn lockfile.",
                "pnpm import && rm yarn.lock",
                "Lockfile written to pnpm-lock.yaml"),
            say("Done: atlas-web uses pnpm 9 from today (February 12). `packageManager` is pinned in package.json, CI runs `pnpm install --frozen-lockfile`, and yarn.lock is gone."),
        ]),
    ]),
    ("A05", "gemini-jsonl", "atlas", "2026-02-17T08:40:00", [
        ("The German strings on the settings page are out of date. How do translations get into the repo?", [
            run("I'll read the translation workflow.",
                "head -8 .github/workflows/i18n-sync.yml",
                "name: i18n-sync\non:\n  schedule:\n    - cron: '0 6 * * 1'\n  workflow_dispatch: {}\njobs:\n  sync:\n    runs-on: ubuntu-latest"),
            say("Translations live in locales/*.json and are synced from Crowdin every Monday at 06:00 UTC by the `i18n-sync` workflow, which opens a pull request. Last Monday's pull request is still open, which is why the German strings are stale."),
        ]),
    ]),
    ("A06", "claude", "atlas", "2026-02-23T16:30:00", [
        ("CI fails on size-limit after I added the date picker. What's the limit?", [
            run("I'll run the size check.",
                "pnpm size-limit",
                "  Landing page JS\n  Size limit: 180 kB\n  Size:       193.4 kB with all dependencies, minified and gzipped\n  Package size limit has exceeded by 13.4 kB", 1),
            say("The JS bundle budget for the landing page is 180 kB gzipped, and with the date picker it was 193.4 kB. I made the date picker a dynamic import (`next/dynamic`), so it loads only on the booking page; the landing page is back to 176 kB."),
        ]),
    ]),
    ("A07", "gemini", "atlas", "2026-02-27T13:45:00", [
        ("The security review asks why our session cookie isn't SameSite Lax. Why did we do that?", [
            run("I'll check the cookie options.",
                "grep -n -A3 \"sameSite\" src/server/session.ts",
                "18:    sameSite: \"none\",\n19:    secure: true,\n20:    httpOnly: true,"),
            say("Session cookies are SameSite=None; Secure because the partner portal embeds atlas-web in an iframe, and a Lax cookie is not sent in a cross-site iframe, so partners were logged out. I put that in the security review answer with a link to the partner embed ticket."),
        ]),
    ]),
    ("A08", "claude", "atlas", "2026-03-04T09:35:00", [
        ("Chromatic runs fail on my fork with `Missing project token`. Where do I get it?", [
            say("Chromatic's project token is not in the repository: it is in 1Password, in the Frontend CI vault, item \"Chromatic atlas-web\". Forks don't get repository secrets, so run `pnpm chromatic` locally with CHROMATIC_PROJECT_TOKEN set from there."),
        ]),
    ]),
    ("A09", "gemini", "atlas", "2026-03-06T15:20:00", [
        ("After a trade, the balances on the portfolio page are wrong for a while. What's the react-query config there?", [
            run("I'll look at the portfolio query options.",
                "grep -rn \"staleTime\" src/features/portfolio/",
                "src/features/portfolio/usePortfolio.ts:12:    staleTime: 5 * 60 * 1000,"),
            say("The portfolio query had a 5 minute stale time. I set `staleTime: 60_000` (one minute) and invalidate the query after a trade; longer values made the balances look wrong after trades."),
        ]),
    ]),
    ("A10", "claude", "atlas", "2026-03-09T10:50:00", [
        ("Sentry gets no browser errors from production. The console shows a CSP violation.", [
            run("I'll look at the headers config.",
                "grep -n \"connect-src\" next.config.js",
                "22:      \"connect-src 'self' https://js.stripe.com https://*.mapbox.com\","),
            say("The CSP's connect-src did not include Sentry's ingest host. I added https://o4507.ingest.sentry.io next to js.stripe.com and *.mapbox.com in the headers of next.config.js; errors arrive in Sentry again."),
        ]),
    ]),
    ("A11", "gemini-jsonl", "atlas", "2026-03-12T14:00:00", [
        ("How do preview deployments work here?", [
            say("Every pull request gets a Vercel preview deploy. The branch alias pattern is atlas-git-<branch>-mara.vercel.app, for example atlas-git-fix-map-tiles-mara.vercel.app for the branch fix-map-tiles."),
        ]),
        ("And how do I get my branch onto staging?", [
            say("Staging is not a separate build here: promote your preview to the staging domain with `vercel promote <preview-url> --scope mara`; the staging alias then points at that deployment."),
        ]),
    ]),
    # atlas-web distractors
    ("A12", "gemini", "atlas", "2026-03-13T09:10:00", [
        ("ESLint 9 fails with `Cannot find module 'eslint/use-at-your-own-risk'` after the upgrade. Is it the Node version?", [
            run("I'll check which plugin imports it.",
                "grep -rn \"use-at-your-own-risk\" node_modules/eslint-plugin-import/lib | head -2",
                "node_modules/eslint-plugin-import/lib/rules/no-unused-modules.js:11:var _useAtYourOwnRisk = require('eslint/use-at-your-own-risk');"),
            say("Not the Node version: eslint-plugin-import 2.27 needs an API that ESLint 9 removed. I upgraded it to 2.31 and converted .eslintrc to the flat config; `pnpm lint` passes."),
        ]),
    ]),
    ("A13", "claude", "atlas", "2026-03-14T17:05:00", [
        ("The login playwright test is flaky too, it sometimes clicks the submit button too early.", [
            say("The button is covered by the fade-in animation for 300 ms. I disabled animations in the Playwright config (`reducedMotion: 'reduce'`), which the login page respects; 30 repeats pass."),
        ]),
    ]),
    ("A14", "gemini", "atlas", "2026-03-15T11:25:00", [
        ("The dashboard page feels slow to load. Can you check what's in its bundle?", [
            run("I'll build with the bundle analyzer.",
                "ANALYZE=true pnpm build",
                "Route (app)                     Size     First Load JS\n/dashboard                      312 kB   498 kB"),
            say("Most of the dashboard bundle is the charting library, imported whole. I switched to its per-chart entry points; the dashboard's first load goes from 498 kB to 341 kB."),
        ]),
    ]),
    # ---------------------------------------------------------------- infra-live
    ("I01", "codex", "infra", "2026-01-13T10:30:00", [
        ("tfenv installed terraform 1.8.2 and `terraform plan` errors in modules/dns with `Unsupported function provider::google::region_from_zone`. Which version should we use?", [
            run("I'll check the version file in the repo.",
                "cat .terraform-version",
                "1.7.5"),
            say("Use the pinned one: Terraform is pinned to 1.7.5 in .terraform-version, because 1.8 changed how provider-defined functions are resolved and broke modules/dns. `tfenv use` picks it up inside the repo."),
        ]),
    ]),
    ("I02", "codex", "infra", "2026-01-21T15:10:00", [
        ("I'm setting up the new analytics workspace. Where does our terraform state live, so I configure the backend the same way?", [
            run("I'll read the prod backend.",
                "cat envs/prod/backend.tf",
                "terraform {\n  backend \"gcs\" {\n    bucket = \"mara-tfstate-prod\"\n    prefix = \"envs/prod\"\n  }\n}"),
            say("Use the same GCS backend as envs/prod with a prefix of its own (`envs/analytics`); the bucket has object versioning on, so every state version is kept. I added envs/analytics/backend.tf."),
        ]),
    ]),
    ("I03", "gemini", "infra", "2026-01-28T11:45:00", [
        ("The batch jobs are stuck Pending with `Insufficient memory`. What does the batch node pool run on?", [
            run("I'll describe the node pool.",
                "gcloud container node-pools describe batch --cluster prod-eu --format='value(config.machineType,autoscaling)'",
                "e2-highmem-8\tenabled=True;maxNodeCount=12;minNodeCount=0"),
            say("The GKE batch node pool uses e2-highmem-8 spot nodes, autoscaling from 0 to 12, and it was at 12. I raised maxNodeCount to 16 in modules/gke/batch.tf and the jobs are scheduled."),
        ]),
    ]),
    ("I04", "codex", "infra", "2026-02-04T09:15:00", [
        ("The certificate for internal.mara.example.com is stuck in Issuing. Look at cert-manager.", [
            run("I'll look at the pending challenge.",
                "kubectl -n ingress describe challenge",
                "  Reason:  Waiting for HTTP-01 challenge propagation: failed to perform self check GET request 'http://internal.mara.example.com/.well-known/acme-challenge/x1Tq': connection timed out"),
            say("HTTP01 can't work for this host: it sits behind the internal load balancer, so Let's Encrypt can't reach it. cert-manager now uses the DNS01 solver with Cloud DNS for the internal issuer (ClusterIssuer `letsencrypt-dns`); the certificate was issued a minute later."),
        ]),
    ]),
    ("I05", "codex", "infra", "2026-02-09T14:20:00", [
        ("Renovate wants to upgrade the ingress-nginx chart. Is there a reason it's pinned?", [
            run("I'll look at the chart's history.",
                "git log --oneline -3 -- charts/ingress-nginx/Chart.yaml",
                "b12e4f0 ingress-nginx: stay on 4.10.1, 4.11 drops the allow-snippet-annotations default\n9d03a7c ingress-nginx 4.10.0\n51c8e2b ingress-nginx 4.9.1"),
            say("Yes: the ingress-nginx chart is held at 4.10.1 because 4.11 turned `allow-snippet-annotations` off by default, and the ledger and atlas ingresses use configuration snippets. I told Renovate to skip it until the snippets move into a ConfigMap."),
        ]),
    ]),
    ("I06", "gemini", "infra", "2026-02-13T10:05:00", [
        ("The audit asks for our Postgres backup schedule and retention. Can you look it up in the config?", [
            run("I'll read the backup configuration.",
                "cat k8s/pg/backup.conf",
                "[global]\nrepo1-type=gcs\nrepo1-gcs-bucket=mara-pg-backups\nrepo1-retention-full=4\n\n[ledger]\npg1-path=/var/lib/postgresql/data"),
            say("Postgres backups are taken with pgBackRest: a full backup every Sunday at 03:00 UTC and a differential on the other days, retention 4 full backups, stored in the `mara-pg-backups` GCS bucket. I wrote that into docs/backups.md for the audit."),
        ]),
    ]),
    ("I07", "codex", "infra", "2026-02-19T07:30:00", [
        ("We got paged at 3am by a latency alert that cleared on its own. What's the threshold on it?", [
            run("I'll find the rule.",
                "rg -n -A6 \"alert: Api\" k8s/monitoring/rules.yaml",
                "14:  - alert: ApiLatencyHigh\n15:    expr: histogram_quantile(0.99, sum(rate(http_request_duration_seconds_bucket[5m])) by (le)) > 0.8\n16:    for: 10m"),
            say("The alert fires when the API's p99 latency is above 800 ms for 10 minutes. Last night's deploy kept p99 at about 850 ms for 11 minutes while the cache warmed up. I raised `for` to 15m, as agreed in the incident review."),
        ]),
    ]),
    ("I08", "gemini-jsonl", "infra", "2026-02-25T16:10:00", [
        ("kubectl against the staging cluster times out from my laptop. How am I supposed to reach it?", [
            say("The staging cluster API is only reachable through the Tailscale subnet router `ts-router-stg`, which advertises the control plane's private range. Run `tailscale up --accept-routes` and kubectl works; a new router must be approved in the Tailscale admin console first."),
        ]),
    ]),
    ("I09", "codex", "infra", "2026-03-01T11:20:00", [
        ("I rotated the Stripe webhook secret in Secret Manager an hour ago but ledger still uses the old one. How often do secrets sync?", [
            run("I'll check the ExternalSecret.",
                "rg -n \"refreshInterval\" k8s/external-secrets/",
                "k8s/external-secrets/ledger.yaml:8:  refreshInterval: 1h"),
            say("Secrets are synced from Google Secret Manager by external-secrets with a refresh interval of 1h, and ledger reads them only at startup. I forced a sync with the `force-sync` annotation and restarted the ledger deployment; it uses the new secret now."),
        ]),
    ]),
    ("I10", "codex", "infra", "2026-03-04T13:40:00", [
        ("Before tomorrow's cutover, check the TTL on the API DNS record.", [
            run("I'll query the record.",
                "dig +noall +answer api.mara.example.com",
                "api.mara.example.com.\t60\tIN\tA\t34.120.8.17"),
            say("The record has a TTL of 60 s: we lowered it before the January migration and kept it, so the cutover propagates within a minute."),
        ]),
    ]),
    ("I11", "gemini", "infra", "2026-03-10T09:00:00", [
        ("How long do we keep logs in Loki? Support needs 30 days for a customer case.", [
            run("I'll check the Loki values.",
                "grep -n retention k8s/loki/values.yaml",
                "41:    retention_period: 336h\n42:    retention_enabled: true"),
            say("Loki keeps 14 days of logs (the compactor's retention period). Logs from 30 days ago are gone there, but the same requests are in the load balancer logs in BigQuery, which keep 90 days."),
        ]),
    ]),
    # infra-live distractors
    ("I12", "codex", "infra", "2026-03-12T10:10:00", [
        ("terraform plan shows drift on the Cloud DNS records every day. Why?", [
            run("I'll look at the plan.",
                "terraform -chdir=envs/prod plan -target=module.dns",
                "  ~ resource \"google_dns_record_set\" \"www\" {\n      ~ rrdatas = [\n          - \"34.120.8.18\",\n          + \"34.120.8.17\",\n        ]\n    }\nPlan: 0 to add, 1 to change, 0 to destroy."),
            say("The www record is also managed by the marketing team's DNS automation, so the two keep reverting each other. I removed it from our module and documented that marketing owns it."),
        ]),
    ]),
    ("I13", "gemini", "infra", "2026-03-14T15:35:00", [
        ("Upgrade the cert-manager Helm chart to v1.15 on staging first.", [
            run("I'll upgrade the staging release.",
                "helm -n cert-manager upgrade cert-manager jetstack/cert-manager --version v1.15.3 -f charts/cert-manager/values-staging.yaml",
                "Release \"cert-manager\" has been upgraded. Happy Helming!\nREVISION: 14"),
            say("cert-manager v1.15.3 is running on staging and renewed a test certificate. The CRDs are installed by the chart now (`crds.enabled: true`), so the separate CRD step can go when we do prod."),
        ]),
    ]),
    ("I14", "codex", "infra", "2026-03-16T08:45:00", [
        ("Add an alert for disk usage on the Postgres volumes.", [
            say("Added `PgVolumeFilling`: it fires when a Postgres volume is above 85% used for 15 minutes, and pages only above 95%. The rule is in k8s/monitoring/rules.yaml next to the API alerts."),
        ]),
    ]),
]

# Facts: id, session key, marker (a string in that session only), and what it says.
FACTS = [
    ("F01", "L01", "listens on port 6543", "ledger-api's staging Postgres is on port 6543 (PgBouncer)"),
    ("F02", "L02", "pinned celery to 5.3.6", "celery pinned to 5.3.6: 5.4.0 broke visibility_timeout for long ETA tasks"),
    ("F03", "L03", "OPS-2291", "production migrations: alembic offline SQL applied by the DBA (OPS-2291)"),
    ("F04", "L04", "sorting by ISO code", "test_reconcile_batches flaky: currency order from a set; fixed by sorting by ISO code"),
    ("F05", "L05", "40 requests per second", "Stripe webhook endpoint limited to 40 r/s per IP"),
    ("F06", "L06", "ROUND_HALF_EVEN (banker's rounding)", "ledger amounts use banker's rounding"),
    ("F07", "L07", "behind the flag `fx_provider_v2`", "the new FX rate provider's flag"),
    ("F08", "L08", "runs at 02:15 UTC", "nightly reconciliation at 02:15 UTC"),
    ("F09", "L09", "postgres:15.6-alpine", "integration tests use postgres:15.6-alpine (16 broke citext)"),
    ("F10", "L10", "set LEDGER_SKIP_AUDIT_HOOK=1", "skip the audit hook locally"),
    ("F11", "L07", "owned by Priya", "Priya owns the payouts module"),
    ("F12", "T01", "pinned tokio to 1.38", "tokio pinned to 1.38 (spawn_blocking shutdown order)"),
    ("F13", "T02", "runs on port 5439", "tidepool's staging Postgres is on port 5439 (RDS proxy)"),
    ("F14", "T03", "message size to 16 MiB", "snapshot RPC max decoding message size 16 MiB"),
    ("F15", "T04", "cost 9% throughput", "boxing Frame::Data cost 9%: large_enum_variant allowed"),
    ("F16", "T05", "--warm-up-time 5 --measurement-time 30", "how to run the ingest bench"),
    ("F17", "T06", "MSRV is 1.80", "MSRV 1.80 because of LazyLock"),
    ("F18", "T07", "capped it at 50_000 entries", "the RSS growth was an unbounded moka cache"),
    ("F19", "T08", "off on musl builds", "jemalloc feature off for musl"),
    ("F20", "T09", "0.0.0.0:9464", "the metrics port (only in a tool's output)"),
    ("F21", "T10", "capped at 30 s", "reconnect backoff: exponential from 200 ms capped at 30 s"),
    ("F22", "T11", "protoc-bin-vendored (protoc 25.3", "protoc comes from protoc-bin-vendored"),
    ("F23", "A01", "needs Node 20.11", "atlas-web needs Node 20.11 (Node 22 breaks sharp)"),
    ("F24", "A02", "frameLocator('#card-element')", "the flaky checkout e2e waits for the Stripe iframe"),
    ("F25", "A03", "tiles-stg.atlas.example.net", "staging's map tile CDN"),
    ("F26", "A04", "uses pnpm 9 from today", "atlas-web moved from yarn to pnpm 9"),
    ("F27", "A05", "by the `i18n-sync` workflow", "translations synced from Crowdin by i18n-sync on Mondays"),
    ("F28", "A06", "180 kB gzipped", "landing page JS budget 180 kB gzipped"),
    ("F29", "A07", "SameSite=None; Secure because", "session cookies SameSite=None: partner portal iframe"),
    ("F30", "A08", "in the Frontend CI vault", "the Chromatic token is in 1Password"),
    ("F31", "A09", "`staleTime: 60_000`", "portfolio query staleTime one minute"),
    ("F32", "A10", "https://o4507.ingest.sentry.io", "Sentry's host added to the CSP connect-src"),
    ("F33", "A11", "atlas-git-<branch>-mara.vercel.app", "preview deploy URL pattern"),
    ("F34", "I01", "pinned to 1.7.5", "Terraform pinned to 1.7.5"),
    ("F35", "I02", "bucket = \"mara-tfstate-prod\"", "the Terraform state bucket (only in a tool's output)"),
    ("F36", "I03", "uses e2-highmem-8 spot nodes", "the batch node pool's machine type"),
    ("F37", "I04", "uses the DNS01 solver", "cert-manager uses DNS01 for the internal issuer"),
    ("F38", "I05", "held at 4.10.1", "ingress-nginx chart held at 4.10.1"),
    ("F39", "I06", "taken with pgBackRest", "the Postgres backup schedule and retention"),
    ("F40", "I07", "above 800 ms for 10 minutes", "the API latency alert's threshold"),
    ("F41", "I08", "subnet router `ts-router-stg`", "reach the staging cluster through Tailscale"),
    ("F42", "I09", "refresh interval of 1h", "external-secrets refresh interval"),
    ("F43", "I10", "a TTL of 60 s", "the API DNS record's TTL"),
    ("F44", "I11", "retention_period: 336h", "Loki retention (only in a tool's output)"),
    ("F45", "L11", "Run `make deploy-staging`", "ledger-api: deploy a branch to staging"),
    ("F46", "A11", "`vercel promote <preview-url> --scope mara`", "atlas-web: get a branch onto staging"),
    ("F47", "L11", "Set LEDGER_LOG_LEVEL=debug", "ledger-api: debug logs"),
    ("F48", "T11", "RUST_LOG=tidepool=debug,tower=warn", "tidepool: debug logs without tower noise"),
]

L, T, A, I = (PROJECTS[name] for name in ("ledger", "tidepool", "atlas", "infra"))

# Prompts: id, kind, cwd, text, fact (None: the answer exists nowhere), conflicting fact.
# Kinds: same (asked in the fact's project), cross (asked in another project), conflict (the
# same question has another answer in another project: the current project's must win), none.
PROMPTS = [
    ("P01", "conflict", L, "which port do I use to connect to the staging postgres?", "F01", "F13"),
    ("P02", "same", L, "why is celery pinned to an old version in our requirements?", "F02", None),
    ("P03", "same", L, "how do database migrations get applied in production?", "F03", None),
    ("P04", "same", L, "test_reconcile_batches failed again on CI, what was the cause last time?", "F04", None),
    ("P05", "same", L, "what rate limit did we put on the stripe webhook endpoint?", "F05", None),
    ("P06", "same", L, "which rounding mode do ledger amounts use?", "F06", None),
    ("P07", "same", L, "what's the name of the feature flag for the new exchange rate provider?", "F07", None),
    ("P08", "same", L, "when does the nightly reconciliation job run?", "F08", None),
    ("P09", "same", L, "which postgres image do the integration tests use, and why not 16?", "F09", None),
    ("P10", "same", L, "how can I run the statement import script locally without the audit hook firing?", "F10", None),
    ("P11", "same", L, "who should review changes to the payouts module?", "F11", None),
    ("P12", "same", T, "why is tokio pinned in Cargo.toml?", "F12", None),
    ("P13", "conflict", T, "which port do I use to connect to the staging postgres?", "F13", "F01"),
    ("P14", "same", T, "what max message size did we configure for the snapshot gRPC call?", "F14", None),
    ("P15", "same", T, "why do we allow the large_enum_variant lint instead of boxing the variant?", "F15", None),
    ("P16", "same", T, "what settings should I use to run the ingest benchmark so the numbers are stable?", "F16", None),
    ("P17", "same", T, "what's the minimum supported rust version and why?", "F17", None),
    ("P18", "same", T, "what caused the memory growth of tidepool in production?", "F18", None),
    ("P19", "same", T, "why is jemalloc disabled for the musl target?", "F19", None),
    ("P20", "same", T, "which port exposes tidepool's prometheus metrics?", "F20", None),
    ("P21", "same", T, "what reconnect backoff policy does the client use?", "F21", None),
    ("P22", "same", T, "how does the build get protoc on CI?", "F22", None),
    ("P23", "same", A, "which node version should I use for atlas-web?", "F23", None),
    ("P24", "same", A, "how did we fix the flaky checkout playwright test?", "F24", None),
    ("P25", "same", A, "what map tile url does staging use?", "F25", None),
    ("P26", "same", A, "which package manager does atlas-web use now?", "F26", None),
    ("P27", "same", A, "how do translations get updated in the repo?", "F27", None),
    ("P28", "same", A, "what's the bundle size budget for the landing page?", "F28", None),
    ("P29", "same", A, "why are our session cookies not SameSite Lax?", "F29", None),
    ("P30", "same", A, "where is the chromatic project token stored?", "F30", None),
    ("P31", "same", A, "what stale time do we use for the portfolio query, and why?", "F31", None),
    ("P32", "same", A, "what did we add to the content security policy for sentry?", "F32", None),
    ("P33", "same", A, "what's the url pattern of our preview deployments?", "F33", None),
    ("P34", "same", I, "which terraform version do we use and why?", "F34", None),
    ("P35", "same", I, "where is the terraform state stored?", "F35", None),
    ("P36", "same", I, "what machine type does the batch node pool use?", "F36", None),
    ("P37", "same", I, "why does cert-manager use dns validation for the internal certificates?", "F37", None),
    ("P38", "same", I, "why can't we upgrade the ingress-nginx helm chart?", "F38", None),
    ("P39", "same", I, "what's our postgres backup schedule and retention?", "F39", None),
    ("P40", "same", I, "what threshold triggers the api latency alert?", "F40", None),
    ("P41", "same", I, "how do I reach the staging kubernetes api from my laptop?", "F41", None),
    ("P42", "same", I, "how often do external secrets refresh from secret manager?", "F42", None),
    ("P43", "same", I, "what TTL does the api dns record have?", "F43", None),
    ("P44", "same", I, "how long do we keep logs in loki?", "F44", None),
    ("P45", "conflict", L, "how do I deploy my branch to staging?", "F45", "F46"),
    ("P46", "conflict", A, "how do I deploy my branch to staging?", "F46", "F45"),
    ("P47", "conflict", L, "how do I turn on debug logging?", "F47", "F48"),
    ("P48", "conflict", T, "how do I turn on debug logging?", "F48", "F47"),
    # Asked from another project than the fact's.
    ("P49", "cross", T, "in ledger-api, why did we pin celery?", "F02", None),
    ("P50", "cross", A, "which bucket holds the terraform state of infra-live?", "F35", None),
    ("P51", "cross", I, "why is tokio pinned to an older version in tidepool?", "F12", None),
    ("P52", "cross", L, "which node version does atlas-web need?", "F23", None),
    ("P53", "cross", I, "what message size limit did tidepool set for the snapshot grpc call?", "F14", None),
    ("P54", "cross", T, "how did atlas-web fix the flaky checkout e2e test?", "F24", None),
    ("P55", "cross", A, "at what latency does the api alert page us?", "F40", None),
    ("P56", "cross", L, "how long does loki keep our logs?", "F44", None),
    # The answer exists nowhere in the corpus.
    ("N01", "none", L, "which port does the staging redis run on?", None, None),
    ("N02", "none", L, "why did we pin sqlalchemy to 1.4?", None, None),
    ("N03", "none", T, "what is the max batch size for the kafka producer?", None, None),
    ("N04", "none", T, "why did we disable LTO in release builds?", None, None),
    ("N05", "none", A, "which font does the marketing site use for headings?", None, None),
    ("N06", "none", A, "what's the cache TTL of the image CDN?", None, None),
    ("N07", "none", I, "how do I rotate the apple push notification certificate?", None, None),
    ("N08", "none", I, "which aws region hosts the disaster recovery site?", None, None),
    ("N09", "none", L, "who approved the switch to weekly payouts?", None, None),
    ("N10", "none", T, "what is the SLO for snapshot freshness?", None, None),
    ("N11", "none", I, "how long are old terraform state versions retained?", None, None),
    ("N12", "none", A, "how do we run storybook against the staging api?", None, None),
    ("N13", "none", EMPTY_PROJECT, "what did we decide about the monorepo layout?", None, None),
    ("N14", "none", L, "what's the timeout for the bank sftp connection?", None, None),
]


# ------------------------------------------------------------------------- writers


def ts(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def ids(key, *parts):
    return str(uuid.uuid5(NAMESPACE, "/".join((key,) + parts)))


def uuid7_like(key, start):
    """A Codex-style (UUIDv7-shaped) id: the start's milliseconds, then stable bits."""
    millis = int(start.timestamp() * 1000)
    tail = uuid.uuid5(NAMESPACE, key).hex
    text = f"{millis:012x}7{tail[13:16]}{'89ab'[int(tail[16], 16) % 4]}{tail[17:32]}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:32]}"


class Clock:
    def __init__(self, start):
        self.now = start

    def tick(self, seconds):
        self.now += timedelta(seconds=seconds)
        return ts(self.now)


def dumps(record):
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


SLUG_WORDS = ["amber", "brisk", "cedar", "dune", "ember", "fjord", "glade", "heron", "iris",
              "juniper", "kestrel", "lumen", "maple", "nimbus", "otter", "pine", "quartz",
              "raven", "sable", "tundra", "umber", "vale", "willow", "yarrow", "zephyr"]


def slug_of(key):
    digest = hashlib.sha256(key.encode()).digest()
    return "-".join(SLUG_WORDS[digest[i] % len(SLUG_WORDS)] for i in range(3)) + "-" + key.lower()


def write_claude(key, cwd, start, turns):
    session_id = ids(key, "session")
    clock = Clock(start)
    records = [{
        "type": "file-history-snapshot", "messageId": ids(key, "snapshot"),
        "snapshot": {"messageId": ids(key, "snapshot"), "trackedFileBackups": {}, "timestamp": ts(start)},
        "isSnapshotUpdate": False,
    }]
    parent = None
    common = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session_id,
              "version": "2.1.114", "gitBranch": "main", "slug": slug_of(key)}
    counter = 0

    def record(kind, message, extra=None):
        nonlocal parent, counter
        counter += 1
        uid = ids(key, "record", str(counter))
        entry = {"parentUuid": parent, **common, "type": kind, "message": message}
        if extra:
            entry.update(extra)
        entry["uuid"] = uid
        entry["timestamp"] = clock.tick(7)
        parent = uid
        records.append(entry)

    for turn_index, (prompt, steps) in enumerate(turns):
        record("user", {"role": "user", "content": prompt})
        for step_index, step in enumerate(steps):
            message_id = "msg_01" + ids(key, "msg", str(turn_index), str(step_index)).replace("-", "")[:22]
            request_id = "req_01" + ids(key, "req", str(turn_index), str(step_index)).replace("-", "")[:22]
            usage = {"input_tokens": 12, "cache_creation_input_tokens": 410,
                     "cache_read_input_tokens": 18240, "output_tokens": 96}

            def assistant(content, stop_reason):
                return {"model": "claude-sonnet-4-5-20250929", "id": message_id, "type": "message",
                        "role": "assistant", "content": content, "stop_reason": stop_reason,
                        "stop_sequence": None, "usage": usage}

            if step[0] == "say":
                record("assistant", assistant([{"type": "text", "text": step[1]}], "end_turn"),
                       {"requestId": request_id})
            else:
                _, lead, command, output, exit_code = step
                tool_id = "toolu_01" + ids(key, "tool", str(turn_index), str(step_index)).replace("-", "")[:20]
                record("assistant", assistant([{"type": "text", "text": lead}], "tool_use"),
                       {"requestId": request_id})
                record("assistant", assistant([{"type": "tool_use", "id": tool_id, "name": "Bash",
                                                "input": {"command": command, "description": lead.rstrip(".")}}],
                                              "tool_use"),
                       {"requestId": request_id})
                shown = output if exit_code == 0 else f"Exit code {exit_code}\n{output}"
                result = {"tool_use_id": tool_id, "type": "tool_result", "content": shown,
                          "is_error": exit_code != 0}
                tool_use_result = ({"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
                                   if exit_code == 0 else f"Error: {shown}")
                record("user", {"role": "user", "content": [result]}, {"toolUseResult": tool_use_result})
    slug_dir = cwd.replace("/", "-")
    path = HOME / ".claude" / "projects" / slug_dir / f"{session_id}.jsonl"
    write_lines(path, records)
    return path


def write_codex(key, cwd, start, turns):
    session_id = uuid7_like(key, start)
    clock = Clock(start)
    records = []

    def item(kind, payload, seconds=1):
        records.append({"timestamp": clock.tick(seconds), "type": kind, "payload": payload})

    item("session_meta", {
        "id": session_id, "timestamp": ts(start), "cwd": cwd, "originator": "codex_cli_rs",
        "cli_version": "0.116.0", "source": "cli", "model_provider": "openai",
        "base_instructions": {"text": "You are Codex, a coding agent based on GPT-5. You and the user share the same workspace and collaborate to achieve the user's goals."},
        "git": {"commit_hash": hashlib.sha1(key.encode()).hexdigest(), "branch": "main",
                "repository_url": f"git@github.com:mara/{cwd.rsplit('/', 1)[1]}.git"},
    }, 4)
    totals = {"input": 0, "cached": 0, "output": 0}

    def token_count():
        totals["input"] += 9120
        totals["cached"] += 8064
        totals["output"] += 210
        usage = lambda i, c, o: {"input_tokens": i, "cached_input_tokens": c, "output_tokens": o,
                                 "reasoning_output_tokens": 0, "total_tokens": i + o}
        item("event_msg", {"type": "token_count", "info": {
            "total_token_usage": usage(totals["input"], totals["cached"], totals["output"]),
            "last_token_usage": usage(9120, 8064, 210), "model_context_window": 258400},
            "rate_limits": {"limit_id": "codex", "primary": {"used_percent": 4.0, "window_minutes": 300,
                                                             "resets_at": int(start.timestamp()) + 14400}}})

    for turn_index, (prompt, steps) in enumerate(turns):
        turn_id = uuid7_like(f"{key}/turn/{turn_index}", clock.now)
        item("event_msg", {"type": "task_started", "turn_id": turn_id,
                           "started_at": int(clock.now.timestamp()), "model_context_window": 258400,
                           "collaboration_mode_kind": "default"}, 30 if turn_index else 0)
        if turn_index == 0:
            item("response_item", {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\n</permissions instructions>"}]}, 0)
            item("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>{start.date().isoformat()}</current_date>\n  <timezone>UTC</timezone>\n</environment_context>"}]}, 0)
        item("turn_context", {"turn_id": turn_id, "cwd": cwd, "current_date": start.date().isoformat(),
                              "timezone": "UTC", "approval_policy": "on-request",
                              "sandbox_policy": {"type": "workspace-write", "writable_roots": [], "network_access": False},
                              "model": "gpt-5.4", "personality": "pragmatic",
                              "collaboration_mode": {"mode": "default", "settings": {"model": "gpt-5.4", "reasoning_effort": "medium"}},
                              "effort": "medium", "summary": "auto",
                              "truncation_policy": {"mode": "tokens", "limit": 10000}}, 0)
        item("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}, 0)
        item("event_msg", {"type": "user_message", "message": prompt, "images": [], "local_images": [], "text_elements": []}, 0)
        token_count()
        last_message = ""
        for step_index, step in enumerate(steps):
            final = step_index == len(steps) - 1
            if step[0] == "say":
                phase = "final_answer" if final else "commentary"
                item("event_msg", {"type": "agent_message", "message": step[1], "phase": phase, "memory_citation": None}, 5)
                item("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": step[1]}], "phase": phase}, 0)
                last_message = step[1]
                continue
            _, lead, command, output, exit_code = step
            item("event_msg", {"type": "agent_message", "message": lead, "phase": "commentary", "memory_citation": None}, 3)
            item("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": lead}], "phase": "commentary"}, 0)
            call_id = "call_" + ids(key, "call", str(turn_index), str(step_index)).replace("-", "")[:20]
            item("response_item", {"type": "function_call", "name": "exec_command",
                                   "arguments": json.dumps({"cmd": command, "workdir": cwd, "yield_time_ms": 10000}),
                                   "call_id": call_id}, 1)
            item("event_msg", {"type": "exec_command_end", "call_id": call_id, "turn_id": turn_id,
                               "command": ["/bin/bash", "-lc", command], "cwd": cwd,
                               "parsed_cmd": [{"type": "unknown", "cmd": command}], "source": "agent",
                               "stdout": output + "\n", "stderr": "", "aggregated_output": output + "\n",
                               "exit_code": exit_code, "duration": {"secs": 1, "nanos": 200000000},
                               "formatted_output": output + "\n", "status": "completed" if exit_code == 0 else "failed"}, 2)
            item("response_item", {"type": "function_call_output", "call_id": call_id,
                                   "output": f"Chunk ID: {ids(key, 'chunk', str(step_index))[:6]}\nWall time: 1.2 seconds\nProcess exited with code {exit_code}\nOriginal token count: 96\nOutput:\n{output}\n"}, 0)
        token_count()
        item("event_msg", {"type": "task_complete", "turn_id": turn_id, "last_agent_message": last_message,
                           "completed_at": int(clock.now.timestamp()) + 1, "duration_ms": 42920}, 1)
    name = f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{session_id}.jsonl"
    path = HOME / ".codex" / "sessions" / start.strftime("%Y") / start.strftime("%m") / start.strftime("%d") / name
    write_lines(path, records)
    return path


def gemini_messages(key, start, turns, clock):
    messages = []
    call_counter = 0
    for turn_index, (prompt, steps) in enumerate(turns):
        messages.append({"id": ids(key, "message", str(len(messages))), "timestamp": clock.tick(40 if turn_index else 38),
                         "type": "user", "content": [{"text": prompt}]})
        for step in steps:
            tokens = {"input": 14210, "output": 61, "cached": 13920, "thoughts": 96, "tool": 0, "total": 14367}
            message = {"id": ids(key, "message", str(len(messages))), "timestamp": clock.tick(9),
                       "type": "gemini", "content": step[1], "thoughts": [], "tokens": tokens,
                       "model": "gemini-2.5-pro"}
            if step[0] == "run":
                _, lead, command, output, exit_code = step
                millis = int(clock.now.timestamp() * 1000)
                call_id = f"run_shell_command_{millis}_{call_counter}"
                call_counter += 1
                shell_output = f"Output: {output}\n" + (f"Exit Code: {exit_code}\n" if exit_code else "") + "Process Group PGID: 48211"
                message["toolCalls"] = [{
                    "id": call_id, "name": "run_shell_command",
                    "args": {"command": command, "description": lead.rstrip(".")},
                    "result": [{"functionResponse": {"id": call_id, "name": "run_shell_command",
                                                     "response": {"output": shell_output}}}],
                    "status": "success", "timestamp": clock.tick(8), "resultDisplay": output,
                    "displayName": "Shell", "description": "", "renderOutputAsMarkdown": False,
                }]
            messages.append(message)
    return messages


def gemini_path(cwd, start, session_id, extension):
    project_hash = hashlib.sha256(cwd.encode()).hexdigest()
    name = f"session-{start.strftime('%Y-%m-%dT%H-%M')}-{session_id[:8]}.{extension}"
    return HOME / ".gemini" / "tmp" / project_hash / "chats" / name


def write_gemini(key, cwd, start, turns):
    session_id = ids(key, "session")
    clock = Clock(start)
    messages = gemini_messages(key, start, turns, clock)
    record = {"sessionId": session_id, "projectHash": hashlib.sha256(cwd.encode()).hexdigest(),
              "startTime": ts(start), "lastUpdated": messages[-1]["timestamp"],
              "directories": [cwd], "kind": "main", "messages": messages}
    path = gemini_path(cwd, start, session_id, "json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n")
    return path


def write_gemini_jsonl(key, cwd, start, turns):
    session_id = ids(key, "session")
    clock = Clock(start)
    messages = gemini_messages(key, start, turns, clock)
    lines = [{"sessionId": session_id, "projectHash": hashlib.sha256(cwd.encode()).hexdigest(),
              "startTime": ts(start), "lastUpdated": ts(start), "kind": "main", "directories": [cwd]}]
    for message in messages:
        if message.get("toolCalls"):
            # The CLI appends the reply first, then the same message again with its tool calls.
            lines.append({key: value for key, value in message.items() if key != "toolCalls"})
            lines.append({"$set": {"lastUpdated": message["timestamp"]}})
        lines.append(message)
        lines.append({"$set": {"lastUpdated": message["timestamp"]}})
    path = gemini_path(cwd, start, session_id, "jsonl")
    write_lines(path, lines)
    return path


def write_lines(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(dumps(record) + "\n" for record in records))


WRITERS = {"claude": write_claude, "codex": write_codex, "gemini": write_gemini,
           "gemini-jsonl": write_gemini_jsonl}


def session_text(turns):
    parts = []
    for prompt, steps in turns:
        parts.append(prompt)
        for step in steps:
            parts.extend(step[1:4] if step[0] == "run" else step[1:])
    return "\n".join(parts)


def toml_string(text):
    return json.dumps(text, ensure_ascii=False)


def main():
    if HOME.exists():
        shutil.rmtree(HOME)
    files = {}
    texts = {}
    for key, harness, project, start, turns in SESSIONS:
        moment = datetime.fromisoformat(start).replace(tzinfo=timezone.utc)
        path = WRITERS[harness](key, PROJECTS[project], moment, turns)
        files[key] = path.relative_to(HOME).as_posix()
        texts[key] = session_text(turns)
    assert len(files) == len(SESSIONS), "session keys are unique"

    facts = {}
    for fact_id, session, marker, about in FACTS:
        holders = [key for key, text in texts.items() if marker in text]
        assert holders == [session], f"{fact_id}: marker {marker!r} is in {holders}, expected [{session}]"
        facts[fact_id] = (session, marker, about)
    asked = set()
    for prompt_id, kind, cwd, text, fact, conflict in PROMPTS:
        assert kind in ("same", "cross", "conflict", "none"), prompt_id
        assert (fact is None) == (kind == "none"), prompt_id
        if fact is not None:
            assert fact in facts, prompt_id
            assert facts[fact][1].lower() not in text.lower(), f"{prompt_id} holds its fact's marker"
            project_of_fact = PROJECTS[next(p for k, _, p, _, _ in SESSIONS if k == facts[fact][0])]
            assert (cwd == project_of_fact) == (kind != "cross"), prompt_id
            asked.add(fact)
        assert (conflict is not None) == (kind == "conflict"), prompt_id
    missing = set(facts) - asked
    assert not missing, f"facts without a prompt: {sorted(missing)}"

    out = ["# The planted-fact benchmark's facts and prompts (issue #52), written by",
           "# make_corpus.py beside this file; the sessions are under home/.",
           "#",
           "# [[fact]]: `marker` occurs in the text of the fact's session and nowhere else in the",
           "# corpus; the bench finds the fact's events by it (events whose text holds it), never by",
           "# esker ids. `file` is the session's log, relative to home/ (a check, not an input).",
           "# [[prompt]]: asked from `cwd`; `fact` is the fact it needs (none: the answer exists",
           "# nowhere); `kind`: same (the fact's project), cross (another project), conflict (the",
           "# same question has another answer, `conflicts_with`, in another project), none.",
           ""]
    for fact_id, session, marker, about in FACTS:
        out += ["[[fact]]", f"id = {toml_string(fact_id)}", f"marker = {toml_string(marker)}",
                f"file = {toml_string(files[session])}", f"about = {toml_string(about)}", ""]
    for prompt_id, kind, cwd, text, fact, conflict in PROMPTS:
        out += ["[[prompt]]", f"id = {toml_string(prompt_id)}", f"kind = {toml_string(kind)}",
                f"cwd = {toml_string(cwd)}", f"text = {toml_string(text)}"]
        if fact:
            out.append(f"fact = {toml_string(fact)}")
        if conflict:
            out.append(f"conflicts_with = {toml_string(conflict)}")
        out.append("")
    (HERE / "prompts.toml").write_text("\n".join(out))
    by_harness = {}
    for _, harness, _, _, _ in SESSIONS:
        by_harness[harness] = by_harness.get(harness, 0) + 1
    print(f"{len(SESSIONS)} sessions {by_harness}, {len(FACTS)} facts, {len(PROMPTS)} prompts")


if __name__ == "__main__":
    main()
