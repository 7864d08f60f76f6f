//! [`MetricCard`]: one dashboard figure with its raw value in `data-value`, its Wilson
//! interval when there is one and the numerator/denominator in its tooltip; plus the pure
//! formatting helpers every analytics page uses.

use geo_core::model::Lang;
use yew::prelude::*;

/// The raw JSON number of a ratio or mean exactly as `geo-probe metrics` prints it
/// (serde_json's formatting of the same f64); `""` for `None` (JSON `null`).
pub fn raw_f64(value: Option<f64>) -> String {
    value.map_or_else(String::new, |v| serde_json::to_string(&v).unwrap_or_default())
}

/// The raw JSON number of a count or rank; `""` for `None`.
pub fn raw_u32(value: Option<u32>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

/// A ratio in 0..=1 as a percentage with one decimal, `—` for `None`.
pub fn pct(value: Option<f64>) -> String {
    geo_core::text::md::percent(value)
}

/// A mean with two decimals, `—` for `None`.
pub fn dec(value: Option<f64>) -> String {
    geo_core::text::md::decimal(value)
}

/// A Wilson 95% interval as `41.2%–78.9%`, empty for `None`.
pub fn ci_text(ci: Option<[f64; 2]>) -> String {
    ci.map_or_else(String::new, |[lo, hi]| format!("{}–{}", pct(Some(lo)), pct(Some(hi))))
}

/// `numerator / denominator` with the interval, for a tooltip, in `lang`.
pub fn ratio_title(num: u32, den: u32, ci: Option<[f64; 2]>, lang: Lang) -> String {
    let base = match lang {
        Lang::Zh => format!("分子 {num} / 分母 {den}"),
        Lang::En => format!("numerator {num} / denominator {den}"),
    };
    match ci {
        Some(_) => match lang {
            Lang::Zh => format!("{base}；95% 置信区间（Wilson）{}", ci_text(ci)),
            Lang::En => format!("{base}; 95% Wilson interval {}", ci_text(ci)),
        },
        None => base,
    }
}

/// Props of [`MetricCard`].
#[derive(Properties, PartialEq)]
pub struct MetricCardProps {
    /// `data-testid`.
    pub testid: AttrValue,
    /// The label.
    pub label: AttrValue,
    /// The formatted figure.
    pub display: AttrValue,
    /// The raw value for `data-value`.
    pub raw: AttrValue,
    /// The Wilson interval text, if any.
    #[prop_or_default]
    pub ci: AttrValue,
    /// The tooltip (numerator and denominator).
    #[prop_or_default]
    pub title: AttrValue,
    /// A one-line explanation under the figure.
    #[prop_or_default]
    pub hint: AttrValue,
}

/// A figure card (`<div data-testid=… data-value=…>`).
#[function_component]
pub fn MetricCard(p: &MetricCardProps) -> Html {
    html! {
        <div class="metric-card" data-testid={p.testid.clone()} data-value={p.raw.clone()} title={p.title.clone()} tabindex="0"
             aria-label={format!("{}: {} {} {}", p.label, p.display, p.ci, p.title)}>
            <div class="metric-label">{ p.label.clone() }</div>
            <div class="metric-value">{ p.display.clone() }</div>
            if !p.ci.is_empty() { <div class="metric-ci muted">{ format!("95% CI {}", p.ci) }</div> }
            if !p.hint.is_empty() { <div class="metric-hint muted">{ p.hint.clone() }</div> }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(value: Option<f64>, expect: &str) {
        assert_eq!(raw_f64(value), expect);
    }

    #[test]
    fn raw_values_match_the_cli_json() {
        check(None, "");
        check(Some(2.0 / 3.0), "0.6666666666666666");
        check(Some(1.0), "1.0");
        check(Some(0.25), "0.25");
        assert_eq!(raw_u32(Some(3)), "3");
        assert_eq!(raw_u32(None), "");
    }

    #[test]
    fn intervals_and_tooltips() {
        assert_eq!(ci_text(None), "");
        assert_eq!(ci_text(Some([0.25, 0.5])), "25.0%–50.0%");
        assert_eq!(ratio_title(2, 3, None, Lang::En), "numerator 2 / denominator 3");
        assert!(ratio_title(2, 3, Some([0.2, 0.9]), Lang::Zh).contains("20.0%–90.0%"));
    }
}
