//! A moto S3 server on 127.0.0.1 and a random port, started by a test and stopped when dropped,
//! plus the S3 side of the checks (`tests/python/s3_check.py`, boto3 and pyarrow). Absent
//! moto, tests skip with a message unless `ESKER_REQUIRE_PYTHON=1`.

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::python::python_has;
use crate::support::manifest_dir;

/// The secret key the tests use; no output may contain it.
pub const SECRET: &str = "testing-secret";

pub struct Moto {
    child: Child,
    endpoint: String,
}

/// The environment object_store's S3 builder reads (`AmazonS3Builder::from_env`).
pub fn s3_env(endpoint: &str) -> Vec<(String, String)> {
    [
        ("AWS_ENDPOINT", endpoint),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", SECRET),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value.to_string()))
    .collect()
}

impl Moto {
    /// Starts the server, or `None` (with a SKIPPED message) when moto is not installed.
    pub fn start() -> Option<Moto> {
        Moto::start_with(&[])
    }

    /// A server that checks credentials after its first request (moto's
    /// `INITIAL_NO_AUTH_ACTION_COUNT`): only keys of IAM users it created are accepted then.
    pub fn start_checking_credentials() -> Option<Moto> {
        Moto::start_with(&[("INITIAL_NO_AUTH_ACTION_COUNT", "1")])
    }

    fn start_with(env: &[(&str, &str)]) -> Option<Moto> {
        if !python_has("moto") || !python_has("boto3") {
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("python3")
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .envs(env.iter().copied())
            .spawn()
            .expect("python3 runs");
        let moto = Moto {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "moto did not start on {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(moto)
    }

    pub fn env(&self) -> Vec<(String, String)> {
        s3_env(&self.endpoint)
    }

    fn check(&self, args: &[&str]) -> Value {
        let output = Command::new("python3")
            .arg(
                manifest_dir()
                    .join("tests")
                    .join("python")
                    .join("s3_check.py"),
            )
            .arg(&self.endpoint)
            .args(args)
            .envs(self.env())
            .output()
            .expect("python3 runs");
        assert!(
            output.status.success(),
            "s3_check.py {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("s3_check.py prints JSON")
    }

    pub fn create_bucket(&self, name: &str) {
        self.check(&["create-bucket", name]);
    }

    /// Every object of `bucket`: key -> (last modified, etag).
    pub fn objects(&self, bucket: &str) -> BTreeMap<String, Value> {
        match self.check(&["objects", bucket]) {
            Value::Object(objects) => objects.into_iter().collect(),
            other => panic!("not an object listing: {other}"),
        }
    }

    pub fn objects_of_all_buckets(&self) -> Vec<Value> {
        self.check(&["all-objects"])
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub fn manifest_files(&self, bucket: &str, key: &str) -> usize {
        self.check(&["manifest-files", bucket, key])
            .as_u64()
            .expect("a file count") as usize
    }

    /// The esker manifest at `key`.
    pub fn manifest(&self, bucket: &str, key: &str) -> Value {
        self.check(&["manifest", bucket, key])
    }

    /// `{table: {machine: rows}}` as pyarrow reads the bucket; `None` without pyarrow.
    pub fn pyarrow_counts(
        &self,
        prefix: &str,
        tables: &[&str],
    ) -> Option<BTreeMap<String, BTreeMap<String, i64>>> {
        if !python_has("pyarrow") {
            return None;
        }
        let mut args = vec!["pyarrow-counts", prefix];
        args.extend_from_slice(tables);
        Some(serde_json::from_value(self.check(&args)).expect("counts by table and machine"))
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
