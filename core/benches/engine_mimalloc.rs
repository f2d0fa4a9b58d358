//! The YAML validation target again, under mimalloc, the allocator the `restartkit` CLI is built
//! with (parsing a manifest allocates a node, a key and a string per field, so the allocator is a
//! fifth of the time). `engine` has the same bench under the system allocator, which is what a
//! crate user, the Python module and the Node addon get.
use criterion::{Criterion, criterion_group, criterion_main};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "shared/typical_job.rs"]
mod typical_job;

fn bench(c: &mut Criterion) {
    typical_job::bench_validate_yaml(c, "validate typical Job from YAML (mimalloc)");
    typical_job::bench_parser_floor(c, "yaml events only (parser floor, mimalloc)");
}

criterion_group!(benches, bench);
criterion_main!(benches);
