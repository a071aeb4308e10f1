#![allow(missing_docs, clippy::unwrap_used)]
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use std::time::Instant;
fn cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}
fn main() {
    let (n, k) = (8960, 1536);
    let w = Tensor::randn(0f32, 1.0, (n, k), &Device::Cpu).unwrap();
    for dtype in [GgmlDType::Q4K, GgmlDType::Q6K] {
        let q = QTensor::quantize(&w, dtype).unwrap();
        let data = q.data().unwrap().into_owned();
        // 24 copies (~200 MB) so the weights come from memory, as in the model.
        let mats: Vec<_> = (0..24)
            .map(|_| {
                let d = data.clone();
                dtype.from_data(std::borrow::Cow::Owned(d))
            })
            .collect();
        for m in [1usize, 2, 4, 8, 16] {
            let x = vec![0.5f32; m * k];
            let mut out = vec![0f32; m * n];
            let reps = 3;
            let (t, c) = (Instant::now(), cpu());
            for _ in 0..reps {
                for mat in &mats {
                    mat.matmul_t((m, k, n), &x, &mut out).unwrap();
                }
            }
            let (wall, cp) = (
                t.elapsed().as_secs_f64() / (reps * 24) as f64,
                (cpu() - c) / (reps * 24) as f64,
            );
            let (t, c) = (Instant::now(), cpu());
            for _ in 0..reps {
                for mat in &mats {
                    for r in 0..m {
                        mat.matmul_t(
                            (1, k, n),
                            &x[r * k..(r + 1) * k],
                            &mut out[r * n..(r + 1) * n],
                        )
                        .unwrap();
                    }
                }
            }
            let (wall1, cp1) = (
                t.elapsed().as_secs_f64() / (reps * 24) as f64,
                (cpu() - c) / (reps * 24) as f64,
            );
            println!(
                "{dtype:?} m={m:2}: batched {:.2} ms wall {:.2} ms cpu | row by row {:.2} ms wall {:.2} ms cpu",
                wall * 1e3,
                cp * 1e3,
                wall1 * 1e3,
                cp1 * 1e3
            );
        }
    }
}
