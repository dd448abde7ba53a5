//! The web app's files, embedded in the binary (`src/ui/assets`: HTML, CSS, JavaScript
//! modules; no build step), and the page routes: every view has a stable path, each answered
//! with the same `index.html`, which routes on `location.pathname`.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{Html, IntoResponse, Response};
use include_dir::{Dir, include_dir};

static ASSETS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/src/ui/assets");

/// The paths of the views (the app's router in `js/app.js` knows the same ones).
pub const PAGES: [&str; 12] = [
    "/",
    "/search",
    "/sessions",
    "/session/{id}",
    "/turn/{id}",
    "/event/{id}",
    "/usage",
    "/activity",
    "/files",
    "/memory",
    "/status",
    "/about",
];

/// Any page: the app's shell.
pub async fn page() -> Response {
    match ASSETS.get_file("index.html") {
        Some(file) => Html(file.contents()).into_response(),
        None => not_found().await,
    }
}

/// `GET /assets/{*path}`: one embedded file, with its media type.
pub async fn asset(Path(path): Path<String>) -> Response {
    let Some(file) = ASSETS.get_file(&path).filter(|_| !path.contains("..")) else {
        return not_found().await;
    };
    ([(CONTENT_TYPE, media_type(&path))], file.contents()).into_response()
}

pub async fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found").into_response()
}

fn media_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, extension)| extension) {
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("html") => "text/html; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_and_its_scripts_are_embedded() {
        assert!(ASSETS.get_file("index.html").is_some());
        assert!(ASSETS.get_file("js/app.js").is_some());
        assert!(ASSETS.get_file("app.css").is_some());
        assert_eq!(media_type("js/app.js"), "text/javascript; charset=utf-8");
    }

    #[test]
    fn the_shell_has_no_inline_script_or_style() {
        let html = ASSETS
            .get_file("index.html")
            .and_then(|file| file.contents_utf8())
            .expect("utf-8 shell");
        assert!(!html.contains("<script>"));
        assert!(!html.contains(" style="));
        assert!(!html.contains("<style"));
        assert!(!html.contains("http://") && !html.contains("https://"));
    }
}
