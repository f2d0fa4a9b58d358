//! (b) Validation of structured objects: any JSON value as `validate`/`crrValidate` input.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = restartkit_fuzz::core_harness::validate_object(data) {
        panic!("{e}");
    }
});
