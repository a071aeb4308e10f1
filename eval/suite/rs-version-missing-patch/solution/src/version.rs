/// A `major.minor.patch` version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

/// Parses `major.minor.patch`; a missing patch is 0.
pub fn parse_version(text: &str) -> Option<Version> {
    let parts: Vec<u32> = text
        .trim()
        .split('.')
        .map(|part| part.parse().ok())
        .collect::<Option<_>>()?;
    match parts.as_slice() {
        [major, minor] => Some(Version {
            major: *major,
            minor: *minor,
            patch: 0,
        }),
        [major, minor, patch] => Some(Version {
            major: *major,
            minor: *minor,
            patch: *patch,
        }),
        _ => None,
    }
}
