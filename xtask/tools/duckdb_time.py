"""DuckDB over a warehouse folder for `cargo xtask bench-warehouse`: opens it as the DuckDB
test does (`views.open_warehouse`: a view over each table folder, the views of
sql/metrics.sql) and times a full read of each view (the first read of run_metrics, then the
median of three more); prints JSON.
Usage: python duckdb_time.py SQL_FILE DIR
"""

import json
import statistics
import sys
import time
from pathlib import Path

import duckdb

# The DuckDB test's `open_warehouse`: the same views over the same folders.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "crates/geo-cli/tests/warehouse_duckdb"))
from views import open_warehouse  # noqa: E402


def timed(con, query):
    start = time.perf_counter()
    rows = con.execute(query).fetchall()
    return time.perf_counter() - start, len(rows)


def main():
    sql = open(sys.argv[1], encoding="utf-8").read()
    con, _ = open_warehouse(sql, sys.argv[2])
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
