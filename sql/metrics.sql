-- GEO Probe's run metrics as SQL views over the warehouse tables that `geo-probe warehouse`
-- writes (shared/spec/data-model.md, "Warehouse tables"; docs/warehouse.md).
--
-- Each view equals `geo-probe metrics` on the same runs, column for column (floats within
-- 1e-9): crates/geo-cli/tests/warehouse_duckdb.rs checks it on the fixtures' runs, the demo
-- and a generated export. The denominators are the seed's (§6, §6.1; docs/metrics.md):
-- every figure about mentions, sources, claims and risk flags is over successful probes only
-- (`mentions`, `sources`, `claims` and `risk_flags` hold rows of successful probes only), and a
-- ratio is NULL where its denominator is zero (NULLIF).
--
-- Dialect: DuckDB, kept to standard SQL (CTEs, CASE, NULLIF, COUNT(DISTINCT), ROW_NUMBER,
-- SQRT, LEAST, GREATEST).
-- Name the tables first, then run this file; in DuckDB, with the folder of `--out DIR`:
--
--   CREATE VIEW runs AS SELECT * FROM read_parquet('DIR/runs/**/*.parquet', hive_partitioning = true);
--   -- … and the same for targets, prompts, probes, mentions, queries, sources, answer_links,
--   -- facts, claims, risk_flags
--   .read sql/metrics.sql
--
-- BigQuery (external tables over the same files, docs/warehouse.md) needs three changes:
--   1. qualify every table and view with its dataset: `FROM geo.probes`,
--      `CREATE OR REPLACE VIEW geo.run_metrics AS …`;
--   2. `DOUBLE` is `FLOAT64` there: `CAST(x AS FLOAT64)`;
--   3. the column "order" of `mentions` is quoted with backticks: `order`.
-- Everything else reads as it is in BigQuery, Spark SQL, Trino/Athena and ClickHouse.

-- One row per run: the headline figures of `geo-probe metrics`.
CREATE OR REPLACE VIEW run_metrics AS
WITH
-- Probe records by status; successful probes that ran at least one search.
probe_counts AS (
    SELECT
        run_id,
        COUNT(*) AS probe_count,
        SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END) AS success_count,
        SUM(CASE WHEN status IN ('error', 'empty') THEN 1 ELSE 0 END) AS failed_count,
        SUM(CASE WHEN status = 'success' AND query_count > 0 THEN 1 ELSE 0 END) AS searched_count
    FROM probes
    GROUP BY run_id
),
-- Mentions by run and target: one per successful probe naming the target. The run's brand is
-- `runs.brand_id` (its first target of kind brand).
mention_counts AS (
    SELECT
        run_id,
        target_id,
        COUNT(*) AS mention_count,
        SUM(CASE WHEN "order" = 1 THEN 1 ELSE 0 END) AS first_mention_count,
        SUM("order") AS order_sum,
        COUNT(list_position) AS list_position_count,
        SUM(list_position) AS list_position_sum
    FROM mentions
    GROUP BY run_id, target_id
),
-- One pass over the sources: successful probes retrieving an owned page, the best rank of an
-- owned page, and the distinct domains.
source_counts AS (
    SELECT
        run_id,
        COUNT(DISTINCT CASE WHEN ownership = 'owned' THEN probe_id END) AS owned_probe_count,
        MIN(CASE WHEN ownership = 'owned' THEN best_rank END) AS owned_best_rank,
        COUNT(DISTINCT domain) AS unique_domains
    FROM sources
    GROUP BY run_id
)
SELECT
    r.run_id,
    r.engine,
    COALESCE(p.probe_count, 0) AS probe_count,
    COALESCE(p.success_count, 0) AS success_count,
    COALESCE(p.failed_count, 0) AS failed_count,
    -- successful probes with a brand Mention ÷ successful probes
    CAST(COALESCE(bm.mention_count, 0) AS DOUBLE) / NULLIF(p.success_count, 0) AS mention_rate,
    -- successful probes whose brand Mention has order 1 ÷ successful probes
    CAST(COALESCE(bm.first_mention_count, 0) AS DOUBLE) / NULLIF(p.success_count, 0) AS first_mention_rate,
    -- the sum of the brand's order ÷ successful probes with a brand Mention
    CAST(bm.order_sum AS DOUBLE) / NULLIF(bm.mention_count, 0) AS avg_order,
    -- the sum of the brand's list positions ÷ brand Mentions with a list position
    CAST(bm.list_position_sum AS DOUBLE) / NULLIF(bm.list_position_count, 0) AS avg_list_position,
    -- successful probes with an owned source ÷ successful probes
    CAST(COALESCE(sc.owned_probe_count, 0) AS DOUBLE) / NULLIF(p.success_count, 0) AS owned_visibility,
    sc.owned_best_rank,
    COALESCE(sc.unique_domains, 0) AS unique_domains,
    -- successful probes with at least one query ÷ successful probes
    CAST(p.searched_count AS DOUBLE) / NULLIF(p.success_count, 0) AS searched_rate
