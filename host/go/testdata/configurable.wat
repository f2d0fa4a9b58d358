;; A decider with a configuration (decider ABI v1): Restart once configured with a JSON object,
;; DoNotRestart otherwise; exit code 99 loops forever (for the deadline test).
(module
  (memory (export "memory") 1)
  (global $configured (mut i32) (i32.const 0))
  (func (export "restartkit_decider_abi_version") (result i32) (i32.const 1))
  (func (export "restartkit_decider_alloc") (param i32) (result i32) (i32.const 1024))
  ;; Accepts a configuration whose first byte is '{' and remembers its length.
  (func (export "restartkit_decider_configure") (param $p i32) (param $n i32) (result i32)
    (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 123)) (then (return (i32.const 1))))
    (global.set $configured (local.get $n))
    (i32.const 0))
  (func (export "restartkit_decide") (param i32 i32 i32) (result i32)
    (if (i32.eq (local.get 1) (i32.const 99)) (then (loop $l (br $l))))
    (select (i32.const 1) (i32.const 0) (i32.gt_u (global.get $configured) (i32.const 0)))))
