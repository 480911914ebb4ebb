//! Mathematical functions (doubles, where NaN and the infinities are numbers) and integer math
//! (`Int*`: 64-bit two's complement, wrapping on overflow as C++ does; undefined unless every
//! argument is an integer).

use serde_json::Value;

use super::args::int64;
use crate::sql::value::{number, numeric, Val};

pub(super) fn call(name: &str, a: &[Val]) -> Val {
    match name {
        "PI" => numeric(std::f64::consts::PI),
        "RAND" => numeric(rand::random::<f64>()),
        "POWER" => numeric(number(&a[0])?.powf(number(&a[1])?)),
        // ATN2(y, x): the angle of the point (x, y).
        "ATN2" => numeric(number(&a[0])?.atan2(number(&a[1])?)),
        // With a base, through base-10 logarithms: LOG(2, 10) is log10(2) to the last digit
        // (0.3010299956639812), and LOG(1000, 10) is 3.
        "LOG" => {
            let x = number(&a[0])?;
            match a.get(1) {
                Some(base) => numeric(x.log10() / number(base)?.log10()),
                None => numeric(x.ln()),
            }
        }
        // The largest multiple of the bin size not above the value; a zero bin is undefined.
        "NUMBERBIN" => {
            let x = number(&a[0])?;
            let size = a.get(1).map_or(Some(1.0), number)?;
            if size == 0.0 {
                return None;
            }
            numeric((x / size).floor() * size)
        }
        "ABS" | "CEILING" | "FLOOR" | "ROUND" | "TRUNC" | "SQRT" | "LOG10" | "EXP" | "SIGN"
        | "SIN" | "COS" | "TAN" | "ASIN" | "ACOS" | "ATAN" | "COT" | "DEGREES" | "RADIANS"
        | "SQUARE" => {
            let x = number(&a[0])?;
            numeric(match name {
                "ABS" => x.abs(),
                "CEILING" => x.ceil(),
                "FLOOR" => x.floor(),
                "ROUND" => x.round(),
                "TRUNC" => x.trunc(),
                "SQRT" => x.sqrt(),
                "LOG10" => x.log10(),
                "EXP" => x.exp(),
                "SIGN" => {
                    if x > 0.0 {
                        1.0
                    } else if x < 0.0 {
                        -1.0
                    } else {
                        0.0
                    }
                }
                "SIN" => x.sin(),
                "COS" => x.cos(),
                "TAN" => x.tan(),
                "ASIN" => x.asin(),
                "ACOS" => x.acos(),
                "ATAN" => x.atan(),
                "COT" => 1.0 / x.tan(),
                "DEGREES" => x.to_degrees(),
                "RADIANS" => x.to_radians(),
                _ => x * x,
            })
        }
        "INTBITNOT" => Some(Value::from(!int64(&a[0])?)),
        "INTADD" | "INTSUB" | "INTMUL" | "INTDIV" | "INTMOD" | "INTBITAND" | "INTBITOR"
        | "INTBITXOR" | "INTBITLEFTSHIFT" | "INTBITRIGHTSHIFT" => {
            let (x, y) = (int64(&a[0])?, int64(&a[1])?);
            Some(Value::from(match name {
                "INTADD" => x.wrapping_add(y),
                "INTSUB" => x.wrapping_sub(y),
                "INTMUL" => x.wrapping_mul(y),
                // Division by zero is undefined; the remainder takes the dividend's sign.
                "INTDIV" => x.checked_div(y).or((y == -1).then(|| x.wrapping_neg()))?,
                "INTMOD" => x.checked_rem(y).or((y == -1).then_some(0))?,
                "INTBITAND" => x & y,
                "INTBITOR" => x | y,
                "INTBITXOR" => x ^ y,
                // Shift counts are taken modulo 64, as the x86-64 instructions do.
                "INTBITLEFTSHIFT" => x.wrapping_shl(y as u32),
                _ => x.wrapping_shr(y as u32),
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn c(name: &str, args: &[Value]) -> Val {
        call(name, &args.iter().cloned().map(Some).collect::<Vec<_>>())
    }

    #[test]
    fn integer_math_wraps_and_refuses_fractions() {
        assert_eq!(
            c("INTADD", &[json!(i64::MAX), json!(1)]),
            Some(json!(i64::MIN))
        );
        assert_eq!(
            c("INTDIV", &[json!(i64::MIN), json!(-1)]),
            Some(json!(i64::MIN))
        );
        assert_eq!(c("INTMOD", &[json!(i64::MIN), json!(-1)]), Some(json!(0)));
        assert_eq!(c("INTMOD", &[json!(-12), json!(5)]), Some(json!(-2)));
        assert_eq!(c("INTDIV", &[json!(1), json!(0)]), None);
        assert_eq!(c("INTADD", &[json!(1), json!(0.5)]), None);
        assert_eq!(
            c("INTBITRIGHTSHIFT", &[json!(-16), json!(2)]),
            Some(json!(-4))
        );
        assert_eq!(
            c("INTBITLEFTSHIFT", &[json!(1), json!(63)]),
            Some(json!(i64::MIN))
        );
        assert_eq!(
            c("ATN2", &[json!(35.175643), json!(129.44)]),
            Some(json!(0.265344532064832))
        );
        assert_eq!(
            c("LOG", &[json!(2), json!(10)]),
            Some(json!(std::f64::consts::LOG10_2))
        );
        assert_eq!(
            c("NUMBERBIN", &[json!(37.752), json!(0.1)]),
            Some(json!(37.7))
        );
        assert_eq!(c("NUMBERBIN", &[json!(37.752), json!(0)]), None);
    }
}
