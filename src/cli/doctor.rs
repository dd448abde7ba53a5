//! `esker doctor`: prints [`crate::indexer::doctor`]'s diagnosis for a person (the locations
//! that hold history first, each with what was skipped and why, then every place looked at
//! that does not exist) or, with `--json`, whole.

use std::io::Write;
use std::path::Path;

use indicatif::HumanBytes;

use crate::cli::style::thousands;
use crate::cli::{CliError, Outcome};
use crate::indexer::doctor::{Diagnosis, LocationReport, diagnose};
use crate::indexer::run::known_locations_with_homes;
use crate::ingest::homes::{Homes, Origin};
use crate::store::Store;
use crate::store::state::StoreState;

/// Diagnoses this machine's history against the store at `data_dir` and prints it. Exit 0
/// when some history was found, 1 when no location exists.
pub fn run(data_dir: &Path, json: bool) -> Result<Outcome, CliError> {
    let diagnosis = diagnosis_of(data_dir)?;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &diagnosis)
            .map_err(|error| CliError::Output(error.into()))?;
        writeln!(out)?;
    } else {
        write!(out, "{}", render(&diagnosis))?;
    }
    let found = diagnosis.locations.iter().filter(|l| l.exists).count();
    Ok(Outcome::of_count(found))
}

/// The diagnosis against the store's current generation (none yet: every source is pending).
pub fn diagnosis_of(data_dir: &Path) -> Result<Diagnosis, CliError> {
    let (homes, locations) = known_locations_with_homes();
    let current = match Store::open_existing(data_dir) {
        Ok(store) => Some(store.current()?),
        Err(crate::store::StoreError::Missing(_)) => None,
        Err(error) => return Err(error.into()),
    };
    let state = current
        .as_ref()
        .map(|snapshot| StoreState::load(&snapshot.root))
        .transpose()?;
    let generation = current.as_ref().map(|snapshot| snapshot.generation);
    Ok(diagnose(
        data_dir,
        generation,
        homes,
        &locations,
        state.as_ref(),
    ))
}

/// The text a person reads.
pub fn render(diagnosis: &Diagnosis) -> String {
    let mut text = match diagnosis.generation {
        Some(generation) => format!(
            "store: {} (generation {generation})\n",
            diagnosis.data_dir.display()
        ),
        None => format!(
            "store: {} (nothing indexed yet: run `esker index`)\n",
            diagnosis.data_dir.display()
        ),
    };
    text.push_str(&render_homes(&diagnosis.homes));
    let (present, missing): (Vec<&LocationReport>, Vec<&LocationReport>) =
        diagnosis.locations.iter().partition(|l| l.exists);
    text.push_str(&format!(
        "\n{} of {} places esker looks at hold agent history:\n",
        present.len(),
        diagnosis.locations.len()
    ));
    for location in &present {
        text.push_str(&render_present(location));
    }
    if diagnosis.elsewhere.sources > 0 {
        text.push_str(&format!(
            "\nindexed from elsewhere (`esker index PATH`): {} sources, {} sessions\n",
            thousands(diagnosis.elsewhere.sources as i64),
            thousands(diagnosis.elsewhere.sessions as i64)
        ));
        for path in &diagnosis.elsewhere.paths {
            text.push_str(&format!("    {}\n", path.display()));
        }
    }
    text.push_str(&format!(
        "\nnot found ({} places; each harness's environment variable moves its home):\n",
        missing.len()
    ));
    for location in missing {
        text.push_str(&format!(
            "  {:<16} {}\n",
            location.harness,
            location.path.display()
        ));
    }
    text
}

/// The other homes read and the config file that names them, with what in it was not used.
fn render_homes(homes: &Homes) -> String {
    let mut text = String::new();
    if let Some(file) = &homes.config_file {
        let state = if homes.config_exists {
            ""
        } else {
            " (none: `homes`, `harness_homes` and `wsl` go there)"
        };
        text.push_str(&format!("config: {}{state}\n", file.display()));
    }
    for problem in &homes.problems {
        text.push_str(&format!("  not used: {problem}\n"));
    }
    if homes.extra.is_empty() && homes.harness_homes.is_empty() {
        return text;
    }
    text.push_str("homes read besides $HOME:\n");
    for extra in &homes.extra {
        text.push_str(&format!(
            "  {} ({})\n",
            extra.path.display(),
            extra.origin.describe()
        ));
    }
    for harness_home in &homes.harness_homes {
        text.push_str(&format!(
            "  {} {} ({})\n",
            harness_home.source.harness(),
            harness_home.path.display(),
            harness_home.origin.describe()
        ));
    }
    text
}

fn render_present(location: &LocationReport) -> String {
    let indexed: usize = location.indexed_by_format.values().sum();
    let formats: Vec<String> = location
        .indexed_by_format
        .iter()
        .map(|(format, count)| format!("{format} {count}"))
        .collect();
    let from = match location.origin {
        Origin::Home => String::new(),
        ref origin => format!(", from {}", origin.describe()),
    };
    let mut text = format!(
        "  {:<16} {} ({}{from})\n    {} sources, {}; {} indexed{}; {} sessions in the store\n",
        location.harness,
        location.path.display(),
        location.kind,
        thousands(location.sources as i64),
        HumanBytes(location.bytes),
        thousands(indexed as i64),
        if formats.is_empty() {
            String::new()
        } else {
            format!(" ({})", formats.join(", "))
        },
        thousands(location.sessions as i64),
    );
    for skip in &location.skipped {
        text.push_str(&format!(
            "    skipped {}: {}\n",
            thousands(skip.count as i64),
            skip.reason.explanation()
        ));
        for path in &skip.paths {
            text.push_str(&format!("      {}\n", path.display()));
        }
    }
    text
}
