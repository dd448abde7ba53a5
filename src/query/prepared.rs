//! A named statement planned and optimized once, its placeholders unbound, then bound per
//! request: a request pays for binding, a constant-folding pass and physical planning, not
//! for DataFusion's whole logical optimizer (analyzer, pushdowns, join planning) again.
//!
//! A placeholder whose type DataFusion cannot infer from the SQL (a list handed to
//! `array_has`, say) takes the type of the first request's value; later values are cast to
//! each placeholder occurrence's type before binding, so the optimized plan never meets a
//! literal of another type than it was planned for. A statement the optimizer cannot plan
//! with its placeholders unbound, and a request whose values do not cast without loss (text to
//! text, a number to the same number), are optimized per request instead, as `SessionState`
//! does: never a different answer, at worst the old cost.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SessionState;
use datafusion::logical_expr::expr::Placeholder;
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::optimizer::Optimizer;
use datafusion::optimizer::simplify_expressions::SimplifyExpressions;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::scalar::ScalarValue;

/// One statement's logical plan, prepared for binding.
#[derive(Debug, Clone)]
pub struct PreparedPlan {
    /// The plan as the SQL planner made it: what a request the optimized plan cannot take is
    /// bound to and optimized from, as `SessionState` does.
    planned: LogicalPlan,
    /// The plan analyzed and optimized with its placeholders unbound, when that succeeded.
    optimized: Option<LogicalPlan>,
    /// How many parameters the statement takes (as many as its first request gave).
    arity: usize,
}

impl PreparedPlan {
    /// Prepares `plan` (a statement as the SQL planner made it, placeholders unbound), typing
    /// its untyped placeholders after `first_parameters`.
    pub fn new(
        state: &SessionState,
        plan: LogicalPlan,
        first_parameters: &[ScalarValue],
    ) -> Result<PreparedPlan> {
        // A placeholder the planner typed differently in two places (a Utf8 and a Utf8View
        // column) has no one type: each of its occurrences keeps its own ([`with_values`]).
        let inferred = plan.get_parameter_types().unwrap_or_default();
        let types: Vec<Option<DataType>> = (1..=first_parameters.len())
            .map(|position| {
                inferred
                    .get(&format!("${position}"))
                    .cloned()
                    .flatten()
                    .or_else(|| Some(first_parameters[position - 1].data_type()))
                    // A NULL of no type says nothing of the values to come.
                    .filter(|data_type| *data_type != DataType::Null)
            })
            .collect();
        let optimized = if types.iter().all(Option::is_some) {
            let typed = with_placeholder_types(plan.clone(), &types)?;
            state
                .optimize(&typed)
                .inspect_err(|error| {
                    tracing::debug!(%error, "a statement is optimized per request");
                })
                .ok()
        } else {
            None
        };
        Ok(PreparedPlan {
            planned: plan,
            optimized,
            arity: first_parameters.len(),
        })
    }

    /// Whether requests skip the logical optimizer.
    pub fn is_optimized(&self) -> bool {
        self.optimized.is_some()
    }

    /// The physical plan of the statement with `parameters` bound: from the optimized plan,
    /// or, when there is none or `parameters` do not fit it (a value that does not cast to its
    /// placeholder's type), from the planned one, optimized for this request.
    pub async fn physical_plan(
        &self,
        state: &SessionState,
        parameters: Vec<ScalarValue>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if parameters.len() != self.arity {
            return Err(DataFusionError::Plan(format!(
                "the statement was prepared for {} parameters, not {}",
                self.arity,
                parameters.len()
            )));
        }
        if let Some(bound) = self.bound_optimized(state, &parameters) {
            return state
                .query_planner()
                .create_physical_plan(&bound, state)
                .await;
        }
        let bound = self.planned.clone().with_param_values(parameters)?;
        state.create_physical_plan(&bound).await
    }

    /// The optimized plan with `parameters` bound and folded; `None` when there is no
    /// optimized plan or `parameters` do not fit it.
    fn bound_optimized(
        &self,
        state: &SessionState,
        parameters: &[ScalarValue],
    ) -> Option<LogicalPlan> {
        let optimized = self.optimized.as_ref()?;
        let bound = with_values(optimized.clone(), parameters)
            .inspect_err(|error| tracing::debug!(%error, "parameters bound unoptimized"))
            .ok()?;
        // Folds what binding made constant (casts of literals, `array_has` over a literal list
        // into an IN list) so scans see plain literals to prune and look up by.
        Optimizer::with_rules(vec![Arc::new(SimplifyExpressions::new())])
            .optimize(bound, state, |_, _| {})
            .ok()
    }
}

