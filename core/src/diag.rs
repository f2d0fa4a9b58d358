//! The one diagnostic shape every front end returns.
//!
//! It mirrors apimachinery's `field.Error` (a field path, an error type named as the Go
//! constant, a bad value and a detail) and adds what a text editor needs: severity, the
//! component whose answer this is, and the source position when the input was text.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The stable code of an evaluation warning that is one of the object's validation errors
/// (eval/object_warnings.rs gives it; the TrainJob op gives it too, so it lives down here).
pub const INVALID_OBJECT: &str = "invalid-object";

/// The Go names of apimachinery's `field.ErrorType` constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ErrorType {
    FieldValueNotFound,
    FieldValueRequired,
    FieldValueDuplicate,
    FieldValueInvalid,
    FieldValueNotSupported,
    FieldValueForbidden,
    FieldValueTooLong,
    FieldValueTooMany,
    InternalError,
    FieldValueTypeInvalid,
}

impl ErrorType {
    /// The words apimachinery puts in front of the value in `field.Error.Error()`.
    pub fn phrase(self) -> &'static str {
        match self {
            ErrorType::FieldValueNotFound => "Not found",
            ErrorType::FieldValueRequired => "Required value",
            ErrorType::FieldValueDuplicate => "Duplicate value",
            ErrorType::FieldValueInvalid => "Invalid value",
            ErrorType::FieldValueNotSupported => "Unsupported value",
            ErrorType::FieldValueForbidden => "Forbidden",
            ErrorType::FieldValueTooLong => "Too long",
            ErrorType::FieldValueTooMany => "Too many",
            ErrorType::InternalError => "Internal error",
            ErrorType::FieldValueTypeInvalid => "Invalid value",
        }
    }
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// Upstream rejects the object (or the request could not be read).
    Error,
    /// Upstream accepts it, but restartkit sees a likely mistake (a rule that can never match, …).
    Warning,
    /// Something restartkit passed over on purpose (a kind it does not model, …).
    Info,
}

/// Which component's behaviour a diagnostic reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    KubeApiserver,
    Kubelet,
    JobsetWebhook,
    KruiseWebhook,
    /// Kubeflow Trainer's validating webhooks (TrainJob, TrainingRuntime, ClusterTrainingRuntime).
    TrainerWebhook,
    /// Kubeflow Trainer's TrainJob controller, when it cannot build the objects of a TrainJob.
    TrainerController,
    /// restartkit's own checks (lints, input decoding, request errors).
    Restartkit,
}

/// One finding. Serialized with camelCase keys; `type` holds the `field.ErrorType` Go name or null
/// where upstream returns a plain message (JobSet and Kruise webhooks, kubelet configuration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    pub severity: Severity,
    /// Kubernetes field path, e.g. `spec.containers[0].restartPolicyRules[1].exitCodes.operator`.
    pub field: String,
    #[serde(rename = "type")]
    pub error_type: Option<ErrorType>,
    /// The whole message as the component prints it.
    pub message: String,
    /// The part after the value (apimachinery's `Detail`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_value: Option<Value>,
    pub origin: Origin,
    /// A stable name for restartkit's own checks (warnings and request errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// 1-based line and column of the field in the source text, when the input was text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// 0-based index of the document in a multi-document stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<usize>,
    /// The text an editor underlines, when the input was text: the refused value of a value error
    /// (`Invalid value`, `Unsupported value`, `Duplicate value`, a type error), the key of a
    /// field that is `Required`, `Forbidden` or unknown (or of its nearest ancestor written in
    /// the text, when the field itself is absent), the token at `line`:`column` for errors of
    /// the text itself. `line` and `column` stay where the field is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    /// The file `line` and `column` refer to, when it is not the input's own text: a TrainJob's
    /// runtime read from another file (the CLI's `validate a.yaml b.yaml`, `--runtime FILE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Repairs, where the problem has one obvious one (absent when there is none). Every front
    /// end can apply them: `edits` to the object, `textEdits` to the text it came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<Fix>,
}

/// A stretch of the source text: from `line`:`column` up to, not including, `endLine`:`endColumn`
/// (1-based; columns count characters, as `Diagnostic.column` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Range {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// One repair of the input that makes its diagnostic go away.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    /// What the repair does, for a person ("set restartPolicy to \"Never\"").
    pub description: String,
    /// The repair on the object: each field path (as in `Diagnostic.field`, within the same
    /// document) gets the value; a field the object lacks is added.
    pub edits: Vec<FieldEdit>,
    /// The same repair on the source text, when the input was text and restartkit could place
    /// every edit in it (absent otherwise; `edits` still apply).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub text_edits: Vec<TextEdit>,
}

/// A field path and the value it should have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldEdit {
    pub field: String,
    pub value: Value,
}

