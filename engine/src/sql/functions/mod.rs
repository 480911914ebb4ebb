//! Built-in functions, one file per family. Arguments of the wrong type give `undefined`, as in
//! Cosmos DB; an unknown name or a wrong number of arguments is an error at parse time.

mod array;
mod date;
pub mod fulltext;
pub mod spatial;

pub use date::current;
pub(crate) use string::regex_match;
mod args;
mod math;
mod string;
mod types;

use super::value::Val;

#[derive(Clone, Copy)]
enum Family {
    Types,
    Strings,
    Maths,
    Arrays,
    Dates,
    Spatials,
    FullText,
    Aggregates,
}

use Family::*;

/// (name, min args, max args (`usize::MAX` = variadic), family)
type Signature = (&'static str, usize, usize, Family);

const SIGNATURES: &[Signature] = &[
    ("IS_DEFINED", 1, 1, Types),
    ("IS_NULL", 1, 1, Types),
    ("IS_NUMBER", 1, 1, Types),
    ("IS_FINITE_NUMBER", 1, 1, Types),
    ("IS_INTEGER", 1, 1, Types),
    ("IS_STRING", 1, 1, Types),
    ("IS_BOOL", 1, 1, Types),
    ("IS_ARRAY", 1, 1, Types),
    ("IS_OBJECT", 1, 1, Types),
    ("IS_PRIMITIVE", 1, 1, Types),
    ("IIF", 3, 3, Types),
    ("CHOOSE", 2, usize::MAX, Types),
    ("TOSTRING", 1, 1, Types),
    ("STRINGTOARRAY", 1, 1, Types),
    ("STRINGTOBOOLEAN", 1, 1, Types),
    ("STRINGTONULL", 1, 1, Types),
    ("STRINGTONUMBER", 1, 1, Types),
    ("STRINGTOOBJECT", 1, 1, Types),
    ("OBJECTTOARRAY", 1, 3, Types),
    ("CONCAT", 2, usize::MAX, Strings),
    ("CONTAINS", 2, 3, Strings),
    ("STARTSWITH", 2, 3, Strings),
    ("ENDSWITH", 2, 3, Strings),
    ("LOWER", 1, 1, Strings),
    ("UPPER", 1, 1, Strings),
    ("LENGTH", 1, 1, Strings),
    ("SUBSTRING", 3, 3, Strings),
    ("LEFT", 2, 2, Strings),
    ("RIGHT", 2, 2, Strings),
    ("LTRIM", 1, 2, Strings),
    ("RTRIM", 1, 2, Strings),
    ("TRIM", 1, 2, Strings),
    ("REPLACE", 3, 3, Strings),
    ("REPLICATE", 2, 2, Strings),
    ("REVERSE", 1, 1, Strings),
    ("INDEX_OF", 2, 3, Strings),
    ("LASTINDEXOF", 2, 3, Strings),
    ("STRINGEQUALS", 2, 3, Strings),
    ("REGEXMATCH", 2, 3, Strings),
    ("STRINGJOIN", 2, 2, Strings),
    ("CONTAINS_ALL_CI", 2, usize::MAX, Strings),
    ("CONTAINS_ALL_CS", 2, usize::MAX, Strings),
    ("CONTAINS_ANY_CI", 2, usize::MAX, Strings),
    ("CONTAINS_ANY_CS", 2, usize::MAX, Strings),
    ("SUBSTRINGAFTER", 2, 2, Strings),
    ("SUBSTRINGBEFORE", 2, 2, Strings),
    ("LASTSUBSTRINGAFTER", 2, 2, Strings),
    ("LASTSUBSTRINGBEFORE", 2, 2, Strings),
    ("STRINGSPLIT", 2, 2, Strings),
    ("ABS", 1, 1, Maths),
    ("CEILING", 1, 1, Maths),
    ("FLOOR", 1, 1, Maths),
    ("ROUND", 1, 1, Maths),
    ("TRUNC", 1, 1, Maths),
    ("POWER", 2, 2, Maths),
    ("SQRT", 1, 1, Maths),
    ("LOG", 1, 2, Maths),
    ("LOG10", 1, 1, Maths),
    ("EXP", 1, 1, Maths),
    ("SIGN", 1, 1, Maths),
    ("PI", 0, 0, Maths),
    ("SIN", 1, 1, Maths),
    ("COS", 1, 1, Maths),
    ("TAN", 1, 1, Maths),
    ("ASIN", 1, 1, Maths),
    ("ACOS", 1, 1, Maths),
    ("ATAN", 1, 1, Maths),
    ("ATN2", 2, 2, Maths),
    ("COT", 1, 1, Maths),
    ("DEGREES", 1, 1, Maths),
    ("RADIANS", 1, 1, Maths),
    ("SQUARE", 1, 1, Maths),
    ("NUMBERBIN", 1, 2, Maths),
    ("RAND", 0, 0, Maths),
    ("INTADD", 2, 2, Maths),
    ("INTSUB", 2, 2, Maths),
    ("INTMUL", 2, 2, Maths),
    ("INTDIV", 2, 2, Maths),
    ("INTMOD", 2, 2, Maths),
    ("INTBITAND", 2, 2, Maths),
    ("INTBITOR", 2, 2, Maths),
    ("INTBITXOR", 2, 2, Maths),
    ("INTBITNOT", 1, 1, Maths),
    ("INTBITLEFTSHIFT", 2, 2, Maths),
    ("INTBITRIGHTSHIFT", 2, 2, Maths),
    ("ARRAY_CONTAINS", 2, 3, Arrays),
    ("ARRAY_CONTAINS_ANY", 2, usize::MAX, Arrays),
    ("ARRAY_CONTAINS_ALL", 2, usize::MAX, Arrays),
    ("ARRAY_LENGTH", 1, 1, Arrays),
    ("ARRAY_SLICE", 2, 3, Arrays),
    ("ARRAY_CONCAT", 2, usize::MAX, Arrays),
    ("SETINTERSECT", 2, 2, Arrays),
    ("SETUNION", 2, 2, Arrays),
    ("SETDIFFERENCE", 2, 2, Arrays),
    ("SETEQUAL", 2, 2, Arrays),
    ("ARRAY_SUM", 1, 1, Arrays),
    ("ARRAY_AVG", 1, 1, Arrays),
    ("ARRAY_MIN", 1, 1, Arrays),
    ("ARRAY_MAX", 1, 1, Arrays),
    ("ARRAY_MEDIAN", 1, 1, Arrays),
    ("VECTORDISTANCE", 2, 4, Arrays),
    ("GETCURRENTDATETIME", 0, 0, Dates),
    ("GETCURRENTTIMESTAMP", 0, 0, Dates),
    ("GETCURRENTTICKS", 0, 0, Dates),
    ("GETCURRENTDATETIMESTATIC", 0, 0, Dates),
    ("GETCURRENTTIMESTAMPSTATIC", 0, 0, Dates),
    ("GETCURRENTTICKSSTATIC", 0, 0, Dates),
    ("DATETIMEBIN", 2, 4, Dates),
    ("DATETIMEFROMPARTS", 3, 7, Dates),
    ("DATETIMETOTICKS", 1, 1, Dates),
    ("DATETIMETOTIMESTAMP", 1, 1, Dates),
    ("TICKSTODATETIME", 1, 1, Dates),
    ("TIMESTAMPTODATETIME", 1, 1, Dates),
    ("YEAR", 1, 1, Dates),
    ("MONTH", 1, 1, Dates),
    ("DAY", 1, 1, Dates),
    ("IS_DATETIME", 1, 1, Dates),
    ("DATETIMEFORMAT", 2, 2, Dates),
    ("DATETIMEADD", 3, 3, Dates),
    ("DATETIMEPART", 2, 2, Dates),
    ("DATETIMEDIFF", 3, 3, Dates),
    ("AGO", 2, 2, Dates),
    ("NOW", 0, 2, Dates),
    ("ST_DISTANCE", 2, 2, Spatials),
    ("ST_WITHIN", 2, 2, Spatials),
    ("ST_INTERSECTS", 2, 2, Spatials),
    ("ST_AREA", 1, 1, Spatials),
    ("ST_ISVALID", 1, 1, Spatials),
    ("ST_ISVALIDDETAILED", 1, 1, Spatials),
    ("FULLTEXTCONTAINS", 2, 2, FullText),
    ("FULLTEXTCONTAINSALL", 2, usize::MAX, FullText),
    ("FULLTEXTCONTAINSANY", 2, usize::MAX, FullText),
    ("FULLTEXTSCORE", 2, usize::MAX, FullText),
    ("RRF", 1, usize::MAX, FullText),
    ("DOCUMENTID", 1, 1, Types),
    ("COUNT", 1, 1, Aggregates),
    ("SUM", 1, 1, Aggregates),
    ("AVG", 1, 1, Aggregates),
    ("MIN", 1, 1, Aggregates),
    ("MAX", 1, 1, Aggregates),
];

/// Every function name the language knows (upper case).
pub fn names() -> impl Iterator<Item = &'static str> {
    SIGNATURES.iter().map(|s| s.0)
}

