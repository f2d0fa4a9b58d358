//! The methods of [`Field`] that read `k8s_schema`'s shared tables. They live apart from the
//! shapes (`schema_types` in mod.rs), which the generated `k8s_schema` imports, so that neither
//! the shapes nor the tables import each other's file back.

use super::k8s_schema;
use super::schema_types::Field;

impl Field {
    /// The Go type names encoding/json gives in a decoding error: the field's type, then,
    /// for a slice or a map, its element's, and so on inwards (`["[]v1.Container",
    /// "v1.Container"]`, `["v1.ResourceList", "resource.Quantity"]`); empty for the
    /// kubelet's configuration file.
    pub fn go(&self) -> &'static [&'static str] {
        k8s_schema::GO
            .get(usize::from(self.go))
            .copied()
            .unwrap_or_default()
    }

    /// The Go names of the embedded structs (`json:",inline"`) the field is promoted from,
    /// joined with `.` (`PersistentVolumeSource`); empty for most fields.
    pub fn via(&self) -> &'static str {
        k8s_schema::VIA
            .get(usize::from(self.via))
            .copied()
            .unwrap_or_default()
    }
}