/// Replace the text from `line`:`column` up to, not including, `endLine`:`endColumn` (1-based;
/// columns count characters, as `Diagnostic.column` does) with `newText`. Equal start and end
/// insert.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextEdit {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub new_text: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Go's `%#v`-like rendering of a bad value, as apimachinery prints it.
fn go_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Null => "null".to_owned(),
        other => other.to_string(),
    }
}

impl Diagnostic {
    fn field_error(
        path: &FieldPath,
        t: ErrorType,
        bad: Option<Value>,
        detail: Option<String>,
    ) -> Diagnostic {
        Self::field_error_at(path.as_str(), t, bad, detail)
    }

    /// A `field.Error` at `field` (a path as upstream writes it), its message as
    /// `field.Error.Error()` prints it: the value (in a JSON-like rendering; see
    /// [`Diagnostic::with_printed_value`] for Go's) left out where ErrorBody leaves it out.
    pub fn field_error_at(
        field: &str,
        t: ErrorType,
        bad: Option<Value>,
        detail: Option<String>,
    ) -> Diagnostic {
        let mut message = format!("{field}: {}", t.phrase());
        match t {
            // field.Error.ErrorBody prints no value for these (TooLong's value is "<value omitted>").
            ErrorType::FieldValueRequired
            | ErrorType::FieldValueForbidden
            | ErrorType::FieldValueTooLong
            | ErrorType::InternalError => {
                if let Some(d) = &detail {
                    message.push_str(": ");
                    message.push_str(d);
                }
            }
            ErrorType::FieldValueTooMany => {
                if let Some(b) = &bad {
                    message.push_str(": ");
                    message.push_str(&go_value(b));
                }
                if let Some(d) = &detail {
                    message.push_str(": ");
                    message.push_str(d);
                }
            }
            _ => {
                if let Some(b) = &bad {
                    message.push_str(": ");
                    message.push_str(&go_value(b));
                }
                if let Some(d) = &detail {
                    message.push_str(": ");
                    message.push_str(d);
                }
            }
        }
        Diagnostic {
            severity: Severity::Error,
            field: field.to_owned(),
            error_type: Some(t),
            message,
            detail,
            bad_value: bad,
            origin: Origin::KubeApiserver,
            code: None,
            line: None,
            column: None,
            document: None,
            range: None,
            file: None,
            fixes: Vec::new(),
        }
    }

    pub fn required(path: &FieldPath, detail: impl Into<String>) -> Self {
        let d: String = detail.into();
        Self::field_error(
            path,
            ErrorType::FieldValueRequired,
            None,
            (!d.is_empty()).then_some(d),
        )
    }
    pub fn invalid(path: &FieldPath, value: impl Into<Value>, detail: impl Into<String>) -> Self {
        let d: String = detail.into();
        Self::field_error(
            path,
            ErrorType::FieldValueInvalid,
            Some(value.into()),
            (!d.is_empty()).then_some(d),
        )
    }
    /// `field.Invalid` whose value apimachinery prints in a form of its own (`printed`: Go's `%#v`
    /// of an internal type, as releases before 1.34 print a struct); `value` is kept as data.
    pub fn invalid_printed(
        path: &FieldPath,
        value: Value,
        printed: &str,
        detail: impl Into<String>,
    ) -> Self {
        Self::invalid(path, value, detail).with_printed_value(printed)
    }
    /// `field.Invalid` with the value omitted (apimachinery's `field.OmitValueType`).
    pub fn invalid_omit_value(path: &FieldPath, detail: impl Into<String>) -> Self {
        let d: String = detail.into();
        let mut e = Self::field_error(path, ErrorType::FieldValueInvalid, None, None);
        e.message = format!("{}: Invalid value: {}", path.as_str(), d);
        e.detail = Some(d);
        e
    }
    pub fn not_supported<S: AsRef<str>>(
        path: &FieldPath,
        value: impl Into<Value>,
        supported: &[S],
    ) -> Self {
        let list: Vec<String> = supported
            .iter()
            .map(|s| format!("{:?}", s.as_ref()))
            .collect();
        let detail = if list.is_empty() {
            None
        } else {
            Some(format!("supported values: {}", list.join(", ")))
        };
        Self::field_error(
            path,
            ErrorType::FieldValueNotSupported,
            Some(value.into()),
            detail,
        )
    }
    /// `field.InternalError`: the API server fails the request itself (here: where upstream's
    /// code panics and the request ends with an internal error).
    pub fn internal(path: &FieldPath, detail: impl Into<String>) -> Self {
        let d: String = detail.into();
        Self::field_error(path, ErrorType::InternalError, None, Some(d))
    }
    pub fn forbidden(path: &FieldPath, detail: impl Into<String>) -> Self {
        let d: String = detail.into();
        Self::field_error(
            path,
            ErrorType::FieldValueForbidden,
            None,
            (!d.is_empty()).then_some(d),
        )
    }
    pub fn too_many(path: &FieldPath, actual: usize, max: usize) -> Self {
        Self::field_error(
            path,
            ErrorType::FieldValueTooMany,
            Some(Value::from(actual)),
            Some(format!("must have at most {max} items")),
        )
    }
    /// `field.TooLong`: the message leaves the value out, as upstream's does. The wording is
    /// apimachinery's from v0.34; [`Diagnostic::reword_for`] gives older releases'.
    pub fn too_long(path: &FieldPath, value: impl Into<Value>, max: usize) -> Self {
        Self::field_error(
            path,
            ErrorType::FieldValueTooLong,
            Some(value.into()),
            Some(format!(
                "may not be more than {max} {}",
                if max == 1 { "byte" } else { "bytes" }
            )),
        )
    }
    /// Words this diagnostic as the API server of Kubernetes 1.`minor` does, where apimachinery's
    /// wording has changed since (field.TooLong: "must have at most N bytes" up to v0.31, "may not
    /// be more than N bytes" in v0.32 and v0.33, with "byte" for 1 from v0.34).
    pub fn reword_for(&mut self, minor: u32) {
        if self.origin != Origin::KubeApiserver
            || self.error_type != Some(ErrorType::FieldValueTooLong)
            || crate::versions::Change::TooLongByteWording.at(minor)
        {
            return;
        }
        let Some(max) = self.detail.as_deref().and_then(|d| {
            d.strip_prefix("may not be more than ")
                .and_then(|r| r.split(' ').next())
                .map(str::to_owned)
        }) else {
            return;
        };
        let detail = if !crate::versions::Change::TooLongMayNotBe.at(minor) {
            format!("must have at most {max} bytes")
        } else {
            format!("may not be more than {max} bytes")
        };
        self.message = format!("{}: Too long: {detail}", self.field);
        self.detail = Some(detail);
    }
    pub fn duplicate(path: &FieldPath, value: impl Into<Value>) -> Self {
        Self::field_error(
            path,
            ErrorType::FieldValueDuplicate,
            Some(value.into()),
            None,
        )
    }
    pub fn not_found(path: &FieldPath, value: impl Into<Value>) -> Self {
        Self::field_error(
            path,
            ErrorType::FieldValueNotFound,
            Some(value.into()),
            None,
        )
    }

