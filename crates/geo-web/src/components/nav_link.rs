//! An in-app link that keeps `data-testid` and a real `href` (with the base path), so it
//! works with the keyboard, middle-click and "open in new tab", and navigates without a
//! reload on a plain click — unless its page is another entry's document (the Docs chat's,
//! ADR 0025): then the browser loads that document, in a new tab while a run is in flight.

use crate::routes::Route;
use yew::prelude::*;
use yew_router::prelude::*;

/// Props of [`NavLink`].
#[derive(Properties, PartialEq)]
pub struct NavLinkProps {
    /// Where to go.
    pub to: Route,
    /// Test hook.
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    /// Extra classes.
    #[prop_or_default]
    pub class: Classes,
    /// Link content.
    pub children: Html,
}

/// A link to a route; marked `aria-current="page"` when it is the current route.
#[function_component]
pub fn NavLink(props: &NavLinkProps) -> Html {
    let navigator = use_navigator();
    let current = use_route::<Route>();
    let href = format!("{}{}", crate::web::base_path(), props.to.to_path());
    let onclick = {
        let to = props.to.clone();
        let same_document = crate::handover::same_document(&to);
        let href = href.clone();
        Callback::from(move |e: MouseEvent| {
            let plain = e.button() == 0 && !(e.ctrl_key() || e.meta_key() || e.shift_key() || e.alt_key());
            if plain && !same_document {
                // Loading the other document would end a run in flight (its page holds it):
                // the run goes on here and the other document opens in a new tab.
                if crate::runner::in_flight() {
                    e.prevent_default();
                    if let Some(window) = web_sys::window() {
                        let _ = window.open_with_url_and_target_and_features(&href, "_blank", "noopener");
                    }
                    return;
                }
                crate::handover::note_document_link();
                return;
            }
            if let (true, Some(nav)) = (plain, navigator.as_ref()) {
                e.prevent_default();
                nav.push(&to);
            }
        })
    };
    let active = current.as_ref().is_some_and(|c| c.section() == props.to.section());
    html! {
        <a href={href} class={classes!(props.class.clone(), active.then_some("active"))}
            aria-current={active.then_some("page")} data-testid={props.testid.clone()} {onclick}>
            { props.children.clone() }
        </a>
    }
}
