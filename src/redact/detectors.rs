//! The contextual detectors as data: each one's trigger literals (lowercase; the keyword
//! automaton matches them in any case) and the function that examines a hit. One place to
//! add a detector: a row here (its kind in `kind.rs`, its tests in `tests.rs`).

use std::ops::Range;

use super::kind::Finding;
use super::{assignment, context, wrapped};

/// Examines one trigger hit of `text`, pushing what it finds. Returns how far it examined
/// when later hits before that point add nothing (inside a PEM block, inside an assignment's
/// value): the scan skips them, which keeps adversarial input (`pwd=pwd=pwd=…`, repeated
/// BEGIN lines) linear.
pub(super) type Examine = fn(&str, Range<usize>, &mut Vec<Finding<'_>>) -> Option<usize>;

/// One contextual detector.
pub(super) struct Detector {
    /// Literals that start a hit.
    pub triggers: &'static [&'static str],
    pub examine: Examine,
}

/// Every contextual detector.
pub(super) const DETECTORS: &[Detector] = &[
    // PEM private key block
    Detector {
        triggers: &["-----begin "],
        examine: |text, hit, findings| context::find_private_key_at(text, hit.start, findings),
    },
    // Bearer <token>
    Detector {
        triggers: &["bearer"],
        examine: |text, hit, findings| {
            context::find_bearer_token_at(text, hit.start, findings);
            None
        },
    },
    // scheme://user:password@host
    Detector {
        triggers: &["://"],
        examine: |text, hit, findings| {
            context::find_url_credential_at(text, hit.start, findings);
            None
        },
    },
    // assignment to a secret-looking name
    Detector {
        triggers: &["passw", "pwd", "secret", "api", "private", "token", "key"],
        examine: assignment::find_assignment_at,
    },
    // JWT wrapped over lines
    Detector {
        triggers: &["eyj"],
        examine: |text, hit, findings| {
            wrapped::find_wrapped_jwt_at(text, hit.start, findings);
            None
        },
    },
];