    /// A plain-text error (no `field.ErrorType`), as the JobSet and Kruise webhooks and the kubelet
    /// configuration validator return. `field` is restartkit's best pointer for line numbers.
    pub fn plain(origin: Origin, field: &FieldPath, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            field: field.as_str().to_owned(),
            error_type: None,
            message: message.into(),
            detail: None,
            bad_value: None,
            origin,
            code: None,
            line: None,
            column: None,
            document: None,
            range: None,
            file: None,
            fixes: Vec::new(),
        }
    }

    /// A restartkit lint: upstream accepts the object, restartkit warns.
    pub fn lint(code: &str, field: &FieldPath, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            field: field.as_str().to_owned(),
            error_type: None,
            message: message.into(),
            detail: None,
            bad_value: None,
            origin: Origin::Restartkit,
            code: Some(code.to_owned()),
            line: None,
            column: None,
            document: None,
            range: None,
            file: None,
            fixes: Vec::new(),
        }
    }

    /// A request-level error of restartkit itself (unreadable input, unknown op, …).
    pub fn request(code: &str, field: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            field: field.to_owned(),
            error_type: None,
            message: message.into(),
            detail: None,
            bad_value: None,
            origin: Origin::Restartkit,
            code: Some(code.to_owned()),
            line: None,
            column: None,
            document: None,
            range: None,
            file: None,
            fixes: Vec::new(),
        }
    }

    /// The diagnostic with a repair whose edits set each field path to its value.
    pub fn with_fix(mut self, description: impl Into<String>, edits: Vec<(String, Value)>) -> Self {
        self.fixes.push(Fix {
            description: description.into(),
            edits: edits
                .into_iter()
                .map(|(field, value)| FieldEdit { field, value })
                .collect(),
            text_edits: Vec::new(),
        });
        self
    }

    pub fn with_origin(mut self, origin: Origin) -> Self {
        self.origin = origin;
        self
    }
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }
    /// The same field error with its value printed as `printed`: Go's rendering, for the targeted
    /// minor, of a value restartkit holds as JSON (`%#v` of an internal type before 1.34, its
    /// json.Marshal after). The value stays as data.
    pub fn with_printed_value(mut self, printed: &str) -> Self {
        let phrase = self.error_type.map_or("Invalid value", ErrorType::phrase);
        self.message = format!("{}: {phrase}: {printed}", self.field);
        if let Some(detail) = &self.detail {
            self.message.push_str(": ");
            self.message.push_str(detail);
        }
        self
    }

    pub fn with_code(mut self, code: &str) -> Self {
        self.code = Some(code.to_owned());
        self
    }
    pub fn at(mut self, line: u32, column: u32) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }
}

