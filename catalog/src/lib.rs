//! The vehicle catalog, its search and the free-text resolver (issue 3 fills this crate).
