//! (a) The YAML/JSON reader (core/src/source.rs) via the `validate` op with `source`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = restartkit_fuzz::core_harness::source_reader(data) {
        panic!("{e}");
    }
});
