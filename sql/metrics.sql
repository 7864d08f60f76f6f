-- GEO Probe's run metrics as SQL views over the warehouse tables that `geo-probe warehouse`
-- writes (shared/spec/data-model.md, "Warehouse tables"; docs/warehouse.md).
--
-- Each view equals `geo-probe metrics` on the same runs, column for column (floats within
-- 1e-9): crates/geo-cli/tests/warehouse_duckdb.rs checks it on the fixtures' runs, the demo
-- and a generated export. The denominators are the seed's (§6, §6.1; docs/metrics.md):
-- every figure about mentions and sources is over successful probes only (`mentions` and
-- `sources` hold rows of successful probes only), and a ratio is NULL where its
-- denominator is zero (NULLIF).
--
-- Dialect: DuckDB, kept to standard SQL (CTEs, CASE, NULLIF, COUNT(DISTINCT), ROW_NUMBER).
-- Name the tables first, then run this file; in DuckDB, with the folder of `--out DIR`:
--
--   CREATE VIEW runs AS SELECT * FROM read_parquet('DIR/runs/**/*.parquet', hive_partitioning = true);
--   -- … and the same for targets, prompts, probes, mentions, queries, sources, answer_links
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
