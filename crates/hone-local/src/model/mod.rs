//! The decoder-only transformer of Qwen2/2.5, Qwen3 and Llama 3.x, run on the CPU with
//! candle. The three differ only in details `config::Architecture` names: biases on the
//! query/key/value projections (Qwen2), per-head query/key norms (Qwen3), interleaved
//! rotary pairs and per-frequency rotary factors (Llama).
//!
//! Adapted from candle-transformers 0.11 `models::quantized_qwen2`
//! (<https://github.com/huggingface/candle>, MIT OR Apache-2.0, © the candle authors).
//! Changes: the key/value cache is preallocated, sequence-major and truncatable (for
//! prefix reuse across requests); attention works on grouped-query heads directly (no
//! repeated K/V): candle-nn's CPU flash attention for a single new token, blocked matrix
//! products for a batch of prompt tokens (`attention.rs`); the token embedding stays
//! quantized (rows are dequantized on lookup instead of keeping an f32 copy of the
//! whole vocabulary); logits are computed only when asked for, for the last position;
//! the query/key/value and the gate/up projections of a layer are stacked into one matrix
//! each where their block types agree (`stacked.rs`).

mod activation;
mod attention;
mod cache;
mod config;
mod kernels;
mod linear;
mod row_attention;
mod stacked;
mod weights;

use candle_core::quantized::{QTensor, gguf_file};
use candle_core::{DType, Device, Result, Tensor};

use activation::SwiGlu;
use cache::KvCache;
pub(crate) use config::{Config, architecture};
use linear::QLinear;
pub use linear::WeightLayout;
use row_attention::RowAttention;
use stacked::Stacked;
use weights::WeightFile;

struct Layer {
    attn_norm: Tensor,
    /// Query, key and value projections.
    qkv: Stacked,
    /// Query, key and value biases (Qwen2).
    qkv_bias: Option<[Tensor; 3]>,
    /// Per-head query and key RMS-norm weights (Qwen3).
    qk_norm: Option<[Tensor; 2]>,
    o: QLinear,
    ffn_norm: Tensor,
    /// Gate and up projections.
    gate_up: Stacked,
    down: QLinear,
}

/// A loaded model with its key/value cache.
pub(crate) struct Transformer {
    config: Config,
    embeddings: QTensor,
    layers: Vec<Layer>,
    norm: Tensor,
    output: QLinear,
    cos: Tensor,
    sin: Tensor,
    cache: KvCache,
    file: WeightFile,
    layout: WeightLayout,
}

