//! Small widgets: props in, `on*` callbacks out.

pub mod analytics;
pub mod charts;
mod confirm;
mod deferred;
mod empty;
mod engine_label;
pub mod fact_editor;
pub mod header;
pub mod method;
pub mod metric_card;
mod nav_link;
pub mod pager;
pub mod run_data;
pub mod run_status;
pub mod table;
mod toasts;

pub use confirm::{ConfirmDialog, ConfirmDialogProps};
pub use deferred::{Deferred, DeferredProps};
pub use empty::{EmptyState, EmptyStateProps};
pub use engine_label::{surface_badge, EngineLabel, EngineLabelProps};
pub use link::safe_link;
pub use nav_link::{NavLink, NavLinkProps};
pub use toasts::{Toasts, ToastsProps};
pub mod link;
pub mod markdown;
pub mod probe_drawer;
pub mod progress;
pub mod summary_progress;
