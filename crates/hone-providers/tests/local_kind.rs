//! The embedded model (kind `local`) is built by the CLI, never by hone-providers.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_config::{ProviderConfig, WireApi, preset};
use hone_protocol::ErrorCategory;

#[test]
fn local_kind_is_refused_with_a_clear_error() {
    let config = ProviderConfig::from_preset(preset("local").unwrap());
    assert_eq!(config.wire, WireApi::Local);
    let error = hone_providers::build_provider(config)
        .err()
        .expect("must fail");
    assert_eq!(error.category, ErrorCategory::Config);
    assert!(
        error.message.contains("embedded model"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn replaying_the_local_wire_fails_instead_of_panicking() {
    let body = futures::stream::iter(Vec::<Result<bytes::Bytes, String>>::new());
    let events = hone_providers::replay(WireApi::Local, body).await;
    assert_eq!(events.len(), 1);
    assert!(matches!(
        events[0],
        hone_protocol::StreamEvent::Failed { .. }
    ));
}
