//! Render node library (issue 4 fills this crate).
