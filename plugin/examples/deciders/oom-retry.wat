;; oom-retry: a custom decider plugin (restartkit decider ABI v1, plugin/ABI.md), written by hand in
;; WebAssembly text to show that the ABI needs no Rust and no toolchain: any language that can
;; export three functions from a core wasm module can decide container exits.
;;
;; Policy:
;;   exit code 137 (SIGKILL, typically the OOM killer): Restart while the container has been
;;     restarted fewer than 3 times, then DoNotRestart;
;;   exit code 3 (this example's "bad configuration" convention): DoNotRestart, whatever the pod says;
;;   anything else: Abstain, so restartkit's built-in Kubernetes rules decide.
;;
;; Compile with `restartkit-host wat2wasm oom-retry.wat oom-retry.wasm` (any wat2wasm works), or
;; hand the text itself to the Rust host, which compiles text too.
(module
  ;; Decider ABI version: major 1, minor 0.
  (func (export "restartkit_decider_abi_version") (result i32) (i32.const 1))
  (func (export "restartkit_decider_abi_minor_version") (result i32) (i32.const 0))

  ;; restartkit_decide(container_index, exit_code, restart_count) -> 1 Restart | 0 DoNotRestart | -1 Abstain
  (func (export "restartkit_decide") (param $container i32) (param $exit i32) (param $restarts i32) (result i32)
    (if (i32.eq (local.get $exit) (i32.const 137))
      (then
        (return
          (select (i32.const 1) (i32.const 0)
            (i32.lt_u (local.get $restarts) (i32.const 3))))))
    (if (i32.eq (local.get $exit) (i32.const 3))
      (then (return (i32.const 0))))
    (i32.const -1)))