FROM runs r
LEFT JOIN probe_counts p ON p.run_id = r.run_id
LEFT JOIN mention_counts bm ON bm.run_id = r.run_id AND bm.target_id = r.brand_id
LEFT JOIN source_counts sc ON sc.run_id = r.run_id;

-- One row per run and target of its aliasSnapshot: a target's successful probes naming it
-- ÷ the sum of that count over the run's targets.
CREATE OR REPLACE VIEW share_of_voice AS
WITH mentioning AS (
    SELECT t.run_id, t.target_id, COUNT(m.probe_id) AS probe_count
    FROM targets t
    LEFT JOIN mentions m ON m.run_id = t.run_id AND m.target_id = t.target_id
    GROUP BY t.run_id, t.target_id
)
SELECT
    run_id,
    target_id,
    CAST(probe_count AS DOUBLE) / NULLIF(SUM(probe_count) OVER (PARTITION BY run_id), 0) AS share
FROM mentioning;

-- One row per run and source domain of its successful probes.
CREATE OR REPLACE VIEW domain_metrics AS
WITH
success AS (
    SELECT run_id, SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END) AS success_count
    FROM probes
    GROUP BY run_id
),
-- Each source of a domain in the order the metrics meet them: probe by probe in export order,
-- then in the probe's order.
sightings AS (
    SELECT
        run_id, domain, platform, channel, ownership, occurrences,
        ROW_NUMBER() OVER (PARTITION BY run_id, domain ORDER BY probe_index, source_index) AS seen_at
    FROM sources
),
-- A domain's platform, channel and ownership are those of its most frequent attribution
-- (occurrences), the first seen on a tie.
attribution AS (
    SELECT run_id, domain, platform, channel, ownership
    FROM (
        SELECT
            run_id, domain, platform, channel, ownership,
            ROW_NUMBER() OVER (PARTITION BY run_id, domain ORDER BY occurrences DESC, first_seen) AS n
        FROM (
            SELECT run_id, domain, platform, channel, ownership,
                SUM(occurrences) AS occurrences, MIN(seen_at) AS first_seen
            FROM sightings
            GROUP BY run_id, domain, platform, channel, ownership
        ) attributions
    ) ranked
    WHERE n = 1
),
totals AS (
    SELECT
        run_id, domain,
        COUNT(DISTINCT probe_id) AS probe_count,
        SUM(occurrences) AS occurrences,
        SUM(rank_sum) AS rank_sum,
        MIN(best_rank) AS best_rank
    FROM sources
    GROUP BY run_id, domain
),
run_occurrences AS (
    SELECT run_id, SUM(occurrences) AS occurrences
    FROM sources
    GROUP BY run_id
)
SELECT
    t.run_id,
    t.domain,
    a.ownership,
    t.probe_count,
    t.occurrences,
    -- successful probes retrieving the domain ÷ successful probes
    CAST(t.probe_count AS DOUBLE) / NULLIF(s.success_count, 0) AS occurrence_rate,
    -- the sum of its occurrences' ranks ÷ its occurrences
    CAST(t.rank_sum AS DOUBLE) / NULLIF(t.occurrences, 0) AS avg_rank,
    t.best_rank,
    -- extras, also in `geo-probe metrics`' domains
    a.platform,
    a.channel,
    -- its occurrences ÷ all source occurrences of the run's successful probes
    CAST(t.occurrences AS DOUBLE) / NULLIF(ro.occurrences, 0) AS occurrence_share
FROM totals t
JOIN attribution a ON a.run_id = t.run_id AND a.domain = t.domain
JOIN success s ON s.run_id = t.run_id
JOIN run_occurrences ro ON ro.run_id = t.run_id;

