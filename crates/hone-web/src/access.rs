//! Who may talk to `hone web`: the token (in the query once, then in a cookie), the `Host`
//! header (DNS rebinding) and the `Origin` header (other sites' pages), checked on every
//! request before any handler runs; and the headers every answer carries.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rand::Rng;
use subtle::ConstantTimeEq;

use crate::AppState;

/// The content security policy of every answer: the page's own scripts, styles and socket
/// only, no frames.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// The token and the names the server answers to.
pub(crate) struct Access {
    token: String,
    /// `http://HOST:PORT` of the bound address.
    origin: String,
    /// The `Host` values allowed (`None`: any, for a non-loopback address).
    hosts: Option<Vec<String>>,
    /// The cookie's name (cookies are shared by every port of a host, so it names the port).
    cookie: String,
}

impl Access {
    /// Draws a token for a server bound to `address`.
    pub(crate) fn new(address: SocketAddr) -> Self {
        let bytes: [u8; 32] = rand::rng().random();
        let token = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        let port = address.port();
        // A server on every address (`0.0.0.0`) is opened here through loopback.
        let shown = match address.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port)
            }
            _ => address,
        };
        let origin = format!("http://{shown}");
        let hosts = address
            .ip()
            .is_loopback()
            .then(|| vec![address.to_string(), format!("localhost:{port}")]);
        Self {
            token,
            origin,
            hosts,
            cookie: format!("hone_web_{port}"),
        }
    }

    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    pub(crate) fn origin(&self) -> &str {
        &self.origin
    }

    fn matches(&self, candidate: &str) -> bool {
        candidate.as_bytes().ct_eq(self.token.as_bytes()).into()
    }

    /// The request's `Host`, when it is one this server answers to.
    fn host<'a>(&self, headers: &'a HeaderMap) -> Option<&'a str> {
        let host = headers.get(header::HOST)?.to_str().ok()?;
        match &self.hosts {
            Some(allowed) => allowed.iter().any(|name| name == host).then_some(host),
            None => Some(host),
        }
    }

    /// Whether the request's `Origin` is the page's own (`required`: it must be sent).
    fn origin_allowed(headers: &HeaderMap, host: &str, required: bool) -> bool {
        match headers.get(header::ORIGIN) {
            Some(origin) => origin.to_str().ok() == Some(format!("http://{host}").as_str()),
            None => !required,
        }
    }

    /// The token a request carries: in the query, else in the cookie.
    fn presented<'a>(&self, request: &'a Request) -> (Option<&'a str>, bool) {
        let query = request.uri().query().unwrap_or_default();
        if let Some(token) = query
            .split('&')
            .find_map(|pair| pair.strip_prefix("token="))
        {
            return (Some(token), true);
        }
        let cookie = request
            .headers()
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == self.cookie)
            .map(|(_, value)| value);
        (cookie, false)
    }
}

/// Refuses a request without the token, for another host or from another origin; a page
/// load with the token in the query sets the cookie and sends the browser to the bare URL.
pub(crate) async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let access = &state.access;
    let Some(host) = access.host(request.headers()) else {
        return refuse(
            StatusCode::FORBIDDEN,
            "This Host is not the one hone web serves.",
        );
    };
    let socket = request.uri().path() == "/ws";
    if !Access::origin_allowed(request.headers(), host, socket) {
        return refuse(
            StatusCode::FORBIDDEN,
            "Requests from other sites are refused.",
        );
    }
    let (token, in_query) = access.presented(&request);
    if !token.is_some_and(|token| access.matches(token)) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "Open the URL `hone web` printed: it holds the token.",
        );
    }
    if in_query && request.uri().path() == "/" {
        let cookie = format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            access.cookie, access.token
        );
        let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        return secured(response);
    }
    secured(next.run(request).await)
}

fn refuse(status: StatusCode, message: &'static str) -> Response {
    tracing::debug!("web: refused ({status}): {message}");
    secured((status, message).into_response())
}

/// Adds the headers every answer carries: no caching, no sniffing, no framing, no referrer.
fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access() -> Access {
        Access::new("127.0.0.1:4000".parse().unwrap())
    }

    #[test]
    fn tokens_are_long_random_and_compared_exactly() {
        let (one, two) = (access(), access());
        assert_eq!(one.token().len(), 64);
        assert_ne!(one.token(), two.token());
        assert!(one.matches(one.token()));
        assert!(!one.matches(two.token()));
        assert!(!one.matches(&one.token()[..63]));
        assert!(!one.matches(""));
    }

    #[test]
    fn a_loopback_server_answers_to_its_address_and_localhost_only() {
        let access = access();
        let with_host = |host: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
            headers
        };
        assert!(access.host(&with_host("127.0.0.1:4000")).is_some());
        assert!(access.host(&with_host("localhost:4000")).is_some());
        assert!(access.host(&with_host("evil.example:4000")).is_none());
        assert!(access.host(&with_host("127.0.0.1:4001")).is_none());
        assert!(access.host(&HeaderMap::new()).is_none());
        let wide = Access::new("0.0.0.0:4000".parse().unwrap());
        assert!(wide.host(&with_host("box.lan:4000")).is_some());
        assert_eq!(wide.origin(), "http://127.0.0.1:4000");
        assert_eq!(access.origin(), "http://127.0.0.1:4000");
    }

    #[test]
    fn the_origin_must_be_the_pages_own() {
        let mut headers = HeaderMap::new();
        assert!(Access::origin_allowed(&headers, "127.0.0.1:4000", false));
        assert!(!Access::origin_allowed(&headers, "127.0.0.1:4000", true));
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:4000"),
        );
        assert!(Access::origin_allowed(&headers, "127.0.0.1:4000", true));
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://evil.example"),
        );
        assert!(!Access::origin_allowed(&headers, "127.0.0.1:4000", false));
    }
}
