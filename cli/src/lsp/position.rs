//! Positions: the core counts 1-based lines and columns in characters; LSP counts 0-based lines
//! and columns in UTF-16 code units (or UTF-32, characters, when the client offers it).

/// How the client counts columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf16,
    Utf32,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf16 => "utf-16",
            Encoding::Utf32 => "utf-32",
        }
    }
}

/// A text with the byte offset of each line's start, for position conversions.
pub struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// The text of 0-based line `n`, without its line break.
    pub fn line(&self, n: usize) -> &'a str {
        let Some(&start) = self.starts.get(n) else {
            return "";
        };
        let end = self.starts.get(n + 1).map_or(self.text.len(), |e| e - 1);
        let l = self.text.get(start..end).unwrap_or("");
        l.strip_suffix('\r').unwrap_or(l)
    }

    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// The LSP position of a 1-based line and character column (clamped to the text).
    pub fn to_lsp(&self, line: u32, column: u32, enc: Encoding) -> lsp_types::Position {
        let n = usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX);
        let n = n.min(self.count().saturating_sub(1));
        let chars = usize::try_from(column.saturating_sub(1)).unwrap_or(usize::MAX);
        let units: usize = match enc {
            Encoding::Utf32 => chars.min(self.line(n).chars().count()),
            Encoding::Utf16 => self.line(n).chars().take(chars).map(char::len_utf16).sum(),
        };
        lsp_types::Position {
            line: u32::try_from(n).unwrap_or(u32::MAX),
            character: u32::try_from(units).unwrap_or(u32::MAX),
        }
    }

    /// The 1-based line and character column of an LSP position (clamped to the line).
    pub fn position_of(&self, p: lsp_types::Position, enc: Encoding) -> (u32, u32) {
        let n = usize::try_from(p.line).unwrap_or(usize::MAX);
        let text = self.line(n);
        let want = usize::try_from(p.character).unwrap_or(usize::MAX);
        let chars = match enc {
            Encoding::Utf32 => want.min(text.chars().count()),
            Encoding::Utf16 => {
                let mut units = 0;
                let mut count = 0;
                for c in text.chars() {
                    if units >= want {
                        break;
                    }
                    units += c.len_utf16();
                    count += 1;
                }
                count
            }
        };
        (
            p.line.saturating_add(1),
            u32::try_from(chars + 1).unwrap_or(u32::MAX),
        )
    }

    /// The byte offset of an LSP position, and whether it had to be clamped (a line or column
    /// past the text's end).
    pub fn offset(&self, p: lsp_types::Position, enc: Encoding) -> (usize, bool) {
        let n = usize::try_from(p.line).unwrap_or(usize::MAX);
        let Some(&start) = self.starts.get(n) else {
            return (self.text.len(), true);
        };
        let text = self.line(n);
        let want = usize::try_from(p.character).unwrap_or(usize::MAX);
        let mut units = 0;
        for (i, c) in text.char_indices() {
            if units >= want {
                return (start + i, false);
            }
            units += match enc {
                Encoding::Utf16 => c.len_utf16(),
                Encoding::Utf32 => 1,
            };
        }
        (start + text.len(), units < want)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use lsp_types::Position;

    #[test]
    fn utf16_counts_astral_characters_twice() {
        let l = Lines::new("a: 😀x\r\nb: é\n");
        assert_eq!(l.to_lsp(1, 5, Encoding::Utf16), Position::new(0, 5));
        assert_eq!(l.to_lsp(1, 5, Encoding::Utf32), Position::new(0, 4));
        assert_eq!(l.position_of(Position::new(0, 5), Encoding::Utf16), (1, 5));
        assert_eq!(l.offset(Position::new(0, 5), Encoding::Utf16), (7, false));
        assert_eq!(l.offset(Position::new(1, 9), Encoding::Utf16), (15, true));
        assert_eq!(l.offset(Position::new(7, 0), Encoding::Utf16), (16, true));
        assert_eq!(l.line(1), "b: é");
    }
}