/// A Kubernetes field path (`field.Path`), kept as its rendered string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FieldPath(String);

impl FieldPath {
    pub fn root() -> Self {
        FieldPath(String::new())
    }
    pub fn new(name: &str) -> Self {
        FieldPath(name.to_owned())
    }
    // Paths are built for every field validated, so each is sized once rather than grown by
    // `format!`.
    pub fn child(&self, name: &str) -> Self {
        if self.0.is_empty() {
            FieldPath(name.to_owned())
        } else {
            let mut s = String::with_capacity(self.0.len() + 1 + name.len());
            s.push_str(&self.0);
            s.push('.');
            s.push_str(name);
            FieldPath(s)
        }
    }
    pub fn index(&self, i: usize) -> Self {
        use fmt::Write as _;
        let mut s = String::with_capacity(self.0.len() + 2 + 4);
        s.push_str(&self.0);
        // Writing into a String cannot fail.
        let _ = write!(s, "[{i}]");
        FieldPath(s)
    }
    /// A map key, written `labels[key]` as apimachinery does.
    pub fn key(&self, k: &str) -> Self {
        let mut s = String::with_capacity(self.0.len() + 2 + k.len());
        s.push_str(&self.0);
        s.push('[');
        s.push_str(k);
        s.push(']');
        FieldPath(s)
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Errors, warnings and notes gathered by one validation, kept apart so conformance compares
/// errors only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Findings {
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub infos: Vec<Diagnostic>,
}

impl Findings {
    pub fn push(&mut self, d: Diagnostic) {
        match d.severity {
            Severity::Error => self.errors.push(d),
            Severity::Warning => self.warnings.push(d),
            Severity::Info => self.infos.push(d),
        }
    }
    pub fn extend(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        for d in ds {
            self.push(d);
        }
    }
    pub fn merge(&mut self, other: Findings) {
        self.errors.extend(other.errors);
        self.warnings.extend(other.warnings);
        self.infos.extend(other.infos);
    }
    pub fn all_mut(&mut self) -> impl Iterator<Item = &mut Diagnostic> {
        self.errors
            .iter_mut()
            .chain(self.warnings.iter_mut())
            .chain(self.infos.iter_mut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_long_is_worded_as_each_minors_apimachinery_words_it() {
        let p = FieldPath::new("spec.x");
        let at = |m: u32, max: usize| {
            let mut d = Diagnostic::too_long(&p, "v", max);
            d.reword_for(m);
            d.message
        };
        assert_eq!(at(31, 64), "spec.x: Too long: must have at most 64 bytes");
        assert_eq!(
            at(32, 64),
            "spec.x: Too long: may not be more than 64 bytes"
        );
        assert_eq!(at(33, 1), "spec.x: Too long: may not be more than 1 bytes");
        assert_eq!(at(34, 1), "spec.x: Too long: may not be more than 1 byte");
        assert_eq!(
            at(37, 64),
            "spec.x: Too long: may not be more than 64 bytes"
        );
        // Only the API server's own errors are reworded.
        let mut js = Diagnostic::too_long(&p, "v", 64).with_origin(Origin::JobsetWebhook);
        js.reword_for(31);
        assert!(js.message.ends_with("may not be more than 64 bytes"));
    }

    #[test]
    fn messages_follow_apimachinery() {
        let p = FieldPath::new("spec")
            .child("containers")
            .index(0)
            .child("restartPolicy");
        assert_eq!(
            Diagnostic::not_supported(&p, "Foo", &["Always", "Never", "OnFailure"]).message,
            "spec.containers[0].restartPolicy: Unsupported value: \"Foo\": supported values: \"Always\", \"Never\", \"OnFailure\""
        );
        assert_eq!(
            Diagnostic::required(&p, "must specify restartPolicy when restart rules are used")
                .message,
            "spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used"
        );
        let v = FieldPath::new("spec")
            .child("podFailurePolicy")
            .child("rules");
        assert_eq!(
            Diagnostic::too_many(&v, 21, 20).message,
            "spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items"
        );
        assert_eq!(
            Diagnostic::duplicate(&v.index(2), 13).message,
            "spec.podFailurePolicy.rules[2]: Duplicate value: 13"
        );
    }

    #[test]
    fn error_type_serializes_as_go_name() {
        assert_eq!(
            serde_json::to_string(&ErrorType::FieldValueTooMany)
                .ok()
                .as_deref(),
            Some("\"FieldValueTooMany\"")
        );
    }
}
