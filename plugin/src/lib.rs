#![cfg(target_arch = "wasm32")]
//! restartkit as a WebAssembly policy module: plugin ABI v1 (see `ABI.md` beside this crate).
//!
//! The crate is empty on every target but `wasm32`: its exports (`restartkit_free`, …) must never
//! be linked into a native executable (toolchain.md pitfall 7).
//!
//! Layout: [`logic`] does everything on byte slices and owned buffers, in safe code; [`abi`] is
//! the thin, `unsafe` layer that turns linear-memory pointers into slices and back.

mod abi;
mod logic;
