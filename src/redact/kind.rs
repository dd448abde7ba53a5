//! The kinds of secret the contextual detectors report, and how findings of different origins rank.

/// A credential found by a contextual detector (provider tokens are named by their rule id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecretKind {
    PrivateKey,
    AwsSecretKey,
    Jwt,
    BearerToken,
    UrlCredential,
    Password,
    Secret,
}

impl SecretKind {
    /// Snake-case name used inside the `[REDACTED:<name>]` marker.
    pub fn name(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "private_key",
            SecretKind::AwsSecretKey => "aws_secret_key",
            SecretKind::Jwt => "jwt",
            SecretKind::BearerToken => "bearer_token",
            SecretKind::UrlCredential => "url_credential",
            SecretKind::Password => "password",
            SecretKind::Secret => "secret",
        }
    }

    /// Lower is more specific: provider formats (rules) rank 0, `Bearer`/URL context 1,
    /// generic assignments 2.
    pub(super) fn specificity_rank(self) -> u8 {
        match self {
            SecretKind::BearerToken | SecretKind::UrlCredential => 1,
            SecretKind::Password | SecretKind::Secret | SecretKind::AwsSecretKey => 2,
            SecretKind::PrivateKey | SecretKind::Jwt => 0,
        }
    }
}

/// A byte range of the input to replace with the marker `[REDACTED:<kind>]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finding<'k> {
    pub start: usize,
    pub end: usize,
    /// The marker name: a [`SecretKind::name`] or a rule's id in snake case.
    pub kind: &'k str,
    /// See [`SecretKind::specificity_rank`].
    pub rank: u8,
}

impl Finding<'static> {
    pub(super) fn contextual(start: usize, end: usize, kind: SecretKind) -> Finding<'static> {
        Finding {
            start,
            end,
            kind: kind.name(),
            rank: kind.specificity_rank(),
        }
    }
}
