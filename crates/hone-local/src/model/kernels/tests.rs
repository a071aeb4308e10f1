use bytemuck::Zeroable;
use half::f16;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::blocks::reference::{dequantize_q4k, dequantize_q6k, dequantize_q8k};
use super::*;

fn scale(rng: &mut StdRng) -> u16 {
    f16::from_f32(rng.random_range(0.001f32..0.05)).to_bits()
}

fn q4k_blocks(rng: &mut StdRng, count: usize) -> Vec<BlockQ4K> {
    (0..count)
        .map(|_| {
            let mut block = BlockQ4K::zeroed();
            rng.fill(&mut block.scales[..]);
            for chunk in &mut block.qs {
                rng.fill(&mut chunk[..]);
            }
            block.d = scale(rng);
            block.dmin = scale(rng);
            block
        })
        .collect()
}

fn q6k_blocks(rng: &mut StdRng, count: usize) -> Vec<BlockQ6K> {
    (0..count)
        .map(|_| {
            let mut block = BlockQ6K::zeroed();
            for chunk in block.ql.iter_mut().chain(block.qh.iter_mut()) {
                rng.fill(&mut chunk[..]);
            }
            for scale in &mut block.scales {
                *scale = rng.random_range(-60i8..=60);
            }
            block.d = scale(rng);
            block
        })
        .collect()
}

fn inputs(rng: &mut StdRng, len: usize) -> Vec<f32> {
    (0..len).map(|_| rng.random_range(-2f32..2.0)).collect()
}

/// The products from dequantized weights and dequantized inputs, in f64.
fn reference(weights: &[Vec<f32>], input: &[f32], rows: usize, k: usize) -> Vec<f32> {
    let mut quantized = Vec::new();
    for row in input.chunks_exact(k) {
        quantize_q8k(row, &mut quantized);
    }
    let k_blocks = k / QK_K;
    let mut out = vec![0f32; rows * weights.len()];
    for row in 0..rows {
        let x: Vec<f32> = quantized[row * k_blocks..(row + 1) * k_blocks]
            .iter()
            .flat_map(dequantize_q8k)
            .collect();
        for (column, w) in weights.iter().enumerate() {
            let dot: f64 = w
                .iter()
                .zip(&x)
                .map(|(a, b)| f64::from(*a) * f64::from(*b))
                .sum();
            out[row * weights.len() + column] = dot as f32;
        }
    }
    out
}

fn check_against_reference(matrix: &OwnMatMul, dense: &[Vec<f32>], rng: &mut StdRng) {
    let k = matrix.in_features;
    for rows in [1, 3, 6] {
        let input = inputs(rng, rows * k);
        let mut out = vec![0f32; rows * matrix.out_features];
        matrix.matmul(rows, &input, &mut out).unwrap();
        let expected = reference(dense, &input, rows, k);
        for (got, want) in out.iter().zip(&expected) {
            assert!(
                (got - want).abs() <= 1e-3 * want.abs().max(1.0),
                "{rows} rows: {got} vs {want}"
            );
        }
    }
}

#[test]
fn q4k_products_match_the_dequantized_weights() {
    let mut rng = StdRng::seed_from_u64(7);
    let (out_features, in_features) = (37, 2 * QK_K);
    let blocks = q4k_blocks(&mut rng, out_features * 2);
    let dense: Vec<Vec<f32>> = blocks
        .chunks_exact(2)
        .map(|row| row.iter().flat_map(dequantize_q4k).collect())
        .collect();
    let matrix = OwnMatMul::new(Blocks::Q4K(blocks), out_features, in_features).unwrap();
    check_against_reference(&matrix, &dense, &mut rng);
}

#[test]
fn q6k_products_match_the_dequantized_weights() {
    let mut rng = StdRng::seed_from_u64(8);
    let (out_features, in_features) = (21, 3 * QK_K);
    let blocks = q6k_blocks(&mut rng, out_features * 3);
    let dense: Vec<Vec<f32>> = blocks
        .chunks_exact(3)
        .map(|row| row.iter().flat_map(dequantize_q6k).collect())
        .collect();
    let matrix = OwnMatMul::new(Blocks::Q6K(blocks), out_features, in_features).unwrap();
    check_against_reference(&matrix, &dense, &mut rng);
}

/// Each row of a batch gets bit for bit what it gets alone, whatever the batch size.
fn check_rows_alone(matrix: &OwnMatMul, rng: &mut StdRng) {
    let (k, n) = (matrix.in_features, matrix.out_features);
    let input = inputs(rng, 11 * k);
    let alone: Vec<Vec<f32>> = input
        .chunks_exact(k)
        .map(|row| {
            let mut out = vec![0f32; n];
            matrix.matmul(1, row, &mut out).unwrap();
            out
        })
        .collect();
    for rows in 2..=11 {
        let mut out = vec![0f32; rows * n];
        matrix.matmul(rows, &input[..rows * k], &mut out).unwrap();
        for (row, expected) in out.chunks_exact(n).zip(&alone) {
            assert_eq!(
                row.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{rows} rows"
            );
        }
    }
}

#[test]
fn rows_in_a_batch_get_exactly_what_they_get_alone() {
    let mut rng = StdRng::seed_from_u64(9);
    let q4k = OwnMatMul::new(Blocks::Q4K(q4k_blocks(&mut rng, 40 * 2)), 40, 2 * QK_K).unwrap();
    check_rows_alone(&q4k, &mut rng);
    let q6k = OwnMatMul::new(Blocks::Q6K(q6k_blocks(&mut rng, 19)), 19, QK_K).unwrap();
    check_rows_alone(&q6k, &mut rng);
}

#[test]
fn mismatched_shapes_are_errors() {
    let mut rng = StdRng::seed_from_u64(10);
    let blocks = q4k_blocks(&mut rng, 4);
    assert!(OwnMatMul::new(Blocks::Q4K(blocks.clone()), 3, QK_K).is_err());
    assert!(OwnMatMul::new(Blocks::Q4K(blocks.clone()), 4, 100).is_err());
    let matrix = OwnMatMul::new(Blocks::Q4K(blocks), 2, 2 * QK_K).unwrap();
    let mut out = vec![0f32; 2];
    assert!(matrix.matmul(1, &[0.0; 10], &mut out).is_err());
    assert!(matrix.matmul(2, &[0.0; 2 * QK_K], &mut out).is_err());
}

#[test]
fn the_avx512_context_gives_exactly_the_avx2_results() {
    let mut rng = StdRng::seed_from_u64(11);
    let q4k = Blocks::Q4K(q4k_blocks(&mut rng, 24 * 2));
    let q6k = Blocks::Q6K(q6k_blocks(&mut rng, 24 * 2));
    for blocks in [q4k, q6k] {
        let mut matrix = OwnMatMul::new(blocks, 24, 2 * QK_K).unwrap();
        if matrix.wide.is_none() {
            eprintln!("skipped: this CPU has no AVX-512");
            return;
        }
        let input = inputs(&mut rng, 7 * 2 * QK_K);
        for rows in [1, 4, 7] {
            let mut wide = vec![0f32; rows * 24];
            matrix
                .matmul(rows, &input[..rows * 2 * QK_K], &mut wide)
                .unwrap();
            let saved = matrix.wide.take();
            let mut narrow = vec![0f32; rows * 24];
            matrix
                .matmul(rows, &input[..rows * 2 * QK_K], &mut narrow)
                .unwrap();
            matrix.wide = saved;
            assert_eq!(
                wide.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                narrow.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{rows} rows"
            );
        }
    }
}
