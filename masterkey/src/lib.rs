//! Cosmos DB's master-key authorization, the one place it is computed.
//!
//! A client signs `verb\nresourceType\nresourceLink\nx-ms-date\ndate\n` (all lower case but the
//! link) with HMAC-SHA256 under the account key and sends `type=master&ver=1.0&sig=BASE64`,
//! URL-encoded, in `Authorization` ([Access control in the REST API]). The gateway
//! (`gateway::auth`) signs the same text to check a request; the `cosmos` client's REST calls
//! sign theirs with it. Both sides using one function is what keeps them from drifting apart.
//!
//! [Access control in the REST API]:
//!     https://learn.microsoft.com/rest/api/cosmos-db/access-control-on-cosmosdb-resources

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The emulator's documented key: the default, so the SDKs' emulator samples work as pasted.
pub const EMULATOR_KEY: &str =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

/// Why a text is not an account key.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeyError {
    #[error("the account key is not base64: {0}")]
    NotBase64(String),
    #[error("the account key is shorter than 16 bytes")]
    TooShort,
}

/// An account key, decoded. Its `Debug` never shows the key.
#[derive(Clone)]
pub struct MasterKey {
    bytes: Vec<u8>,
    well_known: bool,
}

impl std::fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MasterKey")
            .field("well_known", &self.well_known)
            .finish()
    }
}

impl MasterKey {
    pub fn emulator() -> Self {
        Self::from_base64(EMULATOR_KEY).expect("the emulator key is base64")
    }

    pub fn from_base64(key: &str) -> Result<Self, KeyError> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(key.trim())
            .map_err(|e| KeyError::NotBase64(e.to_string()))?;
        if bytes.len() < 16 {
            return Err(KeyError::TooShort);
        }
        let well_known = bytes
            == base64::engine::general_purpose::STANDARD
                .decode(EMULATOR_KEY)
                .expect("base64");
        Ok(MasterKey { bytes, well_known })
    }

    /// The emulator's published key: anyone can sign with it.
    pub fn is_well_known(&self) -> bool {
        self.well_known
    }

    /// The signature of `payload`, base64 (what a client puts after `sig=`).
    pub fn sign(&self, payload: &str) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.bytes).expect("HMAC takes any key");
        mac.update(payload.as_bytes());
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    }

    /// The `Authorization` header value a client sends for a request dated `date` (sent as
    /// `x-ms-date`, so the `Date` slot of the payload is empty, as the SDKs sign).
    pub fn authorization(&self, verb: &str, resource_type: &str, link: &str, date: &str) -> String {
        let sig = self.sign(&payload(verb, resource_type, link, date, ""));
        let raw = format!("type=master&ver=1.0&sig={sig}");
        percent_encoding::utf8_percent_encode(&raw, percent_encoding::NON_ALPHANUMERIC).to_string()
    }
}

/// The text a client signs.
pub fn payload(verb: &str, resource_type: &str, link: &str, x_date: &str, date: &str) -> String {
    format!(
        "{}\n{}\n{}\n{}\n{}\n",
        verb.to_lowercase(),
        resource_type.to_lowercase(),
        link,
        x_date.to_lowercase(),
        date.to_lowercase()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_as_the_python_sdk_signs() {
        // What azure-cosmos 4.17.1's auth.__get_authorization_token_using_master_key gives for
        // ('GET', 'dbs/db1', 'dbs', {'x-ms-date': …}, EMULATOR_KEY).
        let key = MasterKey::emulator();
        let p = payload("GET", "dbs", "dbs/db1", "Tue, 24 Nov 2026 02:30:00 GMT", "");
        assert_eq!(p, "get\ndbs\ndbs/db1\ntue, 24 nov 2026 02:30:00 gmt\n\n");
        assert_eq!(key.sign(&p), "FENV689H6FxxT59c5OxE1K3tsYXVATIxWZmlRIQF/V8=");
        let header = key.authorization("GET", "dbs", "dbs/db1", "Tue, 24 Nov 2026 02:30:00 GMT");
        assert!(
            header.starts_with("type%3Dmaster%26ver%3D1%2E0%26sig%3D"),
            "{header}"
        );
    }

    #[test]
    fn refuses_what_is_not_a_key() {
        assert!(matches!(
            MasterKey::from_base64("not base64!"),
            Err(KeyError::NotBase64(_))
        ));
        assert_eq!(
            MasterKey::from_base64("c2hvcnQ=").unwrap_err(),
            KeyError::TooShort
        );
        assert!(MasterKey::emulator().is_well_known());
        let other = MasterKey::from_base64("b3RoZXIga2V5IG9mIGF0IGxlYXN0IDE2IGJ5dGVz").unwrap();
        assert!(!other.is_well_known());
        assert!(!format!("{other:?}").contains("b3Ro"));
    }
}
