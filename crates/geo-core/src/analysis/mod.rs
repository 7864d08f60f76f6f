//! The five analysis steps of seed §5, one module each, all pure functions.

pub mod clean;
pub mod links;
pub mod lists;
pub mod mentions;
pub mod platforms;
pub mod sources;
pub mod urls;
