//! The sans-IO probe runner of seed §3.
