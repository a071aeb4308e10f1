#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
//! Throwaway: converts non-k-quant tensors of a GGUF to Q8_0.
use candle_core::Device;
use candle_core::quantized::{GgmlDType, QTensor, gguf_file};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut f = std::fs::File::open(&args[1]).unwrap();
    let content = gguf_file::Content::read(&mut f).unwrap();
    let mut tensors = Vec::new();
    for (name, _) in content.tensor_infos.iter() {
        let t = content.tensor(&mut f, name, &Device::Cpu).unwrap();
        let t = match t.dtype() {
            GgmlDType::Q4_0 | GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1 => {
                QTensor::quantize(&t.dequantize(&Device::Cpu).unwrap(), GgmlDType::Q8_0).unwrap()
            }
            _ => t,
        };
        tensors.push((name.clone(), t));
    }
    let metadata: Vec<(&str, &gguf_file::Value)> = content
        .metadata
        .iter()
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    let refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let mut out = std::fs::File::create(&args[2]).unwrap();
    gguf_file::write(&mut out, &metadata, &refs).unwrap();
}
