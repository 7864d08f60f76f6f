"""Reads the warehouse folders of `geo-probe warehouse` in DuckDB (every table folder of each),
creates the views of sql/metrics.sql over them and prints, per folder, every row of the views, the row count
of every table, the columns' types and the Parquet metadata that matters (compression, row
groups, statistics) as one JSON object: `python views.py SQL_FILE DIR...`.
"""

import json
import sys
from pathlib import Path

import duckdb

VIEWS = ["run_metrics", "share_of_voice", "domain_metrics", "fact_metrics", "risk_flag_metrics"]


def literal(text):
    return "'" + text.replace("'", "''") + "'"


def rows(con, query):
    cur = con.execute(query)
    names = [c[0] for c in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def open_warehouse(sql, folder):
    """A DuckDB connection with a view over each table folder of `folder` (Hive-partitioned
    Parquet) and the views of `sql` created; and the tables' names."""
    con = duckdb.connect()
    tables = sorted(p.name for p in Path(folder).iterdir() if p.is_dir())
    for table in tables:
        files = literal(f"{folder}/{table}/**/*.parquet")
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet({files}, hive_partitioning = true)")
    con.execute(sql)
    return con, tables


def read(sql, folder):
    con, tables = open_warehouse(sql, folder)
    out = {view: rows(con, f"SELECT * FROM {view}") for view in VIEWS}
    out["counts"] = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
    out["types"] = {
        t: {r["column_name"]: r["column_type"] for r in rows(con, f"DESCRIBE {t}")} for t in tables
    }
    files = literal(f"{folder}/**/*.parquet")
    out["parquet"] = rows(
        con,
        f"""SELECT
              list(DISTINCT compression) AS compressions,
              count(*) FILTER (WHERE num_values > 0 AND stats_null_count IS NULL) AS chunks_without_statistics,
              count(*) FILTER (WHERE num_values > 0) AS chunks,
              max(row_group_num_rows) AS largest_row_group,
              count(DISTINCT file_name) AS files
            FROM parquet_metadata({files})""",
    )[0]
    out["files"] = rows(con, f"SELECT file_name, count(DISTINCT row_group_id) AS row_groups FROM parquet_metadata({files}) GROUP BY file_name")
    return out


def main():
    sql = open(sys.argv[1], encoding="utf-8").read()
    print(json.dumps({folder: read(sql, folder) for folder in sys.argv[2:]}, default=str, ensure_ascii=False))


if __name__ == "__main__":
    main()