/// Scoring functions: only `ORDER BY RANK` evaluates them (`VECTORDISTANCE` is also scalar).
pub fn is_rank_only(name: &str) -> bool {
    matches!(name, "FULLTEXTSCORE" | "RRF")
}

pub fn is_aggregate(name: &str) -> bool {
    matches!(name, "COUNT" | "SUM" | "AVG" | "MIN" | "MAX")
}

/// A function's signature, found by name (upper case) in a map built on first use: every call of
/// every row looks its function up.
fn signature(name: &str) -> Option<&'static Signature> {
    static BY_NAME: std::sync::OnceLock<std::collections::HashMap<&str, &Signature>> =
        std::sync::OnceLock::new();
    BY_NAME
        .get_or_init(|| SIGNATURES.iter().map(|s| (s.0, s)).collect())
        .get(name)
        .copied()
}

/// Validates a call at parse time.
pub fn check_call(name: &str, argc: usize) -> Result<(), String> {
    let (_, min, max, _) = signature(name).ok_or_else(|| format!("unknown function {name}"))?;
    if argc < *min || argc > *max {
        let want = if min == max {
            format!("{min}")
        } else if *max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(format!("{name} takes {want} arguments, got {argc}"));
    }
    Ok(())
}

/// Calls a scalar function (aggregates are handled by the executor).
pub fn call(name: &str, a: &[Val]) -> Val {
    match signature(name)?.3 {
        Types => types::call(name, a),
        Strings => string::call(name, a),
        Maths => math::call(name, a),
        Arrays => array::call(name, a),
        Dates => date::call(name, a),
        Spatials => spatial::call(name, a),
        FullText => fulltext::call(name, a),
        Aggregates => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn c(name: &str, args: &[Value]) -> Val {
        call(name, &args.iter().cloned().map(Some).collect::<Vec<_>>())
    }

    #[test]
    fn a_few_functions() {
        assert_eq!(
            c("STARTSWITH", &[json!("Abc"), json!("ab"), json!(true)]),
            Some(json!(true))
        );
        assert_eq!(c("STARTSWITH", &[json!(1), json!("ab")]), None);
        assert_eq!(
            c("SUBSTRING", &[json!("abc"), json!(1), json!(1)]),
            Some(json!("b"))
        );
        assert_eq!(c("ROUND", &[json!(-2.5)]), Some(json!(-3)));
        assert_eq!(
            c(
                "ARRAY_CONTAINS",
                &[json!([{"a": 1, "b": 2}]), json!({"a": 1}), json!(true)]
            ),
            Some(json!(true))
        );
        assert_eq!(
            c(
                "ARRAY_CONTAINS",
                &[json!([{"a": 1, "b": 2}]), json!({"a": 1})]
            ),
            Some(json!(false))
        );
        assert_eq!(
            c("ARRAY_SLICE", &[json!([1, 2, 3, 4]), json!(-2), json!(1)]),
            Some(json!([3]))
        );
        assert_eq!(
            c(
                "DATETIMEADD",
                &[json!("mm"), json!(1), json!("2020-01-31T00:00:00.0000000Z")]
            ),
            Some(json!("2020-02-29T00:00:00.0000000Z"))
        );
        assert_eq!(
            c(
                "DATETIMEPART",
                &[json!("yyyy"), json!("2016-05-29T08:30:00.1301617Z")]
            ),
            Some(json!(2016))
        );
        assert_eq!(
            c(
                "DATETIMEDIFF",
                &[
                    json!("day"),
                    json!("2020-01-01T23:00:00Z"),
                    json!("2020-01-02T01:00:00Z")
                ]
            ),
            Some(json!(1))
        );
        assert_eq!(
            c("REGEXMATCH", &[json!("Hello"), json!("^h"), json!("i")]),
            Some(json!(true))
        );
        assert!(check_call("LOWER", 2).is_err());
        assert!(check_call("NOPE", 1).is_err());
        let unique: std::collections::HashSet<_> = names().collect();
        assert_eq!(
            unique.len(),
            SIGNATURES.len(),
            "a function is declared twice"
        );
    }
}
