//! Per-file settings: a comment line that names the Kubernetes version and feature gates a
//! manifest is written for, so that every tool judges the file alike (`restartkit validate`, the
//! language server, any front end that validates text).
//!
//! The syntax, defined here once:
//!
//! ```yaml
//! # restartkit: kubernetes-version=1.34 feature-gates=JobManagedBy=false,ContainerRestartRules=true
//! ```
//!
//! - a line that starts (in column 1) with `#`, optional spaces, then `restartkit:`;
//! - then settings separated by spaces, each `name=value`: `kubernetes-version` (a version as
//!   `--kubernetes-version` takes it: `1.34`, `v1.34.2`) and `feature-gates` (`Gate=true` or
//!   `Gate=false`, comma-separated, as `--feature-gates` takes them);
//! - at most one such line per file, anywhere in it (it applies to every document of the file);
//!   JSON has no comments, so a JSON file has none.
//!
//! The file's settings win over the request's (the CLI's `-k` and `--feature-gates`, an editor's
//! workspace configuration): the version replaces the request's, each gate the file names
//! replaces the request's value for that gate. A line that does not read (an unknown setting, a
//! gate without `=true`/`=false`, a second line) is an error at its line, never passed over.

use crate::diag::{Diagnostic, Range};
use std::collections::BTreeMap;

/// What starts a settings line, after the `#` and any spaces.
pub const MARKER: &str = "restartkit:";

/// The settings a file names for itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileSettings {
    pub kubernetes_version: Option<String>,
    pub feature_gates: BTreeMap<String, bool>,
    /// 1-based line of the settings comment (absent when the file has none).
    pub line: Option<u32>,
    /// Its length in characters, for the range of diagnostics about it.
    pub width: u32,
}

impl FileSettings {
    pub fn is_empty(&self) -> bool {
        self.kubernetes_version.is_none() && self.feature_gates.is_empty()
    }

    /// The version and gates in force: the file's over the request's.
    pub fn over(
        &self,
        version: Option<&str>,
        gates: Option<&BTreeMap<String, bool>>,
    ) -> (Option<String>, Option<BTreeMap<String, bool>>) {
        let version = self
            .kubernetes_version
            .clone()
            .or_else(|| version.map(str::to_owned));
        let gates = match (gates, self.feature_gates.is_empty()) {
            (None, true) => None,
            (g, _) => {
                let mut all = g.cloned().unwrap_or_default();
                all.extend(self.feature_gates.iter().map(|(k, v)| (k.clone(), *v)));
                Some(all)
            }
        };
        (version, gates)
    }

    /// Whether a request error or warning about `field` (`featureGates[G]`, or the version)
    /// is about a setting this file names.
    pub fn names(&self, field: &str) -> bool {
        match field
            .strip_prefix("featureGates[")
            .and_then(|g| g.strip_suffix(']'))
        {
            Some(gate) => self.feature_gates.contains_key(gate),
            None => self.kubernetes_version.is_some(),
        }
    }

    /// Puts a diagnostic about the settings (one the version or gates caused) at the comment.
    pub fn locate(&self, mut d: Diagnostic) -> Diagnostic {
        if let Some(line) = self.line {
            d = d.at(line, 1);
            d.range = Some(Range {
                line,
                column: 1,
                end_line: line,
                end_column: self.width + 1,
            });
        }
        d
    }
}

