use semver_lite::{parse_version, Version};

#[test]
fn full_versions() {
    assert_eq!(
        parse_version("1.2.3"),
        Some(Version { major: 1, minor: 2, patch: 3 })
    );
}

#[test]
fn missing_patch_is_zero() {
    assert_eq!(
        parse_version("1.2"),
        Some(Version { major: 1, minor: 2, patch: 0 })
    );
}

#[test]
fn bad_versions() {
    assert_eq!(parse_version("1"), None);
    assert_eq!(parse_version("1.2.3.4"), None);
    assert_eq!(parse_version("a.b"), None);
}
