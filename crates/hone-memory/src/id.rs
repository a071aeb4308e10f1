//! Session ids: 26 Crockford base32 characters, 48 bits of milliseconds then 80 random bits
//! (the ULID layout), so ids sort by creation time and never collide in practice.

use std::time::{SystemTime, UNIX_EPOCH};

/// Crockford's base32 alphabet (no I, L, O, U).
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Characters in an id.
pub const ID_LEN: usize = 26;

/// Milliseconds since the Unix epoch (0 for a clock before it).
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

/// A new id for a session created at `millis`.
pub(crate) fn new_id(millis: i64) -> String {
    let time = u128::from(u64::try_from(millis).unwrap_or(0)) & ((1 << 48) - 1);
    let random = rand::random::<u128>() & ((1 << 80) - 1);
    encode((time << 80) | random)
}

fn encode(mut value: u128) -> String {
    let mut out = [0_u8; ID_LEN];
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[usize::try_from(value & 31).unwrap_or(0)];
        value >>= 5;
    }
    out.iter().map(|&byte| char::from(byte)).collect()
}

/// The prefix to look ids up by: upper case, with Crockford's look-alikes mapped back
/// (`o` → 0, `i`/`l` → 1), so ids typed by hand still match.
pub(crate) fn normalize(prefix: &str) -> String {
    prefix
        .trim()
        .chars()
        .map(|c| match c.to_ascii_uppercase() {
            'O' => '0',
            'I' | 'L' => '1',
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_by_time_and_are_unique() {
        let early = new_id(1_700_000_000_000);
        let late = new_id(1_700_000_000_001);
        assert_eq!(early.len(), ID_LEN);
        assert!(early < late, "{early} < {late}");
        assert_ne!(new_id(5), new_id(5));
        assert!(early.chars().all(|c| ALPHABET.contains(&(c as u8))));
    }

    #[test]
    fn typed_prefixes_are_normalised() {
        assert_eq!(normalize(" 01jabo "), "01JAB0");
        assert_eq!(normalize("il"), "11");
    }
}