-- One row per run and fact of its factSnapshot (the table `facts`, in its order: `position`):
-- `geo-probe metrics`' `facts` rows. A successful probe counts once per fact, as contradicts
-- when any of its claims on the fact contradicts, else consistent when any is consistent, else
-- unverified (shared/spec/data-model.md, "What the answers say"). A fact without claims has
-- its row, with zeros.
CREATE OR REPLACE VIEW fact_metrics AS
WITH
-- Each probe's strongest verdict on each fact: 3 contradicts, 2 consistent, 1 unverified.
probe_verdicts AS (
    SELECT
        run_id,
        fact_id,
        probe_id,
        MAX(CASE verdict WHEN 'contradicts' THEN 3 WHEN 'consistent' THEN 2 ELSE 1 END) AS outcome
    FROM claims
    GROUP BY run_id, fact_id, probe_id
),
fact_counts AS (
    SELECT
        run_id,
        fact_id,
        COUNT(*) AS probes_with_claim,
        SUM(CASE WHEN outcome = 2 THEN 1 ELSE 0 END) AS consistent,
        SUM(CASE WHEN outcome = 3 THEN 1 ELSE 0 END) AS contradicts,
        SUM(CASE WHEN outcome = 1 THEN 1 ELSE 0 END) AS unverified
    FROM probe_verdicts
    GROUP BY run_id, fact_id
)
SELECT
    f.run_id,
    f.fact_id,
    f.target_id,
    f.label,
    f.position,
    COALESCE(c.probes_with_claim, 0) AS probes_with_claim,
    COALESCE(c.consistent, 0) AS consistent,
    COALESCE(c.contradicts, 0) AS contradicts,
    COALESCE(c.unverified, 0) AS unverified,
    -- probes counted contradicts ÷ probes with a claim on the fact
    CAST(c.contradicts AS DOUBLE) / NULLIF(c.probes_with_claim, 0) AS contradiction_rate
FROM facts f
LEFT JOIN fact_counts c ON c.run_id = f.run_id AND c.fact_id = f.fact_id;

-- One row per run and target of its aliasSnapshot: `geo-probe metrics`' `riskFlags` rows. Of
-- the successful probes mentioning the target (its `mentions` rows), those with at least one
-- risk flag on it, with the 95 % Wilson interval of their share (z = 1.959963984540054), and
-- those with a flag of each kind.
CREATE OR REPLACE VIEW risk_flag_metrics AS
WITH
flagged AS (
    SELECT
        m.run_id,
        m.target_id,
        m.probe_id,
        MAX(CASE WHEN f.kind = 'negative' THEN 1 ELSE 0 END) AS negative,
        MAX(CASE WHEN f.kind = 'caution' THEN 1 ELSE 0 END) AS caution,
        MAX(CASE WHEN f.kind = 'watch' THEN 1 ELSE 0 END) AS watch
    FROM mentions m
    JOIN risk_flags f ON f.probe_id = m.probe_id AND f.target_id = m.target_id
    GROUP BY m.run_id, m.target_id, m.probe_id
),
mention_counts AS (
    SELECT run_id, target_id, COUNT(*) AS n
    FROM mentions
    GROUP BY run_id, target_id
),
flag_counts AS (
    SELECT
        run_id,
        target_id,
        COUNT(*) AS k,
        SUM(negative) AS negative,
        SUM(caution) AS caution,
        SUM(watch) AS watch
    FROM flagged
    GROUP BY run_id, target_id
),
counts AS (
    SELECT
        t.run_id,
        t.target_id,
        t.position,
        COALESCE(mc.n, 0) AS n,
        COALESCE(fc.k, 0) AS k,
        COALESCE(fc.negative, 0) AS negative,
        COALESCE(fc.caution, 0) AS caution,
        COALESCE(fc.watch, 0) AS watch
    FROM targets t
    LEFT JOIN mention_counts mc ON mc.run_id = t.run_id AND mc.target_id = t.target_id
    LEFT JOIN flag_counts fc ON fc.run_id = t.run_id AND fc.target_id = t.target_id
),
-- The Wilson interval's centre and half-width (metrics::stats::wilson_interval).
wilson AS (
    SELECT
        *,
        CAST(k AS DOUBLE) / NULLIF(n, 0) AS p,
        1.959963984540054 * 1.959963984540054 AS z2
    FROM counts
),
bounds AS (
    SELECT
        *,
        (p + z2 / (2.0 * n)) / (1.0 + z2 / n) AS centre,
        1.959963984540054 * SQRT(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / (1.0 + z2 / n) AS half
    FROM wilson
    WHERE n > 0
)
SELECT
    w.run_id,
    w.target_id,
    w.position,
    w.n AS mentioning_count,
    w.k AS flagged_count,
    -- successful probes mentioning the target with a flag on it ÷ those mentioning it
    w.p AS flagged_rate,
    -- the Wilson bounds within [0, 1], the rate itself always inside them; NULL without a
    -- mentioning probe (LEAST and GREATEST skip NULLs, so the CASE says it)
    CASE WHEN w.n > 0 THEN LEAST(LEAST(GREATEST(b.centre - b.half, 0.0), 1.0), w.p) END AS flagged_low,
    CASE WHEN w.n > 0 THEN GREATEST(LEAST(GREATEST(b.centre + b.half, 0.0), 1.0), w.p) END AS flagged_high,
    w.negative,
    w.caution,
    w.watch
FROM wilson w
LEFT JOIN bounds b ON b.run_id = w.run_id AND b.target_id = w.target_id;
