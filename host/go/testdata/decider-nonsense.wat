;; A decider that answers 7, which is no decision.
(module
  (func (export "restartkit_decider_abi_version") (result i32) (i32.const 1))
  (func (export "restartkit_decide") (param i32 i32 i32) (result i32) (i32.const 7)))
