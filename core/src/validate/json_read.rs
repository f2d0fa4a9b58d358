//! Small readers of a decoded object's JSON that the kind validators share. The decoder has
//! already reported a member of the wrong type; these read such a member as Go's zero value,
//! which is what the API server's validation then sees.

use serde_json::Value;

/// A pointer member: `None` when absent or null.
pub(super) fn opt<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

/// A `*string` member: `None` when absent or null.
pub(super) fn opt_str<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    opt(v, key).map(|x| x.as_str().unwrap_or(""))
}

/// A string member, `""` when absent.
pub(super) fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A list member, empty when absent or null.
pub(super) fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A `[]string` member.
pub(super) fn strings<'a>(v: &'a Value, key: &str) -> Vec<&'a str> {
    list(v, key)
        .iter()
        .map(|s| s.as_str().unwrap_or(""))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_null_and_wrong_types_read_as_go_zero_values() {
        let v = json!({"a": null, "s": "x", "n": 3, "l": ["p", 1], "o": {}});
        assert!(opt(&v, "a").is_none() && opt(&v, "missing").is_none());
        assert_eq!(opt(&v, "o"), Some(&json!({})));
        assert_eq!(opt_str(&v, "n"), Some(""));
        assert_eq!(opt_str(&v, "a"), None);
        assert_eq!((str_of(&v, "s"), str_of(&v, "n")), ("x", ""));
        assert_eq!(strings(&v, "l"), ["p", ""]);
        assert!(list(&v, "s").is_empty() && list(&v, "a").is_empty());
    }
}
