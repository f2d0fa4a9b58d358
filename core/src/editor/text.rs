//! Where the cursor is in a YAML manifest that is being written: which document, which field
//! path, whether a key or a value is being typed. Read from the lines' indentation, not by the
//! YAML parser, because a text being typed is seldom a whole document (`- nam` where a key
//! goes does not parse).

/// One step of a path: a mapping key, or "an item of this list".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Item,
}

/// What is being typed at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The mapping (or list) the cursor is in, from the document's root.
    pub path: Vec<Step>,
    /// A key of `path` is being typed (`key` is the text typed so far), or the value of the
    /// key `key` (or, when `key` is empty and `item` is set, a list item).
    pub at: At,
    /// The text typed so far of the word under completion.
    pub typed: String,
    /// 1-based column where that word starts, on the cursor's line.
    pub word_start: u32,
    /// Keys the mapping already has (not offered again).
    pub siblings: Vec<String>,
    /// The document's `kind`, when it names one.
    pub kind: Option<String>,
    /// 1-based line where the document starts.
    pub document_line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum At {
    /// A key of the mapping at `path`.
    Key,
    /// The value of key `0` of the mapping at `path`.
    Value(String),
    /// An item of the list at `path`.
    Item,
}

/// The lines of the `---`-separated document holding 1-based `line`, with the line number of
/// its first line (kubectl's splitter: a line starting with `---` ends a document).
pub fn document_lines(text: &str, line: u32) -> (u32, Vec<&str>) {
    let mut start = 1u32;
    let mut lines = Vec::new();
    for (i, l) in text.split('\n').enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let l = l.strip_suffix('\r').unwrap_or(l);
        if l.starts_with("---") {
            if n >= line {
                break;
            }
            start = n + 1;
            lines.clear();
            continue;
        }
        lines.push(l);
    }
    (start, lines)
}

/// The `kind` named at the top level of a document's lines (`kind: Job`, quoted or not).
pub fn kind_of(lines: &[&str]) -> Option<String> {
    lines.iter().find_map(|l| {
        let v = l.strip_prefix("kind:")?.trim();
        let v = v.split(" #").next().unwrap_or(v).trim();
        let v = v.trim_matches(|c| c == '"' || c == '\'');
        (!v.is_empty()).then(|| v.to_owned())
    })
}

/// One token that starts a node on a line: a list dash, or a mapping key (with what follows
/// its colon, trimmed, comments dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Dash(usize),
    Key(usize, String, String),
    /// A scalar (or flow collection) where a key could be.
    Other(usize),
}

impl Token {
    fn column(&self) -> usize {
        match self {
            Token::Dash(c) | Token::Key(c, ..) | Token::Other(c) => *c,
        }
    }
}

/// The tokens of a line (none for a blank or comment line): `  - - name: x` gives dashes at
/// 0-based columns 2 and 4, then the key `name` at 6 with the value `x`.
fn tokens(line: &str) -> Vec<Token> {
    let chars: Vec<char> = line.chars().collect();
    let mut i = chars.iter().take_while(|c| **c == ' ').count();
    let mut out = Vec::new();
    if chars.get(i).is_none_or(|c| *c == '#') {
        return out;
    }
    while chars.get(i) == Some(&'-') && chars.get(i + 1).is_none_or(|c| *c == ' ') {
        out.push(Token::Dash(i));
        i += 1;
        while chars.get(i) == Some(&' ') {
            i += 1;
        }
    }
    if i >= chars.len() {
        return out;
    }
    let content: String = chars.get(i..).unwrap_or(&[]).iter().collect();
    match split_key(&content) {
        (Some(k), rest) => out.push(Token::Key(i, k, rest)),
        (None, _) => out.push(Token::Other(i)),
    }
    out
}

/// `key: rest` (a plain or quoted key followed by `:` and white space or the end) or no key.
fn split_key(content: &str) -> (Option<String>, String) {
    let unquote = |k: &str| k.trim().trim_matches(|c| c == '"' || c == '\'').to_owned();
    let bytes = content.as_bytes();
    let mut quote = None;
    for (i, b) in bytes.iter().enumerate() {
        match (quote, b) {
            (Some(q), b) if *b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') if i == 0 => quote = Some(*b),
            (None, b'#') if i > 0 && bytes.get(i - 1) == Some(&b' ') => break,
            (None, b'[' | b'{') if i == 0 => break,
            (None, b':') if bytes.get(i + 1).is_none_or(|c| *c == b' ' || *c == b'\t') => {
                let rest = content.get(i + 1..).unwrap_or("");
                let rest = rest.split(" #").next().unwrap_or(rest).trim().to_owned();
                return (Some(unquote(content.get(..i).unwrap_or(""))), rest);
            }
            _ => {}
        }
    }
    (None, content.trim().to_owned())
}

