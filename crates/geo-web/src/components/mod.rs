//! Small widgets: props in, `on*` callbacks out.

mod confirm;
mod empty;
mod nav_link;
mod toasts;

pub use confirm::{ConfirmDialog, ConfirmDialogProps};
pub use empty::{EmptyState, EmptyStateProps};
pub use nav_link::{NavLink, NavLinkProps};
pub use toasts::{Toasts, ToastsProps};
pub mod markdown;
pub mod probe_drawer;
pub mod progress;
