//! Lossy WebP with an alpha plane through libwebp 1.6 (`libwebp-sys`,
//! vendored and statically linked; 1.3.1, which the `webp` crate vendors,
//! predates the fix for CVE-2023-4863). Encode only: nothing here decodes
//! untrusted WebP.
//!
//! This is the project's one FFI module, so it lives alone and is kept
//! small: a still (config, picture, import, encode into a memory writer,
//! free) and an animation (libwebp's `WebPAnimEncoder`: one picture per
//! frame, assembled into one animated WebP, freed).
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

/// A validated encoder configuration for `settings`, alpha compressed.
fn config(settings: Settings) -> Result<sys::WebPConfig, String> {
    let mut config = sys::WebPConfig::new().map_err(|()| "libwebp config init failed")?;
    config.quality = settings.quality;
    config.method = settings.method;
    config.alpha_quality = settings.alpha_quality;
    config.alpha_compression = 1;
    // SAFETY: `config` is an initialised WebPConfig owned by this frame.
    if unsafe { sys::WebPValidateConfig(&config) } == 0 {
        return Err("invalid libwebp config".into());
    }
    Ok(config)
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
    let config = config(settings)?;
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

/// Encodes straight-alpha RGBA frames of one size (`width * height * 4`
/// bytes each) as an animated WebP that loops forever, each frame shown
/// `frame_ms`. Frames are lossy with an alpha plane, as stills are; the
/// encoder stores only what changed from frame to frame where that is
/// smaller.
pub fn encode_animation(
    frames: &[&[u8]],
    width: u32,
    height: u32,
    frame_ms: u32,
    settings: Settings,
) -> Result<Vec<u8>, String> {
    const MAX_EDGE: u32 = 16_383;
    if width == 0 || height == 0 || width > MAX_EDGE || height > MAX_EDGE {
        return Err(format!("{width}x{height} is outside 1..=16383"));
    }
    if frames.is_empty() {
        return Err("an animation needs at least one frame".into());
    }
    if frames
        .iter()
        .any(|f| f.len() != width as usize * height as usize * 4)
    {
        return Err("a frame's pixel buffer does not match the size".into());
    }
    let frame_ms = i32::try_from(frame_ms).map_err(|_| "frame time too long")?;
    let config = config(settings)?;
    let mut options = MaybeUninit::<sys::WebPAnimEncoderOptions>::uninit();
    // SAFETY: the init function fills every field of the options it is
    // given when the ABI versions match (checked by its return value).
    let mut options = unsafe {
        if sys::WebPAnimEncoderOptionsInitInternal(
            options.as_mut_ptr(),
            sys::WEBP_MUX_ABI_VERSION as i32,
        ) == 0
        {
            return Err("libwebp animation options init failed".into());
        }
        options.assume_init()
    };
    options.anim_params.loop_count = 0;
    options.anim_params.bgcolor = 0x0000_0000;
    // SAFETY: `options` is initialised; the encoder copies what it needs.
    let encoder = unsafe {
        sys::WebPAnimEncoderNewInternal(
            width as i32,
            height as i32,
            &options,
            sys::WEBP_MUX_ABI_VERSION as i32,
        )
    };
    if encoder.is_null() {
        return Err("libwebp could not create an animation encoder".into());
    }
    let result = add_frames(encoder, frames, width, height, frame_ms, &config).and_then(|()| {
        let mut data = sys::WebPData {
            bytes: std::ptr::null(),
            size: 0,
        };
        sys::WebPDataInit(&mut data);
        // SAFETY: every frame and the end timestamp were added; `data` is
        // initialised and receives a buffer the library allocated.
        let ok = unsafe { sys::WebPAnimEncoderAssemble(encoder, &mut data) };
        let out = if ok == 0 || data.bytes.is_null() {
            Err(anim_error(encoder, "assemble"))
        } else {
            // SAFETY: the library wrote `size` initialised bytes at `bytes`.
            Ok(unsafe { std::slice::from_raw_parts(data.bytes, data.size) }.to_vec())
        };
        // SAFETY: `data` was initialised above and is cleared exactly once.
        unsafe { sys::WebPDataClear(&mut data) };
        out
    });
    // SAFETY: created above, deleted exactly once.
    unsafe { sys::WebPAnimEncoderDelete(encoder) };
    result
}

/// Adds every frame at its timestamp, then the end of the last one.
fn add_frames(
    encoder: *mut sys::WebPAnimEncoder,
    frames: &[&[u8]],
    width: u32,
    height: u32,
    frame_ms: i32,
    config: &sys::WebPConfig,
) -> Result<(), String> {
    let mut timestamp = 0i32;
    for pixels in frames {
        let mut picture = sys::WebPPicture::new().map_err(|()| "libwebp picture init failed")?;
        picture.use_argb = 1;
        picture.width = width as i32;
        picture.height = height as i32;
        // SAFETY: `pixels` holds width*height*4 bytes (checked by the
        // caller) with a stride of width*4; the picture copies them.
        let imported = unsafe {
            sys::WebPPictureImportRGBA(&mut picture, pixels.as_ptr(), (width * 4) as i32)
        };
        let added = imported != 0
            // SAFETY: encoder, picture and config are initialised; the
            // encoder copies the picture before this returns.
            && unsafe { sys::WebPAnimEncoderAdd(encoder, &mut picture, timestamp, config) } != 0;
        // SAFETY: initialised above, freed exactly once.
        unsafe { sys::WebPPictureFree(&mut picture) };
        if !added {
            return Err(anim_error(encoder, "add a frame"));
        }
        timestamp = timestamp.saturating_add(frame_ms);
    }
    // SAFETY: a null frame marks the end of the animation at `timestamp`.
    if unsafe {
        sys::WebPAnimEncoderAdd(encoder, std::ptr::null_mut(), timestamp, std::ptr::null())
    } == 0
    {
        return Err(anim_error(encoder, "end the animation"));
    }
    Ok(())
}

fn anim_error(encoder: *mut sys::WebPAnimEncoder, what: &str) -> String {
    // SAFETY: the encoder is live; the message (when any) is a
    // NUL-terminated string it owns until its next call.
    let message = unsafe {
        let p = sys::WebPAnimEncoderGetError(encoder);
        if p.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    format!("libwebp could not {what}: {message}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_an_animation_that_loops_and_refuses_mismatched_frames() {
        let frame = |shade: u8| {
            let mut pixels = vec![0u8; 32 * 16 * 4];
            for (i, px) in pixels.chunks_mut(4).enumerate() {
                // Half opaque, half translucent (as a render's shadow is):
                // the encoder crops fully transparent borders away, so the
                // alpha plane must show inside the frame.
                px.copy_from_slice(&[shade, 30, 30, if i % 32 < 16 { 255 } else { 128 }]);
            }
            pixels
        };
        let frames: Vec<Vec<u8>> = (0..4).map(|i| frame(60 * i as u8)).collect();
        let refs: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        let s = Settings {
            quality: 80.0,
            method: 2,
            alpha_quality: 90,
        };
        let out = encode_animation(&refs, 32, 16, 100, s).unwrap();
        assert_eq!(&out[..4], b"RIFF");
        assert_eq!(&out[8..16], b"WEBPVP8X");
        // The VP8X flags say animation and alpha; ANIM loops forever; one
        // ANMF chunk per frame (no two frames here are alike).
        assert_eq!(out[20] & 0b0001_0010, 0b0001_0010, "flags {:08b}", out[20]);
        let anim = out.windows(4).position(|w| w == b"ANIM").unwrap();
        assert_eq!(&out[anim + 12..anim + 14], &[0, 0], "loop count");
        assert_eq!(out.windows(4).filter(|w| *w == b"ANMF").count(), 4);
        assert!(encode_animation(&refs, 32, 15, 100, s).is_err());
        assert!(encode_animation(&[], 32, 16, 100, s).is_err());
    }

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
