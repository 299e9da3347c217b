//! The process allocator's settings.
//!
//! glibc's malloc raises its mmap threshold each time a large block is
//! freed (the "dynamic threshold"). After the first renders, the megabyte
//! buffers of meshes, pixels and encodes are then carved from the heap
//! arenas instead of being mapped, and the arenas fragment: resident memory
//! grew by 60–80 KiB per distinct cold render and never came back
//! (docs/benchmarks.md, "Memory under distinct cold renders"). A fixed
//! threshold (which also turns the dynamic one off) and a trim threshold of
//! the same size keep large blocks mapped and return freed heap tops, so
//! resident memory levels off.

/// Blocks this large or larger are mapped, and freed heap tops this large
/// are returned to the system.
pub const LARGE_BLOCK_BYTES: i32 = 128 * 1024;

/// Applies the settings above (glibc only; elsewhere it does nothing).
/// Called once by `App::build`; calling it again is harmless.
#[allow(unsafe_code)]
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes a lock and sets two integer parameters of the
    // allocator; it may be called at any time from any thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES);
        libc::mallopt(libc::M_TRIM_THRESHOLD, LARGE_BLOCK_BYTES);
    }
}
