//! The wgpu device (one per process) and texture readback.

use crate::RenderError;

/// The variable to set before the first Vulkan instance so that Mesa's
/// device-selection layer does not probe for a Wayland compositor on a host
/// with no session, or `None` to leave the environment alone; `var` reads
/// the environment.
///
/// Mesa's implicit layer `VK_LAYER_MESA_device_select` asks a Wayland
/// compositor which GPU drives the screen whenever an instance enables
/// `VK_KHR_wayland_surface`, and wgpu's Vulkan backend enables every surface
/// extension there is. Without an absolute `XDG_RUNTIME_DIR` no compositor
/// can be reached, and libwayland prints "error: XDG_RUNTIME_DIR is invalid
/// or not set in the environment." for each probe: a false alarm in a
/// server's log. The layer only orders the devices (wgpu chooses by power
/// preference anyway), so on such a host it is switched off by its own
/// switch, `NODEVICE_SELECT=1`. Driver errors still print. An operator who
/// sets `NODEVICE_SELECT` (to anything, `0` keeps the layer) or
/// `MESA_VK_DEVICE_SELECT` keeps the say.
pub fn headless_vulkan_env(
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Option<(&'static str, &'static str)> {
    let session = var("XDG_RUNTIME_DIR").is_some_and(|d| d.to_string_lossy().starts_with('/'));
    let chosen = var("NODEVICE_SELECT").is_some() || var("MESA_VK_DEVICE_SELECT").is_some();
    (!session && !chosen).then_some(("NODEVICE_SELECT", "1"))
}

/// One adapter, device and queue, shared by every render of the process.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.info.name)
            .finish()
    }
}

impl Gpu {
    /// Opens the best adapter: the native driver on a GPU machine, Mesa's
    /// lavapipe (Vulkan on the CPU) without one. No adapter is an error.
    pub fn new() -> Result<Gpu, RenderError> {
        // Vulkan first, the other backends only where it has no adapter:
        // probing EGL on a host without a GL driver logs an ERROR although
        // Vulkan renders fine. WGPU_BACKEND, when set, decides alone.
        let all = wgpu::InstanceDescriptor::new_without_display_handle_from_env().backends;
        let tries = if std::env::var_os("WGPU_BACKEND").is_some()
            || !all.contains(wgpu::Backends::VULKAN)
        {
            vec![all]
        } else {
            vec![wgpu::Backends::VULKAN, all - wgpu::Backends::VULKAN]
        };
        let mut found = None;
        for backends in tries {
            let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
            desc.backends = backends;
            let instance = wgpu::Instance::new(desc);
            let got = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                ..Default::default()
            }));
            let done = got.is_ok();
            found = Some(got);
            if done {
                break;
            }
        }
        let adapter = found.expect("one backend set at least").map_err(|e| {
            RenderError::NoAdapter(format!(
                "{e}; install a Vulkan driver (on machines without a GPU: \
                 apt-get install -y mesa-vulkan-drivers)"
            ))
        })?;
        let info = adapter.get_info();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("vis-render"),
            required_features: wgpu::Features::empty(),
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| RenderError::NoAdapter(format!("request_device: {e}")))?;
        Ok(Gpu {
            device,
            queue,
            info,
        })
    }

    /// Whether rendering runs on the CPU (lavapipe / llvmpipe).
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// Waits for a mapped buffer and copies out `height` rows of `row_bytes`
    /// from a buffer laid out with `padded_row` bytes per row.
    pub fn read_buffer(
        &self,
        buffer: &wgpu::Buffer,
        row_bytes: usize,
        padded_row: usize,
        height: usize,
    ) -> Result<Vec<u8>, RenderError> {
        let slice = buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Gpu(format!("poll: {e}")))?;
        rx.recv()
            .map_err(|e| RenderError::Gpu(format!("map: {e}")))?
            .map_err(|e| RenderError::Gpu(format!("map: {e}")))?;
        let data = slice
            .get_mapped_range()
            .map_err(|e| RenderError::Gpu(format!("mapped range: {e}")))?;
        let mut out = Vec::with_capacity(row_bytes * height);
        for row in 0..height {
            out.extend_from_slice(&data[row * padded_row..row * padded_row + row_bytes]);
        }
        drop(data);
        buffer.unmap();
        Ok(out)
    }
}

#[cfg(test)]
mod env_tests {
    use super::headless_vulkan_env;
    use std::ffi::OsString;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |k| {
            pairs
                .iter()
                .find(|(name, _)| name == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_wayland_probe_is_switched_off_only_without_a_session_and_a_choice() {
        let off = Some(("NODEVICE_SELECT", "1"));
        assert_eq!(headless_vulkan_env(env(&[])), off);
        assert_eq!(headless_vulkan_env(env(&[("XDG_RUNTIME_DIR", "")])), off);
        assert_eq!(
            headless_vulkan_env(env(&[("XDG_RUNTIME_DIR", "run/user/0")])),
            off,
            "libwayland refuses a relative directory too"
        );
        assert_eq!(
            headless_vulkan_env(env(&[("XDG_RUNTIME_DIR", "/run/user/1000")])),
            None
        );
        assert_eq!(headless_vulkan_env(env(&[("NODEVICE_SELECT", "0")])), None);
        assert_eq!(
            headless_vulkan_env(env(&[("MESA_VK_DEVICE_SELECT", "10de:2330")])),
            None
        );
    }
}
