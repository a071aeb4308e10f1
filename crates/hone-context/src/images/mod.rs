//! Images a user attaches to a message: read by a face ([`read_image_file`]), checked and
//! made ready for a model by the session ([`prepare`]).
//!
//! Only PNG, JPEG, WebP and GIF are taken, told by the bytes themselves, never by the file
//! name. An image larger than [`MAX_SIDE`] pixels on a side, or than [`MAX_SENT_BYTES`], is
//! downscaled to fit (keeping its proportions) and re-encoded: PNG when it has transparency,
//! JPEG otherwise; an animated GIF keeps its first frame. Smaller images go as they are.

mod vision;

pub use vision::{KNOWN_VISION, known_vision};

use std::io::{Cursor, Read};
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hone_api::ImageAttachment;
use hone_protocol::{ContentBlock, ImageRef};
use image::{DynamicImage, ImageFormat, ImageReader, Limits};

/// The largest image file taken, in bytes (before any downscaling).
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

/// The longest side, in pixels, an image is sent with (larger ones are downscaled).
pub const MAX_SIDE: u32 = 1568;

/// The largest image sent, in bytes (larger ones are downscaled; the APIs refuse more).
pub const MAX_SENT_BYTES: usize = 3_750_000;

/// The most images one message may carry.
pub const MAX_IMAGES: usize = 20;

/// The largest picture decoded, in pixels on a side (a guard against decompression bombs).
const MAX_DECODED_SIDE: u32 = 16_384;

/// The memory decoding one image may take.
const MAX_DECODE_ALLOCATION: u64 = 512 * 1024 * 1024;

/// The JPEG quality downscaled pictures are encoded with.
const JPEG_QUALITY: u8 = 85;

/// Why an image cannot be attached.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The file could not be read.
    #[error("cannot read the image {name}: {source}")]
    Read {
        /// The image's name.
        name: String,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// The image is over [`MAX_IMAGE_BYTES`].
    #[error("the image {name} is {size} bytes; images up to {} MiB can be attached", MAX_IMAGE_BYTES / 1024 / 1024)]
    TooLarge {
        /// The image's name.
        name: String,
        /// Its size in bytes.
        size: u64,
    },
    /// The bytes are not base64.
    #[error("the image {name} is not valid base64: {reason}")]
    Encoding {
        /// The image's name.
        name: String,
        /// What the decoder said.
        reason: String,
    },
    /// Not one of the four formats.
    #[error("{name} is not a PNG, JPEG, WebP or GIF image")]
    Format {
        /// The image's name.
        name: String,
    },
    /// The format is right but the picture cannot be decoded or re-encoded.
    #[error("the image {name} could not be read as a picture: {reason}")]
    Decode {
        /// The image's name.
        name: String,
        /// What the decoder said.
        reason: String,
    },
    /// More than [`MAX_IMAGES`] images.
    #[error("{count} images attached; a message takes at most {MAX_IMAGES}")]
    TooMany {
        /// How many were attached.
        count: usize,
    },
    /// The model does not accept images.
    #[error(
        "{model} does not accept images, so the {} attached cannot be sent; choose a model \
         that sees (`--model`, or /model in the terminal UI), or describe the image in words",
        if *count == 1 { "image".to_string() } else { format!("{count} images") }
    )]
    ModelBlind {
        /// The model.
        model: String,
        /// How many images were attached.
        count: usize,
    },
}

/// An image ready for a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedImage {
    /// Its MIME type (`image/png`, …).
    pub media_type: &'static str,
    /// Its bytes, standard base64.
    pub data: String,
    /// Its size in pixels as sent.
    pub width: u32,
    /// Its height in pixels as sent.
    pub height: u32,
    /// Whether it was downscaled.
    pub resized: bool,
}

/// Reads the image file at `path` for a message: refused when over [`MAX_IMAGE_BYTES`] or
/// not a PNG, JPEG, WebP or GIF. The face decides which paths the user may name.
pub fn read_image_file(path: &Path) -> Result<ImageAttachment, ImageError> {
    let name = path.display().to_string();
    let read = |source| ImageError::Read {
        name: name.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read)?;
    let size = file.metadata().map_err(read)?.len();
    if size > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge { name, size });
    }
    let mut bytes = Vec::new();
    file.take(MAX_IMAGE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read)?;
    media_type(&bytes).ok_or_else(|| ImageError::Format { name: name.clone() })?;
    Ok(ImageAttachment {
        name: Some(name),
        data: STANDARD.encode(&bytes),
    })
}

/// Whether the file at `path` starts like a PNG, JPEG, WebP or GIF image (its first bytes
/// only are read; an unreadable file is not one).
pub fn is_image_file(path: &Path) -> bool {
    let mut head = [0_u8; 16];
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let read = file.read(&mut head).unwrap_or(0);
    media_type(&head[..read]).is_some()
}

