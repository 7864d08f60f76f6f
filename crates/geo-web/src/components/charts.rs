//! Small hand-written SVG charts: [`LineChart`] for trends across runs and [`BarChart`] for
//! shares (share of voice, channels). Each SVG has `<title>`/`<desc>` and `role="img"`, and
//! a visually hidden table repeats the numbers for screen readers. Colours come from CSS
//! classes (`series-0`…`series-8`, one per engine) defined for light and dark themes.
//! A [`Mark`] is a vertical dashed line at one x position (the trend's method changes).

use yew::prelude::*;

/// One line of a [`LineChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// One value in 0..=1 per x position (`None` = no value, a gap).
    pub values: Vec<Option<f64>>,
    /// Per x position, the 95 % interval drawn as a band around the line (empty: no band;
    /// `None` at a position: no interval there).
    pub band: Vec<Option<[f64; 2]>>,
}

/// A vertical dashed line at one x position of a [`LineChart`], with its tooltip.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The x position.
    pub index: usize,
    /// Its tooltip (the SVG `<title>`).
    pub title: String,
    /// `data-testid` of the mark.
    pub testid: &'static str,
    /// `data-run` of the mark.
    pub run: String,
    /// `data-fields` of the mark.
    pub fields: String,
}

/// Props of [`LineChart`].
#[derive(Properties, PartialEq)]
pub struct LineChartProps {
    /// `data-testid` of the figure.
    pub testid: AttrValue,
    /// Title (also the SVG `<title>`).
    pub title: AttrValue,
    /// Description (the SVG `<desc>`).
    pub desc: AttrValue,
    /// Labels of the x positions.
    pub x_labels: Vec<String>,
    /// The lines.
    pub series: Vec<Series>,
    /// Vertical marks (none by default).
    #[prop_or_default]
    pub marks: Vec<Mark>,
    /// The legend's entry for the marks (shown when there is a mark).
    #[prop_or_default]
    pub mark_legend: AttrValue,
}

/// Colour classes in `web/styles.css` (`series-0`…`series-8`): one per engine, so nine bars never share one.
const SERIES: usize = 9;

const W: f64 = 600.0;
const H: f64 = 220.0;
const PAD_L: f64 = 44.0;
const PAD_R: f64 = 12.0;
const PAD_T: f64 = 12.0;
const PAD_B: f64 = 28.0;

/// x coordinate of position `i` of `n`.
fn x_at(i: usize, n: usize) -> f64 {
    if n <= 1 {
        PAD_L + (W - PAD_L - PAD_R) / 2.0
    } else {
        PAD_L + (W - PAD_L - PAD_R) * i as f64 / (n - 1) as f64
    }
}

/// y coordinate of a value in 0..=1 (clamped).
fn y_at(v: f64) -> f64 {
    let v = if v.is_finite() { v.clamp(0.0, 1.0) } else { 0.0 };
    PAD_T + (H - PAD_T - PAD_B) * (1.0 - v)
}

/// SVG path segments of `values`, broken at gaps.
pub fn line_path(values: &[Option<f64>]) -> String {
    let n = values.len();
    let mut d = String::new();
    let mut pen_down = false;
    for (i, v) in values.iter().enumerate() {
        match v {
            Some(v) => {
                d.push_str(&format!("{}{:.1},{:.1} ", if pen_down { "L" } else { "M" }, x_at(i, n), y_at(*v)));
                pen_down = true;
            }
            None => pen_down = false,
        }
    }
    d.trim_end().to_string()
}

