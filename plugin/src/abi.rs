//! The exported functions of plugin ABI v1. Every `unsafe` block of the crate is here; each turns
//! a (pointer, length) pair the host gave into a slice after checking it lies inside linear
//! memory, or hands a buffer's ownership across the boundary.
#![allow(unsafe_code)]

use crate::logic::{self, Failure, Status};
use std::alloc::Layout;

/// Packs an owned buffer as `(ptr << 32) | len`; ownership passes to the host, which gives it
/// back with `restartkit_free(ptr, len)`.
fn hand_over(buf: Box<[u8]>) -> u64 {
    let len = buf.len() as u64;
    if len == 0 {
        return 0;
    }
    let ptr = Box::into_raw(buf) as *mut u8 as usize as u64;
    (ptr << 32) | len
}

/// The packed form of a failure: pointer 0, status in the low half.
fn failed(f: Failure) -> u64 {
    logic::record(f).code() as u32 as u64
}

/// Linear memory size in bytes.
fn memory_bytes() -> usize {
    core::arch::wasm32::memory_size(0).saturating_mul(65536)
}

/// The host's input buffer as a slice, after checking that it lies in linear memory.
fn input<'a>(ptr: u32, len: u32) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    let (p, l) = (ptr as usize, len as usize);
    match p.checked_add(l) {
        Some(end) if p != 0 && end <= memory_bytes() => {
            // SAFETY: [p, p+l) is inside linear memory (checked above) and p is not null; the
            // host wrote it before the call and does not touch it during the call (ABI.md,
            // "Ownership"). u8 has no alignment or validity requirements.
            Ok(unsafe { std::slice::from_raw_parts(p as *const u8, l) })
        }
        _ => Err(Failure::plain(
            Status::BadPointer,
            &format!(
                "input buffer ({ptr}, {len}) is not inside linear memory ({} bytes)",
                memory_bytes()
            ),
        )),
    }
}

/// ABI major version (1).
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_abi_version() -> i32 {
    logic::ABI_MAJOR
}

/// ABI minor version.
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_abi_minor_version() -> i32 {
    logic::ABI_MINOR
}

/// Allocates `len` bytes for the host (alignment 1); 0 when `len` is 0 or memory is exhausted.
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_alloc(len: u32) -> u32 {
    let Ok(layout) = Layout::array::<u8>(len as usize) else {
        return 0;
    };
    if layout.size() == 0 {
        return 0;
    }
    // SAFETY: the layout has a non-zero size. A null return (out of memory) becomes 0.
    let p = unsafe { std::alloc::alloc(layout) };
    p as usize as u32
}

/// Frees a buffer from `restartkit_alloc` or one handed out by `restartkit_evaluate`,
/// `restartkit_describe`, `restartkit_prepared_containers` or `restartkit_prepared_warnings`;
/// `len` must be the length it was allocated or handed out with. `(0, _)` and `(_, 0)` are no-ops.
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_free(ptr: u32, len: u32) {
    if ptr == 0 || len == 0 {
        return;
    }
    let Ok(layout) = Layout::array::<u8>(len as usize) else {
        return;
    };
    // SAFETY: by the ABI contract (ptr, len) came from restartkit_alloc(len) or from a handed-out
    // Box<[u8]> of length len; both use Layout::array::<u8>(len), the layout given here.
    unsafe { std::alloc::dealloc(ptr as usize as *mut u8, layout) }
}

/// The module's capabilities as JSON (host-owned buffer), or a failure.
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_describe() -> u64 {
    logic::clear_error();
    match logic::describe() {
        Ok(b) => hand_over(b),
        Err(f) => failed(f),
    }
}

/// One-shot evaluation of a core-contract request (ABI.md, "evaluate").
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_evaluate(ptr: u32, len: u32) -> u64 {
    logic::clear_error();
    match input(ptr, len).and_then(logic::evaluate) {
        Ok(b) => hand_over(b),
        Err(f) => failed(f),
    }
}

/// The JSON error response explaining the last failed call, guest-owned and valid until the
/// next call of any export but `restartkit_error_detail` itself; 0 when the last call did not
/// fail.
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_error_detail() -> u64 {
    logic::with_error(|e| match e {
        Some(b) if !b.is_empty() => ((b.as_ptr() as usize as u64) << 32) | b.len() as u64,
        _ => 0,
    })
}

/// Compiles a Pod or Job for the fast path; a handle >= 1, or a negated status.
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_prepare(ptr: u32, len: u32) -> i32 {
    logic::clear_error();
    match input(ptr, len).and_then(logic::prepare) {
        Ok(h) => h,
        Err(f) => -logic::record(f).code(),
    }
}

/// The container names of a prepared policy, in index order, as a JSON array (host-owned).
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_prepared_containers(handle: i32) -> u64 {
    logic::clear_error();
    match logic::prepared_containers(handle) {
        Ok(b) => hand_over(b),
        Err(f) => failed(f),
    }
}

/// The validation errors of a prepared policy's object, as warnings (code `invalid-object`): a
/// JSON array of Diagnostics (host-owned; `[]` for a valid object). ABI 1.1.
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_prepared_warnings(handle: i32) -> u64 {
    logic::clear_error();
    match logic::prepared_warnings(handle) {
        Ok(b) => hand_over(b),
        Err(f) => failed(f),
    }
}

/// The action code (0..=6) for container `container` of a prepared policy exiting with
/// `exit_code`; `-8` for an unknown handle, `-9` for an index out of range. Allocates nothing.
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_decide_exit(handle: i32, container: i32, exit_code: i32) -> i32 {
    logic::decide_exit(handle, container, exit_code)
}

/// Drops a prepared policy: 0, or `-8` for an unknown handle.
#[unsafe(no_mangle)]
pub extern "C" fn restartkit_release(handle: i32) -> i32 {
    logic::release(handle)
}
