//! The trainer's plugins read quantities as the validation does: `Value()`, the quantity rounded
//! up to an integer away from zero (the torch plugin derives `PET_NPROC_PER_NODE` from the CPU
//! count; the torch, MPI, XGBoost and Flux plugins count GPUs this way). The parser is L0's
//! [`crate::quantity`].

pub(super) use crate::quantity::Quantity;
