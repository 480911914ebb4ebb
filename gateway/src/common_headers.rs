//! The values of the headers every response carries, a success (`headers::Reply`) or an error
//! (`GatewayError`'s `error_response`): its activity id and its request charge. Apart from
//! `headers`, which reads requests and fails with `GatewayError`, so that the error can use them.

/// A random id in the GUID form the SDKs log with each request.
pub fn activity_id() -> String {
    let b: [u8; 16] = rand::random();
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
        u16::from_be_bytes([b[4], b[5]]),
        u16::from_be_bytes([b[6], b[7]]),
        u16::from_be_bytes([b[8], b[9]]),
        u64::from_be_bytes([0, 0, b[10], b[11], b[12], b[13], b[14], b[15]])
    )
}

/// RU as the service writes them: at most two decimals, no trailing zeros.
pub fn format_charge(ru: f64) -> String {
    let r = (ru * 100.0).round() / 100.0;
    let mut s = format!("{r:.2}");
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
    s
}