impl Transformer {
    /// Reads the weights described by `content` from `file`; the cache holds at most
    /// `max_positions`. The file stays open: prompt batches re-read weights from it.
    pub(crate) fn load(
        content: &gguf_file::Content,
        file: std::fs::File,
        max_positions: usize,
        layout: WeightLayout,
    ) -> Result<Self> {
        let device = Device::Cpu;
        let config = Config::from_gguf(content)?;
        let mut file = WeightFile::new(file);
        let qtensor = |file: &mut WeightFile, name: &str| {
            let (extent, shape) = WeightFile::extent(content, name)?;
            file.qtensor(&[extent], &shape)
        };
        let dense = |file: &mut WeightFile, name: &str| -> Result<Tensor> {
            let (extent, shape) = WeightFile::extent(content, name)?;
            file.qtensor(&[extent], &shape)?.dequantize(&Device::Cpu)
        };
        let linear = |file: &mut WeightFile, name: &str| {
            let (extent, shape) = WeightFile::extent(content, name)?;
            QLinear::load(file, &[extent], &shape, layout)
        };
        let stacked = |file: &mut WeightFile, names: &[String]| {
            let tensors = names
                .iter()
                .map(|name| WeightFile::extent(content, name))
                .collect::<Result<Vec<_>>>()?;
            Stacked::load(file, &tensors, layout)
        };
        // The two largest tensors first, each followed by freeing the read buffer: reading
        // briefly needs a second copy of a tensor, which then costs least.
        let embeddings = qtensor(&mut file, "token_embd.weight")?;
        file.shrink();
        let output = if content.tensor_infos.contains_key("output.weight") {
            linear(&mut file, "output.weight")?
        } else {
            linear(&mut file, "token_embd.weight")?
        };
        file.shrink();
        let norm = dense(&mut file, "output_norm.weight")?;
        let mut layers = Vec::with_capacity(config.layers);
        for index in 0..config.layers {
            let name = |suffix: &str| format!("blk.{index}.{suffix}");
            layers.push(Layer {
                attn_norm: dense(&mut file, &name("attn_norm.weight"))?,
                qkv: stacked(
                    &mut file,
                    &[
                        name("attn_q.weight"),
                        name("attn_k.weight"),
                        name("attn_v.weight"),
                    ],
                )?,
                qkv_bias: if config.architecture.qkv_bias() {
                    Some([
                        dense(&mut file, &name("attn_q.bias"))?,
                        dense(&mut file, &name("attn_k.bias"))?,
                        dense(&mut file, &name("attn_v.bias"))?,
                    ])
                } else {
                    None
                },
                qk_norm: if config.architecture.qk_norm() {
                    Some([
                        dense(&mut file, &name("attn_q_norm.weight"))?,
                        dense(&mut file, &name("attn_k_norm.weight"))?,
                    ])
                } else {
                    None
                },
                o: linear(&mut file, &name("attn_output.weight"))?,
                ffn_norm: dense(&mut file, &name("ffn_norm.weight"))?,
                gate_up: stacked(&mut file, &[name("ffn_gate.weight"), name("ffn_up.weight")])?,
                down: linear(&mut file, &name("ffn_down.weight"))?,
            });
        }
        // Llama 3.1's long-context scaling: each rotary frequency divided by its factor.
        let rope_factors = if content.tensor_infos.contains_key("rope_freqs.weight") {
            Some(dense(&mut file, "rope_freqs.weight")?.to_vec1::<f32>()?)
        } else {
            None
        };
        file.shrink();
        let (cos, sin) = rope_tables(&config, rope_factors.as_deref(), max_positions, &device)?;
        let cache = KvCache::new(
            config.layers,
            config.kv_heads,
            config.head_dim,
            max_positions,
        );
        Ok(Self {
            config,
            embeddings,
            layers,
            norm,
            output,
            cos,
            sin,
            cache,
            file,
            layout,
        })
    }

    /// Whether [`Transformer::forward_each`] gives exactly the logits of decoding one token at a
    /// time. Not with repacked weights outside x86, whose kernels for one row and for several
    /// differ (see [`linear::keeps_tiles`]).
    pub(crate) fn verifies_exactly(&self) -> bool {
        self.layout == WeightLayout::Compact || cfg!(target_arch = "x86_64")
    }

    /// Most positions the key/value cache can hold.
    pub(crate) fn max_positions(&self) -> usize {
        self.cos.dims().first().copied().unwrap_or(0)
    }

    /// Number of positions in the key/value cache.
    pub(crate) fn cached_len(&self) -> usize {
        self.cache.len()
    }

    /// Forgets cached positions from `len` on.
    pub(crate) fn truncate_cache(&mut self, len: usize) {
        self.cache.truncate(len);
    }

    /// The shape of one cached position: `(layers, kv_heads, head_dim)`.
    pub(crate) fn cache_geometry(&self) -> [usize; 3] {
        self.cache.geometry()
    }

    /// Keys and values of the first `len` cached positions (see `KvCache::export`).
    pub(crate) fn export_cache(&self, len: usize) -> Result<(Vec<f32>, Vec<f32>)> {
        self.cache.export(len)
    }

    /// Replaces the cache with `len` positions of keys and values (see `KvCache::import`).
    pub(crate) fn import_cache(
        &mut self,
        len: usize,
        keys: Vec<f32>,
        values: Vec<f32>,
    ) -> Result<()> {
        self.cache.import(len, keys, values)
    }

    /// Makes room in the cache for `positions`; memory is only used as they fill.
    pub(crate) fn reserve_cache(&mut self, positions: usize) -> Result<()> {
        self.cache.reserve(positions)
    }

    /// Runs `tokens` after the cached positions and appends them to the cache. With
    /// `logits`, returns the next-token logits after the last of them.
    pub(crate) fn forward(&mut self, tokens: &[u32], logits: bool) -> Result<Option<Vec<f32>>> {
        let outputs = if logits { Outputs::Last } else { Outputs::None };
        Ok(self.run(tokens, outputs)?.pop())
    }

