//! One table of one run as a Parquet file: geo-core's rows ([`Row`]) into Arrow arrays, one
//! array per column, then through the Apache Arrow project's `ArrowWriter` (zstd, statistics
//! per page and column chunk, row groups of up to [`ROW_GROUP_ROWS`] rows).

use anyhow::{Context, Result};
use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema};
use geo_core::export::warehouse::{Column, ColumnType, Row, Value};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use std::sync::Arc;

/// Most rows in one row group: a file holds one run, so this is one row group per file, and
/// a reader that merges the year's files still sees groups of a useful size.
pub const ROW_GROUP_ROWS: usize = 4 * 1024 * 1024;

/// zstd's level: 3 is zstd's own default, several times smaller than level 1 on answers
/// for little more time (docs/adr/0018-warehouse-parquet.md).
const ZSTD_LEVEL: i32 = 3;

/// Columns of long, mostly distinct text, where a dictionary only costs time.
const NO_DICTIONARY: &[&str] = &["answer", "url", "canonical_url", "text"];

/// The Parquet bytes of `rows` (zero rows make a valid file with the table's schema).
pub fn encode<R: Row>(rows: &[R]) -> Result<Vec<u8>> {
    let arrays: Vec<ArrayRef> = R::COLUMNS.iter().enumerate().map(|(i, c)| array(rows, i, c)).collect();
    let fields: Vec<Field> =
        R::COLUMNS.iter().zip(&arrays).map(|(c, a)| Field::new(c.name, a.data_type().clone(), c.nullable)).collect();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), arrays)
        .with_context(|| format!("cannot assemble the {} table", R::TABLE))?;
    let mut writer = ArrowWriter::try_new(Vec::new(), schema, Some(properties(R::COLUMNS)?))?;
    writer.write(&batch).with_context(|| format!("cannot encode the {} table", R::TABLE))?;
    Ok(writer.into_inner()?)
}

fn properties(columns: &[Column]) -> Result<WriterProperties> {
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL)?))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_created_by(format!(
            "geo-probe {} ({})",
            geo_core::model::APP_VERSION,
            parquet::file::properties::DEFAULT_CREATED_BY
        ));
    for c in columns.iter().filter(|c| NO_DICTIONARY.contains(&c.name)) {
        builder = builder.set_column_dictionary_enabled(ColumnPath::from(c.name), false);
    }
    Ok(builder.build())
}

/// Column `i` of `rows` through `builder` (one with `append_option`): each row's
/// `Value::$variant`, any other value null.
macro_rules! primitive_column {
    ($builder:expr, $rows:expr, $i:expr, $variant:ident) => {{
        let mut b = $builder;
        $rows.iter().for_each(|r| b.append_option(if let Value::$variant(v) = r.value($i) { Some(v) } else { None }));
        Arc::new(b.finish())
    }};
}

/// Column `i` of `rows` as an Arrow array of its type; a value of another type (never made by
/// geo-core, whose test checks every column) becomes null.
fn array<R: Row>(rows: &[R], i: usize, column: &Column) -> ArrayRef {
    let n = rows.len();
    match column.ty {
        ColumnType::Str => {
            let mut b = StringBuilder::with_capacity(n, n * 16);
            for r in rows {
                match r.value(i) {
                    Value::Str(s) => b.append_value(s),
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        ColumnType::Int => primitive_column!(Int64Builder::with_capacity(n), rows, i, Int),
        ColumnType::Float => primitive_column!(Float64Builder::with_capacity(n), rows, i, Float),
        ColumnType::Bool => primitive_column!(BooleanBuilder::with_capacity(n), rows, i, Bool),
        ColumnType::Timestamp => {
            primitive_column!(TimestampMicrosecondBuilder::with_capacity(n).with_timezone("UTC"), rows, i, Timestamp)
        }
        ColumnType::StrList => {
            let mut b = ListBuilder::new(StringBuilder::new());
            for r in rows {
                match r.value(i) {
                    Value::StrList(items) => {
                        items.iter().for_each(|s| b.values().append_value(s));
                        b.append(true);
                    }
                    _ => b.append(false),
                }
            }
            Arc::new(b.finish())
        }
    }
}
