//! The web view's guard: who may talk to it and what every response forbids the browser.
//!
//! - Host must be `127.0.0.1:PORT` or `localhost:PORT` (no DNS rebinding); an Origin, when
//!   sent, must be `http://` one of those (no cross-site requests). Otherwise 403.
//! - Every request carries the token: `?token=` (the start URL printed at launch) or the cookie
//!   `esker_ui_PORT` (HttpOnly, SameSite=Strict, set when a request brings a valid `?token=`).
//!   Otherwise 401.
//! - Every response carries a strict Content-Security-Policy (scripts from 'self' only, no
//!   inline script, nothing from elsewhere), `nosniff`, `no-referrer`, no framing, no caching.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, COOKIE, HOST, ORIGIN, REFERRER_POLICY, SET_COOKIE,
    X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::ui::AppState;

/// The Content-Security-Policy of every response.
pub const CONTENT_SECURITY_POLICY_VALUE: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// A fresh random token: 32 bytes from the OS's generator (two v4 UUIDs' random bits), as hex.
pub fn random_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// The token and the addresses this server answers as.
#[derive(Debug, Clone)]
pub struct Guard {
    port: u16,
    token: String,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Host is not this server's loopback address (403).
    ForeignHost,
    /// Origin is another site's (403).
    ForeignOrigin,
    /// No valid token in the query or cookie (401).
    NoToken,
}

impl Refusal {
    pub fn status(self) -> StatusCode {
        match self {
            Refusal::ForeignHost | Refusal::ForeignOrigin => StatusCode::FORBIDDEN,
            Refusal::NoToken => StatusCode::UNAUTHORIZED,
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Refusal::ForeignHost => "esker ui answers only as 127.0.0.1 or localhost",
            Refusal::ForeignOrigin => "cross-site requests are refused",
            Refusal::NoToken => {
                "open the URL esker ui printed at start (it carries the access token)"
            }
        }
    }
}

/// A request that may pass; `set_cookie` when it brought the token in its query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admitted {
    pub set_cookie: bool,
}

impl Guard {
    pub fn new(port: u16, token: String) -> Guard {
        Guard { port, token }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL printed at start.
    pub fn start_url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    fn cookie_name(&self) -> String {
        format!("esker_ui_{}", self.port)
    }

    /// The cookie that carries the token after the first page load.
    pub fn cookie(&self) -> String {
        format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            self.cookie_name(),
            self.token
        )
    }

    /// Checks one request's Host, Origin and token.
    pub fn check(
        &self,
        host: Option<&str>,
        origin: Option<&str>,
        cookies: &[&str],
        query: Option<&str>,
    ) -> Result<Admitted, Refusal> {
        if !host.is_some_and(|host| self.is_own_host(host)) {
            return Err(Refusal::ForeignHost);
        }
        if let Some(origin) = origin {
            let own = origin
                .strip_prefix("http://")
                .is_some_and(|host| self.is_own_host(host));
            if !own {
                return Err(Refusal::ForeignOrigin);
            }
        }
        if query
            .and_then(query_token)
            .is_some_and(|token| same_secret(&token, &self.token))
        {
            return Ok(Admitted { set_cookie: true });
        }
        let name = self.cookie_name();
        let cookie_ok = cookies
            .iter()
            .flat_map(|header| header.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .any(|(key, value)| key == name && same_secret(value, &self.token));
        if cookie_ok {
            Ok(Admitted { set_cookie: false })
        } else {
            Err(Refusal::NoToken)
        }
    }

    fn is_own_host(&self, host: &str) -> bool {
        let port = self.port.to_string();
        ["127.0.0.1", "localhost"].iter().any(|name| {
            host.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix(':'))
                .is_some_and(|rest| rest == port)
        })
    }
}

fn query_token(query: &str) -> Option<String> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(key, _)| key == "token")
        .map(|(_, value)| value.into_owned())
}

