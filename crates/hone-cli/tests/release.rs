//! The release workflow and the `cargo binstall` metadata agree: every target the README
//! promises is built, and binstall looks for the archive the workflow publishes.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

fn read(relative: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(relative)).unwrap()
}

#[test]
fn the_workflow_builds_every_promised_target_with_checksums() {
    let workflow = read(".github/workflows/release.yml");
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-unknown-linux-musl",
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
    ] {
        assert!(
            workflow.contains(&format!("- target: {target}\n")),
            "{target} missing from the build matrix"
        );
    }
    assert!(workflow.contains("tags: [\"v[0-9]*\"]"));
    assert!(workflow.contains("cargo build --release --locked -p hone-cli"));
    assert!(workflow.contains("> \"$name.tar.gz.sha256\""));
    assert!(workflow.contains("SHA256SUMS"));
    assert!(!workflow.contains('\t'), "YAML is indented with spaces");
}

#[test]
fn binstall_fetches_the_archive_the_workflow_publishes() {
    let manifest = read("crates/hone-cli/Cargo.toml");
    let workflow = read(".github/workflows/release.yml");
    assert!(manifest.contains("[package.metadata.binstall]"));
    assert!(
        manifest.contains(
            "pkg-url = \"{ repo }/releases/download/v{ version }/hone-{ target }.tar.gz\""
        )
    );
    assert!(manifest.contains("bin-dir = \"hone-{ target }/{ bin }{ binary-ext }\""));
    // The workflow packs hone-TARGET/hone into hone-TARGET.tar.gz.
    assert!(workflow.contains("name=\"hone-${{ matrix.target }}\""));
    assert!(workflow.contains("tar -C dist -czf \"dist/$name.tar.gz\" \"$name\""));
    assert!(workflow.contains("cp \"target/${{ matrix.target }}/release/hone\""));
}