/// The content blocks that carry `images` to `model`: refused when the model does not
/// accept images (`provider_says`, from the provider, then hone's model table [`known_vision`];
/// a model neither knows gets them and the API decides), else each prepared ([`prepare`]).
pub fn image_blocks(
    model: &str,
    provider_says: Option<bool>,
    images: &[ImageAttachment],
) -> Result<Vec<ContentBlock>, ImageError> {
    if images.is_empty() {
        return Ok(Vec::new());
    }
    if provider_says.or_else(|| known_vision(model)) == Some(false) {
        return Err(ImageError::ModelBlind {
            model: model.to_string(),
            count: images.len(),
        });
    }
    Ok(prepare_all(images)?
        .into_iter()
        .map(|image| {
            ContentBlock::Image(ImageRef::Base64 {
                media_type: image.media_type.to_string(),
                data: image.data,
            })
        })
        .collect())
}

/// Checks the attachments of one message and prepares each (see [`prepare`]).
pub fn prepare_all(images: &[ImageAttachment]) -> Result<Vec<PreparedImage>, ImageError> {
    if images.len() > MAX_IMAGES {
        return Err(ImageError::TooMany {
            count: images.len(),
        });
    }
    images.iter().enumerate().map(prepare_nth).collect()
}

fn prepare_nth((index, image): (usize, &ImageAttachment)) -> Result<PreparedImage, ImageError> {
    let name = image
        .name
        .clone()
        .unwrap_or_else(|| format!("#{}", index + 1));
    prepare(&name, &image.data)
}

/// Decodes `data` (base64), checks the format and size, and downscales the picture when it
/// is over [`MAX_SIDE`] or [`MAX_SENT_BYTES`]. `name` is for messages only.
pub fn prepare(name: &str, data: &str) -> Result<PreparedImage, ImageError> {
    let bytes = STANDARD
        .decode(data.trim())
        .map_err(|error| ImageError::Encoding {
            name: name.to_string(),
            reason: error.to_string(),
        })?;
    let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if size > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge {
            name: name.to_string(),
            size,
        });
    }
    let (format, media_type) = media_type(&bytes).ok_or_else(|| ImageError::Format {
        name: name.to_string(),
    })?;
    let decode_failed = |reason: String| ImageError::Decode {
        name: name.to_string(),
        reason,
    };
    let (width, height) = reader(&bytes, format)
        .into_dimensions()
        .map_err(|error| decode_failed(error.to_string()))?;
    if width <= MAX_SIDE && height <= MAX_SIDE && bytes.len() <= MAX_SENT_BYTES {
        return Ok(PreparedImage {
            media_type,
            data: STANDARD.encode(&bytes),
            width,
            height,
            resized: false,
        });
    }
    let picture = reader(&bytes, format)
        .decode()
        .map_err(|error| decode_failed(error.to_string()))?;
    downscale(&picture).map_err(decode_failed)
}

/// The format and MIME type of `bytes`, when it is one of the four taken.
fn media_type(bytes: &[u8]) -> Option<(ImageFormat, &'static str)> {
    match image::guess_format(bytes).ok()? {
        ImageFormat::Png => Some((ImageFormat::Png, "image/png")),
        ImageFormat::Jpeg => Some((ImageFormat::Jpeg, "image/jpeg")),
        ImageFormat::WebP => Some((ImageFormat::WebP, "image/webp")),
        ImageFormat::Gif => Some((ImageFormat::Gif, "image/gif")),
        _ => None,
    }
}

/// A decoder for `bytes` in `format`, with limits against decompression bombs.
fn reader(bytes: &[u8], format: ImageFormat) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DECODED_SIDE);
    limits.max_image_height = Some(MAX_DECODED_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOCATION);
    reader.limits(limits);
    reader
}

