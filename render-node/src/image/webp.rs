//! Lossy WebP with an alpha plane through libwebp 1.6 (`libwebp-sys`,
//! vendored and statically linked; 1.3.1, which the `webp` crate vendors,
//! predates the fix for CVE-2023-4863). Encode only: nothing here decodes
//! untrusted WebP.
//!
//! This is the project's one FFI call sequence, so it lives alone and is
//! kept small: config, picture, import, encode into a memory writer, free.
#![allow(unsafe_code)]

use std::mem::MaybeUninit;

use libwebp_sys as sys;

/// Encoder settings.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// 0..=100.
    pub quality: f32,
    /// 0 (fast) ..= 6 (slow, smaller).
    pub method: i32,
    /// 0..=100.
    pub alpha_quality: i32,
}

/// The linked libwebp's encoder version, `(major, minor, revision)`.
pub fn encoder_version() -> (u32, u32, u32) {
    // SAFETY: a pure function of the linked library, no arguments.
    let v = unsafe { sys::WebPGetEncoderVersion() } as u32;
    ((v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff)
}

/// Encodes straight-alpha RGBA (`width * height * 4` bytes).
pub fn encode_rgba(
    pixels: &[u8],
    width: u32,
    height: u32,
    settings: Settings,
) -> Result<Vec<u8>, String> {
    const MAX_EDGE: u32 = 16_383;
    if width == 0 || height == 0 || width > MAX_EDGE || height > MAX_EDGE {
        return Err(format!("{width}x{height} is outside 1..=16383"));
    }
    if pixels.len() != width as usize * height as usize * 4 {
        return Err("pixel buffer does not match the size".into());
    }
    let mut config = sys::WebPConfig::new().map_err(|()| "libwebp config init failed")?;
    config.quality = settings.quality;
    config.method = settings.method;
    config.alpha_quality = settings.alpha_quality;
    config.alpha_compression = 1;
    // SAFETY: `config` is an initialised WebPConfig owned by this frame.
    if unsafe { sys::WebPValidateConfig(&config) } == 0 {
        return Err("invalid libwebp config".into());
    }
    let mut picture = sys::WebPPicture::new().map_err(|()| "libwebp picture init failed")?;
    picture.use_argb = 1;
    picture.width = width as i32;
    picture.height = height as i32;
    let mut writer = MaybeUninit::<sys::WebPMemoryWriter>::uninit();
    // SAFETY: WebPMemoryWriterInit fully initialises the writer it is given.
    let mut writer = unsafe {
        sys::WebPMemoryWriterInit(writer.as_mut_ptr());
        writer.assume_init()
    };
    // SAFETY: `pixels` holds width*height*4 bytes (checked above) with a
    // stride of width*4; the picture copies them into buffers it owns.
    let imported =
        unsafe { sys::WebPPictureImportRGBA(&mut picture, pixels.as_ptr(), (width * 4) as i32) };
    let result = if imported == 0 {
        Err("libwebp could not import the pixels".to_owned())
    } else {
        picture.writer = Some(sys::WebPMemoryWrite);
        picture.custom_ptr = (&raw mut writer).cast();
        // SAFETY: config and picture are initialised; the picture's writer
        // appends to `writer`, which outlives this call.
        let ok = unsafe { sys::WebPEncode(&config, &mut picture) };
        if ok == 0 {
            Err(format!("libwebp encode failed: {:?}", picture.error_code))
        } else if writer.mem.is_null() {
            Err("libwebp wrote nothing".to_owned())
        } else {
            // SAFETY: the memory writer holds `size` initialised bytes at `mem`.
            Ok(unsafe { std::slice::from_raw_parts(writer.mem, writer.size) }.to_vec())
        }
    };
    // SAFETY: both were initialised above and are freed exactly once.
    unsafe {
        sys::WebPPictureFree(&mut picture);
        sys::WebPMemoryWriterClear(&mut writer);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_linked_libwebp_has_the_cve_2023_4863_fix() {
        let (major, minor, _) = encoder_version();
        assert!((major, minor) >= (1, 6), "libwebp {major}.{minor}");
    }

    #[test]
    fn encodes_a_transparent_image_and_refuses_bad_sizes() {
        let mut pixels = vec![0u8; 64 * 32 * 4];
        for (i, px) in pixels.chunks_mut(4).enumerate() {
            px.copy_from_slice(&[200, 30, 30, if i % 64 < 32 { 255 } else { 0 }]);
        }
        let s = Settings {
            quality: 85.0,
            method: 2,
            alpha_quality: 90,
        };
        let out = encode_rgba(&pixels, 64, 32, s).unwrap();
        assert_eq!(&out[..4], b"RIFF");
        assert_eq!(&out[8..12], b"WEBP");
        assert!(encode_rgba(&pixels, 64, 31, s).is_err());
        assert!(encode_rgba(&[], 0, 0, s).is_err());
    }
}
