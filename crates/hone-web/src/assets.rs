//! The page and its scripts and styles, embedded in the binary (no build step: plain
//! HTML, CSS and JavaScript).

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Every asset: its name, content type and content.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../assets/style.css"),
    ),
    (
        "markdown.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/markdown.js"),
    ),
    (
        "diff.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/diff.js"),
    ),
    (
        "panels.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/panels.js"),
    ),
    (
        "project.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/project.js"),
    ),
    (
        "logs.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/logs.js"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
];

/// `GET /`: the page.
pub(crate) async fn page() -> Response {
    serve("index.html")
}

/// `GET /NAME`: a script or a style sheet.
pub(crate) async fn asset(Path(name): Path<String>) -> Response {
    serve(&name)
}

fn serve(name: &str) -> Response {
    match ASSETS.iter().find(|(known, _, _)| *known == name) {
        Some((_, content_type, body)) => {
            ([(header::CONTENT_TYPE, *content_type)], *body).into_response()
        }
        None => (StatusCode::NOT_FOUND, "Not found.").into_response(),
    }
}
