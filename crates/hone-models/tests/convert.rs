//! Q8_0 conversion of GGUF files.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs::File;
use std::io::BufReader;

use candle_core::Device;
use candle_core::quantized::{GgmlDType, gguf_file};
use hone_models::convert::{ConversionReport, convert_to_q8_0, needs_q8_0};

fn read(path: &std::path::Path) -> (gguf_file::Content, BufReader<File>) {
    let mut reader = BufReader::new(File::open(path).unwrap());
    (gguf_file::Content::read(&mut reader).unwrap(), reader)
}

#[test]
fn slow_tensors_become_q8_0_and_everything_else_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in.gguf");
    let dst = dir.path().join("out.gguf");
    std::fs::write(&src, common::tiny_gguf()).unwrap();
    let mut steps = Vec::new();
    let report = convert_to_q8_0(&src, &dst, &mut |done, total| steps.push((done, total))).unwrap();
    assert_eq!(
        report,
        ConversionReport {
            converted: 1,
            kept: 2
        }
    );
    assert_eq!(steps.last(), Some(&(3, 3)));

    let (before, mut before_reader) = read(&src);
    let (after, mut after_reader) = read(&dst);
    let dtype = |content: &gguf_file::Content, name: &str| content.tensor_infos[name].ggml_dtype;
    assert_eq!(dtype(&before, "blk.0.attn_q.weight"), GgmlDType::Q5_0);
    assert_eq!(dtype(&after, "blk.0.attn_q.weight"), GgmlDType::Q8_0);
    assert_eq!(dtype(&after, "blk.0.ffn_down.weight"), GgmlDType::Q4K);
    assert_eq!(dtype(&after, "output_norm.weight"), GgmlDType::F32);
    assert_eq!(after.metadata["general.name"].to_string().unwrap(), "tiny");
    assert_eq!(after.metadata["qwen2.block_count"].to_u32().unwrap(), 2);
    assert_eq!(
        after.metadata["tokenizer.ggml.tokens"]
            .to_vec()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(after.metadata.len(), before.metadata.len());

    for name in [
        "blk.0.attn_q.weight",
        "blk.0.ffn_down.weight",
        "output_norm.weight",
    ] {
        let original = before
            .tensor(&mut before_reader, name, &Device::Cpu)
            .unwrap()
            .dequantize(&Device::Cpu)
            .unwrap();
        let converted = after
            .tensor(&mut after_reader, name, &Device::Cpu)
            .unwrap()
            .dequantize(&Device::Cpu)
            .unwrap();
        assert_eq!(original.dims(), converted.dims(), "{name}");
        let difference: f32 = (original - converted)
            .unwrap()
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar()
            .unwrap();
        assert!(difference < 0.02, "{name}: values moved by {difference}");
    }
}

#[test]
fn a_file_that_is_not_gguf_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("junk.gguf");
    std::fs::write(&src, b"definitely not a model").unwrap();
    let error = convert_to_q8_0(&src, &dir.path().join("out"), &mut |_, _| {}).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("junk.gguf"), "{message}");
    assert!(message.contains("GGUF"), "{message}");
}

#[test]
fn only_formats_without_fast_kernels_are_converted() {
    assert!(needs_q8_0(GgmlDType::Q5_0));
    assert!(needs_q8_0(GgmlDType::Q4_1));
    assert!(!needs_q8_0(GgmlDType::Q4_0));
    assert!(!needs_q8_0(GgmlDType::Q8_0));
    assert!(!needs_q8_0(GgmlDType::Q4K));
    assert!(!needs_q8_0(GgmlDType::F32));
}