/// `plan` with each placeholder `$n` replaced by `parameters[n - 1]`, cast to that
/// placeholder's type where the optimizer left it typed (DataFusion's own binding re-infers
/// each placeholder's type from its neighbours, which an optimized plan may have changed:
/// `CAST(column) = $1` unwrapped to `column = $1`).
fn with_values(plan: LogicalPlan, parameters: &[ScalarValue]) -> Result<LogicalPlan> {
    let value_of = |placeholder: &Placeholder| -> Result<ScalarValue> {
        let value = placeholder
            .id
            .strip_prefix('$')
            .and_then(|position| position.parse::<usize>().ok())
            .and_then(|position| parameters.get(position.checked_sub(1)?))
            .ok_or_else(|| {
                DataFusionError::Plan(format!("no value for placeholder {}", placeholder.id))
            })?;
        match &placeholder.field {
            Some(field) if value.data_type() != *field.data_type() => {
                cast_without_loss(value, field.data_type())
            }
            _ => Ok(value.clone()),
        }
    };
    plan.transform_up_with_subqueries(|node| {
        let names = NamePreserver::new(&node);
        node.map_expressions(|expression| {
            let name = names.save(&expression);
            let bound = expression.transform_up(|expression| match expression {
                Expr::Placeholder(placeholder) => Ok(Transformed::yes(Expr::Literal(
                    value_of(&placeholder)?,
                    None,
                ))),
                other => Ok(Transformed::no(other)),
            })?;
            Ok(bound.update_data(|expression| name.restore(expression)))
        })
    })
    .map(|transformed| transformed.data)
}

/// `value` cast to `data_type` when that keeps both its meaning and its value: text stays text
/// (DataFusion would compare a number with a text column by casting the column), and the
/// value casts back to itself (`2.5` does not become the ordinal `2`). Otherwise an error, so
/// that the request is optimized per request with the value as given.
fn cast_without_loss(value: &ScalarValue, data_type: &DataType) -> Result<ScalarValue> {
    let from = value.data_type();
    if value_kind(&from) != value_kind(data_type) {
        return Err(DataFusionError::Plan(format!(
            "a {from} value is not bound to a {data_type} placeholder"
        )));
    }
    let cast = value.cast_to(data_type)?;
    if cast.cast_to(&from)? != *value {
        return Err(DataFusionError::Plan(format!(
            "{value} changes when cast to {data_type}"
        )));
    }
    Ok(cast)
}

/// What a value means to a comparison, whatever its width or encoding.
#[derive(Debug, PartialEq, Eq)]
enum ValueKind {
    Text,
    Boolean,
    Number,
    Other,
    ListOf(Box<ValueKind>),
}

fn value_kind(data_type: &DataType) -> ValueKind {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => ValueKind::Text,
        DataType::Boolean => ValueKind::Boolean,
        DataType::Dictionary(_, values) => value_kind(values),
        DataType::List(field)
        | DataType::LargeList(field)
        | DataType::ListView(field)
        | DataType::LargeListView(field)
        | DataType::FixedSizeList(field, _) => {
            ValueKind::ListOf(Box::new(value_kind(field.data_type())))
        }
        numeric if numeric.is_numeric() => ValueKind::Number,
        _ => ValueKind::Other,
    }
}