/// Reads the settings comment of `text`. Errors name the line; the settings that did read are
/// still returned.
pub fn read(text: &str) -> (FileSettings, Vec<Diagnostic>) {
    let mut settings = FileSettings::default();
    let mut errors = Vec::new();
    // JSON text (a `{` first) holds no comments; nor does a text without a `#` in column 1.
    if !(text.starts_with('#') || text.contains("\n#")) {
        return (settings, errors);
    }
    for (i, raw) in text.lines().enumerate() {
        let Some(rest) = raw.strip_prefix('#') else {
            continue;
        };
        let Some(body) = rest.trim_start().strip_prefix(MARKER) else {
            continue;
        };
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let width = u32::try_from(raw.trim_end().chars().count()).unwrap_or(u32::MAX);
        let fail = |message: String| {
            let d = Diagnostic::request("invalid-settings-comment", "", message).at(line, 1);
            FileSettings {
                line: Some(line),
                width,
                ..FileSettings::default()
            }
            .locate(d)
        };
        if let Some(first) = settings.line {
            errors.push(fail(format!(
                "line {line}: a second `# {MARKER}` settings line (the first is at line {first}); a file has one"
            )));
            continue;
        }
        settings.line = Some(line);
        settings.width = width;
        for item in body.split_whitespace() {
            let Some((name, value)) = item.split_once('=') else {
                errors.push(fail(format!(
                    "line {line}: {item:?} is not name=value (kubernetes-version=1.34, feature-gates=Gate=true,Other=false)"
                )));
                continue;
            };
            match name {
                "kubernetes-version" if !value.is_empty() => {
                    settings.kubernetes_version = Some(value.to_owned());
                }
                "feature-gates" => {
                    for gate in value.split(',').filter(|g| !g.is_empty()) {
                        match gate.split_once('=') {
                            Some((g, "true")) if !g.is_empty() => {
                                settings.feature_gates.insert(g.to_owned(), true);
                            }
                            Some((g, "false")) if !g.is_empty() => {
                                settings.feature_gates.insert(g.to_owned(), false);
                            }
                            _ => errors.push(fail(format!(
                                "line {line}: feature gate {gate:?} must be Gate=true or Gate=false"
                            ))),
                        }
                    }
                }
                "kubernetes-version" => errors.push(fail(format!(
                    "line {line}: kubernetes-version needs a value, e.g. kubernetes-version=1.34"
                ))),
                other => errors.push(fail(format!(
                    "line {line}: unknown setting {other:?}; the settings are kubernetes-version and feature-gates"
                ))),
            }
        }
    }
    (settings, errors)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn reads_the_version_and_gates() {
        let (s, e) = read(
            "apiVersion: v1\n#   restartkit: kubernetes-version=1.34 feature-gates=A=true,B=false\nkind: Pod\n",
        );
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(s.kubernetes_version.as_deref(), Some("1.34"));
        assert_eq!(s.feature_gates.get("A"), Some(&true));
        assert_eq!(s.feature_gates.get("B"), Some(&false));
        assert_eq!(s.line, Some(2));
        let request = BTreeMap::from([("B".to_owned(), true), ("C".to_owned(), true)]);
        let (v, g) = s.over(Some("1.36"), Some(&request));
        assert_eq!(v.as_deref(), Some("1.34"));
        let g = g.unwrap();
        assert_eq!((g["A"], g["B"], g["C"]), (true, false, true));
    }

    #[test]
    fn anything_unread_is_an_error_at_its_line() {
        let (s, e) = read(
            "# restartkit: kubernetes-version=1.35 version=2 feature-gates=A=yes stray\nkind: Pod\n# restartkit: kubernetes-version=1.33\n",
        );
        assert_eq!(s.kubernetes_version.as_deref(), Some("1.35"));
        let messages: Vec<&str> = e.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].contains("unknown setting \"version\""));
        assert!(messages[1].contains("\"A=yes\" must be Gate=true"));
        assert!(messages[2].contains("\"stray\" is not name=value"));
        assert!(messages[3].contains("second"));
        assert_eq!(e[3].line, Some(3));
        assert_eq!(e[0].range.map(|r| r.end_column), Some(74));
        assert!(
            e.iter()
                .all(|d| d.code.as_deref() == Some("invalid-settings-comment"))
        );
    }

    #[test]
    fn other_comments_and_json_have_none() {
        for text in [
            "{\"kind\": \"Pod\"}",
            "# a comment\nkind: Pod\n  # restartkit: kubernetes-version=1.33\n",
        ] {
            let (s, e) = read(text);
            assert!(s.is_empty() && s.line.is_none() && e.is_empty());
        }
    }
}
