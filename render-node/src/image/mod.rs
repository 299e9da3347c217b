//! Delivery pipeline on the CPU: decode the 1024 source PNG, fit inside the
//! requested box (never enlarging), resize with premultiplied alpha, encode.
//!
//! The control plane calls [`derive`]; everything here is synchronous and
//! CPU-bound, so call it from a blocking pool.

pub mod frame;
pub mod webp;

use fast_image_resize as fr;
use vis_protocol::{Format, Framing};

/// A straight-alpha RGBA8 image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl Rgba {
    pub fn new(width: u32, height: u32, pixels: Vec<u8>) -> Result<Rgba, ImageError> {
        if pixels.len() != width as usize * height as usize * 4 || width == 0 || height == 0 {
            return Err(ImageError::Size(format!(
                "{} bytes for {width}x{height} RGBA",
                pixels.len()
            )));
        }
        Ok(Rgba {
            width,
            height,
            pixels,
        })
    }

    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        [
            self.pixels[i],
            self.pixels[i + 1],
            self.pixels[i + 2],
            self.pixels[i + 3],
        ]
    }
}

/// An encoded output and its size.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub format: Format,
}

#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("bad image size: {0}")]
    Size(String),
    #[error("png decode: {0}")]
    Decode(String),
    #[error("encode {format}: {detail}")]
    Encode { format: Format, detail: String },
    #[error("resize: {0}")]
    Resize(String),
}

/// The source of a derived output: PNG bytes as stored, or decoded pixels.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Png(&'a [u8]),
    Rgba(&'a Rgba),
}

/// Derives one delivery output: fits the source inside `w` x `h` (either
/// may be None: no limit on that axis; never larger than the source), or
/// with a `fit` (or `trim`) frames it in the box itself
/// ([`Framing::output_size`], [`frame::frame`]), puts the background
/// behind it, then encodes. JPG is flattened on white.
pub fn derive(
    source: Source<'_>,
    w: Option<u32>,
    h: Option<u32>,
    framing: &Framing,
    format: Format,
) -> Result<Encoded, ImageError> {
    let decoded;
    let src = match source {
        Source::Png(bytes) => {
            decoded = decode_png(bytes)?;
            &decoded
        }
        Source::Rgba(img) => img,
    };
    let (tw, th) = match framing.fit {
        None => fit(src.width, src.height, w, h),
        Some(_) => framing.output_size(w, h),
    };
    let img = frame::frame(src, framing, tw, th)?;
    let bytes = encode(&img, format)?;
    Ok(Encoded {
        bytes,
        width: img.width,
        height: img.height,
        format,
    })
}

/// The largest size with the source's aspect that fits inside the box and
/// does not exceed the source. Never zero.
pub fn fit(sw: u32, sh: u32, w: Option<u32>, h: Option<u32>) -> (u32, u32) {
    let bw = w.unwrap_or(sw).min(sw).max(1);
    let bh = h.unwrap_or(sh).min(sh).max(1);
    // Scale = min(bw/sw, bh/sh), in integers to stay exact for squares.
    if u64::from(bw) * u64::from(sh) <= u64::from(bh) * u64::from(sw) {
        let hh = (u64::from(sh) * u64::from(bw) + u64::from(sw) / 2) / u64::from(sw);
        (bw, (hh as u32).clamp(1, bh))
    } else {
        let ww = (u64::from(sw) * u64::from(bh) + u64::from(sh) / 2) / u64::from(sh);
        ((ww as u32).clamp(1, bw), bh)
    }
}

/// Lanczos3 resize. fast_image_resize premultiplies the alpha before
/// filtering and divides it out after, so transparent pixels' colour never
/// bleeds into edges (no dark fringes).
pub fn resize(src: &Rgba, w: u32, h: u32) -> Result<Rgba, ImageError> {
    let src_img =
        fr::images::ImageRef::new(src.width, src.height, &src.pixels, fr::PixelType::U8x4)
            .map_err(|e| ImageError::Resize(e.to_string()))?;
    let mut dst = fr::images::Image::new(w, h, fr::PixelType::U8x4);
    let opts = fr::ResizeOptions::new()
        .resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::Lanczos3))
        .use_alpha(true);
    fr::Resizer::new()
        .resize(&src_img, &mut dst, &opts)
        .map_err(|e| ImageError::Resize(e.to_string()))?;
    Rgba::new(w, h, dst.into_vec())
}