/// Compares without stopping at the first differing byte.
fn same_secret(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |difference, (a, b)| difference | (a ^ b))
            == 0
}

/// The middleware: refuses what [`Guard::check`] refuses, sets the cookie, adds the headers.
pub async fn guard(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let text = |name: HeaderName| headers.get(name).and_then(|value| value.to_str().ok());
    let cookies: Vec<&str> = headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .collect();
    let verdict = state
        .guard
        .check(text(HOST), text(ORIGIN), &cookies, request.uri().query());
    let mut response = match verdict {
        Err(refusal) => {
            tracing::debug!(?refusal, uri = %request.uri(), "refused a request");
            (refusal.status(), refusal.message()).into_response()
        }
        Ok(admitted) => {
            let mut response = next.run(request).await;
            if admitted.set_cookie
                && let Ok(cookie) = HeaderValue::from_str(&state.guard.cookie())
            {
                response.headers_mut().append(SET_COOKIE, cookie);
            }
            response
        }
    };
    add_headers(response.headers_mut());
    response
}

/// The headers every response carries.
pub fn add_headers(headers: &mut HeaderMap) {
    let fixed = [
        (CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY_VALUE),
        (X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (REFERRER_POLICY, "no-referrer"),
        (X_FRAME_OPTIONS, "DENY"),
        (CACHE_CONTROL, "no-store"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard::new(4321, "secret".to_owned())
    }

    #[test]
    fn the_token_is_64_hex_digits_and_fresh() {
        let token = random_token();
        assert_eq!(token.len(), 64);
        assert!(token.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(token, random_token());
    }

    #[test]
    fn only_this_servers_loopback_host_passes() {
        let guard = guard();
        let token = Some("token=secret");
        assert!(
            guard
                .check(Some("127.0.0.1:4321"), None, &[], token)
                .is_ok()
        );
        assert!(
            guard
                .check(Some("localhost:4321"), None, &[], token)
                .is_ok()
        );
        for host in [
            "evil.example:4321",
            "127.0.0.1:4322",
            "127.0.0.1",
            "127.0.0.1:4321.evil",
        ] {
            assert_eq!(
                guard.check(Some(host), None, &[], token),
                Err(Refusal::ForeignHost),
                "{host}"
            );
        }
        assert_eq!(
            guard.check(None, None, &[], token),
            Err(Refusal::ForeignHost)
        );
    }

    #[test]
    fn a_foreign_origin_is_refused() {
        let guard = guard();
        let host = Some("127.0.0.1:4321");
        let token = Some("token=secret");
        assert!(
            guard
                .check(host, Some("http://localhost:4321"), &[], token)
                .is_ok()
        );
        for origin in [
            "http://evil.example",
            "https://127.0.0.1:4321",
            "null",
            "http://127.0.0.1:9",
        ] {
            assert_eq!(
                guard.check(host, Some(origin), &[], token),
                Err(Refusal::ForeignOrigin),
                "{origin}"
            );
        }
    }

    #[test]
    fn the_token_comes_in_the_query_or_the_cookie() {
        let guard = guard();
        let host = Some("127.0.0.1:4321");
        assert_eq!(
            guard.check(host, None, &[], Some("q=1&token=secret")),
            Ok(Admitted { set_cookie: true })
        );
        assert_eq!(
            guard.check(host, None, &["a=b; esker_ui_4321=secret"], None),
            Ok(Admitted { set_cookie: false })
        );
        assert_eq!(
            guard.check(host, None, &["esker_ui_4322=secret"], None),
            Err(Refusal::NoToken)
        );
        assert_eq!(
            guard.check(host, None, &[], Some("token=secreT")),
            Err(Refusal::NoToken)
        );
        assert_eq!(guard.check(host, None, &[], None), Err(Refusal::NoToken));
        assert!(guard.cookie().contains("HttpOnly"));
        assert!(guard.cookie().contains("SameSite=Strict"));
    }
}