    /// Runs `tokens` (at most [`MAX_VERIFY_ROWS`]) after the cached positions, appends them
    /// to the cache and returns the next-token logits after each of them. Every row is
    /// computed exactly as [`Transformer::forward`] computes a single token at its position
    /// (same kernels, same order of operations), so the logits are bit-for-bit those of
    /// decoding the tokens one at a time: speculative decoding verifies drafts with them
    /// without changing the answer.
    pub(crate) fn forward_each(&mut self, tokens: &[u32]) -> Result<Vec<Vec<f32>>> {
        if tokens.len() > MAX_VERIFY_ROWS {
            candle_core::bail!(
                "{} tokens in one verification pass, at most {MAX_VERIFY_ROWS}",
                tokens.len()
            );
        }
        self.run(tokens, Outputs::Each)
    }

    fn run(&mut self, tokens: &[u32], outputs: Outputs) -> Result<Vec<Vec<f32>>> {
        let Some(count) = std::num::NonZeroUsize::new(tokens.len()) else {
            return Ok(Vec::new());
        };
        let count = count.get();
        let position = self.cached_len();
        let ids = Tensor::from_slice(tokens, (1, count), &Device::Cpu)?;
        let mut x = self.embeddings.embedding(&ids)?;
        let cos = self.cos.narrow(0, position, count)?;
        let sin = self.sin.narrow(0, position, count)?;
        let eps = self.config.rms_eps as f32;
        let (heads, kv_heads, head_dim) = (
            self.config.heads,
            self.config.kv_heads,
            self.config.head_dim,
        );
        let interleaved = self.config.architecture.interleaved_rope();
        let scale = 1.0 / (head_dim as f32).sqrt();
        for (index, layer) in self.layers.iter_mut().enumerate() {
            let h = candle_nn::ops::rms_norm(&x, &layer.attn_norm, eps)?;
            let [mut q, mut k, mut v] = projections(layer.qkv.forward(&h, &mut self.file)?)?;
            if let Some([q_bias, k_bias, v_bias]) = &layer.qkv_bias {
                q = q.broadcast_add(q_bias)?;
                k = k.broadcast_add(k_bias)?;
                v = v.broadcast_add(v_bias)?;
            }
            let mut q = q.reshape((1, count, heads, head_dim))?;
            let mut k = k.reshape((1, count, kv_heads, head_dim))?;
            let v = v.reshape((1, count, kv_heads, head_dim))?;
            if let Some([q_norm, k_norm]) = &layer.qk_norm {
                q = candle_nn::ops::rms_norm(&q, q_norm, eps)?;
                k = candle_nn::ops::rms_norm(&k, k_norm, eps)?;
            }
            let q = rotate(&q, &cos, &sin, interleaved)?;
            let k = rotate(&k, &cos, &sin, interleaved)?;
            let (keys, values) = self.cache.append(index, &k, &v)?;
            let attention = if count == 1 || outputs == Outputs::Each {
                // Each row exactly as it would be computed alone (`row_attention.rs`).
                q.contiguous()?
                    .apply_op3_no_bwd(&keys, &values, &RowAttention { scale })?
            } else {
                attention::prompt_attention(&q, &keys, &values, f64::from(scale))?
            };
            x = (x + layer.o.forward(&attention, &mut self.file)?)?;
            let h = candle_nn::ops::rms_norm(&x, &layer.ffn_norm, eps)?;
            let [gate, up] = projections(layer.gate_up.forward(&h, &mut self.file)?)?;
            let hidden = gate.apply_op2_no_bwd(&up, &SwiGlu)?;
            x = (x + layer.down.forward(&hidden, &mut self.file)?)?;
        }
        self.cache.advance(count);
        let x = match outputs {
            Outputs::None => return Ok(Vec::new()),
            Outputs::Last => x.narrow(1, count - 1, 1)?,
            Outputs::Each => x,
        };
        let x = candle_nn::ops::rms_norm(&x, &self.norm, eps)?;
        let logits = self.output.forward(&x, &mut self.file)?;
        logits.squeeze(0)?.to_dtype(DType::F32)?.to_vec2()
    }
}

/// The outputs of a [`Stacked`] multiplication, as many as it has matrices.
fn projections<const N: usize>(tensors: Vec<Tensor>) -> Result<[Tensor; N]> {
    let count = tensors.len();
    <[Tensor; N]>::try_from(tensors)
        .map_err(|_| candle_core::Error::Msg(format!("{count} projections, not {N}")))
}

