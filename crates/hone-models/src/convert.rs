//! Requantizing a GGUF file to Q8_0 where candle lacks a fast CPU kernel.
//!
//! candle's CPU matmul has SIMD kernels for Q4_0, Q8_0 and the K-quants, but not for Q4_1,
//! Q5_0, Q5_1 or Q8_1; a model stored mostly as Q5_0 (the 0.5B Qwen2.5-Coder file) decodes
//! about five times slower than the same model as Q8_0. [`convert_to_q8_0`] dequantizes
//! each tensor of those types and quantizes it again as Q8_0 (8.5 bits per weight, so no
//! precision is lost beyond Q8_0's own rounding), keeps every other tensor and all
//! metadata, and writes a new GGUF file.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use candle_core::Device;
use candle_core::quantized::{GgmlDType, QTensor, gguf_file};

use crate::error::ModelError;

/// The metadata key naming the tensor-data alignment; candle writes 32-byte alignment and
/// readers assume it when the key is absent.
const ALIGNMENT_KEY: &str = "general.alignment";

/// What a conversion did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConversionReport {
    /// Tensors requantized to Q8_0.
    pub converted: usize,
    /// Tensors copied unchanged.
    pub kept: usize,
}

/// Whether tensors of `dtype` are worth requantizing: no SIMD kernel in candle.
pub fn needs_q8_0(dtype: GgmlDType) -> bool {
    matches!(
        dtype,
        GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1 | GgmlDType::Q8_1
    )
}

/// Writes `dst`, a copy of the GGUF file `src` whose slow-format tensors (see
/// [`needs_q8_0`]) are requantized to Q8_0. Tensors whose rows are not whole Q8_0 blocks
/// are kept as they are. `progress` gets (tensors done, tensors total).
pub fn convert_to_q8_0(
    src: &Path,
    dst: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ConversionReport, ModelError> {
    let failed = |detail: String| ModelError::Convert {
        path: src.to_path_buf(),
        detail,
    };
    let mut reader =
        BufReader::new(File::open(src).map_err(|error| ModelError::io("cannot read", src, error))?);
    let content = gguf_file::Content::read(&mut reader)
        .map_err(|error| failed(format!("not a readable GGUF file: {error}")))?;
    let mut names: Vec<&String> = content.tensor_infos.keys().collect();
    names.sort_by_key(|name| content.tensor_infos[*name].offset);
    let total = names.len();
    let mut report = ConversionReport {
        converted: 0,
        kept: 0,
    };
    let mut tensors: Vec<(&str, QTensor)> = Vec::with_capacity(total);
    for (index, name) in names.iter().enumerate() {
        let tensor = content
            .tensor(&mut reader, name, &Device::Cpu)
            .map_err(|error| failed(format!("tensor {name}: {error}")))?;
        let row = tensor.shape().dims().last().copied().unwrap_or(0);
        let block = GgmlDType::Q8_0.block_size();
        let tensor = if needs_q8_0(tensor.dtype()) && row > 0 && row.is_multiple_of(block) {
            report.converted += 1;
            let values = tensor
                .dequantize(&Device::Cpu)
                .map_err(|error| failed(format!("tensor {name}: {error}")))?;
            QTensor::quantize(&values, GgmlDType::Q8_0)
                .map_err(|error| failed(format!("tensor {name}: {error}")))?
        } else {
            report.kept += 1;
            tensor
        };
        tensors.push((name.as_str(), tensor));
        progress(index + 1, total);
    }
    let mut metadata: Vec<(&str, &gguf_file::Value)> = content
        .metadata
        .iter()
        .filter(|(key, _)| key.as_str() != ALIGNMENT_KEY)
        .map(|(key, value)| (key.as_str(), value))
        .collect();
    metadata.sort_by_key(|(key, _)| *key);
    let tensor_refs: Vec<(&str, &QTensor)> = tensors
        .iter()
        .map(|(name, tensor)| (*name, tensor))
        .collect();
    let file = File::create(dst).map_err(|error| ModelError::io("cannot write", dst, error))?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    gguf_file::write(&mut writer, &metadata, &tensor_refs)
        .map_err(|error| failed(format!("writing {}: {error}", dst.display())))?;
    writer
        .flush()
        .map_err(|error| ModelError::io("cannot write", dst, error))?;
    writer
        .get_ref()
        .sync_all()
        .map_err(|error| ModelError::io("cannot write", dst, error))?;
    Ok(report)
}
