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

    /// Reads the blocks of `extents`, one after the other, into the shared buffer.
    fn read(&mut self, extents: &[Extent]) -> Result<&[u8]> {
        let len = total_len(extents)?;
        Ok(self.read_into_tail(extents, len)?)
    }

    /// Makes the shared buffer `len` bytes long and reads the blocks of `extents`, one
    /// after the other, into its end.
    fn read_into_tail(&mut self, extents: &[Extent], len: usize) -> Result<&mut [u8]> {
        let words = len.div_ceil(8);
        if self.buffer.len() < words {
            self.buffer.resize(words, 0);
        }
        let bytes = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.buffer)[..len];
        let read = total_len(extents)?;
        let Some(start) = len.checked_sub(read) else {
            candle_core::bail!("a {len}-byte buffer cannot hold {read} bytes");
        };
        read_extents(&mut self.file, extents, &mut bytes[start..])?;
        Ok(bytes)
    }

    /// The rows of the tensors at `extents` (one block type), one tensor after the other,
    /// as candle's compact block storage (no repacking, ever).
    pub(crate) fn compact(&mut self, extents: &[Extent]) -> Result<Box<dyn QuantizedType>> {
        let dtype = common_dtype(extents)?;
        let bytes = self.read(extents)?;
        Ok(dtype.from_data(Cow::Borrowed(bytes)))
    }

    /// Reads the blocks at `extents` (all of one type, `T` being its layout) as they are.
    pub(crate) fn blocks<T: bytemuck::Pod>(&mut self, extents: &[Extent]) -> Result<Vec<T>> {
        let len = total_len(extents)?;
        let size = std::mem::size_of::<T>();
        if size == 0 || !len.is_multiple_of(size) {
            candle_core::bail!("{len} bytes are not whole {size}-byte blocks");
        }
        let mut blocks = vec![T::zeroed(); len / size];
        read_extents(
            &mut self.file,
            extents,
            bytemuck::cast_slice_mut::<T, u8>(&mut blocks),
        )?;
        Ok(blocks)
    }

    /// The tensors at `extents` (one block type), one after the other, as a `QTensor` of
    /// `shape`.
    pub(crate) fn qtensor(&mut self, extents: &[Extent], shape: &[usize]) -> Result<QTensor> {
        let dtype = common_dtype(extents)?;
        let bytes = self.read(extents)?;
        let storage = QStorage::from_data(Cow::Borrowed(bytes), &Device::Cpu, dtype)?;
        QTensor::new(storage, shape.to_vec())
    }

    /// The tensors at `extents`, one after the other, of `shape` `(rows, features)` in all,
    /// as a `QTensor` of `(rows, padded)`: each row followed by zero blocks up to `padded`
    /// features (a multiple of the block size).
    pub(crate) fn qtensor_padded(
        &mut self,
        extents: &[Extent],
        shape: &[usize],
        padded: usize,
    ) -> Result<QTensor> {
        let &[rows, features] = shape else {
            candle_core::bail!("a padded tensor needs two dimensions, not {shape:?}");
        };
        if padded == features {
            return self.qtensor(extents, shape);
        }
        let dtype = common_dtype(extents)?;
        let read = total_len(extents)?;
        let block = dtype.block_size();
        if !features.is_multiple_of(block) || !padded.is_multiple_of(block) || padded < features {
            candle_core::bail!(
                "cannot pad {features} features to {padded} in {block}-value blocks"
            );
        }
        let row_bytes = features / block * dtype.type_size();
        let padded_row_bytes = padded / block * dtype.type_size();
        if read != rows * row_bytes {
            candle_core::bail!("{read} bytes are not {rows} rows of {features} values");
        }
        // The blocks are read into the end of the buffer and each row moved to its padded
        // place, front to back: a row's padded place never reaches past the start of the
        // next unmoved row. Zero bytes are a zero block for every type candle has.
        let len = rows * padded_row_bytes;
        let start = len - read;
        let bytes = self.read_into_tail(extents, len)?;
        for row in 0..rows {
            let from = start + row * row_bytes;
            let to = row * padded_row_bytes;
            bytes.copy_within(from..from + row_bytes, to);
            bytes[to + row_bytes..to + padded_row_bytes].fill(0);
        }
        let storage = QStorage::from_data(Cow::Borrowed(bytes), &Device::Cpu, dtype)?;
        QTensor::new(storage, vec![rows, padded])
    }

    /// Releases the read buffer (after loading).
    pub(crate) fn shrink(&mut self) {
        self.buffer = Vec::new();
    }
}

/// Reads the bytes at `extents` one after the other into `bytes` (exactly their length).
fn read_extents(file: &mut File, extents: &[Extent], bytes: &mut [u8]) -> Result<()> {
    let mut start = 0;
    for extent in extents {
        file.seek(SeekFrom::Start(extent.offset))?;
        file.read_exact(&mut bytes[start..start + extent.len])?;
        start += extent.len;
    }
    Ok(())
}

/// The bytes of `extents` together.
fn total_len(extents: &[Extent]) -> Result<usize> {
    extents.iter().try_fold(0usize, |sum, extent| {
        sum.checked_add(extent.len)
            .ok_or_else(|| candle_core::Error::Msg("tensors too large to read together".into()))
    })
}

/// The block type of `extents`, which must all have the same.
fn common_dtype(extents: &[Extent]) -> Result<GgmlDType> {
    let Some(first) = extents.first() else {
        candle_core::bail!("no tensor to read");
    };
    if let Some(other) = extents.iter().find(|extent| extent.dtype != first.dtype) {
        candle_core::bail!(
            "tensors of {:?} and {:?} blocks cannot be read as one",
            first.dtype,
            other.dtype
        );
    }
    Ok(first.dtype)
}
