//! Pages of a long table or list: [`use_page`] keeps the page number (back to the first
//! page whenever the filters or the sort it is keyed on change), [`page_bounds`] says which
//! rows a page holds and [`Pager`] draws the previous / next controls with "rows X–Y of N".
//! A list that fits on one page shows every row and no pager, so small runs look as before.

use crate::i18n::{t, tf};
use geo_core::model::Lang;
use yew::prelude::*;

/// Rows per page of the long tables and lists.
pub const PAGE_SIZE: usize = 50;

/// The page actually shown (`page` clamped to the last page) and the rows `start..end` it
/// holds, for `total` rows in pages of `size` (a size of 0 counts as 1).
pub fn page_bounds(total: usize, page: usize, size: usize) -> (usize, usize, usize) {
    let size = size.max(1);
    let last = total.saturating_sub(1) / size;
    let page = page.min(last);
    let start = page * size;
    (page, start.min(total), (start + size).min(total))
}

/// The current page and a callback to change it. The page goes back to 0 when `key` (the
/// filters and sort of the list) differs from the one the page was chosen under.
#[hook]
pub fn use_page<K: PartialEq + Clone + 'static>(key: K) -> (usize, Callback<usize>) {
    let state = use_state(|| (key.clone(), 0usize));
    let page = if state.0 == key { state.1 } else { 0 };
    let set = {
        let state = state.clone();
        Callback::from(move |p: usize| state.set((key.clone(), p)))
    };
    (page, set)
}

/// Props of [`Pager`].
#[derive(Properties, PartialEq)]
pub struct PagerProps {
    /// Number of rows in the (filtered) list.
    pub total: usize,
    /// The page shown, 0-based (clamped like [`page_bounds`]).
    pub page: usize,
    /// Rows per page.
    #[prop_or(PAGE_SIZE)]
    pub size: usize,
    /// Called with the page to show.
    pub on_page: Callback<usize>,
    /// Names the list (`data-pager`), so a page with several pagers can tell them apart.
    pub scope: AttrValue,
    /// The accessible name of the pager, e.g. "探测表分页".
    pub label: AttrValue,
    /// Interface language.
    pub lang: Lang,
}

/// Previous / next buttons and "rows X–Y of N"; nothing when every row fits on one page.
/// The buttons stay focusable at either end (`aria-disabled`), so keyboard focus is not lost.
#[function_component]
pub fn Pager(p: &PagerProps) -> Html {
    if p.total <= p.size {
        return html! {};
    }
    let lang = p.lang;
    let (page, start, end) = page_bounds(p.total, p.page, p.size);
    let last = (p.total - 1) / p.size.max(1);
    let go = |to: Option<usize>| {
        let on_page = p.on_page.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(to) = to {
                on_page.emit(to);
            }
        })
    };
    let prev = page.checked_sub(1);
    let next = (page < last).then_some(page + 1);
    let status = tf(
        lang,
        "pager.status",
        &[("x", &(start + 1).to_string()), ("y", &end.to_string()), ("n", &p.total.to_string())],
    );
    html! {
        <nav class="pager" data-testid="pager" data-pager={p.scope.clone()} aria-label={p.label.clone()}>
            <button type="button" class="secondary" data-testid="pager-prev" onclick={go(prev)}
                aria-disabled={prev.is_none().to_string()}>{ t(lang, "pager.prev") }</button>
            <span class="pager-status" data-testid="pager-status" aria-live="polite"
                data-start={(start + 1).to_string()} data-end={end.to_string()} data-total={p.total.to_string()}>
                { status }
                <span class="muted">{ " · " }{ tf(lang, "pager.page", &[("p", &(page + 1).to_string()), ("m", &(last + 1).to_string())]) }</span>
            </span>
            <button type="button" class="secondary" data-testid="pager-next" onclick={go(next)}
                aria-disabled={next.is_none().to_string()}>{ t(lang, "pager.next") }</button>
        </nav>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(total: usize, page: usize, size: usize, expect: (usize, usize, usize)) {
        assert_eq!(page_bounds(total, page, size), expect, "total {total}, page {page}, size {size}");
    }

    #[test]
    fn bounds() {
        check(0, 0, 50, (0, 0, 0));
        check(0, 3, 50, (0, 0, 0));
        check(10, 0, 50, (0, 0, 10));
        check(50, 0, 50, (0, 0, 50));
        check(50, 1, 50, (0, 0, 50));
        check(51, 1, 50, (1, 50, 51));
        check(5000, 2, 50, (2, 100, 150));
        check(5000, 99, 50, (99, 4950, 5000));
        check(5000, 1000, 50, (99, 4950, 5000));
        check(3, 1, 0, (1, 1, 2));
    }
}
