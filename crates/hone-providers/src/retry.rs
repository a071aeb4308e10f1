//! Backoff policy: exponential delays with jitter, and the server's `Retry-After`.

use std::time::{Duration, SystemTime};

use hone_config::NetworkConfig;

/// Delay before retry number `attempt` (0 for the first retry): `base × 2^attempt`,
/// ±10 % jitter, capped at the configured maximum. A server-provided `Retry-After`
/// wins over the computed delay but is capped too.
pub fn backoff_delay(
    network: &NetworkConfig,
    attempt: u32,
    retry_after: Option<Duration>,
) -> Duration {
    if let Some(server_delay) = retry_after {
        return server_delay.min(network.retry_max_delay);
    }
    let exponential = network
        .retry_base_delay
        .saturating_mul(2u32.saturating_pow(attempt.min(20)));
    let jitter: f64 = rand::random_range(0.9..=1.1);
    exponential.mul_f64(jitter).min(network.retry_max_delay)
}

/// Parses a `Retry-After` header value: delay seconds (`"2"`, `"1.5"`) or an HTTP date.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(
        date.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn network() -> NetworkConfig {
        NetworkConfig {
            retry_base_delay: Duration::from_millis(200),
            retry_max_delay: Duration::from_secs(5),
            ..NetworkConfig::default()
        }
    }

    #[test]
    fn delays_double_with_ten_percent_jitter() {
        for attempt in 0..4 {
            let expected = 200.0 * f64::from(2u32.pow(attempt));
            let delay = backoff_delay(&network(), attempt, None).as_secs_f64() * 1000.0;
            assert!(
                delay >= expected * 0.9 - 1.0 && delay <= expected * 1.1 + 1.0,
                "{delay}"
            );
        }
    }

    #[test]
    fn delays_are_capped() {
        assert_eq!(backoff_delay(&network(), 15, None), Duration::from_secs(5));
        assert_eq!(
            backoff_delay(&network(), 0, Some(Duration::from_secs(600))),
            Duration::from_secs(5)
        );
    }

    #[test]
    fn retry_after_wins_over_backoff() {
        assert_eq!(
            backoff_delay(&network(), 3, Some(Duration::from_millis(50))),
            Duration::from_millis(50)
        );
    }

    #[test]
    fn parses_seconds_and_http_dates() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("soon"), None);
        let past = "Wed, 21 Oct 2015 07:28:00 GMT";
        assert_eq!(parse_retry_after(past), Some(Duration::ZERO));
        let future = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        let parsed = parse_retry_after(&future).unwrap();
        assert!(parsed > Duration::from_secs(25) && parsed <= Duration::from_secs(30));
    }
}
