//! The synthetic corpus generator (`bench-corpus`) against esker's parsers: every file it
//! writes is recognised and parses without warnings, and each part holds its chain.

use std::path::Path;

use bench_corpus::generate::{CHAIN_SESSIONS, sample_part};
use esker::ingest::{Recognised, parse, recognise};

#[test]
fn every_generated_log_parses_without_warnings() {
    let files = sample_part(5);
    let mut sessions = 0;
    for file in files
        .iter()
        .filter(|file| !file.path.ends_with(".meta.json"))
    {
        let Recognised::Known {
            format, content, ..
        } = recognise(&file.bytes, None)
        else {
            panic!("{} is not recognised", file.path);
        };
        let output = parse(format, Path::new(&file.path), &content, None);
        assert!(
            output.warnings.is_empty(),
            "{}: {:?}",
            file.path,
            output.warnings
        );
        sessions += output.sessions.len();
    }
    assert!(sessions >= 10, "{sessions} sessions");
}

#[test]
fn each_part_holds_one_chain_sharing_a_slug() {
    let mut starts_by_slug: std::collections::HashMap<String, Vec<i64>> = Default::default();
    for file in sample_part(5) {
        let Recognised::Known {
            format, content, ..
        } = recognise(&file.bytes, None)
        else {
            continue;
        };
        let output = parse(format, Path::new(&file.path), &content, None);
        for session in output.sessions {
            if let Some(slug) = session.meta.slug.clone() {
                let started = session.meta.started_at.map(|time| time.timestamp());
                starts_by_slug
                    .entry(slug)
                    .or_default()
                    .push(started.unwrap_or(0));
            }
        }
    }
    assert_eq!(starts_by_slug.len(), 1, "{starts_by_slug:?}");
    let mut starts = starts_by_slug.into_values().next().unwrap();
    assert_eq!(starts.len(), CHAIN_SESSIONS);
    starts.sort_unstable();
    assert!(starts.windows(2).all(|pair| pair[1] - pair[0] >= 23 * 3600));
}