pub fn encode(img: &Rgba, format: Format) -> Result<Vec<u8>, ImageError> {
    match format {
        Format::Png => encode_png(img),
        Format::Webp => encode_webp(img),
        Format::Jpg => encode_jpg(img),
        Format::Avif => encode_avif(img),
    }
}

/// PNG with the fast deflate (fdeflate) and adaptive filtering: within a
/// few per cent of the default level's size at a fraction of the time.
pub fn encode_png(img: &Rgba) -> Result<Vec<u8>, ImageError> {
    let err = |e: png::EncodingError| ImageError::Encode {
        format: Format::Png,
        detail: e.to_string(),
    };
    let mut out = Vec::with_capacity(img.pixels.len() / 6);
    {
        let mut enc = png::Encoder::new(&mut out, img.width, img.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().map_err(err)?;
        writer.write_image_data(&img.pixels).map_err(err)?;
        writer.finish().map_err(err)?;
    }
    Ok(out)
}

/// Lossy WebP with an alpha plane, quality 85, method 2 (about twice as
/// fast as the default method 4 for ~4% more bytes).
pub fn encode_webp(img: &Rgba) -> Result<Vec<u8>, ImageError> {
    let err = |detail: String| ImageError::Encode {
        format: Format::Webp,
        detail,
    };
    webp::encode_rgba(
        &img.pixels,
        img.width,
        img.height,
        webp::Settings {
            quality: 85.0,
            method: 2,
            alpha_quality: 90,
        },
    )
    .map_err(err)
}

/// Baseline JPEG, quality 85, flattened over white (JPG has no alpha).
pub fn encode_jpg(img: &Rgba) -> Result<Vec<u8>, ImageError> {
    let err = |detail: String| ImageError::Encode {
        format: Format::Jpg,
        detail,
    };
    let rgb = flatten_on_white(img);
    let w = u16::try_from(img.width).map_err(|_| err("width over 65535".into()))?;
    let h = u16::try_from(img.height).map_err(|_| err("height over 65535".into()))?;
    let mut out = Vec::with_capacity(rgb.len() / 10);
    let enc = jpeg_encoder::Encoder::new(&mut out, 85);
    enc.encode(&rgb, w, h, jpeg_encoder::ColorType::Rgb)
        .map_err(|e| err(e.to_string()))?;
    Ok(out)
}

/// AVIF (AV1 still, 8-bit 4:4:4 with an alpha plane) by ravif over rav1e:
/// quality 60 (alpha 70), speed 8, one thread. Chosen by measurement
/// (docs/benchmarks.md, "AVIF"): at these settings a render has WebP
/// q85's colour PSNR at about half its bytes; speed 10 is four times
/// faster but gives back most of the saving, speed 6 saves 5% more at
/// the same time. One thread: encodes run beside other requests in the
/// blocking pool, and tiles buy little on a still this size. An image
/// larger than a render (a spin's sprite sheet, 6 renders' worth of
/// pixels) is encoded at speed 10, so its encode stays a few seconds.
pub fn encode_avif(img: &Rgba) -> Result<Vec<u8>, ImageError> {
    let render_px = u64::from(vis_protocol::SOURCE_PX).pow(2);
    let speed = if u64::from(img.width) * u64::from(img.height) > render_px {
        10
    } else {
        8
    };
    let pixels: Vec<ravif::RGBA8> = img
        .pixels
        .chunks_exact(4)
        .map(|p| ravif::RGBA8::new(p[0], p[1], p[2], p[3]))
        .collect();
    let encoded = ravif::Encoder::new()
        .with_quality(60.0)
        .with_alpha_quality(70.0)
        .with_speed(speed)
        .with_num_threads(Some(1))
        .encode_rgba(ravif::Img::new(
            &pixels[..],
            img.width as usize,
            img.height as usize,
        ))
        .map_err(|e| ImageError::Encode {
            format: Format::Avif,
            detail: e.to_string(),
        })?;
    Ok(encoded.avif_file)
}

/// Lays `frames` (all of one size) out in a grid of `columns`, row by row
/// from the top left: a sprite sheet. The last row may be short; its empty
/// cells are transparent.
pub fn sprite(frames: &[Rgba], columns: u32) -> Result<Rgba, ImageError> {
    let first = frames
        .first()
        .ok_or_else(|| ImageError::Size("a sprite needs at least one frame".into()))?;
    let (fw, fh) = (first.width, first.height);
    if columns == 0 || frames.iter().any(|f| (f.width, f.height) != (fw, fh)) {
        return Err(ImageError::Size("sprite frames differ in size".into()));
    }
    let n = frames.len() as u32;
    let cols = columns.min(n);
    let rows = n.div_ceil(cols);
    let (w, h) = (fw * cols, fh * rows);
    let mut pixels = vec![0u8; w as usize * h as usize * 4];
    let row_bytes = fw as usize * 4;
    for (i, frame) in frames.iter().enumerate() {
        let (cx, cy) = (i as u32 % cols, i as u32 / cols);
        for y in 0..fh as usize {
            let dst = ((cy * fh) as usize + y) * w as usize * 4 + (cx * fw) as usize * 4;
            let src = y * row_bytes;
            pixels[dst..dst + row_bytes].copy_from_slice(&frame.pixels[src..src + row_bytes]);
        }
    }
    Rgba::new(w, h, pixels)
}

/// An animated WebP of `frames` (all of one size), each shown `frame_ms`,
/// looping forever; lossy with an alpha plane at the stills' settings.
pub fn encode_animated_webp(frames: &[Rgba], frame_ms: u32) -> Result<Vec<u8>, ImageError> {
    let err = |detail: String| ImageError::Encode {
        format: Format::Webp,
        detail,
    };
    let first = frames
        .first()
        .ok_or_else(|| err("an animation needs at least one frame".into()))?;
    let pixels: Vec<&[u8]> = frames.iter().map(|f| f.pixels.as_slice()).collect();
    webp::encode_animation(
        &pixels,
        first.width,
        first.height,
        frame_ms,
        webp::Settings {
            quality: 85.0,
            method: 2,
            alpha_quality: 90,
        },
    )
    .map_err(err)
}

/// Straight-alpha RGBA over opaque white, as RGB.
pub fn flatten_on_white(img: &Rgba) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(img.pixels.len() / 4 * 3);
    for px in img.pixels.chunks_exact(4) {
        let a = u32::from(px[3]);
        for c in &px[..3] {
            let v = (u32::from(*c) * a + 255 * (255 - a) + 127) / 255;
            rgb.push(v as u8);
        }
    }
    rgb
}

