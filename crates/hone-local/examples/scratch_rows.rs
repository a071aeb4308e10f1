#![allow(missing_docs, clippy::unwrap_used)]
use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{Device, Module, Tensor};
use std::time::Instant;
fn main() {
    let (n, k) = (8960, 1536);
    let w = Tensor::randn(0f32, 1.0, (n, k), &Device::Cpu).unwrap();
    for dtype in [GgmlDType::Q4K, GgmlDType::Q6K, GgmlDType::Q8_0] {
        let q = QTensor::quantize(&w, dtype).unwrap();
        let data = q.data().unwrap().into_owned();
        let compact = dtype.from_data(std::borrow::Cow::Borrowed(&data));
        for m in [1usize, 2, 4, 8, 16, 32, 64] {
            let x = vec![0.5f32; m * k];
            let mut out = vec![0f32; m * n];
            let reps = 10;
            let t = Instant::now();
            for _ in 0..reps {
                compact.matmul_t((m, k, n), &x, &mut out).unwrap();
            }
            let generic = t.elapsed().as_secs_f64() / reps as f64;
            let xt = Tensor::from_vec(x.clone(), (1, m, k), &Device::Cpu).unwrap();
            let t = Instant::now();
            for _ in 0..reps {
                let qt = QTensor::new(
                    candle_core::quantized::QStorage::from_data(
                        std::borrow::Cow::Borrowed(&data),
                        &Device::Cpu,
                        dtype,
                    )
                    .unwrap(),
                    vec![n, k],
                )
                .unwrap();
                let mm = QMatMul::from_qtensor(qt).unwrap();
                mm.forward(&xt).unwrap();
            }
            let repack = t.elapsed().as_secs_f64() / reps as f64;
            let qt = QTensor::new(
                candle_core::quantized::QStorage::from_data(
                    std::borrow::Cow::Borrowed(&data),
                    &Device::Cpu,
                    dtype,
                )
                .unwrap(),
                vec![n, k],
            )
            .unwrap();
            let mm = QMatMul::from_qtensor(qt).unwrap();
            let t = Instant::now();
            for _ in 0..reps {
                mm.forward(&xt).unwrap();
            }
            let tiled = t.elapsed().as_secs_f64() / reps as f64;
            println!(
                "{dtype:?} m={m:3} generic {:.2} ms ({:.2}/row)  repack+tiled {:.2} ms  tiled only {:.2} ms ({:.2}/row)",
                generic * 1e3,
                generic * 1e3 / m as f64,
                repack * 1e3,
                tiled * 1e3,
                tiled * 1e3 / m as f64
            );
        }
    }
}
