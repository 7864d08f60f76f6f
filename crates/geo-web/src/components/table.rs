//! Table markup the pages share: a table in its scrolling wrapper (`div.table-wrap`, a named
//! region that the keyboard can reach, so a table wider than a phone scrolls by arrow keys), the
//! column headings (`th scope="col"`, `class="num"` on a column of numbers) and the
//! captioned tables of the Actions and Claims pages (`table.action-table` with a test id and
//! a caption for screen readers).

use crate::i18n::t;
use geo_core::model::Lang;
use yew::prelude::*;

/// A column heading: its i18n key and whether the column holds numbers (`class="num"`).
pub type Col = (&'static str, bool);

/// The heading cells of `cols`, in order.
pub fn head_cells(lang: Lang, cols: &[Col]) -> Html {
    html! {
        { for cols.iter().map(|(key, num)| html! { <th scope="col" class={num.then_some("num")}>{ t(lang, key) }</th> }) }
    }
}

/// The heading cells of `cols`, then a last one read only by screen readers, `hidden_key`
/// (over a column of links or buttons).
pub fn head_cells_and_hidden(lang: Lang, cols: &[Col], hidden_key: &str) -> Html {
    html! {
        <>
            { head_cells(lang, cols) }
            <th scope="col"><span class="sr-only">{ t(lang, hidden_key) }</span></th>
        </>
    }
}

/// A table in its scrolling wrapper, named `label` (what the table's section heading says):
/// one heading row of `head` cells over the `rows`. The wrapper takes the focus (axe's
/// `scrollable-region-focusable`): at 390 px most tables scroll sideways, and a table of
/// text alone would otherwise be out of the keyboard's reach.
pub fn table(label: impl Into<AttrValue>, head: Html, rows: Html) -> Html {
    html! {
        <div class="table-wrap" tabindex="0" role="region" aria-label={label.into()}><table>
            <thead><tr>{ head }</tr></thead>
            <tbody>{ rows }</tbody>
        </table></div>
    }
}

/// A captioned table (`table.action-table`, `data-testid` `testid`, the caption
/// `caption_key` for screen readers) with the headings of `cols` over `body` (its `<tbody>`).
pub fn captioned_table(lang: Lang, testid: &'static str, caption_key: &str, cols: &[Col], body: Html) -> Html {
    html! {
        <div class="table-wrap" tabindex="0" role="region" aria-label={t(lang, caption_key).to_string()}>
            <table class="action-table" data-testid={testid}>
                <caption class="sr-only">{ t(lang, caption_key) }</caption>
                <thead><tr>{ head_cells(lang, cols) }</tr></thead>
                { body }
            </table>
        </div>
    }
}
