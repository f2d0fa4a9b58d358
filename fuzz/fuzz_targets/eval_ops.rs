//! (c) Every evaluation op through `restartkit::handle_json`: first byte picks the op.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = restartkit_fuzz::core_harness::eval_ops(data) {
        panic!("{e}");
    }
});
