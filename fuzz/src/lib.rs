//! Harness code shared by the fuzz targets and the stable replay tests.
pub mod core_harness;
pub mod plugin_harness;
