//! Fuzzing `esker serve`: thousands of generated argument objects (wrong types, huge strings,
//! deep nesting, unicode edge cases, malformed ids and cursors) through the real server, each
//! reply checked to be a well-formed envelope carrying the code its mutation calls for, and
//! the raw stdio transport abused with lines no client library would send. Reproduce a run
//! with `ESKER_FUZZ_SEED` and `ESKER_FUZZ_CASES`.

mod cases;
mod check;
mod hostile;
mod known;
mod list_cases;
mod open_cases;
mod oracle;
mod raw_stdio;
mod rng;
mod search_cases;
mod tampering;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures::StreamExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use super::client::EskerClient;
use cases::Case;
use check::Answer;
use known::Known;
use oracle::Expect;
use rng::Rng;

const DEFAULT_SEED: u64 = 0x00E5_4E12_F022_5EED;
const DEFAULT_CASES: usize = 3000;
/// Calls in flight at once (the server handles calls concurrently).
const IN_FLIGHT: usize = 4;
/// Far beyond any deadline the spec sets (5 s): no reply by then is a hang.
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

struct FuzzConfig {
    seed: u64,
    cases: usize,
}

impl FuzzConfig {
    fn from_env() -> FuzzConfig {
        let number = |name: &str| std::env::var(name).ok().and_then(|text| text.parse().ok());
        FuzzConfig {
            seed: number("ESKER_FUZZ_SEED").unwrap_or(DEFAULT_SEED),
            cases: number("ESKER_FUZZ_CASES").map_or(DEFAULT_CASES, |cases: u64| cases as usize),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_arguments_always_get_a_well_formed_envelope_with_the_right_code() {
    let config = FuzzConfig::from_env();
    eprintln!(
        "fuzz: seed {} with {} cases (ESKER_FUZZ_SEED / ESKER_FUZZ_CASES)",
        config.seed, config.cases
    );
    let client = EskerClient::fixtures().await;
    let known = Known::load(&client).await;
    let mut rng = Rng::new(config.seed);
    let cases: Vec<Case> = (0..config.cases)
        .map(|index| cases::generate(&mut rng, &known, index))
        .collect();
    let started = Instant::now();
    let verdicts = run_all(&client, &cases).await;
    eprintln!("fuzz: {} calls in {:.1?}", cases.len(), started.elapsed());
    let tally = tally(&cases, &verdicts);
    eprintln!("{tally}");
    let failures: Vec<String> = failures(&cases, &verdicts, config.seed);
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_most_valid_calls_succeeded(&cases, &verdicts);
    let still_serving = client
        .search(json!({"query": "parquet", "n_hits": 1}))
        .await;
    assert_eq!(still_serving["result_count"], 1, "the server is still up");
}

/// The reply to every case, in case order (`Err` says what was wrong with it).
async fn run_all(client: &EskerClient, cases: &[Case]) -> Vec<Result<Answer, String>> {
    let mut answered: Vec<(usize, Result<Answer, String>)> =
        futures::stream::iter(cases.iter().enumerate())
            .map(|(index, case)| async move { (index, run_case(client, case).await) })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
    answered.sort_by_key(|(index, _)| *index);
    answered.into_iter().map(|(_, answer)| answer).collect()
}

async fn run_case(client: &EskerClient, case: &Case) -> Result<Answer, String> {
    let mut params = CallToolRequestParams::new(case.tool);
    if let Value::Object(arguments) = &case.arguments {
        params = params.with_arguments(arguments.clone());
    }
    let result = tokio::time::timeout(REPLY_TIMEOUT, client.service().call_tool(params))
        .await
        .map_err(|_| format!("no reply within {REPLY_TIMEOUT:?}"))?
        .map_err(|error| format!("protocol error instead of a tool result: {error}"))?;
    check::reply(case, &result).map_err(|complaint| format!("malformed reply: {complaint}"))
}

/// Whether `answer` is what the contract requires for `expect`.
fn accepts(expect: Expect, answer: &Answer) -> bool {
    match (expect, answer) {
        (Expect::Success, Answer::Success) => true,
        (Expect::Error(expected), Answer::Error(code)) if code == expected => true,
        // A request that passed validation ran against the store, and the spec lets a run
        // past the tool's deadline answer deadline_exceeded instead (a loaded CI machine).
        (Expect::Success | Expect::Error(oracle::NOT_FOUND), Answer::Error(code)) => {
            code == "deadline_exceeded"
        }
        _ => false,
    }
}

fn failures(cases: &[Case], verdicts: &[Result<Answer, String>], seed: u64) -> Vec<String> {
    cases
        .iter()
        .zip(verdicts)
        .enumerate()
        .filter_map(|(index, (case, verdict))| {
            let complaint = match verdict {
                Err(complaint) => complaint.clone(),
                Ok(answer) if accepts(case.expect, answer) => return None,
                Ok(answer) => format!("expected {:?}, got {answer:?}", case.expect),
            };
            Some(format!(
                "seed {seed} case {index} {} {}: {complaint}; arguments {}",
                case.tool,
                case.mutation,
                abbreviated(&case.arguments)
            ))
        })
        .collect()
}

fn abbreviated(arguments: &Value) -> String {
    let text = arguments.to_string();
    if text.chars().count() <= 300 {
        return text;
    }
    let head: String = text.chars().take(300).collect();
    format!("{head}… ({} bytes)", text.len())
}

/// Case counts per tool and mutation, with how many were answered with success.
fn tally(cases: &[Case], verdicts: &[Result<Answer, String>]) -> String {
    let mut counts: BTreeMap<(&str, &str), (usize, usize)> = BTreeMap::new();
    for (case, verdict) in cases.iter().zip(verdicts) {
        let entry = counts.entry((case.tool, case.mutation)).or_default();
        entry.0 += 1;
        entry.1 += usize::from(matches!(verdict, Ok(Answer::Success)));
    }
    counts
        .iter()
        .map(|((tool, mutation), (total, succeeded))| {
            format!("  {tool:16} {mutation:34} {total:5} cases, {succeeded:5} succeeded")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Deadlines are tolerated, but a run where valid calls mostly time out tests nothing.
fn assert_most_valid_calls_succeeded(cases: &[Case], verdicts: &[Result<Answer, String>]) {
    let valid = cases
        .iter()
        .filter(|case| case.expect == Expect::Success)
        .count();
    let succeeded = verdicts
        .iter()
        .filter(|verdict| matches!(verdict, Ok(Answer::Success)))
        .count();
    assert!(
        valid > cases.len() / 10,
        "the generator builds valid calls too"
    );
    assert!(
        succeeded * 10 >= valid * 9,
        "only {succeeded} of {valid} valid calls succeeded"
    );
}
