//! The `restartkit` binary; the command itself lives in the library (src/lib.rs).

use std::process::ExitCode;

// Reading a manifest allocates a node, a key and a string per field; mimalloc takes about a tenth
// off a validation against glibc's malloc (core/benches/engine_mimalloc.rs).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(restartkit_cli::run(std::env::args_os()))
}
