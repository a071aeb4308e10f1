//! `ModelStore::import`: a file the user downloaded, checked and registered.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{data, entry, recorder, tiny_gguf};
use hone_models::{MANIFEST_FILE, ModelError, ModelState, ModelStore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_matching_file_is_copied_verified_and_registered() {
    let bytes = data(70_000);
    let entry = entry("imported", &bytes, 1, false);
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("downloaded.gguf");
    std::fs::write(&mine, &bytes).unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let (progress, _events) = recorder();
    let path = store.import_entry(entry, &mine, progress).await.unwrap();
    assert_eq!(path, store.dir().join(entry.file));
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert!(mine.is_file(), "the user's file stays");
    assert!(matches!(
        store.status(entry).state,
        ModelState::Verified { ref source } if source == "file"
    ));
    let manifest = std::fs::read_to_string(store.dir().join(MANIFEST_FILE)).unwrap();
    assert!(manifest.contains("\"file\""), "{manifest}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_with_other_content_is_refused_and_not_kept() {
    let bytes = data(70_000);
    let entry = entry("wrong", &bytes, 1, false);
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("other.gguf");
    let mut other = bytes.clone();
    other[100] ^= 1;
    std::fs::write(&mine, &other).unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let (progress, _events) = recorder();
    let error = store
        .import_entry(entry, &mine, progress)
        .await
        .unwrap_err();
    assert!(
        matches!(error, ModelError::NotCatalogFile { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("sha256"), "{error}");
    let left: Vec<_> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|item| item.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "nothing kept: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unnamed_file_of_no_catalog_size_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("tiny.gguf");
    std::fs::write(&mine, tiny_gguf()).unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let (progress, _events) = recorder();
    let error = store.import(&mine, None, progress).await.unwrap_err();
    assert!(
        error.to_string().contains("no catalog model has that size"),
        "{error}"
    );
    let (progress, _events) = recorder();
    let unknown = store
        .import(&mine, Some("nope"), progress)
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, ModelError::UnknownModel { .. }),
        "{unknown}"
    );
    let (progress, _events) = recorder();
    let missing = store
        .import(&dir.path().join("absent.gguf"), None, progress)
        .await
        .unwrap_err();
    assert!(matches!(missing, ModelError::Io { .. }), "{missing}");
}
