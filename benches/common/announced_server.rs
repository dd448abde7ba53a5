//! A server child process of a bench binary (`benches/http_load`, `benches/ui_latency`, through
//! `#[path]`): started under a home that does not exist, with stderr piped until it prints the
//! line that announces where it listens, then drained so it never blocks on a full pipe.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Spawns `command` and waits for its stderr line starting with `prefix`; returns the child
/// and the rest of that line.
pub fn spawn_announced(command: &mut Command, prefix: &str) -> anyhow::Result<(Child, String)> {
    let mut child = command
        .env("HOME", "/nonexistent-esker-bench-home")
        .env("ESKER_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let stderr = child.stderr.take().expect("piped stderr");
    let mut lines = BufReader::new(stderr).lines();
    let announced = loop {
        let Some(line) = lines.next() else {
            let _ = child.kill();
            anyhow::bail!("the server exited before printing {prefix:?}");
        };
        if let Some(rest) = line?.strip_prefix(prefix) {
            break rest.trim().to_owned();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    Ok((child, announced))
}
