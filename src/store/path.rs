//! Znode paths, as a client sends them and as the server validates them.
//!
//! A [`Path`] is the string a request carries. The store validates it the way
//! `PathUtils.validatePath` does and answers `BADARGUMENTS` for a bad one (the real
//! client would refuse to send it; the server's own answer is the error code).

use std::fmt;
use std::sync::Arc;

/// A znode path as sent in a request. Cheap to clone: the text is shared.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Path(Arc<str>);

impl Path {
    pub fn new(path: &str) -> Path {
        Path(Arc::from(path))
    }

    /// The shared text, for a renaming that keeps what it need not change
    /// ([`crate::symmetry`]).
    pub fn text(&self) -> &Arc<str> {
        &self.0
    }

    pub fn from_text(text: Arc<str>) -> Path {
        Path(text)
    }

    pub fn root() -> Path {
        Path::new("/")
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.as_str() == "/"
    }

    /// The path of a child of this node.
    pub fn child(&self, name: &str) -> Path {
        if self.is_root() {
            Path::new(&format!("/{name}"))
        } else {
            Path::new(&format!("{}/{name}", self.as_str()))
        }
    }

    /// Splits at the last `/` as the server does (`path.substring(0, lastSlash)`),
    /// so the parent of `/a` is `/` and the parent of `/q/` (a sequential prefix) is
    /// `/q` with an empty name. `None` for a path without a slash, and for `/`,
    /// whose parent in the server is the root itself.
    pub fn split(&self) -> Option<(Path, &str)> {
        let text = self.as_str();
        let slash = text.rfind('/')?;
        if text == "/" {
            return None;
        }
        let parent = if slash == 0 { "/" } else { &text[..slash] };
        Some((Path::new(parent), &text[slash + 1..]))
    }

    /// The parent path, for a path that has one.
    pub fn parent(&self) -> Option<Path> {
        self.split().map(|(parent, _)| parent)
    }

    /// The last component (the name `getChildren` reports).
    pub fn name(&self) -> &str {
        self.split().map_or("", |(_, name)| name)
    }

    /// Whether `self` is a direct child of `parent`.
    pub fn is_child_of(&self, parent: &Path) -> bool {
        self.parent().as_ref() == Some(parent)
    }
}

impl fmt::Debug for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Path {
    fn from(path: &str) -> Path {
        Path::new(path)
    }
}

impl From<String> for Path {
    fn from(path: String) -> Path {
        Path(Arc::from(path))
    }
}

/// Why a path is not valid, in the words of `PathUtils.validatePath`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    Empty,
    NotAbsolute,
    TrailingSlash,
    EmptyComponent,
    RelativeComponent,
    ControlCharacter,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathError::Empty => "path length must be > 0",
            PathError::NotAbsolute => "path must start with / character",
            PathError::TrailingSlash => "path must not end with / character",
            PathError::EmptyComponent => "empty node name specified",
            PathError::RelativeComponent => "relative paths not allowed",
            PathError::ControlCharacter => "invalid character",
        })
    }
}

/// Validates a path as `PathUtils.validatePath(path, isSequential)` does: a
/// sequential create validates `path + "1"`, so `/q/` is a valid prefix.
pub fn validate(path: &str, sequential: bool) -> Result<(), PathError> {
    if sequential {
        return validate(&format!("{path}1"), false);
    }
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    if !path.starts_with('/') {
        return Err(PathError::NotAbsolute);
    }
    if path == "/" {
        return Ok(());
    }
    if path.ends_with('/') {
        return Err(PathError::TrailingSlash);
    }
    for component in path[1..].split('/') {
        if component.is_empty() {
            return Err(PathError::EmptyComponent);
        }
        if component == "." || component == ".." {
            return Err(PathError::RelativeComponent);
        }
    }
    if path.chars().any(is_forbidden) {
        return Err(PathError::ControlCharacter);
    }
    Ok(())
}

/// The characters `validatePath` refuses: NUL and other controls, the private-use
/// area and the specials (surrogates, which it refuses too, cannot occur in a `str`).
fn is_forbidden(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{e000}'..='\u{f8ff}' | '\u{fff0}'..='\u{ffff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_follows_the_last_slash() {
        assert_eq!(Path::new("/a").split(), Some((Path::root(), "a")));
        assert_eq!(Path::new("/a/b").split(), Some((Path::new("/a"), "b")));
        assert_eq!(Path::new("/q/").split(), Some((Path::new("/q"), "")));
        assert_eq!(Path::root().split(), None);
        assert_eq!(Path::new("a").split(), None);
    }

    #[test]
    fn child_joins_without_doubling_the_root_slash() {
        assert_eq!(Path::root().child("a"), Path::new("/a"));
        assert_eq!(Path::new("/a").child("b"), Path::new("/a/b"));
    }
}