/// `plan` with each untyped placeholder `$n` given `types[n - 1]`.
fn with_placeholder_types(plan: LogicalPlan, types: &[Option<DataType>]) -> Result<LogicalPlan> {
    let type_of = |id: &str| -> Option<DataType> {
        let position: usize = id.strip_prefix('$')?.parse().ok()?;
        types.get(position.checked_sub(1)?)?.clone()
    };
    plan.transform_up_with_subqueries(|node| {
        node.map_expressions(|expression| {
            expression.transform_up(|expression| match expression {
                Expr::Placeholder(Placeholder { id, field: None }) => {
                    let field =
                        type_of(&id).map(|data_type| Arc::new(Field::new(&id, data_type, true)));
                    let typed = field.is_some();
                    let placeholder = Expr::Placeholder(Placeholder { id, field });
                    Ok(if typed {
                        Transformed::yes(placeholder)
                    } else {
                        Transformed::no(placeholder)
                    })
                }
                other => Ok(Transformed::no(other)),
            })
        })
    })
    .map(|transformed| transformed.data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int32Array, RecordBatch, StringViewArray};
    use datafusion::arrow::datatypes::Schema;
    use datafusion::arrow::util::pretty::pretty_format_batches;
    use datafusion::datasource::MemTable;
    use datafusion::physical_plan::collect;
    use datafusion::prelude::SessionContext;

    fn context() -> SessionContext {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8View, false),
            Field::new("ordinal", DataType::Int32, false),
        ]));
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![
                Arc::new(StringViewArray::from(vec!["a", "b", "c", "d"])),
                Arc::new(Int32Array::from(vec![1, 2, 3, 4])),
            ],
        )
        .unwrap();
        let context = SessionContext::new();
        let table = MemTable::try_new(schema, vec![vec![batch]]).unwrap();
        context.register_table("t", Arc::new(table)).unwrap();
        context
    }

    fn text_list(values: &[&str]) -> ScalarValue {
        let values: Vec<ScalarValue> = values
            .iter()
            .map(|value| ScalarValue::Utf8(Some((*value).to_owned())))
            .collect();
        ScalarValue::List(ScalarValue::new_list_nullable(&values, &DataType::Utf8))
    }

    /// The rows of `sql` with `parameters`, as DataFusion answers it unprepared.
    async fn answered(context: &SessionContext, sql: &str, parameters: Vec<ScalarValue>) -> String {
        let frame = context.sql(sql).await.unwrap();
        let batches = frame
            .with_param_values(parameters)
            .unwrap()
            .collect()
            .await
            .unwrap();
        pretty_format_batches(&batches).unwrap().to_string()
    }

    async fn prepared_answer(
        context: &SessionContext,
        prepared: &PreparedPlan,
        parameters: Vec<ScalarValue>,
    ) -> String {
        let state = context.state();
        let plan = prepared.physical_plan(&state, parameters).await.unwrap();
        let batches = collect(plan, state.task_ctx()).await.unwrap();
        pretty_format_batches(&batches).unwrap().to_string()
    }

    /// Asserts `prepared` answers each binding (each with rows) as `sql` does unprepared.
    async fn assert_answers_as_unprepared(
        context: &SessionContext,
        sql: &str,
        prepared: &PreparedPlan,
        bindings: impl IntoIterator<Item = Vec<ScalarValue>>,
    ) {
        for parameters in bindings {
            let expected = answered(context, sql, parameters.clone()).await;
            assert!(expected.lines().count() > 4, "{expected}");
            assert_eq!(
                prepared_answer(context, prepared, parameters).await,
                expected
            );
        }
    }

    #[tokio::test]
    async fn a_prepared_statement_answers_each_binding_as_the_statement_planned_for_it() {
        let context = context();
        let sql = "SELECT id, ordinal FROM t \
                   WHERE array_has($1, id) AND ordinal IN ($2, $3) ORDER BY id";
        let first = vec![
            text_list(&["a", "b", "c"]),
            ScalarValue::Int32(Some(1)),
            ScalarValue::Int32(Some(3)),
        ];
        let state = context.state();
        let plan = state.create_logical_plan(sql).await.unwrap();
        let prepared = PreparedPlan::new(&state, plan, &first).unwrap();
        assert!(
            prepared.is_optimized(),
            "the list placeholder is typed by the first value"
        );
        // Later bindings, one with values of other types (Int64 for an INT placeholder).
        let later = vec![
            text_list(&["b", "c", "d"]),
            ScalarValue::Int64(Some(4)),
            ScalarValue::Int64(Some(2)),
        ];
        assert_answers_as_unprepared(&context, sql, &prepared, [first, later]).await;
    }

    #[tokio::test]
    async fn a_placeholder_typed_two_ways_binds_each_occurrence_to_its_own_type() {
        let context = context();
        // `$1` meets a Utf8 literal and a Utf8View column (as list_sessions' mode filter does):
        // the planner types it twice.
        let sql = "SELECT id FROM t WHERE ($1 = '' OR id = $1) ORDER BY id";
        let first = vec![ScalarValue::Utf8(Some("c".to_owned()))];
        let state = context.state();
        let plan = state.create_logical_plan(sql).await.unwrap();
        assert!(plan.get_parameter_types().is_err(), "$1 has two types");
        let prepared = PreparedPlan::new(&state, plan, &first).unwrap();
        let bindings = ["c", "", "a"].map(|value| vec![ScalarValue::Utf8(Some(value.to_owned()))]);
        assert_answers_as_unprepared(&context, sql, &prepared, bindings).await;
    }

    #[tokio::test]
    async fn a_value_the_optimized_plan_cannot_take_is_answered_as_datafusion_answers_it() {
        let context = context();
        let sql = "SELECT id FROM t WHERE ordinal = $1 ORDER BY id";
        let state = context.state();
        let plan = state.create_logical_plan(sql).await.unwrap();
        let prepared = PreparedPlan::new(&state, plan, &[ScalarValue::Int32(Some(2))]).unwrap();
        assert!(prepared.is_optimized());
        // A number as text casts to the INT placeholder; text that is no number does not,
        // and fails as the unprepared statement fails.
        let number = vec![ScalarValue::Utf8(Some("3".to_owned()))];
        assert_answers_as_unprepared(&context, sql, &prepared, [number]).await;
        let text = vec![ScalarValue::Utf8(Some("three".to_owned()))];
        let unprepared = outcome(&context, sql, None, text.clone()).await;
        assert!(unprepared.is_err(), "DataFusion rejects the value");
        assert!(prepared.physical_plan(&state, text).await.is_err());
        // A fraction is not bound as the ordinal it would truncate to; a whole one is.
        for (value, rows) in [(2.5, 0), (3.0, 1)] {
            let parameters = vec![ScalarValue::Float64(Some(value))];
            let expected = outcome(&context, sql, None, parameters.clone()).await;
            let got = outcome(&context, sql, Some(&prepared), parameters).await;
            assert_eq!(got, expected, "{value}");
            assert_eq!(expected.map(|rows| rows.len()), Ok(rows), "{value}");
        }
    }

    #[tokio::test]
    async fn text_is_never_bound_to_a_number_placeholder_nor_a_number_to_text() {
        let context = context();
        let state = context.state();
        for (sql, first, later) in [
            (
                "SELECT id FROM t WHERE id = $1",
                ScalarValue::Utf8(Some("b".to_owned())),
                ScalarValue::Int64(Some(5)),
            ),
            (
                "SELECT id FROM t WHERE ordinal = $1",
                ScalarValue::Int32(Some(2)),
                ScalarValue::Utf8(Some("02".to_owned())),
            ),
        ] {
            let plan = state.create_logical_plan(sql).await.unwrap();
            let prepared = PreparedPlan::new(&state, plan, std::slice::from_ref(&first)).unwrap();
            assert!(prepared.is_optimized());
            let expected = outcome(&context, sql, None, vec![later.clone()]).await;
            let got = outcome(&context, sql, Some(&prepared), vec![later]).await;
            assert_eq!(got, expected, "{sql}");
        }
    }

    /// The ids `sql` answers with `parameters`, prepared or not, or `Err` when DataFusion
    /// rejects them (at binding, planning or execution).
    async fn outcome(
        context: &SessionContext,
        sql: &str,
        prepared: Option<&PreparedPlan>,
        parameters: Vec<ScalarValue>,
    ) -> Result<Vec<String>, ()> {
        let state = context.state();
        let plan = match prepared {
            Some(prepared) => prepared.physical_plan(&state, parameters).await,
            None => match context
                .sql(sql)
                .await
                .unwrap()
                .with_param_values(parameters)
            {
                Ok(frame) => frame.create_physical_plan().await,
                Err(error) => Err(error),
            },
        }
        .map_err(|_| ())?;
        let batches = collect(plan, state.task_ctx()).await.map_err(|_| ())?;
        let mut ids = Vec::new();
        for batch in &batches {
            let column = datafusion::arrow::compute::cast(batch.column(0), &DataType::Utf8)
                .map_err(|_| ())?;
            let strings = datafusion::arrow::array::AsArray::as_string::<i32>(&column);
            ids.extend(strings.iter().map(|id| id.unwrap_or_default().to_owned()));
        }
        Ok(ids)
    }

    #[tokio::test]
    async fn a_binding_of_the_wrong_arity_is_an_error_not_a_wrong_answer() {
        let context = context();
        let state = context.state();
        let plan = state
            .create_logical_plan("SELECT id FROM t WHERE id = $1")
            .await
            .unwrap();
        let text = ScalarValue::Utf8(Some("a".to_owned()));
        let prepared = PreparedPlan::new(&state, plan, std::slice::from_ref(&text)).unwrap();
        assert!(
            prepared
                .physical_plan(&state, vec![text.clone(), text])
                .await
                .is_err()
        );
    }
}