/// Whether a key's value is a block below it (nothing after the colon but an anchor or a tag).
fn opens_block(rest: &str) -> bool {
    rest.is_empty() || ((rest.starts_with('&') || rest.starts_with('!')) && !rest.contains(' '))
}

/// The path from the root to the node at 0-based column `node` (a list dash when `node_dash`)
/// on the line `index` of `lines`, after the tokens `before` it on that line. None where the
/// text above does not hold such a node (a less indented scalar).
fn ancestors(
    lines: &[&str],
    index: usize,
    before: &[Token],
    node: usize,
    node_dash: bool,
) -> Option<Vec<Step>> {
    let mut rev = Vec::new();
    let push_line = |rev: &mut Vec<Step>, toks: &[Token]| -> Option<()> {
        for t in toks.iter().rev() {
            match t {
                Token::Dash(_) => rev.push(Step::Item),
                Token::Key(_, k, rest) if opens_block(rest) => rev.push(Step::Key(k.clone())),
                _ => return None,
            }
        }
        Some(())
    };
    push_line(&mut rev, before)?;
    let (mut t, mut is_dash) = match before.first() {
        Some(tok) => (tok.column(), matches!(tok, Token::Dash(_))),
        None => (node, node_dash),
    };
    for l in lines.get(..index).unwrap_or(&[]).iter().rev() {
        if t == 0 && !is_dash {
            break;
        }
        let toks = tokens(l);
        let Some(f) = toks.first().map(Token::column) else {
            continue;
        };
        if f > t {
            continue;
        }
        if f == t {
            // `key:` above a list written at the key's own column (`containers:\n- name: a`).
            if let (true, Some(Token::Key(_, k, rest))) = (is_dash, toks.first())
                && opens_block(rest)
            {
                rev.push(Step::Key(k.clone()));
                is_dash = false;
            }
            continue;
        }
        let inner: Vec<Token> = toks.into_iter().filter(|x| x.column() < t).collect();
        push_line(&mut rev, &inner)?;
        t = f;
        is_dash = matches!(inner.first(), Some(Token::Dash(_)));
    }
    rev.reverse();
    Some(rev)
}

/// The keys of the mapping whose keys start at 0-based column `t0`, around line `index`.
fn mapping_keys(lines: &[&str], index: usize, t0: usize) -> Vec<String> {
    let mut keys = Vec::new();
    let key_at = |toks: &[Token]| {
        toks.iter().find_map(|x| match x {
            Token::Key(c, k, _) if *c == t0 => Some(k.clone()),
            _ => None,
        })
    };
    for l in lines.get(..index).unwrap_or(&[]).iter().rev() {
        let toks = tokens(l);
        let Some(f) = toks.first().map(Token::column) else {
            continue;
        };
        keys.extend(key_at(&toks));
        if f < t0 {
            break;
        }
    }
    for l in lines.iter().skip(index + 1) {
        let toks = tokens(l);
        let Some(f) = toks.first().map(Token::column) else {
            continue;
        };
        if f < t0 {
            break;
        }
        keys.extend(key_at(&toks));
    }
    keys
}