/// Decodes a PNG to straight-alpha RGBA8 (grey, RGB and palette expanded).
pub fn decode_png(bytes: &[u8]) -> Result<Rgba, ImageError> {
    let err = |e: png::DecodingError| ImageError::Decode(e.to_string());
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(err)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| ImageError::Decode("image too large".into()))?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(err)?;
    buf.truncate(info.buffer_size());
    let (w, h) = (info.width, info.height);
    let pixels = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|g| [*g, *g, *g, 255]).collect(),
        png::ColorType::Indexed => return Err(ImageError::Decode("palette not expanded".into())),
    };
    Rgba::new(w, h, pixels)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(w: u32, h: u32) -> Rgba {
        let mut px = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let inside = (x as i32 - w as i32 / 2).pow(2) + (y as i32 - h as i32 / 2).pow(2)
                    < (w as i32 / 3).pow(2);
                px.extend_from_slice(&if inside {
                    [200, 30, 40, 255]
                } else {
                    [0, 0, 0, 0]
                });
            }
        }
        Rgba::new(w, h, px).unwrap()
    }

    #[test]
    fn a_sprite_lays_frames_out_row_by_row() {
        let frames: Vec<Rgba> = (0..5u8)
            .map(|i| Rgba::new(2, 3, [i * 10, 0, 0, 255].repeat(6)).unwrap())
            .collect();
        let sheet = sprite(&frames, 3).unwrap();
        assert_eq!((sheet.width, sheet.height), (6, 6));
        // Frame i's cell: column i % 3, row i / 3.
        for i in 0..5u32 {
            let (x, y) = ((i % 3) * 2 + 1, (i / 3) * 3 + 2);
            assert_eq!(sheet.pixel(x, y), [i as u8 * 10, 0, 0, 255], "frame {i}");
        }
        // The short last row's empty cell is transparent.
        assert_eq!(sheet.pixel(5, 5)[3], 0);
        let odd = Rgba::new(3, 3, vec![0; 36]).unwrap();
        assert!(sprite(&[frames[0].clone(), odd], 3).is_err());
        assert!(sprite(&[], 3).is_err());
    }

    #[test]
    fn resize_never_enlarges_and_keeps_aspect() {
        assert_eq!(fit(1024, 1024, Some(256), None), (256, 256));
        assert_eq!(fit(1024, 1024, Some(2048), Some(2048)), (1024, 1024));
        assert_eq!(fit(1024, 1024, Some(512), Some(256)), (256, 256));
        assert_eq!(fit(1024, 512, Some(300), None), (300, 150));
        assert_eq!(fit(1024, 512, None, Some(100)), (200, 100));
        assert_eq!(fit(1024, 1024, None, None), (1024, 1024));
        for w in [1u32, 7, 255, 256, 511, 768, 1023, 4000] {
            for h in [1u32, 9, 300, 1024, 5000] {
                let (a, b) = fit(1024, 768, Some(w), Some(h));
                assert!(a <= w.min(1024) && b <= h.min(768), "{w}x{h} -> {a}x{b}");
                // Aspect kept to within a pixel's rounding.
                let err = (f64::from(a) / f64::from(b) - 1024.0 / 768.0).abs();
                assert!(
                    a == 1 || b == 1 || err < 2.0 / f64::from(b.min(a)),
                    "{a}x{b}"
                );
            }
        }
        let src = sample(64, 64);
        let out = derive(
            Source::Rgba(&src),
            Some(128),
            Some(128),
            &Framing::default(),
            Format::Png,
        )
        .unwrap();
        assert_eq!((out.width, out.height), (64, 64));
    }

    /// The first `ispe` box's width and height: the size an AVIF
    /// decoder reports.
    fn avif_size(bytes: &[u8]) -> (u32, u32) {
        let at = bytes.windows(4).position(|w| w == b"ispe").unwrap() + 8;
        let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
        (be(at), be(at + 4))
    }

    #[test]
    fn every_size_preset_and_format_encodes() {
        let src = sample(1024, 1024);
        let png = encode_png(&src).unwrap();
        for preset in vis_protocol::SizePreset::ALL {
            for format in Format::ALL {
                let out = derive(
                    Source::Png(&png),
                    Some(preset.px()),
                    Some(preset.px()),
                    &Framing::default(),
                    format,
                )
                .unwrap();
                assert_eq!((out.width, out.height), (preset.px(), preset.px()));
                match format {
                    Format::Png => assert_eq!(&out.bytes[..8], b"\x89PNG\r\n\x1a\n"),
                    Format::Webp => assert_eq!(&out.bytes[8..12], b"WEBP"),
                    Format::Jpg => assert_eq!(&out.bytes[..3], &[0xFF, 0xD8, 0xFF]),
                    Format::Avif => {
                        assert_eq!(&out.bytes[4..12], b"ftypavif");
                        assert_eq!(avif_size(&out.bytes), (out.width, out.height));
                        // The transparent background travels as an alpha plane.
                        let alpha = b"urn:mpeg:mpegB:cicp:systems:auxiliary:alpha";
                        assert!(out.bytes.windows(alpha.len()).any(|w| w == alpha));
                    }
                }
            }
        }
    }

    #[test]
    fn png_round_trips() {
        let src = sample(100, 60);
        let back = decode_png(&encode_png(&src).unwrap()).unwrap();
        assert_eq!(back, src);
    }

    #[test]
    fn resize_keeps_edges_free_of_dark_fringes() {
        let src = sample(512, 512);
        let small = resize(&src, 97, 97).unwrap();
        for px in small.pixels.chunks_exact(4) {
            // Any visible pixel keeps the red of the disc, not a darkened mix.
            if px[3] > 8 {
                assert!(px[0] > 170, "fringe pixel {px:?}");
            }
        }
    }

    #[test]
    fn jpg_has_no_alpha_and_a_white_background() {
        let src = sample(64, 64);
        let out = derive(
            Source::Rgba(&src),
            None,
            None,
            &Framing::default(),
            Format::Jpg,
        )
        .unwrap();
        // SOF0 says 3 components: no alpha channel.
        let sof = out
            .bytes
            .windows(2)
            .position(|w| w == [0xFF, 0xC0])
            .expect("baseline SOF0");
        assert_eq!(out.bytes[sof + 9], 3);
        let flat = flatten_on_white(&src);
        assert_eq!(
            &flat[..3],
            &[255, 255, 255],
            "transparent corner becomes white"
        );
        let c = (32 * 64 + 32) * 3;
        assert_eq!(&flat[c..c + 3], &[200, 30, 40]);
    }
}
