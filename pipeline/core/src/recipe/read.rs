//! Reading a recipe file: bounded, so a device or an endless pipe named as a recipe stops.

use std::path::Path;

/// The largest recipe file read (a shipped recipe is a few kilobytes; the cap keeps a
/// device or an endless pipe named as a recipe from growing memory without limit).
pub const MAX_RECIPE_BYTES: u64 = 4 << 20;

/// The text of the recipe file at `path` (`-`: stdin): a regular file of at most
/// [`MAX_RECIPE_BYTES`], or stdin up to that many bytes.
pub fn read_recipe_text(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    if path != Path::new("-") {
        return crate::bounded::read_to_string(
            path,
            None,
            crate::bounded::Size::AtMost(MAX_RECIPE_BYTES),
        );
    }
    let mut text = String::new();
    std::io::stdin()
        .lock()
        .take(MAX_RECIPE_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_RECIPE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("more than the {MAX_RECIPE_BYTES} bytes a recipe may have: refused"),
        ));
    }
    Ok(text)
}
