//! Reading tensors from the GGUF file: once at load, and again for transient repacking.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use candle_core::quantized::{GgmlDType, QStorage, QTensor, QuantizedType, gguf_file};
use candle_core::{Device, Result};

/// Where a tensor's blocks are in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Extent {
    pub(crate) dtype: GgmlDType,
    pub(crate) offset: u64,
    pub(crate) len: usize,
}

/// The open model file. It stays open for the life of the model, so a file replaced or
/// deleted on disk meanwhile (a new download) does not change what is read.
pub(crate) struct WeightFile {
    file: File,
    /// Reused read buffer, in `u64`s so the bytes are aligned for any block type.
    buffer: Vec<u64>,
}

impl WeightFile {
    pub(crate) fn new(file: File) -> Self {
        Self {
            file,
            buffer: Vec::new(),
        }
    }

    /// The location and type of tensor `name`.
    pub(crate) fn extent(content: &gguf_file::Content, name: &str) -> Result<(Extent, Vec<usize>)> {
        let Some(info) = content.tensor_infos.get(name) else {
            candle_core::bail!("the model file has no tensor `{name}`");
        };
        let elements = info.shape.elem_count();
        let block = info.ggml_dtype.block_size();
        if !elements.is_multiple_of(block) {
            candle_core::bail!("tensor `{name}` does not fill whole {block}-value blocks");
        }
        let extent = Extent {
            dtype: info.ggml_dtype,
            offset: content.tensor_data_offset.saturating_add(info.offset),
            len: elements / block * info.ggml_dtype.type_size(),
        };
        Ok((extent, info.shape.dims().to_vec()))
    }

    /// Reads a tensor's blocks into the shared buffer.
    fn read(&mut self, extent: Extent) -> Result<&[u8]> {
        let words = extent.len.div_ceil(8);
        if self.buffer.len() < words {
            self.buffer.resize(words, 0);
        }
        let bytes = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.buffer)[..extent.len];
        self.file.seek(SeekFrom::Start(extent.offset))?;
        self.file.read_exact(bytes)?;
        Ok(bytes)
    }

    /// A tensor as candle's compact block storage (no repacking, ever).
    pub(crate) fn compact(&mut self, extent: Extent) -> Result<Box<dyn QuantizedType>> {
        let dtype = extent.dtype;
        let bytes = self.read(extent)?;
        Ok(dtype.from_data(Cow::Borrowed(bytes)))
    }

    /// A tensor as a `QTensor` of `shape`.
    pub(crate) fn qtensor(&mut self, extent: Extent, shape: &[usize]) -> Result<QTensor> {
        let dtype = extent.dtype;
        let bytes = self.read(extent)?;
        let storage = QStorage::from_data(Cow::Borrowed(bytes), &Device::Cpu, dtype)?;
        QTensor::new(storage, shape.to_vec())
    }

    /// Releases the read buffer (after loading).
    pub(crate) fn shrink(&mut self) {
        self.buffer = Vec::new();
    }
}
