//! Helpers for the black-box tests in tests/tests/.