/// `picture` fitted within [`MAX_SIDE`] and re-encoded: PNG with transparency, else JPEG.
fn downscale(picture: &DynamicImage) -> Result<PreparedImage, String> {
    let mut side = MAX_SIDE;
    loop {
        let fitted = if picture.width() > side || picture.height() > side {
            picture.resize(side, side, image::imageops::FilterType::Triangle)
        } else {
            picture.clone()
        };
        let mut encoded = Vec::new();
        let media_type = if fitted.color().has_alpha() {
            fitted
                .write_to(&mut Cursor::new(&mut encoded), ImageFormat::Png)
                .map_err(|error| error.to_string())?;
            "image/png"
        } else {
            let rgb = DynamicImage::ImageRgb8(fitted.to_rgb8());
            let encoder =
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut encoded, JPEG_QUALITY);
            rgb.write_with_encoder(encoder)
                .map_err(|error| error.to_string())?;
            "image/jpeg"
        };
        // A picture that is still too large after fitting is halved until it is not.
        if encoded.len() <= MAX_SENT_BYTES || side <= 64 {
            return Ok(PreparedImage {
                media_type,
                data: STANDARD.encode(&encoded),
                width: fitted.width(),
                height: fitted.height(),
                resized: true,
            });
        }
        side /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage, Rgba, RgbaImage};

    fn encoded(picture: DynamicImage, format: ImageFormat) -> String {
        let mut bytes = Vec::new();
        picture
            .write_to(&mut Cursor::new(&mut bytes), format)
            .unwrap();
        STANDARD.encode(bytes)
    }

    fn gradient(width: u32, height: u32) -> DynamicImage {
        DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, y| {
            Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        }))
    }

    #[test]
    fn a_small_image_goes_as_it_is() {
        let data = encoded(gradient(40, 30), ImageFormat::Png);
        let prepared = prepare("shot.png", &data).unwrap();
        assert_eq!(prepared.media_type, "image/png");
        assert_eq!(prepared.data, data);
        assert_eq!((prepared.width, prepared.height), (40, 30));
        assert!(!prepared.resized);
    }

    #[test]
    fn each_format_is_told_by_its_bytes() {
        for (format, expected) in [
            (ImageFormat::Jpeg, "image/jpeg"),
            (ImageFormat::Gif, "image/gif"),
            (ImageFormat::WebP, "image/webp"),
        ] {
            let picture =
                DynamicImage::ImageRgba8(RgbaImage::from_pixel(8, 8, Rgba([1, 2, 3, 255])));
            let picture = if format == ImageFormat::Jpeg {
                DynamicImage::ImageRgb8(picture.to_rgb8())
            } else {
                picture
            };
            let prepared = prepare("named.png", &encoded(picture, format)).unwrap();
            assert_eq!(prepared.media_type, expected);
        }
    }

    #[test]
    fn a_large_image_is_downscaled_keeping_its_proportions() {
        let data = encoded(gradient(3200, 1600), ImageFormat::Png);
        let prepared = prepare("wide.png", &data).unwrap();
        assert!(prepared.resized);
        assert_eq!((prepared.width, prepared.height), (MAX_SIDE, MAX_SIDE / 2));
        assert_eq!(prepared.media_type, "image/jpeg");
        let transparent =
            DynamicImage::ImageRgba8(RgbaImage::from_pixel(2000, 100, Rgba([0, 0, 0, 0])));
        let prepared = prepare("t.png", &encoded(transparent, ImageFormat::Png)).unwrap();
        assert_eq!(prepared.media_type, "image/png");
        assert_eq!(prepared.width, MAX_SIDE);
    }

    #[test]
    fn other_formats_bad_base64_and_broken_pictures_are_refused() {
        let svg = STANDARD.encode("<svg xmlns='http://www.w3.org/2000/svg'/>");
        assert!(matches!(
            prepare("a.svg", &svg),
            Err(ImageError::Format { .. })
        ));
        assert!(matches!(
            prepare("x.png", "not base64!"),
            Err(ImageError::Encoding { .. })
        ));
        let mut truncated = STANDARD
            .decode(encoded(gradient(64, 64), ImageFormat::Png))
            .unwrap();
        truncated.truncate(40);
        let error = prepare("cut.png", &STANDARD.encode(truncated)).unwrap_err();
        assert!(error.to_string().contains("cut.png"), "{error}");
    }

    #[test]
    fn a_model_that_does_not_see_gets_no_image() {
        let image = ImageAttachment {
            name: Some("shot.png".into()),
            data: encoded(gradient(4, 4), ImageFormat::Png),
        };
        let images = [image];
        let refused = image_blocks("qwen2.5-coder:7b", None, &images).unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("qwen2.5-coder:7b does not accept images, so the image attached"),
            "{refused}"
        );
        assert!(image_blocks("gpt-4o", Some(false), &images).is_err());
        let blocks = image_blocks("my-own-model", None, &images).unwrap();
        assert!(
            matches!(&blocks[..], [ContentBlock::Image(ImageRef::Base64 { media_type, .. })] if media_type == "image/png")
        );
        assert!(image_blocks("qwen2.5-coder", None, &[]).unwrap().is_empty());
    }

    #[test]
    fn too_many_images_are_refused_before_any_is_read() {
        let images = vec![
            ImageAttachment {
                name: None,
                data: String::new(),
            };
            MAX_IMAGES + 1
        ];
        assert!(
            matches!(prepare_all(&images), Err(ImageError::TooMany { count }) if count == MAX_IMAGES + 1)
        );
    }

    #[test]
    fn files_are_read_when_they_are_pictures() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("shot.png");
        std::fs::write(
            &png,
            STANDARD
                .decode(encoded(gradient(4, 4), ImageFormat::Png))
                .unwrap(),
        )
        .unwrap();
        let attachment = read_image_file(&png).unwrap();
        assert!(attachment.name.unwrap().ends_with("shot.png"));
        assert_eq!(prepare("shot.png", &attachment.data).unwrap().width, 4);
        let text = dir.path().join("notes.png");
        std::fs::write(&text, "not a picture").unwrap();
        let error = read_image_file(&text).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("{} is not a PNG, JPEG, WebP or GIF image", text.display())
        );
        assert!(matches!(
            read_image_file(&dir.path().join("missing.png")),
            Err(ImageError::Read { .. })
        ));
    }
}
