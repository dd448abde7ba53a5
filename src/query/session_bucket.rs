//! `session_bucket(session_id)`: the bucket of `turns`, `sessions` and `file_touches` a
//! session's rows are stored in (`store::commit::turn_bucket`), as a SQL function of the
//! serving contexts. A filter on it names buckets, and a bucketed [`super::keyed_scan`] table
//! opens only those buckets' files: how a new generation reads the rows of the buckets its
//! commit rewrote and nothing else (`queries/*_bucket_rows.sql`).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayAccessor, ArrayIter, ArrayRef, AsArray, Int64Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{ScalarValue, exec_err, utils::take_function_args};
use datafusion::error::Result as DataFusionResult;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

use crate::store::commit::{turn_bucket, turn_buckets};

/// The function's SQL name.
pub const SESSION_BUCKET: &str = "session_bucket";

/// `session_bucket(session_id) -> BIGINT`, ready to register in a context.
pub fn session_bucket_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(SessionBucket {
        signature: Signature::string(1, Volatility::Immutable),
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct SessionBucket {
    signature: Signature,
}

impl ScalarUDFImpl for SessionBucket {
    fn name(&self) -> &str {
        SESSION_BUCKET
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DataFusionResult<DataType> {
        Ok(DataType::Int64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DataFusionResult<ColumnarValue> {
        let [argument] = take_function_args(SESSION_BUCKET, &args.args)?;
        match argument {
            ColumnarValue::Scalar(value) => Ok(ColumnarValue::Scalar(ScalarValue::Int64(
                scalar_text(SESSION_BUCKET, value)?.map(bucket),
            ))),
            ColumnarValue::Array(array) => Ok(ColumnarValue::Array(buckets(array)?)),
        }
    }
}

fn bucket(session_id: &str) -> i64 {
    turn_bucket(session_id) as i64
}

/// The bucket of every row (a null id has none).
fn buckets(array: &ArrayRef) -> DataFusionResult<ArrayRef> {
    if let Some(ids) = array.as_string_view_opt() {
        return Ok(buckets_of(ids));
    }
    if let Some(ids) = array.as_string_opt::<i32>() {
        return Ok(buckets_of(ids));
    }
    if let Some(ids) = array.as_string_opt::<i64>() {
        return Ok(buckets_of(ids));
    }
    exec_err!("{SESSION_BUCKET} takes a string, not {}", array.data_type())
}

fn buckets_of<'a>(ids: impl ArrayAccessor<Item = &'a str>) -> ArrayRef {
    let values: Int64Array = turn_buckets(ArrayIter::new(ids))
        .map(|bucket| bucket.map(|bucket| bucket as i64))
        .collect();
    Arc::new(values)
}

/// The text of a string scalar (`None` for a null), or an error naming `function`.
pub(crate) fn scalar_text<'a>(
    function: &str,
    value: &'a ScalarValue,
) -> DataFusionResult<Option<&'a str>> {
    match value {
        ScalarValue::Utf8(text) | ScalarValue::Utf8View(text) | ScalarValue::LargeUtf8(text) => {
            Ok(text.as_deref())
        }
        ScalarValue::Null => Ok(None),
        other => exec_err!("{function} takes strings, not {}", other.data_type()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::AsArray;
    use datafusion::arrow::datatypes::Int64Type;
    use datafusion::prelude::SessionContext;

    #[tokio::test]
    async fn the_sql_function_is_the_stores_bucket() {
        let context = SessionContext::new();
        context.register_udf(session_bucket_udf());
        let batches = context
            .sql(
                "SELECT session_bucket(id) AS bucket FROM (VALUES ('s1'), ('s1'), ('s2'), \
                 (NULL), ('019a-long-session-id')) AS t(id)",
            )
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let buckets: Vec<Option<i64>> = batches
            .iter()
            .flat_map(|batch| batch.column(0).as_primitive::<Int64Type>().iter())
            .collect();
        let expected: Vec<Option<i64>> = ["s1", "s1", "s2"]
            .into_iter()
            .map(|id| Some(turn_bucket(id) as i64))
            .chain([None, Some(turn_bucket("019a-long-session-id") as i64)])
            .collect();
        assert_eq!(buckets, expected);
        let scalar = context
            .sql("SELECT session_bucket('s2')")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        assert_eq!(
            scalar[0].column(0).as_primitive::<Int64Type>().value(0),
            turn_bucket("s2") as i64
        );
    }
}
