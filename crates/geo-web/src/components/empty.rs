//! The empty state of a page: what is missing and where to go to fill it.

use yew::prelude::*;

/// Props of [`EmptyState`].
#[derive(Properties, PartialEq)]
pub struct EmptyStateProps {
    /// The explanation (what is missing, what to do).
    pub text: AttrValue,
    /// Optional action (a link or button).
    #[prop_or_default]
    pub children: Html,
}

/// A friendly box for a page without data yet (`data-testid="empty-state"`).
#[function_component]
pub fn EmptyState(props: &EmptyStateProps) -> Html {
    html! {
        <div class="empty" data-testid="empty-state">
            <p>{ props.text.clone() }</p>
            { props.children.clone() }
        </div>
    }
}