/// The context at 1-based `line` and `column` (characters) of `text`.
pub fn context_at(text: &str, line: u32, column: u32) -> Option<Context> {
    let (document_line, lines) = document_lines(text, line);
    let index = usize::try_from(line.checked_sub(document_line)?).ok()?;
    let current: Vec<char> = lines.get(index)?.chars().collect();
    let col = usize::try_from(column.checked_sub(1)?)
        .ok()?
        .min(current.len());
    let before: String = current.get(..col).unwrap_or(&[]).iter().collect();
    // The word being typed: back to white space, a flow indicator or a quote.
    let word_len = before
        .chars()
        .rev()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '[' | '{' | '"' | '\''))
        .count();
    let word_col = col - word_len;
    let typed: String = before.chars().skip(word_col).collect();
    let head: String = before.chars().take(word_col).collect();
    let mut toks = tokens(&head);
    // A flow list opened after the key (`values: [1, `) still completes the key's value.
    if let Some(Token::Other(_)) = toks.last()
        && head.trim_end().ends_with([',', '['])
    {
        return None;
    }
    let at = match toks.last() {
        Some(Token::Key(_, k, rest)) if rest.is_empty() || rest == "[" || rest.ends_with(',') => {
            At::Value(k.clone())
        }
        Some(Token::Key(..) | Token::Other(_)) => return None,
        Some(Token::Dash(_)) => At::Item,
        None => At::Key,
    };
    let siblings = match at {
        At::Key => mapping_keys(&lines, index, word_col),
        At::Item | At::Value(_) => Vec::new(),
    };
    let last_col = toks.last().map_or(word_col, Token::column);
    let path = match at {
        // The key (or the new item's dash) is the node; the dashes before it are its ancestors.
        At::Value(_) | At::Item => {
            toks.pop();
            ancestors(&lines, index, &toks, last_col, matches!(at, At::Item))?
        }
        At::Key => ancestors(&lines, index, &toks, word_col, false)?,
    };
    Some(Context {
        path,
        at,
        typed,
        word_start: u32::try_from(word_col + 1).ok()?,
        siblings,
        kind: kind_of(&lines),
        document_line,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn key(k: &str) -> Step {
        Step::Key(k.to_owned())
    }

    const POD: &str = "apiVersion: v1\nkind: Pod\nspec:\n  restartPolicy: Never\n  containers:\n  - name: main\n    restartPolicyRules:\n    - action: Restart\n      exitCodes:\n        operator: \n        values: [42]\n  - name: side\n    \n";

    #[test]
    fn a_value_after_its_key() {
        let c = context_at(POD, 10, 19).unwrap();
        assert_eq!(c.at, At::Value("operator".into()));
        assert_eq!(
            c.path,
            vec![
                key("spec"),
                key("containers"),
                Step::Item,
                key("restartPolicyRules"),
                Step::Item,
                key("exitCodes")
            ]
        );
        assert_eq!(c.kind.as_deref(), Some("Pod"));
        assert_eq!((c.typed.as_str(), c.word_start), ("", 19));
        let c = context_at(POD, 4, 20).unwrap();
        assert_eq!(c.at, At::Value("restartPolicy".into()));
        assert_eq!((c.typed.as_str(), c.word_start), ("Ne", 18));
        assert_eq!(c.path, vec![key("spec")]);
    }

    #[test]
    fn a_key_in_a_list_item_knows_its_siblings() {
        let c = context_at(POD, 13, 5).unwrap();
        assert_eq!(c.at, At::Key);
        assert_eq!(c.path, vec![key("spec"), key("containers"), Step::Item]);
        assert_eq!(c.siblings, vec!["name".to_owned()]);
        let text = "kind: Job\nspec:\n  backoffLimit: 3\n  ba\n  template: {}\n";
        let c = context_at(text, 4, 5).unwrap();
        assert_eq!((c.at.clone(), c.path.clone()), (At::Key, vec![key("spec")]));
        assert_eq!(c.typed, "ba");
        let mut s = c.siblings.clone();
        s.sort();
        assert_eq!(s, vec!["backoffLimit".to_owned(), "template".to_owned()]);
    }

    #[test]
    fn items_at_the_keys_column_and_new_items() {
        let text =
            "kind: Pod\nspec:\n  containers:\n  - name: a\n    restartPolicy: Always\n  - \n";
        let c = context_at(text, 6, 5).unwrap();
        assert_eq!(c.at, At::Item);
        assert_eq!(c.path, vec![key("spec"), key("containers")]);
        let text = "kind: Pod\ncontainers:\n- name: a\n- image: b\n  na\n";
        let c = context_at(text, 5, 5).unwrap();
        assert_eq!(c.path, vec![key("containers"), Step::Item]);
        assert_eq!(c.siblings, vec!["image".to_owned()]);
    }

    #[test]
    fn documents_are_cut_at_separators() {
        let text = "kind: Pod\n---\nkind: Job\nspec:\n  \n";
        let c = context_at(text, 5, 3).unwrap();
        assert_eq!((c.kind.as_deref(), c.document_line), (Some("Job"), 3));
        assert_eq!(c.path, vec![key("spec")]);
    }
}
