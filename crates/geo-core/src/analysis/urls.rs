//! (filled in by the analysis work)
