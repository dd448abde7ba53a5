//! The tables' DDL (`tables/*.sql`, the single declaration of each schema) adapted to the
//! published layout: a `machine` partition column in front of the local partitions.

/// `ddl` with a `machine VARCHAR NOT NULL` column, partitioned by it first.
pub fn with_machine_partition(ddl: &str) -> String {
    let mut text = String::with_capacity(ddl.len() + 128);
    let mut column_added = false;
    for line in ddl.lines() {
        text.push_str(line);
        text.push('\n');
        if !column_added
            && line.trim_start().starts_with("CREATE EXTERNAL TABLE")
            && line.trim_end().ends_with('(')
        {
            text.push_str("  machine VARCHAR NOT NULL, -- partition: the machine that published\n");
            column_added = true;
        }
    }
    if text.contains("PARTITIONED BY (") {
        text.replacen("PARTITIONED BY (", "PARTITIONED BY (machine, ", 1)
    } else {
        text.replacen(
            "STORED AS PARQUET",
            "STORED AS PARQUET\nPARTITIONED BY (machine)",
            1,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::TABLE_DDL;

    #[test]
    fn every_table_gets_the_machine_partition_first() {
        for (name, ddl) in TABLE_DDL {
            let adapted = with_machine_partition(ddl);
            assert!(
                adapted.contains("  machine VARCHAR NOT NULL, --"),
                "{name}: {adapted}"
            );
            assert!(
                adapted.contains("PARTITIONED BY (machine)")
                    || adapted.contains("PARTITIONED BY (machine, source, month)"),
                "{name}: {adapted}"
            );
            assert!(adapted.contains("LOCATION '{location}'"), "{name}");
        }
    }
}
