//! An in-app link that keeps `data-testid` and a real `href` (with the base path), so it
//! works with the keyboard, middle-click and "open in new tab", and navigates without a
//! reload on a plain click — unless its page is another entry's document (the Docs chat's,
//! ADR 0025): then the browser loads that document, once the start-up work (the demo's
//! seeding among it) has settled, and in a new tab while a run is in flight.

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
    let anchor = use_node_ref();
    let onclick = {
        let to = props.to.clone();
        let same_document = crate::handover::same_document(&to);
        let href = href.clone();
        let anchor = anchor.clone();
        Callback::from(move |e: MouseEvent| {
            let plain = e.button() == 0 && !(e.ctrl_key() || e.meta_key() || e.shift_key() || e.alt_key());
            if plain && !same_document {
                follow_to_document(&e, &anchor, &href);
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
        <a ref={anchor} href={href} class={classes!(props.class.clone(), active.then_some("active"))}
            aria-current={active.then_some("page")} data-testid={props.testid.clone()} {onclick}>
            { props.children.clone() }
        </a>
    }
}

/// A plain click on a link to another entry's document (ADR 0025).
///
/// - While a run is in flight, loading that document here would end the run (its page holds
///   it), so the link itself opens it in a new tab: `target="_blank"` and `rel="noopener"`
///   set before the browser follows it. A link's own new tab is never a blocked pop-up, as a
///   `window.open` may be.
/// - Before the start-up work has settled, leaving would interrupt it (the demo's seeding, one
///   transaction that a page load aborts): the link waits for it, marked `aria-busy`, then
///   loads the document.
/// - Otherwise the browser follows the link, with the selection on screen noted for the
///   document it loads.
fn follow_to_document(e: &MouseEvent, anchor: &NodeRef, href: &str) {
    let Some(a) = anchor.cast::<web_sys::Element>() else { return };
    if crate::runner::in_flight() {
        let _ = a.set_attribute("target", "_blank");
        let _ = a.set_attribute("rel", "noopener");
        return;
    }
    let _ = a.remove_attribute("target");
    let _ = a.remove_attribute("rel");
    if crate::handover::settled() {
        crate::handover::note_document_link();
        return;
    }
    e.prevent_default();
    let _ = a.set_attribute("aria-busy", "true");
    let href = href.to_owned();
    crate::handover::when_settled(move || {
        crate::handover::note_document_link();
        if let Some(window) = web_sys::window() {
            let _ = window.location().set_href(&href);
        }
    });
}
