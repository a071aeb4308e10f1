//! Small text formatting helpers shared by the views.

use std::time::Duration;

/// A duration in milliseconds as `3.2s` (or `850ms` below a second, `2m05s` above a minute).
pub(crate) fn seconds(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1_000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms / 1_000) % 60)
    }
}

/// A session clock: `4:07`, or `1:02:03` past an hour.
pub(crate) fn clock(elapsed: Duration) -> String {
    let total = elapsed.as_secs();
    let (hours, minutes, secs) = (total / 3_600, (total / 60) % 60, total % 60);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{secs:02}")
    } else {
        format!("{minutes}:{secs:02}")
    }
}

/// `text` on one line, cut to at most `limit` characters with an ellipsis; its control
/// characters are shown (`hone_api::display::flat`).
pub(crate) fn one_line(text: &str, limit: usize) -> String {
    let flat = hone_api::display::flat(text);
    let flat = flat.trim();
    if flat.chars().count() <= limit {
        return flat.to_string();
    }
    let cut: String = flat.chars().take(limit.saturating_sub(1)).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(seconds(850), "850ms");
        assert_eq!(seconds(3_210), "3.2s");
        assert_eq!(seconds(125_000), "2m05s");
        assert_eq!(clock(Duration::from_secs(247)), "4:07");
        assert_eq!(clock(Duration::from_secs(3_723)), "1:02:03");
    }

    #[test]
    fn one_line_flattens_and_cuts() {
        assert_eq!(one_line("a\nb", 10), "a b");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(one_line("a\r\nb\rc\x1b]0;t\x07", 40), r"a b\rc\x1b]0;t\x07");
    }
}
