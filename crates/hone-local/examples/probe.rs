#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
use candle_core::quantized::{GgmlDType, QMatMul, QStorage, QTensor};
use candle_core::{Device, Module, Tensor};
use std::time::Instant;

fn main() {
    let dev = Device::Cpu;
    let (n, k) = (8960usize, 1536usize);
    for dtype in [GgmlDType::Q4K, GgmlDType::Q6K, GgmlDType::Q8_0] {
        let w = Tensor::randn(0f32, 0.02, (n, k), &dev).unwrap();
        let q = QTensor::quantize(&w, dtype).unwrap();
        let bytes = q.data().unwrap().into_owned();
        for m in [32usize, 256, 512] {
            let x: Vec<f32> = (0..m * k).map(|i| ((i % 97) as f32 - 48.0) * 0.01).collect();
            let xt = Tensor::from_vec(x.clone(), (m, k), &dev).unwrap();
            let t = Instant::now();
            let storage = QStorage::from_data(std::borrow::Cow::Borrowed(&bytes), &dev, dtype).unwrap();
            let fresh = QMatMul::from_qtensor(QTensor::new(storage, (n, k)).unwrap()).unwrap();
            let built = t.elapsed().as_secs_f64();
            fresh.forward(&xt).unwrap();
            let first = t.elapsed().as_secs_f64();
            let t = Instant::now();
            fresh.forward(&xt).unwrap();
            let again = t.elapsed().as_secs_f64();
            let flops = 2.0 * (m * n * k) as f64;
            println!("{dtype:?} m={m}: copy {:.1} ms, copy+pack+matmul {:.1} ms ({:.1} GFLOP/s effective), matmul alone {:.1} ms ({:.1} GFLOP/s)",
                built * 1e3, first * 1e3, flops / first / 1e9, again * 1e3, flops / again / 1e9);
        }
    }
}