/// SVG paths of a band: one closed shape per run of consecutive positions with an interval,
/// the upper bounds left to right then the lower bounds back. A lone position is a short
/// vertical bar, so a single run still shows its interval.
pub fn band_paths(band: &[Option<[f64; 2]>]) -> Vec<String> {
    let n = band.len();
    let mut paths = Vec::new();
    let mut i = 0;
    while i < n {
        if band[i].is_none() {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && band[i].is_some() {
            i += 1;
        }
        let run: Vec<(usize, [f64; 2])> = (start..i).filter_map(|k| band[k].map(|b| (k, b))).collect();
        let mut d = String::new();
        let half = if run.len() == 1 { 3.0 } else { 0.0 };
        for (j, (k, [_, hi])) in run.iter().enumerate() {
            let x = x_at(*k, n);
            if run.len() == 1 {
                d.push_str(&format!("M{:.1},{:.1} L{:.1},{:.1} ", x - half, y_at(*hi), x + half, y_at(*hi)));
            } else {
                d.push_str(&format!("{}{:.1},{:.1} ", if j == 0 { "M" } else { "L" }, x, y_at(*hi)));
            }
        }
        for (k, [lo, _]) in run.iter().rev() {
            let x = x_at(*k, n);
            if run.len() == 1 {
                d.push_str(&format!("L{:.1},{:.1} L{:.1},{:.1} ", x + half, y_at(*lo), x - half, y_at(*lo)));
            } else {
                d.push_str(&format!("L{:.1},{:.1} ", x, y_at(*lo)));
            }
        }
        d.push('Z');
        paths.push(d);
    }
    paths
}

fn pct(v: Option<f64>) -> String {
    super::metric_card::pct(v)
}

/// The most points drawn with a marker (a circle with its value as a tooltip): beyond it
/// the markers of a 600-unit-wide chart overlap into a thicker line, and a year of daily
/// runs would add 2,190 elements to the page; the line and the table below still give
/// every value.
const MARKER_LIMIT: usize = 60;

/// A line chart of ratios across runs.
#[function_component]
pub fn LineChart(p: &LineChartProps) -> Html {
    let n = p.x_labels.len();
    let grid = [0.0, 0.25, 0.5, 0.75, 1.0];
    let label_step = n.div_ceil(6).max(1);
    html! {
        <figure class="chart" data-testid={p.testid.clone()} data-points={n.to_string()}>
            <figcaption>{ p.title.clone() }</figcaption>
            <svg viewBox={format!("0 0 {W} {H}")} role="img" aria-label={p.title.clone()} preserveAspectRatio="xMidYMid meet">
                <title>{ p.title.clone() }</title>
                <desc>{ p.desc.clone() }</desc>
                { for grid.iter().map(|g| html! {
                    <g class="grid">
                        <line x1={PAD_L.to_string()} x2={(W - PAD_R).to_string()} y1={format!("{:.1}", y_at(*g))} y2={format!("{:.1}", y_at(*g))} />
                        <text x={(PAD_L - 6.0).to_string()} y={format!("{:.1}", y_at(*g) + 4.0)} text-anchor="end">{ format!("{:.0}%", g * 100.0) }</text>
                    </g>
                }) }
                { for p.x_labels.iter().enumerate().filter(|(i, _)| i % label_step == 0 || *i + 1 == n).map(|(i, l)| html! {
                    <text class="axis" x={format!("{:.1}", x_at(i, n))} y={(H - 8.0).to_string()} text-anchor="middle">{ l.clone() }</text>
                }) }
                { for p.series.iter().enumerate().map(|(k, s)| html! {
                    <g class={format!("series series-{}", k % SERIES)}
                        data-band-points={s.band.iter().filter(|b| b.is_some()).count().to_string()}>
                        { for band_paths(&s.band).into_iter().map(|d| html! { <path class="band" {d} /> }) }
                        <path class="line" d={line_path(&s.values)} fill="none" />
                        { for s.values.iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v))).filter(|_| n <= MARKER_LIMIT).map(|(i, v)| html! {
                            <circle cx={format!("{:.1}", x_at(i, n))} cy={format!("{:.1}", y_at(v))} r="3.5">
                                <title>{ format!("{} · {}: {}", s.label, p.x_labels.get(i).cloned().unwrap_or_default(), pct(Some(v))) }</title>
                            </circle>
                        }) }
                    </g>
                }) }
                { for p.marks.iter().filter(|m| m.index < n).map(|m| {
                    let at = x_at(m.index, n);
                    let x = format!("{at:.1}");
                    html! {
                        <g class="mark" data-testid={m.testid} data-run={m.run.clone()} data-fields={m.fields.clone()}>
                            <title>{ m.title.clone() }</title>
                            <line x1={x.clone()} x2={x} y1={format!("{:.1}", PAD_T - 4.0)} y2={format!("{:.1}", H - PAD_B)} />
                            // A wider, invisible strip, so the tooltip shows without aiming at a 1.5-unit line.
                            <rect class="mark-hit" x={format!("{:.1}", at - 5.0)} y={format!("{:.1}", PAD_T - 4.0)}
                                width="10" height={format!("{:.1}", H - PAD_B - PAD_T + 4.0)} />
                        </g>
                    }
                }) }
            </svg>
            <ul class="legend">
                { for p.series.iter().enumerate().map(|(k, s)| html! {
                    <li><span class={format!("swatch series-{}", k % SERIES)} aria-hidden="true"></span>{ s.label.clone() }</li>
                }) }
                if !p.marks.is_empty() {
                    <li><span class="swatch mark-swatch" aria-hidden="true"></span>{ p.mark_legend.clone() }</li>
                }
            </ul>
            // Hidden in a clipped block: a table keeps its content's width whatever its own
            // `width` says, and would make the page scroll sideways.
            <div class="sr-only">
            <table>
                <caption>{ p.title.clone() }</caption>
                <thead><tr><th scope="col"></th>{ for p.series.iter().map(|s| html! { <th scope="col">{ s.label.clone() }</th> }) }</tr></thead>
                <tbody>
                    { for p.x_labels.iter().enumerate().map(|(i, l)| html! {
                        <tr><th scope="row">{ l.clone() }</th>
                            { for p.series.iter().map(|s| html! { <td>{ pct(s.values.get(i).copied().flatten()) }</td> }) }
                        </tr>
                    }) }
                </tbody>
            </table>
            </div>
        </figure>
    }
}

