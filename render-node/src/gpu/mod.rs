//! The wgpu device (one per process) and texture readback.

use crate::RenderError;

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
        let desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        let instance = wgpu::Instance::new(desc);
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            ..Default::default()
        }))
        .map_err(|e| {
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