/// Most tokens [`Transformer::forward_each`] takes at once: below the batch size from which
/// matrices are multiplied through transient repacked tiles (whose results differ in the
/// last bits), and below the 32 rows from which candle multiplies kept tiles
/// ([`WeightLayout::Repacked`]) with AMX where the CPU has it.
pub(crate) const MAX_VERIFY_ROWS: usize = 31;
const _: () = assert!(MAX_VERIFY_ROWS < linear::TRANSIENT_MIN_ROWS);

/// Which positions of a forward pass produce logits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outputs {
    None,
    Last,
    Each,
}

/// Applies the rotary embedding to `x` `(1, n, heads, head_dim)` at the positions of the
/// `(n, head_dim / 2)` tables `cos` and `sin`.
fn rotate(x: &Tensor, cos: &Tensor, sin: &Tensor, interleaved: bool) -> Result<Tensor> {
    if !interleaved {
        return candle_nn::rotary_emb::rope_thd(x, cos, sin);
    }
    // candle's interleaved kernel wants `(batch, heads, positions, head_dim)`: each position
    // becomes a batch of one position with its own row of the tables, so nothing is copied.
    let (_, count, heads, head_dim) = x.dims4()?;
    let half = head_dim / 2;
    let rotated = candle_nn::rotary_emb::rope_i(
        &x.reshape((count, heads, 1, head_dim))?,
        &cos.reshape((count, 1, half))?,
        &sin.reshape((count, 1, half))?,
    )?;
    rotated.reshape((1, count, heads, head_dim))
}

/// Rotary embedding tables, `(positions, head_dim / 2)` each; `factors` (one per
/// frequency) divide the frequencies.
fn rope_tables(
    config: &Config,
    factors: Option<&[f32]>,
    positions: usize,
    device: &Device,
) -> Result<(Tensor, Tensor)> {
    let head_dim = config.head_dim;
    if let Some(factors) = factors
        && factors.len() != head_dim / 2
    {
        candle_core::bail!(
            "`rope_freqs.weight` has {} factors for {} rotary frequencies",
            factors.len(),
            head_dim / 2
        );
    }
    let factors = factors.map_or_else(|| vec![1.0; head_dim / 2], <[f32]>::to_vec);
    let inverse: Vec<f32> = (0..head_dim / 2)
        .zip(factors)
        .map(|(i, factor)| 1.0 / config.rope_base.powf((2 * i) as f32 / head_dim as f32) / factor)
        .collect();
    let inverse = Tensor::new(inverse.as_slice(), device)?;
    let angles = Tensor::arange(0, positions as u32, device)?
        .to_dtype(DType::F32)?
        .reshape((positions, 1))?
        .broadcast_mul(&inverse.reshape((1, head_dim / 2))?)?;
    Ok((angles.cos()?, angles.sin()?))
}

/// Index of the largest value (the first one on ties); `None` for an empty slice.
pub(crate) fn argmax(values: &[f32]) -> Option<usize> {
    values
        .iter()
        .enumerate()
        .fold(
            None,
            |best: Option<(usize, f32)>, (index, &value)| match best {
                Some((_, top)) if top >= value => best,
                _ => Some((index, value)),
            },
        )
        .map(|(index, _)| index)
}

#[cfg(test)]
mod tests {
    use super::config::Architecture;
    use super::*;

    #[test]
    fn argmax_prefers_the_first_maximum() {
        assert_eq!(argmax(&[1.0, 3.0, 3.0, -1.0]), Some(1));
        assert_eq!(argmax(&[]), None);
    }

    #[test]
    fn rope_tables_start_at_angle_zero() {
        let config = Config {
            architecture: Architecture::Qwen2,
            layers: 1,
            heads: 2,
            kv_heads: 1,
            hidden: 8,
            head_dim: 4,
            context_length: 32,
            rms_eps: 1e-6,
            rope_base: 10_000.0,
        };
        let (cos, sin) = rope_tables(&config, None, 16, &Device::Cpu).unwrap();
        assert_eq!(cos.dims(), &[16, 2]);
        let first: Vec<f32> = cos.get(0).unwrap().to_vec1().unwrap();
        assert_eq!(first, vec![1.0, 1.0]);
        let zero: Vec<f32> = sin.get(0).unwrap().to_vec1().unwrap();
        assert_eq!(zero, vec![0.0, 0.0]);
    }
}

#[cfg(test)]
mod synthetic_tests;