/// One bar of a [`BarChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Row label.
    pub label: String,
    /// Bar length in 0..=1 of the full width.
    pub fraction: f64,
    /// The figure written beside the bar.
    pub display: String,
    /// `data-testid` of the row (empty for none).
    pub testid: String,
    /// `data-target` of the row (empty for none).
    pub target: String,
    /// `data-value` of the row.
    pub raw: String,
    /// Tooltip.
    pub title: String,
}

/// Props of [`BarChart`].
#[derive(Properties, PartialEq)]
pub struct BarChartProps {
    /// `data-testid` of the figure.
    pub testid: AttrValue,
    /// Title.
    pub title: AttrValue,
    /// Description.
    pub desc: AttrValue,
    /// The bars, top to bottom.
    pub bars: Vec<Bar>,
}

/// Horizontal bars: each row is an HTML row (label, SVG bar, figure), so rows keep their
/// test ids and tooltips and read as a list to screen readers.
#[function_component]
pub fn BarChart(p: &BarChartProps) -> Html {
    html! {
        <figure class="chart bars" data-testid={p.testid.clone()}>
            <figcaption>{ p.title.clone() }</figcaption>
            <p class="sr-only">{ p.desc.clone() }</p>
            <ul class="bar-list">
                { for p.bars.iter().enumerate().map(|(k, b)| {
                    let w = if b.fraction.is_finite() { b.fraction.clamp(0.0, 1.0) * 100.0 } else { 0.0 };
                    html! {
                        <li class="bar-row" data-testid={(!b.testid.is_empty()).then(|| b.testid.clone())}
                            data-target={(!b.target.is_empty()).then(|| b.target.clone())}
                            data-value={b.raw.clone()} title={b.title.clone()}>
                            <span class="bar-label">{ b.label.clone() }</span>
                            <svg class="bar-track" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label={format!("{}: {}", b.label, b.display)}>
                                <title>{ format!("{}: {}", b.label, b.display) }</title>
                                <desc>{ b.title.clone() }</desc>
                                <rect class="track" x="0" y="0" width="100" height="10" />
                                <rect class={format!("bar series-{}", k % SERIES)} x="0" y="0" width={format!("{w:.2}")} height="10" />
                            </svg>
                            <span class="bar-value">{ b.display.clone() }</span>
                        </li>
                    }
                }) }
            </ul>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_close_one_shape_per_run_of_intervals() {
        assert!(band_paths(&[]).is_empty());
        assert!(band_paths(&[None, None]).is_empty());
        let paths = band_paths(&[Some([0.2, 0.6]), Some([0.3, 0.7]), None, Some([0.1, 0.9])]);
        assert_eq!(paths.len(), 2, "{paths:?}");
        assert!(paths.iter().all(|d| d.starts_with('M') && d.ends_with('Z')));
        // Two upper and two lower points for the first run; a lone point is a small box.
        assert_eq!(paths[0].matches('L').count(), 3, "{}", paths[0]);
        assert_eq!(paths[1].matches('L').count(), 3, "{}", paths[1]);
    }

    #[test]
    fn paths_break_at_gaps_and_clamp() {
        assert_eq!(line_path(&[]), "");
        assert_eq!(line_path(&[Some(1.0)]), format!("M{:.1},{:.1}", x_at(0, 1), PAD_T));
        let d = line_path(&[Some(0.0), None, Some(2.0), Some(f64::NAN)]);
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert_eq!(d.matches('L').count(), 1, "{d}");
        assert!(!d.contains("NaN"));
    }
}
