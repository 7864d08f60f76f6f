"""DuckDB over a warehouse folder for `cargo xtask bench-warehouse`: names the tables
(Hive-partitioned Parquet), creates the views of sql/metrics.sql and times a full read of each
view (the first read of run_metrics, then the median of three more); prints JSON.
Usage: python duckdb_time.py SQL_FILE DIR
"""

import json
import statistics
import sys
import time

import duckdb

TABLES = [
    "runs",
    "targets",
    "prompts",
    "probes",
    "mentions",
    "queries",
    "sources",
    "answer_links",
    "facts",
    "claims",
    "risk_flags",
]


def timed(con, query):
    start = time.perf_counter()
    rows = con.execute(query).fetchall()
    return time.perf_counter() - start, len(rows)


def main():
    sql = open(sys.argv[1], encoding="utf-8").read()
    folder = sys.argv[2].replace("'", "''")
    con = duckdb.connect()
    for table in TABLES:
        con.execute(
            f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{folder}/{table}/**/*.parquet', hive_partitioning = true)"
        )
    con.execute(sql)
    first, runs = timed(con, "SELECT * FROM run_metrics")
    again = [timed(con, "SELECT * FROM run_metrics")[0] for _ in range(3)]
    out = {
        "version": duckdb.__version__,
        "runs": runs,
        "run_metrics_first_s": first,
        "run_metrics_s": statistics.median(again),
        "share_of_voice_s": timed(con, "SELECT * FROM share_of_voice")[0],
        "domain_metrics_s": timed(con, "SELECT * FROM domain_metrics")[0],
        "probes": con.execute("SELECT count(*) FROM probes").fetchone()[0],
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
