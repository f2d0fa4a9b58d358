;; A decider that speaks decider ABI major 3.
(module
  (func (export "restartkit_decider_abi_version") (result i32) (i32.const 3))
  (func (export "restartkit_decide") (param i32 i32 i32) (result i32) (i32.const -1)))
