//! `in_session_set(session_id, set_name)`: whether a session is one of a named set of session
//! ids registered on the serving context ([`SessionSets`]), as a SQL function. How a scoped
//! server (`--project-only`, a team token's projects and machines) limits its SQL to the very
//! set its search and `open` are limited to (`service::project_scope`). An empty name is no
//! set: every row is in it.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, RwLock};

use datafusion::arrow::array::{ArrayAccessor, ArrayIter, ArrayRef, AsArray, BooleanArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{ScalarValue, exec_err, utils::take_function_args};
use datafusion::error::Result as DataFusionResult;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

use super::session_bucket::scalar_text;

/// The function's SQL name.
pub const IN_SESSION_SET: &str = "in_session_set";

/// The named sets of session ids one serving context answers `in_session_set` from.
#[derive(Debug, Default)]
pub struct SessionSets {
    sets: RwLock<HashMap<String, Arc<HashSet<String>>>>,
}

impl SessionSets {
    /// Registers (or replaces) the set called `name`.
    pub fn insert(&self, name: &str, ids: Arc<HashSet<String>>) {
        self.sets
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(name.to_owned(), ids);
    }

    fn get(&self, name: &str) -> Option<Arc<HashSet<String>>> {
        self.sets
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)
            .cloned()
    }
}

/// `in_session_set(session_id, set_name) -> BOOLEAN` over `sets`, ready to register in a
/// context (replacing any earlier registration).
pub fn in_session_set_udf(sets: Arc<SessionSets>) -> ScalarUDF {
    ScalarUDF::new_from_impl(InSessionSet {
        signature: Signature::string(2, Volatility::Immutable),
        sets,
    })
}

#[derive(Debug)]
struct InSessionSet {
    signature: Signature,
    sets: Arc<SessionSets>,
}

impl PartialEq for InSessionSet {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.sets, &other.sets)
    }
}

impl Eq for InSessionSet {}

impl Hash for InSessionSet {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Arc::as_ptr(&self.sets).hash(state);
    }
}

impl ScalarUDFImpl for InSessionSet {
    fn name(&self) -> &str {
        IN_SESSION_SET
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DataFusionResult<DataType> {
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DataFusionResult<ColumnarValue> {
        let [ids, name] = take_function_args(IN_SESSION_SET, &args.args)?;
        let ColumnarValue::Scalar(name) = name else {
            return exec_err!("{IN_SESSION_SET} takes the set's name as a constant");
        };
        let set = match scalar_text(IN_SESSION_SET, name)? {
            None | Some("") => None,
            Some(name) => match self.sets.get(name) {
                Some(set) => Some(set),
                None => return exec_err!("{IN_SESSION_SET}: no session set named {name:?}"),
            },
        };
        match ids {
            ColumnarValue::Scalar(id) => {
                let id = scalar_text(IN_SESSION_SET, id)?;
                Ok(ColumnarValue::Scalar(ScalarValue::Boolean(Some(admitted(
                    set.as_deref(),
                    id,
                )))))
            }
            ColumnarValue::Array(ids) => Ok(ColumnarValue::Array(membership(ids, set.as_deref())?)),
        }
    }
}

/// Whether `id` is in `set` (`None`: no set, every id is); a null id is in no set.
fn admitted(set: Option<&HashSet<String>>, id: Option<&str>) -> bool {
    match set {
        None => true,
        Some(set) => id.is_some_and(|id| set.contains(id)),
    }
}

fn membership(ids: &ArrayRef, set: Option<&HashSet<String>>) -> DataFusionResult<ArrayRef> {
    if let Some(ids) = ids.as_string_view_opt() {
        return Ok(membership_of(ids, set));
    }
    if let Some(ids) = ids.as_string_opt::<i32>() {
        return Ok(membership_of(ids, set));
    }
    if let Some(ids) = ids.as_string_opt::<i64>() {
        return Ok(membership_of(ids, set));
    }
    exec_err!("{IN_SESSION_SET} takes a string, not {}", ids.data_type())
}

fn membership_of<'a>(
    ids: impl ArrayAccessor<Item = &'a str>,
    set: Option<&HashSet<String>>,
) -> ArrayRef {
    let values: BooleanArray = ArrayIter::new(ids)
        .map(|id| Some(admitted(set, id)))
        .collect();
    Arc::new(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::AsArray;
    use datafusion::prelude::SessionContext;

    async fn column(context: &SessionContext, sql: &str) -> Vec<Option<bool>> {
        let batches = context.sql(sql).await.unwrap().collect().await.unwrap();
        batches
            .iter()
            .flat_map(|batch| batch.column(0).as_boolean().iter())
            .collect()
    }

    #[tokio::test]
    async fn rows_are_in_the_named_set_and_every_row_is_in_no_set() {
        let sets = Arc::new(SessionSets::default());
        sets.insert("team", Arc::new(["s1", "s3"].map(String::from).into()));
        let context = SessionContext::new();
        context.register_udf(in_session_set_udf(Arc::clone(&sets)));
        let rows = "FROM (VALUES ('s1'), ('s2'), (NULL), ('s3')) AS t(id)";
        assert_eq!(
            column(
                &context,
                &format!("SELECT in_session_set(id, 'team') {rows}")
            )
            .await,
            [Some(true), Some(false), Some(false), Some(true)]
        );
        assert_eq!(
            column(&context, &format!("SELECT in_session_set(id, '') {rows}")).await,
            [Some(true); 4]
        );
        assert_eq!(
            column(&context, "SELECT in_session_set('s2', 'team')").await,
            [Some(false)]
        );
        // A set registered after planning is read when the statement runs.
        sets.insert("later", Arc::new(["s2"].map(String::from).into()));
        assert_eq!(
            column(
                &context,
                &format!("SELECT in_session_set(id, 'later') {rows}")
            )
            .await,
            [Some(false), Some(true), Some(false), Some(false)]
        );
    }

    #[tokio::test]
    async fn an_unknown_set_is_an_error_not_an_empty_answer() {
        let context = SessionContext::new();
        context.register_udf(in_session_set_udf(Arc::default()));
        let error = context
            .sql("SELECT in_session_set(id, 'nobody') FROM (VALUES ('s1')) AS t(id)")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("no session set named"),
            "{error}"
        );
    }
}
