//! Resumable HTTP download into a `.part` file (the Hugging Face source).

use std::path::Path;

use futures::StreamExt;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_LENGTH, CONTENT_RANGE, RANGE};
use tokio::io::AsyncWriteExt;

use crate::pull::PullOptions;

/// Attempts that continue a transfer after it broke off mid-way.
const MAX_ATTEMPTS: u32 = 3;

/// Downloads `url` into `part` until it holds `total` bytes, continuing what `part` already
/// holds with an HTTP `Range` request. `progress` gets the bytes present so far.
///
/// Fails fast (no retry) when the server cannot be reached or answers with an error, and
/// when it offers a file of another size. Checking the content is the caller's job.
pub(crate) async fn download(
    url: &str,
    part: &Path,
    total: u64,
    options: &PullOptions,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> Result<(), String> {
    let client = reqwest::Client::builder()
        .connect_timeout(options.connect_timeout)
        .read_timeout(options.read_timeout)
        .user_agent(concat!("hone/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|error| describe(&error))?;
    let mut attempts = 0;
    loop {
        attempts += 1;
        let mut have = file_len(part).await;
        if have > total {
            truncate(part).await?;
            have = 0;
        }
        if have == total {
            return Ok(());
        }
        let mut request = client.get(url);
        if have > 0 {
            request = request.header(RANGE, format!("bytes={have}-"));
        }
        let response = request.send().await.map_err(|error| describe(&error))?;
        let status = response.status();
        let start = match status {
            StatusCode::PARTIAL_CONTENT => {
                let (start, size) = content_range(&response).ok_or_else(|| {
                    "the server sent a partial answer without a usable Content-Range".to_string()
                })?;
                check_size(size, total)?;
                if start != have {
                    truncate(part).await?;
                    continue;
                }
                start
            }
            StatusCode::OK => {
                if let Some(size) = header_u64(&response, CONTENT_LENGTH) {
                    check_size(size, total)?;
                }
                0
            }
            StatusCode::RANGE_NOT_SATISFIABLE if attempts < MAX_ATTEMPTS => {
                truncate(part).await?;
                continue;
            }
            _ => return Err(format!("HTTP {status}")),
        };
        progress(start);
        let mut file = tokio::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(start > 0)
            .truncate(start == 0)
            .open(part)
            .await
            .map_err(|error| format!("cannot write {}: {error}", part.display()))?;
        let mut done = start;
        let mut body = response.bytes_stream();
        let mut broke_off = None;
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(bytes) => {
                    file.write_all(&bytes)
                        .await
                        .map_err(|error| format!("cannot write {}: {error}", part.display()))?;
                    done += bytes.len() as u64;
                    if done > total {
                        drop(file);
                        truncate(part).await?;
                        return Err(format!(
                            "the server sent more than the expected {total} bytes"
                        ));
                    }
                    progress(done);
                }
                Err(error) => {
                    broke_off = Some(describe(&error));
                    break;
                }
            }
        }
        file.flush()
            .await
            .and(file.sync_all().await)
            .map_err(|error| format!("cannot write {}: {error}", part.display()))?;
        if done == total {
            return Ok(());
        }
        let reason = broke_off.unwrap_or_else(|| "the transfer ended early".to_string());
        if attempts >= MAX_ATTEMPTS {
            return Err(format!(
                "{reason} at {done} of {total} bytes (run the pull again to resume)"
            ));
        }
        tracing::info!("download broke off ({reason}); resuming at byte {done}");
    }
}

/// The size of `path`, 0 when it does not exist.
async fn file_len(path: &Path) -> u64 {
    tokio::fs::metadata(path)
        .await
        .map_or(0, |metadata| metadata.len())
}

async fn truncate(path: &Path) -> Result<(), String> {
    match tokio::fs::remove_file(path).await {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(format!("cannot remove {}: {error}", path.display())),
    }
}

fn check_size(offered: u64, expected: u64) -> Result<(), String> {
    if offered == expected {
        Ok(())
    } else {
        Err(format!(
            "the server offers a file of {offered} bytes, expected {expected}"
        ))
    }
}

fn header_u64(response: &reqwest::Response, name: reqwest::header::HeaderName) -> Option<u64> {
    response
        .headers()
        .get(name)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// `(start, total)` from `Content-Range: bytes START-END/TOTAL`.
fn content_range(response: &reqwest::Response) -> Option<(u64, u64)> {
    let value = response.headers().get(CONTENT_RANGE)?.to_str().ok()?;
    parse_content_range(value)
}

fn parse_content_range(value: &str) -> Option<(u64, u64)> {
    let range = value.trim().strip_prefix("bytes ")?;
    let (span, total) = range.split_once('/')?;
    let (start, _end) = span.split_once('-')?;
    Some((start.trim().parse().ok()?, total.trim().parse().ok()?))
}

/// An error with its causes, e.g. `error sending request: dns error: failed to lookup …`.
fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let part = inner.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        cause = inner.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges_parse() {
        assert_eq!(parse_content_range("bytes 100-199/200"), Some((100, 200)));
        assert_eq!(parse_content_range("bytes */200"), None);
        assert_eq!(parse_content_range("items 1-2/3"), None);
    }

    #[test]
    fn sizes_must_match() {
        assert!(check_size(5, 5).is_ok());
        assert!(
            check_size(4, 5)
                .unwrap_err()
                .contains("4 bytes, expected 5")
        );
    }
}
