//! The control plane (issue 2 builds the foundation).
